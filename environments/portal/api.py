"""Larkspur Health's public JSON API (mounted at /api/env/portal): the only surface pages and agents touch.

Handlers are thin: they call `service` (which refuses with `SiteError`) and emit one typed semantic
event per meaningful action (`EVENTS`; also in docs/sites/portal.md).
"""

from __future__ import annotations

from datetime import date, timedelta

from fastapi import APIRouter

from humantrace.environments.portal import service
from humantrace.environments.portal.models import Appointment, PortalState, Prescription, TestResult
from humantrace.environments.portal.schemas import (
    AppointmentList,
    AppointmentResult,
    AppointmentView,
    Bills,
    BillView,
    CancelVisit,
    FormAnswers,
    FormDetail,
    FormResult,
    Forms,
    Home,
    InsuranceList,
    InsuranceResult,
    Me,
    NewAppointment,
    NewInsurance,
    NewMessage,
    NewPayment,
    NewProxy,
    NewRefill,
    PaymentResult,
    Prescriptions,
    PrescriptionView,
    ProfileView,
    Providers,
    ProviderView,
    Proxies,
    ProxyAccess,
    ProxyResult,
    Question,
    RefillResult,
    Reply,
    Reschedule,
    Results,
    ResultView,
    SlotList,
    ThreadDetail,
    Threads,
    ThreadView,
)
from humantrace.environments.portal.seed import display_name, money
from humantrace.environments.sessions import EnvSessionDep
from humantrace.environments.sitekit import add_sign_in_again, find_or_404, state_of

EVENTS: dict[str, tuple[str, ...]] = {
    "appointment_booked": ("appointment_id", "provider_id", "slot_id", "visit_type", "status"),
    "appointment_rescheduled": ("appointment_id", "slot_id", "start"),
    "appointment_cancelled": ("appointment_id", "reason"),
    "message_sent": ("thread_id", "team", "category"),
    "reply_sent": ("thread_id",),
    "thread_opened": ("thread_id",),
    "refill_requested": ("refill_id", "prescription_id", "pharmacy_id"),
    "result_viewed": ("result_id", "flagged"),
    "payment_made": ("payment_id", "bill_id", "amount_cents"),
    "insurance_added": ("card_id", "coverage"),
    "insurance_primary_set": ("card_id",),
    "insurance_removed": ("card_id",),
    "form_submitted": ("form_id",),
    "proxy_invited": ("proxy_id", "access"),
    "proxy_revoked": ("proxy_id",),
    "proxy_access_changed": ("proxy_id", "access"),
    "signed_in": (),
}

router = APIRouter()


def portal(env: EnvSessionDep) -> PortalState:
    return state_of(env, PortalState)


def _provider_view(state: PortalState, provider_id: str) -> ProviderView:
    prov = service.provider(state, provider_id)
    slots = service.open_slots(state, prov.id)
    return ProviderView(
        **prov.model_dump(), display_name=display_name(prov), next_open=slots[0].start if slots else None
    )


def _appointment_view(state: PortalState, visit: Appointment) -> AppointmentView:
    prov = service.provider(state, visit.provider_id)
    return AppointmentView(
        **visit.model_dump(),
        provider_name=display_name(prov),
        department=prov.department,
        can_change=service.changeable(state, visit),
    )


def _result_view(state: PortalState, result: TestResult) -> ResultView:
    return ResultView(
        **result.model_dump(),
        ordered_by_name=service.provider_label(state, result.ordered_by),
        flagged=sum(1 for c in result.components if c.flag),
    )


def _runs_out(rx: Prescription) -> str:
    return (date.fromisoformat(rx.last_filled) + timedelta(days=rx.days_supply)).isoformat()


@router.get("/me", response_model=Me)
def me(env: EnvSessionDep) -> Me:
    state = portal(env)
    person = state.profile[0]
    return Me(
        signed_in=person.signed_in,
        name=person.full_name,
        today=state.clinic[0].today,
        unread=sum(1 for t in state.threads if not t.read),
        forms_due=sum(1 for f in state.forms if f.status == "to_do"),
        new_results=sum(1 for r in state.results if not r.viewed and r.status != "pending"),
    )


