"""Larkspur Health's rules: booking and changing visits under the clinic's policy, messages,
refills, payments, insurance cards, forms and proxy access.

Every time-dependent rule is decided against the clinic's fixed "now" (`Clinic.now`, today at
09:00), so the same session answers the same way whenever it is played. Refusals are `SiteError`s
whose message a patient can act on.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from humantrace.environments.portal.models import (
    Appointment,
    Bill,
    Form,
    InsuranceCard,
    Message,
    Payment,
    PortalState,
    Prescription,
    Provider,
    Proxy,
    RefillRequest,
    Slot,
    Thread,
)
from humantrace.environments.portal.seed import display_name, money
from humantrace.environments.sitekit import SiteError, find_or_404

CHANGE_CUTOFF_HOURS = 24
BOOKING_HORIZON_DAYS = 60
MIN_PAYMENT_CENTS = 500
ACTIVE = ("scheduled", "requested")
TEAMS = (
    "Primary Care",
    "Cardiology",
    "Dermatology",
    "Endocrinology",
    "Orthopedics",
    "Women's Health",
    "Behavioral Health",
    "Eye Care",
    "Billing Office",
)

# The questions of each kind of form: (key, label, kind, options, required).
QUESTIONS: dict[str, list[tuple[str, str, str, tuple[str, ...], bool]]] = {
    "questionnaire": [
        (
            "overall_health",
            "How would you rate your health overall?",
            "choice",
            ("Excellent", "Good", "Fair", "Poor"),
            True,
        ),
        ("tobacco", "Do you use tobacco or nicotine?", "choice", ("Never", "Former", "Current"), True),
        ("allergies", "Allergies to medicines (write None if you have none)", "text", (), True),
        ("concerns", "Anything you'd like to discuss at your visit?", "long", (), False),
        ("signature", "Signature: type your full name", "text", (), True),
    ],
    "consent": [
        ("agree", "I have read and agree", "choice", ("Yes",), True),
        ("signature", "Signature: type your full name", "text", (), True),
    ],
}


def clinic_now(state: PortalState) -> datetime:
    return parse(state.clinic[0].now)


def parse(moment: str) -> datetime:
    return datetime.fromisoformat(moment.replace("Z", "+00:00"))


def today(state: PortalState) -> date:
    return date.fromisoformat(state.clinic[0].today)


def provider(state: PortalState, provider_id: str) -> Provider:
    found: Provider = find_or_404(state, "providers", provider_id, "We couldn't find that clinician.")
    return found


def slot_taken(state: PortalState, slot: Slot) -> bool:
    return any(a.slot_id == slot.id and a.status in ACTIVE for a in state.appointments)


def open_slots(state: PortalState, provider_id: str) -> list[Slot]:
    """The clinician's free times, without those at which the patient already has a visit."""
    now = clinic_now(state)
    busy = {a.start for a in state.appointments if a.status in ACTIVE}
    return sorted(
        (
            s
            for s in state.slots
            if s.provider_id == provider_id
            and parse(s.start) > now
            and s.start not in busy
            and not slot_taken(state, s)
        ),
        key=lambda s: s.start,
    )


def changeable(state: PortalState, appointment: Appointment) -> bool:
    """Online changes close 24 hours before the visit."""
    return appointment.status in ACTIVE and parse(appointment.start) - clinic_now(state) >= timedelta(
        hours=CHANGE_CUTOFF_HOURS
    )


def _cutoff_refusal(state: PortalState, appointment: Appointment, verb: str) -> SiteError:
    return SiteError(
        409,
        f"Visits can't be {verb} online less than {CHANGE_CUTOFF_HOURS} hours before they start. "
        f"Please call the clinic at {state.clinic[0].phone}.",
    )


def _free_slot(state: PortalState, slot_id: str) -> Slot:
    slot: Slot = find_or_404(state, "slots", slot_id, "That time is no longer offered. Please pick another.")
    if parse(slot.start) <= clinic_now(state):
        raise SiteError(409, "That time has already passed. Please pick another.")
    if slot_taken(state, slot):
        raise SiteError(409, "Someone just booked that time. Please pick another.")
    if any(a.start == slot.start and a.status in ACTIVE for a in state.appointments):
        raise SiteError(409, "You already have a visit at that time.")
    if parse(slot.start) - clinic_now(state) > timedelta(days=BOOKING_HORIZON_DAYS):
        raise SiteError(422, f"Visits can be booked up to {BOOKING_HORIZON_DAYS} days ahead.")
    return slot


