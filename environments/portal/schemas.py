"""Request bodies and response models of Larkspur Health's public API."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from humantrace.environments.portal.models import (
    Appointment,
    Bill,
    Form,
    InsuranceCard,
    Message,
    Payment,
    Pharmacy,
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
from humantrace.environments.responses import Answer, Ok  # noqa: F401  (Ok: the sites' shared answer)


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewAppointment(Body):
    slot_id: str = Field(max_length=40)
    reason: str = Field(max_length=200)


class Reschedule(Body):
    slot_id: str = Field(max_length=40)


class CancelVisit(Body):
    reason: str = Field(max_length=200)


class NewMessage(Body):
    team: str = Field(max_length=60)
    subject: str = Field(max_length=120)
    body: str = Field(max_length=4000)
    category: Literal["question", "appointment", "prescription", "billing", "results"] = "question"


class Reply(Body):
    body: str = Field(max_length=4000)


class NewRefill(Body):
    prescription_id: str = Field(max_length=40)
    pharmacy_id: str = Field(max_length=40)
    note: str = Field(default="", max_length=300)


class NewPayment(Body):
    amount_cents: int = Field(ge=1, le=10_000_000)
    card_id: str | None = Field(default=None, max_length=40)
    card_number: str | None = Field(default=None, max_length=30)


class NewInsurance(Body):
    insurer: str = Field(max_length=80)
    plan: str = Field(default="", max_length=80)
    member_id: str = Field(max_length=30)
    group_number: str = Field(default="", max_length=30)
    subscriber: str = Field(default="", max_length=80)
    coverage: Literal["primary", "secondary"]
    effective_from: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")


class FormAnswers(Body):
    answers: dict[str, str]


class NewProxy(Body):
    name: str = Field(max_length=80)
    relationship: Literal["Spouse", "Partner", "Parent", "Child", "Sibling", "Caregiver"]
    email: str = Field(max_length=120)
    date_of_birth: str = Field(max_length=10)
    access: Literal["full", "appointments", "billing"]


class ProxyAccess(Body):
    access: Literal["full", "appointments", "billing"]


class Me(Answer):
    signed_in: bool
    name: str
    today: str
    unread: int
    forms_due: int
    new_results: int


class ProviderView(Provider):
    display_name: str
    next_open: str | None


class AppointmentView(Appointment):
    provider_name: str
    department: str
    can_change: bool


class Home(Answer):
    upcoming: list[AppointmentView]
    unread_threads: list[Thread]
    new_results: list[TestResult]
    balance_cents: int
    forms_due: list[Form]


class Providers(Answer):
    providers: list[ProviderView]
    departments: list[str]


class SlotList(Answer):
    provider: ProviderView
    slots: list[Slot]


class AppointmentList(Answer):
    appointments: list[AppointmentView]


class AppointmentResult(Answer):
    appointment: AppointmentView
    message: str


class ThreadView(Thread):
    last_message: str
    last_author: str
    count: int


class Threads(Answer):
    threads: list[ThreadView]
    teams: list[str]


class ThreadDetail(Answer):
    thread: Thread
    messages: list[Message]
    message: str = ""


class PrescriptionView(Prescription):
    prescriber_name: str
    pharmacy_name: str
    refill_pending: bool
    runs_out: str


class Prescriptions(Answer):
    prescriptions: list[PrescriptionView]
    pharmacies: list[Pharmacy]
    refills: list[RefillRequest]
    preferred_pharmacy_id: str


class RefillResult(Answer):
    refill: RefillRequest
    message: str


class ResultView(TestResult):
    ordered_by_name: str
    flagged: int


class Results(Answer):
    results: list[ResultView]


class BillView(Bill):
    provider_name: str
    overdue: bool


class Bills(Answer):
    bills: list[BillView]
    payments: list[Payment]
    cards: list[SavedCard]
    balance_cents: int


class PaymentResult(Answer):
    payment: Payment
    bill: Bill
    message: str


class InsuranceList(Answer):
    cards: list[InsuranceCard]


class InsuranceResult(Answer):
    card: InsuranceCard
    message: str


class Question(Answer):
    key: str
    label: str
    kind: str
    options: list[str]
    required: bool


class Forms(Answer):
    forms: list[Form]


class FormDetail(Answer):
    form: Form
    questions: list[Question]


class FormResult(Answer):
    form: Form
    message: str


class Proxies(Answer):
    proxies: list[Proxy]


class ProxyResult(Answer):
    proxy: Proxy
    message: str


class ProfileView(Answer):
    profile: Profile
    pharmacy_name: str