add_sign_in_again(router, lambda env: portal(env).profile[0], "patient")


@router.get("/home", response_model=Home)
def home(env: EnvSessionDep) -> Home:
    state = portal(env)
    now = state.clinic[0].now
    upcoming = sorted(
        (a for a in state.appointments if a.status in service.ACTIVE and a.start > now), key=lambda a: a.start
    )
    return Home(
        upcoming=[_appointment_view(state, a) for a in upcoming[:3]],
        unread_threads=[t for t in state.threads if not t.read],
        new_results=[r for r in state.results if not r.viewed and r.status != "pending"],
        balance_cents=sum(b.balance_cents for b in state.bills if b.status == "due"),
        forms_due=[f for f in state.forms if f.status == "to_do"],
    )


@router.get("/providers", response_model=Providers)
def providers(env: EnvSessionDep, department: str = "") -> Providers:
    state = portal(env)
    found = [p for p in state.providers if not department or p.department == department]
    departments = sorted({p.department for p in state.providers})
    return Providers(providers=[_provider_view(state, p.id) for p in found], departments=departments)


@router.get("/providers/{provider_id}/slots", response_model=SlotList)
def slots(provider_id: str, env: EnvSessionDep, visit_type: str = "") -> SlotList:
    state = portal(env)
    view = _provider_view(state, provider_id)
    found = [
        s for s in service.open_slots(state, provider_id) if not visit_type or s.visit_type == visit_type
    ]
    return SlotList(provider=view, slots=found)


@router.get("/appointments", response_model=AppointmentList)
def appointments(env: EnvSessionDep, tab: str = "upcoming") -> AppointmentList:
    state = portal(env)
    now = state.clinic[0].now
    if tab == "past":
        found = sorted(
            (a for a in state.appointments if a.status == "completed"), key=lambda a: a.start, reverse=True
        )
    elif tab == "cancelled":
        found = sorted(
            (a for a in state.appointments if a.status == "cancelled"), key=lambda a: a.start, reverse=True
        )
    else:
        found = sorted(
            (a for a in state.appointments if a.status in service.ACTIVE and a.start > now),
            key=lambda a: a.start,
        )
    return AppointmentList(appointments=[_appointment_view(state, a) for a in found])


@router.get("/appointments/{appointment_id}", response_model=AppointmentView)
def appointment(appointment_id: str, env: EnvSessionDep) -> AppointmentView:
    state = portal(env)
    return _appointment_view(state, service.appointment(state, appointment_id))


@router.post("/appointments", response_model=AppointmentResult, status_code=201)
def book(body: NewAppointment, env: EnvSessionDep) -> AppointmentResult:
    state = portal(env)
    made = service.book(
        state, slot_id=body.slot_id, reason=body.reason, new_id=env.new_id("apt"), now=env.now_iso()
    )
    env.emit(
        "appointment_booked",
        appointment_id=made.id,
        provider_id=made.provider_id,
        slot_id=made.slot_id,
        visit_type=made.visit_type,
        status=made.status,
    )
    view = _appointment_view(state, made)
    message = (
        f"Your visit with {view.provider_name} is booked."
        if made.status == "scheduled"
        else f"Your request for a visit with {view.provider_name} was sent. The clinic will confirm it."
    )
    return AppointmentResult(appointment=view, message=message)


@router.post("/appointments/{appointment_id}/reschedule", response_model=AppointmentResult)
def reschedule(appointment_id: str, body: Reschedule, env: EnvSessionDep) -> AppointmentResult:
    state = portal(env)
    visit = service.reschedule(state, appointment_id=appointment_id, slot_id=body.slot_id)
    env.emit("appointment_rescheduled", appointment_id=visit.id, slot_id=visit.slot_id, start=visit.start)
    return AppointmentResult(appointment=_appointment_view(state, visit), message="Your visit was moved.")