def book(state: PortalState, *, slot_id: str, reason: str, new_id: str, now: str) -> Appointment:
    reason = reason.strip()
    if not reason:
        raise SiteError(422, "Tell us the reason for your visit.")
    slot = _free_slot(state, slot_id)
    prov = provider(state, slot.provider_id)
    made = Appointment(
        id=new_id,
        provider_id=prov.id,
        start=slot.start,
        minutes=slot.minutes,
        visit_type=slot.visit_type,
        reason=reason,
        status="requested" if prov.needs_referral else "scheduled",
        location=_location(prov, slot.visit_type),
        slot_id=slot.id,
        booked_at=now,
    )
    state.appointments.append(made)
    return made


def _location(prov: Provider, visit_type: str) -> str:
    return "Video visit (a link arrives 15 minutes before)" if visit_type == "video" else prov.location


def appointment(state: PortalState, appointment_id: str) -> Appointment:
    found: Appointment = find_or_404(state, "appointments", appointment_id, "We couldn't find that visit.")
    return found


def reschedule(state: PortalState, *, appointment_id: str, slot_id: str) -> Appointment:
    visit = appointment(state, appointment_id)
    if visit.status not in ACTIVE:
        raise SiteError(409, f"This visit is {visit.status} and can't be rescheduled.")
    if not changeable(state, visit):
        raise _cutoff_refusal(state, visit, "rescheduled")
    slot = _free_slot(state, slot_id)
    if slot.provider_id != visit.provider_id:
        raise SiteError(422, "To see another clinician, book a new visit and cancel this one.")
    visit.start = slot.start
    visit.minutes = slot.minutes
    visit.visit_type = slot.visit_type
    visit.slot_id = slot.id
    visit.location = _location(provider(state, visit.provider_id), slot.visit_type)
    return visit


def cancel(state: PortalState, *, appointment_id: str, reason: str, now: str) -> Appointment:
    visit = appointment(state, appointment_id)
    if visit.status not in ACTIVE:
        raise SiteError(409, f"This visit is already {visit.status}.")
    if not changeable(state, visit):
        raise _cutoff_refusal(state, visit, "cancelled")
    if not reason.strip():
        raise SiteError(422, "Choose a reason for cancelling.")
    visit.status = "cancelled"
    visit.cancelled_at = now
    visit.cancel_reason = reason.strip()
    return visit


def new_thread(
    state: PortalState, *, team: str, subject: str, body: str, category: str, ids: tuple[str, str], now: str
) -> Thread:
    if team not in TEAMS:
        raise SiteError(422, "Choose who should receive your message.")
    if not subject.strip():
        raise SiteError(422, "Add a subject.")
    if not body.strip():
        raise SiteError(422, "Write your message before sending.")
    thread = Thread(
        id=ids[0],
        subject=subject.strip(),
        team=team,
        category=category,
        status="open",
        created_at=now,
        updated_at=now,
    )
    state.threads.append(thread)
    state.messages.append(
        Message(
            id=ids[1],
            thread_id=thread.id,
            author=state.profile[0].full_name,
            from_patient=True,
            body=body.strip(),
            sent_at=now,
        )
    )
    return thread


def reply(state: PortalState, *, thread_id: str, body: str, new_id: str, now: str) -> Message:
    thread: Thread = find_or_404(state, "threads", thread_id, "We couldn't find that conversation.")
    if thread.status == "closed":
        raise SiteError(409, "This conversation is closed. Start a new message instead.")
    if not body.strip():
        raise SiteError(422, "Write your message before sending.")
    made = Message(
        id=new_id,
        thread_id=thread.id,
        author=state.profile[0].full_name,
        from_patient=True,
        body=body.strip(),
        sent_at=now,
    )
    state.messages.append(made)
    thread.updated_at = now
    return made


