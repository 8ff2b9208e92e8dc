"""Larkspur Health's default state: one patient's record as the portal shows it.

Twelve clinicians in eight departments with their open times for the next four weeks, a history
of visits (past, cancelled, upcoming, one awaiting the clinic's confirmation), conversations with
care teams, prescriptions and refill requests, lab results with reference ranges and flags, bills
in every state, insurance cards, forms and a family member's proxy access. Every random draw goes
through `ctx.rng` in a fixed order, and every date is relative to the session's fixed "today".
"""

from __future__ import annotations

from datetime import datetime, timedelta

from humantrace.environments.portal.models import (
    Appointment,
    Bill,
    Clinic,
    Component,
    Form,
    InsuranceCard,
    Message,
    Payment,
    Pharmacy,
    PortalState,
    Prescription,
    Profile,
    Provider,
    Proxy,
    RefillRequest,
    SavedCard,
    Slot,
    TestResult,
    Thread,
)
from humantrace.environments.seeding import SeedContext, SeedError, to_iso

PortalContext = SeedContext[PortalState]

PATIENT_NAME = "Elena Park"
PATIENT_EMAIL = "elena.park@example.com"
SLOT_TIMES = (
    "08:00",
    "08:30",
    "09:00",
    "09:30",
    "10:30",
    "11:00",
    "13:00",
    "13:30",
    "14:30",
    "15:00",
    "15:30",
    "16:00",
)
SLOT_DAYS = 27  # open times from tomorrow to four weeks out (weekdays only)

LOCATIONS = {
    "eastside": "Eastside Clinic, 410 Alder Ave, Suite 200",
    "riverside": "Riverside Medical Pavilion, 2200 River Rd",
    "heart": "Larkspur Heart Center, 88 Summit St, 3rd floor",
    "video": "Video visit (a link arrives 15 minutes before)",
}

PROVIDERS = (
    # name, credentials, specialty, department, location key, video, needs_referral
    ("Hannah Okafor", "MD", "Family Medicine", "Primary Care", "eastside", True, False),
    ("Marcus Webb", "DO", "Internal Medicine", "Primary Care", "eastside", True, False),
    ("Priya Natarajan", "NP", "Family Nurse Practitioner", "Primary Care", "riverside", True, False),
    ("Alan Brennan", "MD", "Cardiology", "Cardiology", "heart", True, False),
    ("Sofia Marquez", "MD", "Cardiology", "Cardiology", "heart", False, False),
    ("Irene Castillo", "MD", "Dermatology", "Dermatology", "riverside", False, False),
    ("Daniel Frost", "PA-C", "Dermatology", "Dermatology", "riverside", True, False),
    ("Yusuf Rahman", "MD", "Endocrinology", "Endocrinology", "riverside", True, True),
    ("Claire Lindqvist", "MD", "Orthopedic Surgery", "Orthopedics", "riverside", False, True),
    ("Nora Whitfield", "MD", "Obstetrics & Gynecology", "Women's Health", "eastside", True, False),
    ("Lena Hoffman", "PhD", "Clinical Psychology", "Behavioral Health", "eastside", True, False),
    ("Raj Mehta", "MD", "Ophthalmology", "Eye Care", "riverside", False, False),
)

PHARMACIES = (
    ("Corner Drug - Alder Ave", "415 Alder Ave", "(555) 201-4410", "Mon-Sat 8 AM - 9 PM", False),
    ("Healthway Pharmacy #112", "1800 Market St", "(555) 201-7720", "Open 24 hours", False),
    (
        "Larkspur Outpatient Pharmacy",
        "2200 River Rd, ground floor",
        "(555) 201-3000",
        "Mon-Fri 8 AM - 6 PM",
        False,
    ),
    ("RxMail Home Delivery", "Delivered to your home in 3-5 days", "(800) 555-0199", "Online 24/7", True),
)


def money(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) // 100:,}.{abs(cents) % 100:02d}"


def day(ctx: PortalContext, offset: int) -> str:
    """The date `offset` days from today."""
    return (ctx.now + timedelta(days=offset)).date().isoformat()


def at(ctx: PortalContext, offset: int, hhmm: str) -> str:
    """The moment `offset` days from today at `hhmm` (clinic time, stored as UTC text)."""
    hour, minute = (int(p) for p in hhmm.split(":"))
    moment = datetime.combine((ctx.now + timedelta(days=offset)).date(), datetime.min.time(), ctx.now.tzinfo)
    return to_iso(moment.replace(hour=hour, minute=minute))