@router.post("/appointments/{appointment_id}/cancel", response_model=AppointmentResult)
def cancel(appointment_id: str, body: CancelVisit, env: EnvSessionDep) -> AppointmentResult:
    state = portal(env)
    visit = service.cancel(state, appointment_id=appointment_id, reason=body.reason, now=env.now_iso())
    env.emit("appointment_cancelled", appointment_id=visit.id, reason=visit.cancel_reason)
    return AppointmentResult(appointment=_appointment_view(state, visit), message="Your visit was cancelled.")


@router.get("/messages", response_model=Threads)
def threads(env: EnvSessionDep) -> Threads:
    state = portal(env)
    views = []
    for thread in sorted(state.threads, key=lambda t: t.updated_at, reverse=True):
        lines = [m for m in state.messages if m.thread_id == thread.id]
        last = max(lines, key=lambda m: m.sent_at)
        views.append(
            ThreadView(
                **thread.model_dump(), last_message=last.body, last_author=last.author, count=len(lines)
            )
        )
    return Threads(threads=views, teams=list(service.TEAMS))


@router.get("/messages/{thread_id}", response_model=ThreadDetail)
def thread(thread_id: str, env: EnvSessionDep) -> ThreadDetail:
    state = portal(env)
    found = find_or_404(state, "threads", thread_id, "We couldn't find that conversation.")
    if not found.read:
        found.read = True
    env.emit("thread_opened", thread_id=found.id)
    lines = sorted((m for m in state.messages if m.thread_id == found.id), key=lambda m: m.sent_at)
    return ThreadDetail(thread=found, messages=lines)


@router.post("/messages", response_model=ThreadDetail, status_code=201)
def send(body: NewMessage, env: EnvSessionDep) -> ThreadDetail:
    state = portal(env)
    made = service.new_thread(
        state,
        team=body.team,
        subject=body.subject,
        body=body.body,
        category=body.category,
        ids=(env.new_id("thr"), env.new_id("msg")),
        now=env.now_iso(),
    )
    env.emit("message_sent", thread_id=made.id, team=made.team, category=made.category)
    lines = [m for m in state.messages if m.thread_id == made.id]
    return ThreadDetail(thread=made, messages=lines, message=f"Message sent to {made.team}.")


@router.post("/messages/{thread_id}/reply", response_model=ThreadDetail, status_code=201)
def reply(thread_id: str, body: Reply, env: EnvSessionDep) -> ThreadDetail:
    state = portal(env)
    made = service.reply(
        state, thread_id=thread_id, body=body.body, new_id=env.new_id("msg"), now=env.now_iso()
    )
    env.emit("reply_sent", thread_id=made.thread_id)
    found = find_or_404(state, "threads", thread_id, "We couldn't find that conversation.")
    lines = sorted((m for m in state.messages if m.thread_id == thread_id), key=lambda m: m.sent_at)
    return ThreadDetail(thread=found, messages=lines, message="Reply sent.")


@router.get("/prescriptions", response_model=Prescriptions)
def prescriptions(env: EnvSessionDep) -> Prescriptions:
    state = portal(env)
    names = {p.id: p.name for p in state.pharmacies}
    order = {"active": 0, "expired": 1, "discontinued": 2}
    views = [
        PrescriptionView(
            **rx.model_dump(),
            prescriber_name=service.provider_label(state, rx.prescriber_id),
            pharmacy_name=names.get(rx.pharmacy_id, ""),
            refill_pending=service.pending_refill(state, rx.id) is not None,
            runs_out=_runs_out(rx),
        )
        for rx in sorted(state.prescriptions, key=lambda r: (order.get(r.status, 3), r.drug))
    ]
    return Prescriptions(
        prescriptions=views,
        pharmacies=list(state.pharmacies),
        refills=sorted(state.refill_requests, key=lambda r: r.requested_at, reverse=True),
        preferred_pharmacy_id=state.profile[0].preferred_pharmacy_id,
    )