def prescription(state: PortalState, prescription_id: str) -> Prescription:
    found: Prescription = find_or_404(
        state, "prescriptions", prescription_id, "We couldn't find that prescription."
    )
    return found


def pending_refill(state: PortalState, prescription_id: str) -> RefillRequest | None:
    return next(
        (r for r in state.refill_requests if r.prescription_id == prescription_id and r.status == "pending"),
        None,
    )


def request_refill(
    state: PortalState, *, prescription_id: str, pharmacy_id: str, note: str, new_id: str, now: str
) -> RefillRequest:
    rx = prescription(state, prescription_id)
    find_or_404(state, "pharmacies", pharmacy_id, "Choose a pharmacy from the list.")
    if rx.status != "active":
        raise SiteError(409, f"{rx.drug} is {rx.status}: ask your care team for a new prescription.")
    if rx.refills_left <= 0:
        raise SiteError(
            409, f"{rx.drug} has no refills left. Send your care team a message to ask for a renewal."
        )
    if pending_refill(state, rx.id) is not None:
        raise SiteError(409, f"A refill of {rx.drug} is already waiting for your care team's review.")
    made = RefillRequest(
        id=new_id,
        prescription_id=rx.id,
        pharmacy_id=pharmacy_id,
        status="pending",
        note=note.strip(),
        requested_at=now,
    )
    state.refill_requests.append(made)
    return made


def luhn_ok(number: str) -> bool:
    digits = [int(c) for c in number][::-1]
    total = sum(d if i % 2 == 0 else (d * 2 - 9 if d * 2 > 9 else d * 2) for i, d in enumerate(digits))
    return total % 10 == 0


def pay(
    state: PortalState,
    *,
    bill_id: str,
    amount_cents: int,
    card_id: str | None,
    card_number: str | None,
    new_id: str,
    now: str,
) -> Payment:
    bill: Bill = find_or_404(state, "bills", bill_id, "We couldn't find that statement.")
    if bill.status == "paid" or bill.balance_cents == 0:
        raise SiteError(409, f"Statement {bill.number} is already paid in full.")
    if bill.status == "in_review":
        raise SiteError(
            409,
            f"Statement {bill.number} is being reviewed with your insurance. You can pay once it's updated.",
        )
    if amount_cents > bill.balance_cents:
        raise SiteError(
            422, f"You owe {money(bill.balance_cents)} on this statement; enter that amount or less."
        )
    if amount_cents < MIN_PAYMENT_CENTS and amount_cents != bill.balance_cents:
        raise SiteError(422, f"The smallest payment is {money(MIN_PAYMENT_CENTS)}.")
    if card_id:
        card = find_or_404(state, "cards", card_id, "Choose a card from the list.")
        method = f"{card.brand} ending {card.last4}"
    else:
        digits = re.sub(r"[\s-]", "", card_number or "")
        if not re.fullmatch(r"\d{13,19}", digits) or not luhn_ok(digits):
            raise SiteError(422, "Check the card number: it doesn't look like a valid card.")
        method = f"Card ending {digits[-4:]}"
    bill.balance_cents -= amount_cents
    if bill.balance_cents == 0:
        bill.status = "paid"
    made = Payment(
        id=new_id,
        bill_id=bill.id,
        amount_cents=amount_cents,
        method=method,
        paid_at=now,
        confirmation="LH-" + new_id.rsplit("-", 1)[-1].rjust(6, "7"),
    )
    state.payments.append(made)
    return made


def add_insurance(
    state: PortalState,
    *,
    insurer: str,
    plan: str,
    member_id: str,
    group_number: str,
    subscriber: str,
    coverage: str,
    effective_from: str,
    new_id: str,
    now: str,
) -> InsuranceCard:
    member_id = member_id.strip().upper()
    if not insurer.strip():
        raise SiteError(422, "Enter the name of the insurance company.")
    if not re.fullmatch(r"[A-Z0-9-]{6,20}", member_id):
        raise SiteError(422, "The member ID is 6 to 20 letters and numbers, as printed on the card.")
    if any(c.member_id == member_id and c.status == "active" for c in state.insurance):
        raise SiteError(409, "This card is already on file.")
    if coverage == "primary":
        for card in state.insurance:
            if card.coverage == "primary" and card.status == "active":
                card.coverage = "secondary"
    made = InsuranceCard(
        id=new_id,
        insurer=insurer.strip(),
        plan=plan.strip(),
        member_id=member_id,
        group_number=group_number.strip(),
        subscriber=subscriber.strip() or state.profile[0].full_name,
        coverage=coverage,
        status="active",
        effective_from=effective_from,
        added_at=now,
    )
    state.insurance.append(made)
    return made