def provider(ctx: PortalContext, name: str) -> Provider:
    found = next((p for p in ctx.state.providers if p.name == name or p.id == name), None)
    if found is None:
        raise SeedError(f"no provider {name!r}")
    return found


def pharmacy(ctx: PortalContext, name: str) -> Pharmacy:
    found = next((p for p in ctx.state.pharmacies if p.name == name or p.id == name), None)
    if found is None:
        raise SeedError(f"no pharmacy {name!r}")
    return found


def display_name(p: Provider) -> str:
    return f"{p.name}, {p.credentials}" if p.credentials in ("NP", "PA-C", "PhD") else f"Dr. {p.name}"


def add_slots(ctx: PortalContext, prov: Provider, *, chance: float = 0.2) -> None:
    state = ctx.state
    for offset in range(1, SLOT_DAYS + 1):
        if (ctx.now + timedelta(days=offset)).weekday() >= 5:
            continue
        for hhmm in SLOT_TIMES:
            if ctx.rng.random() >= chance:
                continue
            video = prov.video and ctx.rng.random() < 0.35
            state.slots.append(
                Slot(
                    id=ctx.new_id("slot"),
                    provider_id=prov.id,
                    start=at(ctx, offset, hhmm),
                    minutes=20 if video else 30,
                    visit_type="video" if video else "in_person",
                )
            )


def add_appointment(
    ctx: PortalContext,
    prov: Provider,
    *,
    offset: int,
    hhmm: str,
    reason: str,
    status: str,
    visit_type: str = "in_person",
    booked_days_before: int = 21,
) -> Appointment:
    location = LOCATIONS["video"] if visit_type == "video" else LOCATIONS[_location_key(prov)]
    while abs(offset) > 1 and (ctx.now + timedelta(days=offset)).weekday() >= 5:  # clinics open on weekdays
        offset += 1 if offset > 0 else -1
    made = Appointment(
        id=ctx.new_id("apt"),
        provider_id=prov.id,
        start=at(ctx, offset, hhmm),
        minutes=20 if visit_type == "video" else 30,
        visit_type=visit_type,
        reason=reason,
        status=status,
        location=location,
        booked_at=at(ctx, min(offset, 0) - booked_days_before, "10:12"),
        cancelled_at=at(ctx, offset - 2, "16:40") if status == "cancelled" else None,
        cancel_reason="Schedule conflict" if status == "cancelled" else "",
    )
    ctx.state.appointments.append(made)
    return made


def _location_key(prov: Provider) -> str:
    return next(k for k, v in LOCATIONS.items() if v == prov.location)


def component(
    ctx: PortalContext, name: str, unit: str, low: float | None, high: float | None, *, flag: str = ""
) -> Component:
    """A value inside the range, or above (flag H) or below (flag L) it."""
    rng = ctx.rng
    lo = low if low is not None else 0.0
    hi = high if high is not None else lo * 2 + 10
    if flag == "H":
        value = hi * rng.uniform(1.08, 1.35)
    elif flag == "L":
        value = lo * rng.uniform(0.6, 0.9)
    else:
        value = rng.uniform(lo + (hi - lo) * 0.15, hi - (hi - lo) * 0.15)
    value = round(value, 1) if hi < 50 else float(round(value))
    return Component(name=name, value=value, unit=unit, low=low, high=high, flag=flag)


PANELS: dict[str, list[tuple[str, str, float | None, float | None]]] = {
    "Lipid panel": [
        ("Total cholesterol", "mg/dL", 125, 200),
        ("LDL cholesterol", "mg/dL", None, 100),
        ("HDL cholesterol", "mg/dL", 40, 90),
        ("Triglycerides", "mg/dL", 35, 150),
    ],
    "Comprehensive metabolic panel": [
        ("Glucose", "mg/dL", 70, 99),
        ("Sodium", "mmol/L", 135, 145),
        ("Potassium", "mmol/L", 3.5, 5.1),
        ("Creatinine", "mg/dL", 0.6, 1.1),
        ("ALT", "U/L", 7, 35),
        ("Calcium", "mg/dL", 8.6, 10.3),
    ],
    "Complete blood count (CBC)": [
        ("White blood cells", "K/uL", 4.0, 11.0),
        ("Hemoglobin", "g/dL", 12.0, 15.5),
        ("Platelets", "K/uL", 150, 400),
    ],
    "Hemoglobin A1c": [("Hemoglobin A1c", "%", 4.0, 5.6)],
    "Thyroid stimulating hormone (TSH)": [("TSH", "mIU/L", 0.4, 4.0)],
    "Vitamin D, 25-hydroxy": [("Vitamin D, 25-OH", "ng/mL", 30, 100)],
}