@router.post("/refills", response_model=RefillResult, status_code=201)
def request_refill(body: NewRefill, env: EnvSessionDep) -> RefillResult:
    state = portal(env)
    made = service.request_refill(
        state,
        prescription_id=body.prescription_id,
        pharmacy_id=body.pharmacy_id,
        note=body.note,
        new_id=env.new_id("ref"),
        now=env.now_iso(),
    )
    env.emit(
        "refill_requested",
        refill_id=made.id,
        prescription_id=made.prescription_id,
        pharmacy_id=made.pharmacy_id,
    )
    rx = service.prescription(state, made.prescription_id)
    store = find_or_404(state, "pharmacies", made.pharmacy_id, "")
    return RefillResult(refill=made, message=f"Refill of {rx.drug} requested. We'll send it to {store.name}.")


@router.get("/results", response_model=Results)
def results(env: EnvSessionDep) -> Results:
    state = portal(env)
    ordered = sorted(state.results, key=lambda r: (r.collected_at, r.id), reverse=True)
    return Results(results=[_result_view(state, r) for r in ordered])


@router.get("/results/{result_id}", response_model=ResultView)
def result(result_id: str, env: EnvSessionDep) -> ResultView:
    state = portal(env)
    found = find_or_404(state, "results", result_id, "We couldn't find that result.")
    if not found.viewed and found.status != "pending":
        found.viewed = True
    view = _result_view(state, found)
    env.emit("result_viewed", result_id=found.id, flagged=view.flagged)
    return view


@router.get("/bills", response_model=Bills)
def bills(env: EnvSessionDep) -> Bills:
    state = portal(env)
    today = state.clinic[0].today
    views = [
        BillView(
            **b.model_dump(),
            provider_name=service.provider_label(state, b.provider_id),
            overdue=b.status == "due" and b.due_date < today,
        )
        for b in sorted(state.bills, key=lambda b: b.service_date, reverse=True)
    ]
    return Bills(
        bills=views,
        payments=sorted(state.payments, key=lambda p: p.paid_at, reverse=True),
        cards=list(state.cards),
        balance_cents=sum(b.balance_cents for b in state.bills if b.status == "due"),
    )


@router.post("/bills/{bill_id}/pay", response_model=PaymentResult, status_code=201)
def pay(bill_id: str, body: NewPayment, env: EnvSessionDep) -> PaymentResult:
    state = portal(env)
    made = service.pay(
        state,
        bill_id=bill_id,
        amount_cents=body.amount_cents,
        card_id=body.card_id,
        card_number=body.card_number,
        new_id=env.new_id("pay"),
        now=env.now_iso(),
    )
    env.emit("payment_made", payment_id=made.id, bill_id=made.bill_id, amount_cents=made.amount_cents)
    bill = find_or_404(state, "bills", bill_id, "")
    return PaymentResult(
        payment=made,
        bill=bill,
        message=f"Payment of {money(made.amount_cents)} received. Confirmation {made.confirmation}.",
    )


@router.get("/insurance", response_model=InsuranceList)
def insurance(env: EnvSessionDep) -> InsuranceList:
    state = portal(env)
    order = {"active": 0, "inactive": 1}
    cards = sorted(state.insurance, key=lambda c: (order.get(c.status, 2), c.coverage != "primary"))
    return InsuranceList(cards=cards)


@router.post("/insurance", response_model=InsuranceResult, status_code=201)
def add_insurance(body: NewInsurance, env: EnvSessionDep) -> InsuranceResult:
    made = service.add_insurance(
        portal(env),
        insurer=body.insurer,
        plan=body.plan,
        member_id=body.member_id,
        group_number=body.group_number,
        subscriber=body.subscriber,
        coverage=body.coverage,
        effective_from=body.effective_from,
        new_id=env.new_id("ins"),
        now=env.now_iso(),
    )
    env.emit("insurance_added", card_id=made.id, coverage=made.coverage)
    return InsuranceResult(card=made, message=f"{made.insurer} card added as your {made.coverage} insurance.")


