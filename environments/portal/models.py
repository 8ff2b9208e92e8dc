"""Larkspur Health's patient portal state: one typed collection per kind of entity.

Money is integer cents; moments are ISO-8601 UTC strings. The clinic's "today" is fixed when the
session is built (`Clinic.today`, the seed's session start), and every policy (cut-off times, due
dates, what is past or upcoming) is decided against it, never against the wall clock.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from humantrace.environments.state import Entity, EnvState, state_helper


class Clinic(Entity):
    """The portal's fixed facts (a single-entity collection)."""

    name: str
    phone: str
    today: str  # YYYY-MM-DD: the day the session is set on
    now: str  # today at 09:00 UTC: the moment cut-off times are measured from


class Profile(Entity):
    """The signed-in patient (a single-entity collection)."""

    full_name: str
    date_of_birth: str  # YYYY-MM-DD; shown only inside `.dob`, which the recorder masks
    mrn: str  # medical record number; shown only inside `.mrn`
    email: str
    phone: str
    address: str
    preferred_pharmacy_id: str
    signed_in: bool = True


class Provider(Entity):
    """A clinician the patient can see."""

    name: str
    credentials: str  # MD, DO, NP, PA-C
    specialty: str
    department: str  # also the care team a message goes to
    location: str
    video: bool = True  # offers video visits
    needs_referral: bool = False  # a booking is a request the clinic confirms


class Slot(Entity):
    """An open appointment time of a provider (a slot is free while no active appointment uses it)."""

    provider_id: str
    start: str
    minutes: int
    visit_type: str  # in_person | video


class Appointment(Entity):
    provider_id: str
    start: str
    minutes: int
    visit_type: str  # in_person | video
    reason: str
    status: str  # scheduled | requested | completed | cancelled
    location: str
    slot_id: str | None = None
    booked_at: str
    cancelled_at: str | None = None
    cancel_reason: str = ""


class Thread(Entity):
    """A conversation with a care team."""

    subject: str
    team: str
    category: str  # question | appointment | prescription | billing | results
    status: str  # open | closed
    created_at: str
    updated_at: str
    read: bool = True


class Message(Entity):
    thread_id: str
    author: str
    from_patient: bool
    body: str
    sent_at: str


class Pharmacy(Entity):
    name: str
    address: str
    phone: str
    hours: str
    mail_order: bool = False


class Prescription(Entity):
    drug: str
    strength: str
    sig: str  # the directions
    prescriber_id: str
    pharmacy_id: str
    quantity: int
    refills_left: int
    status: str  # active | expired | discontinued
    last_filled: str  # YYYY-MM-DD
    days_supply: int
    expires_on: str  # YYYY-MM-DD


class RefillRequest(Entity):
    prescription_id: str
    pharmacy_id: str
    status: str  # pending | approved | denied
    note: str = ""
    requested_at: str


class Component(BaseModel):
    """One measured value of a test result, with its reference range and flag."""

    model_config = ConfigDict(extra="forbid")

    name: str
    value: float
    unit: str
    low: float | None = None
    high: float | None = None
    flag: str = ""  # "" | H | L


class TestResult(Entity):
    name: str
    category: str  # Lab | Imaging
    ordered_by: str  # a provider id
    collected_at: str
    status: str  # final | preliminary | pending
    reviewed: bool  # the clinician has reviewed it (else "awaiting review")
    comment: str = ""
    components: list[Component] = []
    viewed: bool = False


class Bill(Entity):
    """A statement for one visit: charges, what insurance paid and what the patient owes."""

    number: str
    service: str
    service_date: str
    provider_id: str
    charges_cents: int
    insurance_paid_cents: int
    balance_cents: int
    due_date: str
    status: str  # due | paid | in_review


class Payment(Entity):
    bill_id: str
    amount_cents: int
    method: str  # "Visa ending 4242"
    paid_at: str
    confirmation: str


class SavedCard(Entity):
    brand: str
    last4: str
    expires: str  # MM/YY
    holder: str


class InsuranceCard(Entity):
    insurer: str
    plan: str
    member_id: str  # shown only inside `.member-id`
    group_number: str
    subscriber: str
    coverage: str  # primary | secondary
    status: str  # active | inactive
    effective_from: str
    added_at: str


class Form(Entity):
    title: str
    description: str
    kind: str  # questionnaire | consent | update
    status: str  # to_do | submitted
    due_date: str
    appointment_id: str | None = None
    answers: dict[str, str] = {}
    submitted_at: str | None = None


class Proxy(Entity):
    """A family member with access to the patient's record."""

    name: str
    relationship: str
    email: str
    date_of_birth: str  # shown only inside `.dob`
    access: str  # full | appointments | billing
    status: str  # pending | active | revoked
    invited_at: str
    revoked_at: str | None = None


class PortalState(EnvState):
    """The whole portal as seen by one patient."""

    clinic: list[Clinic] = []
    profile: list[Profile] = []
    providers: list[Provider] = []
    slots: list[Slot] = []
    appointments: list[Appointment] = []
    threads: list[Thread] = []
    messages: list[Message] = []
    pharmacies: list[Pharmacy] = []
    prescriptions: list[Prescription] = []
    refill_requests: list[RefillRequest] = []
    results: list[TestResult] = []
    bills: list[Bill] = []
    payments: list[Payment] = []
    cards: list[SavedCard] = []
    insurance: list[InsuranceCard] = []
    forms: list[Form] = []
    proxies: list[Proxy] = []

    @state_helper
    def active_appointments(self) -> list[str]:
        """Ids of the appointments that are scheduled or requested."""
        return [a.id for a in self.appointments if a.status in ("scheduled", "requested")]

    @state_helper
    def balance(self) -> int:
        """What the patient owes over every bill, in cents."""
        return sum(b.balance_cents for b in self.bills)

    @state_helper
    def primary_insurance(self) -> str:
        """The id of the active primary insurance card ("" when none)."""
        return next((c.id for c in self.insurance if c.coverage == "primary" and c.status == "active"), "")