def insurance_card(state: PortalState, card_id: str) -> InsuranceCard:
    found: InsuranceCard = find_or_404(state, "insurance", card_id, "We couldn't find that insurance card.")
    return found


def make_primary(state: PortalState, card_id: str) -> InsuranceCard:
    card = insurance_card(state, card_id)
    if card.status != "active":
        raise SiteError(409, "An inactive card can't be your primary insurance.")
    for other in state.insurance:
        if other.id != card.id and other.coverage == "primary" and other.status == "active":
            other.coverage = "secondary"
    card.coverage = "primary"
    return card


def remove_insurance(state: PortalState, card_id: str) -> InsuranceCard:
    card = insurance_card(state, card_id)
    if card.status != "active":
        raise SiteError(409, "This card is already inactive.")
    card.status = "inactive"
    return card


def submit_form(state: PortalState, *, form_id: str, answers: dict[str, str], now: str) -> Form:
    form: Form = find_or_404(state, "forms", form_id, "We couldn't find that form.")
    if form.status == "submitted":
        raise SiteError(409, "You've already submitted this form.")
    clean: dict[str, str] = {}
    for key, label, _kind, options, required in QUESTIONS[form.kind]:
        value = str(answers.get(key, "")).strip()
        if required and not value:
            raise SiteError(422, f"Answer “{label}”.")
        if value and options and value not in options:
            raise SiteError(422, f"Choose one of the answers to “{label}”.")
        if value:
            clean[key] = value
    if clean["signature"].lower() != state.profile[0].full_name.lower():
        raise SiteError(422, "Sign with your full name exactly as it appears on your record.")
    form.answers = clean
    form.status = "submitted"
    form.submitted_at = now
    return form


EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")


def invite_proxy(
    state: PortalState,
    *,
    name: str,
    relationship: str,
    email: str,
    date_of_birth: str,
    access: str,
    new_id: str,
    now: str,
) -> Proxy:
    if not name.strip():
        raise SiteError(422, "Enter the family member's full name.")
    if not EMAIL.match(email.strip()):
        raise SiteError(422, "Enter a valid email address for the invitation.")
    try:
        born = date.fromisoformat(date_of_birth)
    except ValueError:
        raise SiteError(422, "Enter the date of birth as YYYY-MM-DD.") from None
    if born >= today(state):
        raise SiteError(422, "The date of birth must be in the past.")
    if any(
        p.email.lower() == email.strip().lower() and p.status in ("pending", "active") for p in state.proxies
    ):
        raise SiteError(409, "This person already has access or a pending invitation.")
    made = Proxy(
        id=new_id,
        name=name.strip(),
        relationship=relationship,
        email=email.strip().lower(),
        date_of_birth=date_of_birth,
        access=access,
        status="pending",
        invited_at=now,
    )
    state.proxies.append(made)
    return made


def proxy(state: PortalState, proxy_id: str) -> Proxy:
    found: Proxy = find_or_404(state, "proxies", proxy_id, "We couldn't find that person.")
    return found


def revoke_proxy(state: PortalState, proxy_id: str, now: str) -> Proxy:
    found = proxy(state, proxy_id)
    if found.status == "revoked":
        raise SiteError(409, f"{found.name} no longer has access.")
    found.status = "revoked"
    found.revoked_at = now
    return found


def change_proxy_access(state: PortalState, proxy_id: str, access: str) -> Proxy:
    found = proxy(state, proxy_id)
    if found.status == "revoked":
        raise SiteError(409, f"{found.name}'s access was removed; send a new invitation instead.")
    found.access = access
    return found


def provider_label(state: PortalState, provider_id: str) -> str:
    return display_name(provider(state, provider_id))