@router.post("/insurance/{card_id}/primary", response_model=InsuranceResult)
def make_primary(card_id: str, env: EnvSessionDep) -> InsuranceResult:
    card = service.make_primary(portal(env), card_id)
    env.emit("insurance_primary_set", card_id=card.id)
    return InsuranceResult(card=card, message=f"{card.insurer} is now your primary insurance.")


@router.post("/insurance/{card_id}/remove", response_model=InsuranceResult)
def remove_insurance(card_id: str, env: EnvSessionDep) -> InsuranceResult:
    card = service.remove_insurance(portal(env), card_id)
    env.emit("insurance_removed", card_id=card.id)
    return InsuranceResult(card=card, message=f"{card.insurer} card removed.")


def _questions(kind: str) -> list[Question]:
    return [
        Question(key=key, label=label, kind=kind_, options=list(options), required=required)
        for key, label, kind_, options, required in service.QUESTIONS[kind]
    ]


@router.get("/forms", response_model=Forms)
def forms(env: EnvSessionDep) -> Forms:
    state = portal(env)
    return Forms(forms=sorted(state.forms, key=lambda f: (f.status != "to_do", f.due_date)))


@router.get("/forms/{form_id}", response_model=FormDetail)
def form(form_id: str, env: EnvSessionDep) -> FormDetail:
    found = find_or_404(portal(env), "forms", form_id, "We couldn't find that form.")
    return FormDetail(form=found, questions=_questions(found.kind))


@router.post("/forms/{form_id}/submit", response_model=FormResult)
def submit_form(form_id: str, body: FormAnswers, env: EnvSessionDep) -> FormResult:
    made = service.submit_form(portal(env), form_id=form_id, answers=body.answers, now=env.now_iso())
    env.emit("form_submitted", form_id=made.id)
    return FormResult(form=made, message=f"Thank you. “{made.title}” was submitted.")


@router.get("/proxies", response_model=Proxies)
def proxies(env: EnvSessionDep) -> Proxies:
    order = {"active": 0, "pending": 1, "revoked": 2}
    return Proxies(proxies=sorted(portal(env).proxies, key=lambda p: (order.get(p.status, 3), p.name)))


@router.post("/proxies", response_model=ProxyResult, status_code=201)
def invite_proxy(body: NewProxy, env: EnvSessionDep) -> ProxyResult:
    made = service.invite_proxy(
        portal(env),
        name=body.name,
        relationship=body.relationship,
        email=body.email,
        date_of_birth=body.date_of_birth,
        access=body.access,
        new_id=env.new_id("pxy"),
        now=env.now_iso(),
    )
    env.emit("proxy_invited", proxy_id=made.id, access=made.access)
    return ProxyResult(proxy=made, message=f"Invitation sent to {made.name} at {made.email}.")


@router.post("/proxies/{proxy_id}/revoke", response_model=ProxyResult)
def revoke_proxy(proxy_id: str, env: EnvSessionDep) -> ProxyResult:
    made = service.revoke_proxy(portal(env), proxy_id, env.now_iso())
    env.emit("proxy_revoked", proxy_id=made.id)
    return ProxyResult(proxy=made, message=f"{made.name} no longer has access to your record.")


@router.post("/proxies/{proxy_id}/access", response_model=ProxyResult)
def change_access(proxy_id: str, body: ProxyAccess, env: EnvSessionDep) -> ProxyResult:
    made = service.change_proxy_access(portal(env), proxy_id, body.access)
    env.emit("proxy_access_changed", proxy_id=made.id, access=made.access)
    return ProxyResult(proxy=made, message=f"{made.name}'s access was updated.")


@router.get("/profile", response_model=ProfileView)
def profile(env: EnvSessionDep) -> ProfileView:
    state = portal(env)
    person = state.profile[0]
    store = state.find("pharmacies", person.preferred_pharmacy_id)
    return ProfileView(profile=person, pharmacy_name=store.name if store else "")