def add_result(
    ctx: PortalContext,
    name: str,
    *,
    days_ago: int,
    ordered_by: Provider,
    flags: dict[str, str] | None = None,
    status: str = "final",
    reviewed: bool = True,
    comment: str = "",
    viewed: bool = True,
) -> TestResult:
    flags = flags or {}
    components = (
        []
        if status == "pending"
        else [
            component(ctx, c_name, unit, low, high, flag=flags.get(c_name, ""))
            for c_name, unit, low, high in PANELS[name]
        ]
    )
    made = TestResult(
        id=ctx.new_id("res"),
        name=name,
        category="Lab",
        ordered_by=ordered_by.id,
        collected_at=at(ctx, -days_ago, "08:15"),
        status=status,
        reviewed=reviewed,
        comment=comment,
        components=components,
        viewed=viewed,
    )
    ctx.state.results.append(made)
    return made


def add_thread(
    ctx: PortalContext,
    *,
    team: str,
    subject: str,
    category: str,
    days_ago: int,
    lines: list[tuple[str, str]],
    status: str = "open",
    read: bool = True,
) -> Thread:
    """A conversation; `lines` are (author, body) with the patient's own author name "me"."""
    state = ctx.state
    thread = Thread(
        id=ctx.new_id("thr"),
        subject=subject,
        team=team,
        category=category,
        status=status,
        created_at=at(ctx, -days_ago, "11:05"),
        updated_at=at(ctx, -days_ago + len(lines) - 1, "14:20"),
        read=read,
    )
    state.threads.append(thread)
    for index, (author, body) in enumerate(lines):
        mine = author == "me"
        state.messages.append(
            Message(
                id=ctx.new_id("msg"),
                thread_id=thread.id,
                author=PATIENT_NAME if mine else author,
                from_patient=mine,
                body=body,
                sent_at=at(ctx, -days_ago + index, "11:05" if index == 0 else "14:20"),
            )
        )
    return thread


def build_default_state(ctx: PortalContext) -> None:
    """The record every task starts from (then the task's builders add its situation)."""
    state = ctx.state
    rng = ctx.rng
    state.clinic.append(
        Clinic(
            id="clinic",
            name="Larkspur Health",
            phone="(555) 201-3000",
            today=day(ctx, 0),
            now=to_iso(ctx.now),
        )
    )
    for name, address, phone, hours, mail in PHARMACIES:
        state.pharmacies.append(
            Pharmacy(
                id=ctx.new_id("phar"), name=name, address=address, phone=phone, hours=hours, mail_order=mail
            )
        )
    birth = datetime(1979 + rng.randint(0, 12), rng.randint(1, 12), rng.randint(1, 28)).date().isoformat()
    state.profile.append(
        Profile(
            id="profile",
            full_name=PATIENT_NAME,
            date_of_birth=birth,
            mrn=f"LH{rng.randint(1000000, 9999999)}",
            email=PATIENT_EMAIL,
            phone="(555) 014-2287",
            address="1187 Juniper St, Apt 4B, Larkspur, OR 97201",
            preferred_pharmacy_id=state.pharmacies[0].id,
        )
    )
    for name, credentials, specialty, department, loc, video, referral in PROVIDERS:
        state.providers.append(
            Provider(
                id=ctx.new_id("prov"),
                name=name,
                credentials=credentials,
                specialty=specialty,
                department=department,
                location=LOCATIONS[loc],
                video=video,
                needs_referral=referral,
            )
        )
    for prov in list(state.providers):
        add_slots(ctx, prov)
    okafor, webb, _, brennan, _, castillo, frost, rahman, _, whitfield, _, mehta = state.providers
    # the visit history: past, cancelled, upcoming, one awaiting confirmation, one too close to change
    add_appointment(ctx, okafor, offset=-340, hhmm="09:00", reason="Annual physical", status="completed")
    add_appointment(ctx, brennan, offset=-250, hhmm="10:30", reason="Palpitations", status="completed")
    add_appointment(
        ctx,
        frost,
        offset=-190,
        hhmm="13:30",
        reason="Rash on forearm",
        status="completed",
        visit_type="video",
    )
    add_appointment(ctx, webb, offset=-120, hhmm="15:00", reason="Sinus infection", status="cancelled")
    add_appointment(
        ctx, okafor, offset=-95, hhmm="08:30", reason="Blood pressure follow-up", status="completed"
    )
    add_appointment(
        ctx, whitfield, offset=-60, hhmm="11:00", reason="Annual well-woman visit", status="completed"
    )
    add_appointment(
        ctx, brennan, offset=-33, hhmm="14:30", reason="Cholesterol follow-up", status="cancelled"
    )
    add_appointment(
        ctx,
        okafor,
        offset=-21,
        hhmm="09:30",
        reason="Cholesterol follow-up",
        status="completed",
        visit_type="video",
    )
    add_appointment(ctx, mehta, offset=1, hhmm="08:30", reason="Eye pressure check", status="scheduled")
    add_appointment(ctx, castillo, offset=6, hhmm="10:30", reason="Skin check", status="scheduled")
    add_appointment(ctx, rahman, offset=16, hhmm="13:00", reason="Thyroid consultation", status="requested")
    # conversations with care teams
    add_thread(
        ctx,
        team="Primary Care",
        subject="Blood pressure readings",
        category="question",
        days_ago=88,
        lines=[
            ("me", "Here are my home readings for the last two weeks: mostly 128-134 over 82-86."),
            (
                "Dr. Hannah Okafor",
                "Thank you, Elena. These look better. Keep the lisinopril at 10 mg and we'll recheck at your next visit.",
            ),
        ],
        status="closed",
    )
    add_thread(
        ctx,
        team="Cardiology",
        subject="Question about the Holter monitor",
        category="question",
        days_ago=240,
        lines=[
            ("me", "Should I keep the monitor on while I shower?"),
            (
                "Cardiology nurse line",
                "Please take it off for showers and put it back on right after. Note the time in your diary.",
            ),
        ],
        status="closed",
    )
    add_thread(
        ctx,
        team="Billing Office",
        subject="Statement S-20418",
        category="billing",
        days_ago=45,
        lines=[
            ("me", "I think my insurance should have covered part of this visit."),
            (
                "Billing Office",
                "We re-submitted the claim to your insurance. You'll get an updated statement once they process it.",
            ),
        ],
    )
    add_thread(
        ctx,
        team="Primary Care",
        subject="Your recent lab results",
        category="results",
        days_ago=19,
        lines=[
            (
                "Dr. Hannah Okafor",
                "Your LDL is still above goal. Let's talk about options at a follow-up; please book a visit when convenient.",
            )
        ],
        read=False,
    )
    add_thread(
        ctx,
        team="Dermatology",
        subject="Before your skin check",
        category="appointment",
        days_ago=3,
        lines=[
            (
                "Dermatology front desk",
                "Please complete the pre-visit questionnaire before your visit and arrive 10 minutes early.",
            )
        ],
        read=False,
    )
    add_thread(
        ctx,
        team="Primary Care",
        subject="Flu shot availability",
        category="question",
        days_ago=150,
        lines=[
            ("me", "Are flu shots available without an appointment?"),
            (
                "Primary Care front desk",
                "Yes, walk-in flu shots are available Monday to Friday, 8 AM to 4 PM.",
            ),
            ("me", "Great, thank you!"),
        ],
        status="closed",
    )
    # prescriptions and refill requests
    corner, healthway, outpatient, rxmail = state.pharmacies
    meds = [
        (
            "Lisinopril",
            "10 mg tablet",
            "Take 1 tablet by mouth once daily.",
            okafor,
            corner,
            30,
            3,
            "active",
            24,
            30,
        ),
        (
            "Atorvastatin",
            "20 mg tablet",
            "Take 1 tablet by mouth at bedtime.",
            okafor,
            corner,
            90,
            0,
            "active",
            80,
            90,
        ),
        (
            "Levothyroxine",
            "50 mcg tablet",
            "Take 1 tablet by mouth every morning on an empty stomach.",
            rahman,
            rxmail,
            90,
            2,
            "active",
            40,
            90,
        ),
        (
            "Sertraline",
            "50 mg tablet",
            "Take 1 tablet by mouth once daily.",
            webb,
            healthway,
            30,
            1,
            "active",
            20,
            30,
        ),
        (
            "Albuterol HFA",
            "90 mcg/actuation inhaler",
            "Inhale 2 puffs every 4-6 hours as needed for wheezing.",
            webb,
            healthway,
            1,
            2,
            "active",
            27,
            30,
        ),
        (
            "Amoxicillin",
            "500 mg capsule",
            "Take 1 capsule by mouth 3 times daily for 10 days.",
            webb,
            corner,
            30,
            0,
            "expired",
            125,
            10,
        ),
        (
            "Ibuprofen",
            "600 mg tablet",
            "Take 1 tablet by mouth every 8 hours as needed with food.",
            frost,
            outpatient,
            20,
            0,
            "discontinued",
            190,
            7,
        ),
    ]
    for drug, strength, sig, prescriber, store, qty, refills, status, filled_ago, supply in meds:
        state.prescriptions.append(
            Prescription(
                id=ctx.new_id("rx"),
                drug=drug,
                strength=strength,
                sig=sig,
                prescriber_id=prescriber.id,
                pharmacy_id=store.id,
                quantity=qty,
                refills_left=refills,
                status=status,
                last_filled=day(ctx, -filled_ago),
                days_supply=supply,
                expires_on=day(ctx, 200 if status == "active" else -30),
            )
        )
    lisinopril = state.prescriptions[0]
    state.refill_requests.append(
        RefillRequest(
            id=ctx.new_id("ref"),
            prescription_id=lisinopril.id,
            pharmacy_id=corner.id,
            status="approved",
            requested_at=at(ctx, -26, "19:02"),
        )
    )
    state.refill_requests.append(
        RefillRequest(
            id=ctx.new_id("ref"),
            prescription_id=state.prescriptions[3].id,
            pharmacy_id=healthway.id,
            status="pending",
            note="Running low, thanks!",
            requested_at=at(ctx, -1, "20:41"),
        )
    )
    # test results
    add_result(ctx, "Lipid panel", days_ago=400, ordered_by=okafor, flags={"LDL cholesterol": "H"})
    add_result(ctx, "Complete blood count (CBC)", days_ago=340, ordered_by=okafor)
    add_result(ctx, "Comprehensive metabolic panel", days_ago=340, ordered_by=okafor)
    add_result(ctx, "Thyroid stimulating hormone (TSH)", days_ago=250, ordered_by=brennan)
    add_result(
        ctx,
        "Vitamin D, 25-hydroxy",
        days_ago=96,
        ordered_by=okafor,
        flags={"Vitamin D, 25-OH": "L"},
        comment="Vitamin D is low. Start an over-the-counter vitamin D3 1,000 IU daily.",
    )
    add_result(ctx, "Hemoglobin A1c", days_ago=96, ordered_by=okafor)
    add_result(
        ctx,
        "Lipid panel",
        days_ago=22,
        ordered_by=okafor,
        flags={"LDL cholesterol": "H", "Triglycerides": "H"},
        comment="LDL is still above goal; see my message.",
    )
    add_result(ctx, "Comprehensive metabolic panel", days_ago=22, ordered_by=okafor)
    add_result(
        ctx,
        "Thyroid stimulating hormone (TSH)",
        days_ago=4,
        ordered_by=rahman,
        status="preliminary",
        reviewed=False,
        viewed=False,
    )
    add_result(
        ctx,
        "Vitamin D, 25-hydroxy",
        days_ago=1,
        ordered_by=okafor,
        status="pending",
        reviewed=False,
        viewed=False,
    )
    # bills and payments
    cards = [
        SavedCard(id=ctx.new_id("card"), brand="Visa", last4="4242", expires="08/28", holder=PATIENT_NAME),
        SavedCard(
            id=ctx.new_id("card"), brand="Mastercard", last4="5454", expires="11/27", holder=PATIENT_NAME
        ),
    ]
    state.cards.extend(cards)
    bills = [
        ("S-19877", "Office visit - Annual physical", -340, okafor, 28500, 24500, 0, "paid"),
        ("S-20114", "Cardiology consultation", -250, brennan, 41000, 32800, 0, "paid"),
        ("S-20418", "Video visit - Dermatology", -190, frost, 16500, 9000, 7500, "in_review"),
        ("S-21032", "Office visit - Blood pressure follow-up", -95, okafor, 19500, 15600, 3900, "due"),
        ("S-21377", "Lab work - Lipid panel, metabolic panel", -22, okafor, 23800, 17850, 5950, "due"),
        ("S-21402", "Video visit - Cholesterol follow-up", -21, okafor, 15000, 12000, 3000, "due"),
    ]
    for number, service, offset, prov, charges, paid, balance, status in bills:
        made = Bill(
            id=ctx.new_id("bill"),
            number=number,
            service=service,
            service_date=day(ctx, offset),
            provider_id=prov.id,
            charges_cents=charges,
            insurance_paid_cents=paid,
            balance_cents=balance,
            due_date=day(ctx, offset + 45),
            status=status,
        )
        state.bills.append(made)
        if status == "paid":
            state.payments.append(
                Payment(
                    id=ctx.new_id("pay"),
                    bill_id=made.id,
                    amount_cents=charges - paid,
                    method="Visa ending 4242",
                    paid_at=at(ctx, offset + 30, "18:22"),
                    confirmation=f"LH-{rng.randint(100000, 999999)}",
                )
            )
    # insurance cards
    state.insurance.append(
        InsuranceCard(
            id=ctx.new_id("ins"),
            insurer="BlueHarbor Health",
            plan="BlueHarbor PPO 1500",
            member_id=f"BHX{rng.randint(100000000, 999999999)}",
            group_number=f"G-{rng.randint(10000, 99999)}",
            subscriber=PATIENT_NAME,
            coverage="primary",
            status="active",
            effective_from=day(ctx, -420),
            added_at=at(ctx, -420, "12:00"),
        )
    )
    state.insurance.append(
        InsuranceCard(
            id=ctx.new_id("ins"),
            insurer="Keystone Health",
            plan="Keystone HMO Silver",
            member_id=f"KH{rng.randint(10000000, 99999999)}",
            group_number=f"{rng.randint(100000, 999999)}",
            subscriber=PATIENT_NAME,
            coverage="primary",
            status="inactive",
            effective_from=day(ctx, -1200),
            added_at=at(ctx, -1200, "12:00"),
        )
    )
    # forms
    skin = next(a for a in state.appointments if a.provider_id == castillo.id and a.status == "scheduled")
    forms = [
        (
            "Annual health questionnaire",
            "A few questions about your health this year, for your care team.",
            "questionnaire",
            "to_do",
            14,
            None,
        ),
        (
            "Pre-visit questionnaire: Dermatology",
            "Tell us about the skin concerns you'd like checked.",
            "questionnaire",
            "to_do",
            5,
            skin.id,
        ),
        (
            "Consent for video visits",
            "Read and sign the telehealth consent.",
            "consent",
            "submitted",
            -200,
            None,
        ),
        (
            "Notice of privacy practices",
            "Acknowledge that you received our privacy notice.",
            "consent",
            "submitted",
            -400,
            None,
        ),
    ]
    for title, description, kind, status, due, appointment_id in forms:
        state.forms.append(
            Form(
                id=ctx.new_id("form"),
                title=title,
                description=description,
                kind=kind,
                status=status,
                due_date=day(ctx, due),
                appointment_id=appointment_id,
                answers={"signature": PATIENT_NAME} if status == "submitted" else {},
                submitted_at=at(ctx, due - 3, "20:10") if status == "submitted" else None,
            )
        )
    # proxy access
    state.proxies.append(
        Proxy(
            id=ctx.new_id("pxy"),
            name="Daniel Park",
            relationship="Spouse",
            email="daniel.park@example.com",
            date_of_birth="1980-02-11",
            access="full",
            status="active",
            invited_at=at(ctx, -700, "09:40"),
        )
    )
    state.proxies.append(
        Proxy(
            id=ctx.new_id("pxy"),
            name="Grace Park",
            relationship="Parent",
            email="grace.park@example.net",
            date_of_birth="1951-09-30",
            access="appointments",
            status="revoked",
            invited_at=at(ctx, -900, "09:40"),
            revoked_at=at(ctx, -500, "17:15"),
        )
    )
