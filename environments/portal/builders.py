"""Seed builders for Larkspur Health's task situations (registered as `portal.<name>`).

Each builder adds one situation to the default record and returns named outputs that task files
bind to targets. Dates are offsets in days from the session's fixed "today".
"""

from __future__ import annotations

from datetime import date
from typing import Any

from humantrace.environments.portal.models import Bill, Prescription, Provider
from humantrace.environments.portal.seed import (
    LOCATIONS,
    PortalContext,
    add_appointment,
    add_slots,
    day,
    display_name,
    pharmacy,
    provider,
)
from humantrace.environments.seeding import SeedError, builder


@builder("portal.refs")
def refs(ctx: PortalContext) -> dict[str, Any]:
    """The ids of the default record's people and things, by name."""
    state = ctx.state
    return {
        "provider_ids": {p.name: p.id for p in state.providers},
        "pharmacy_ids": {p.name: p.id for p in state.pharmacies},
        "prescription_ids": {p.drug: p.id for p in state.prescriptions},
        "bill_ids": {b.number: b.id for b in state.bills},
        "form_ids": {f.title: f.id for f in state.forms},
        "proxy_ids": {p.name: p.id for p in state.proxies},
        "insurance_ids": {c.insurer: c.id for c in state.insurance},
        "today": state.clinic[0].today,
    }


@builder("portal.appointment")
def plant_appointment(
    ctx: PortalContext,
    *,
    provider_name: str,
    offset: int,
    time: str,
    reason: str,
    status: str = "scheduled",
    visit_type: str = "in_person",
) -> dict[str, Any]:
    """One more visit `offset` days from today at `time`."""
    prov = provider(ctx, provider_name)
    made = add_appointment(
        ctx, prov, offset=offset, hhmm=time, reason=reason, status=status, visit_type=visit_type
    )
    return {
        "appointment_id": made.id,
        "provider_id": prov.id,
        "provider_label": display_name(prov),
        "start": made.start,
    }


@builder("portal.find_appointment")
def find_appointment(ctx: PortalContext, *, reason: str, status: str = "scheduled") -> dict[str, Any]:
    """The visit of the default record with this reason and status (exactly one)."""
    found = [a for a in ctx.state.appointments if a.reason == reason and a.status == status]
    if len(found) != 1:
        raise SeedError(f"expected one {status} visit for {reason!r}, found {len(found)}")
    visit = found[0]
    prov = provider(ctx, visit.provider_id)
    return {
        "appointment_id": visit.id,
        "provider_id": prov.id,
        "provider_label": display_name(prov),
        "start": visit.start,
    }


@builder("portal.earliest_slot")
def earliest_slot(
    ctx: PortalContext,
    *,
    provider_name: str,
    visit_type: str = "",
    from_hour: int = 0,
    not_before: str = "",
    free_day: bool = False,
) -> dict[str, Any]:
    """The first open time of a clinician (of a visit type, at or after an hour of the day, after a
    moment, on a day the patient has no other visit when `free_day`)."""
    state = ctx.state
    prov = provider(ctx, provider_name)
    taken = {a.slot_id for a in state.appointments if a.status in ("scheduled", "requested")}
    busy = {a.start for a in state.appointments if a.status in ("scheduled", "requested")}
    now = state.clinic[0].now
    found = sorted(
        (
            s
            for s in state.slots
            if s.provider_id == prov.id
            and s.start > max(now, not_before)
            and s.id not in taken
            and s.start not in busy
            and (not visit_type or s.visit_type == visit_type)
            and int(s.start[11:13]) >= from_hour
            and not (free_day and s.start[:10] in {b[:10] for b in busy})
        ),
        key=lambda s: s.start,
    )
    if not found:
        raise SeedError(f"{provider_name} has no open time that fits")
    slot = found[0]
    return {
        "slot_id": slot.id,
        "slot_start": slot.start,
        "provider_id": prov.id,
        "provider_label": display_name(prov),
        "location": prov.location,
    }


@builder("portal.clinician")
def plant_clinician(
    ctx: PortalContext,
    *,
    name: str,
    credentials: str,
    specialty: str,
    department: str,
    location: str = "eastside",
    video: bool = True,
    position: int | None = None,
) -> dict[str, Any]:
    """One more clinician (with open times), e.g. a look-alike name."""
    state = ctx.state
    made = Provider(
        id=ctx.new_id("prov"),
        name=name,
        credentials=credentials,
        specialty=specialty,
        department=department,
        location=LOCATIONS[location],
        video=video,
    )
    state.providers.insert(len(state.providers) if position is None else position, made)
    add_slots(ctx, made, chance=0.35)
    return {"provider_id": made.id, "provider_label": display_name(made)}


@builder("portal.bill")
def plant_bill(
    ctx: PortalContext,
    *,
    number: str,
    service: str,
    provider_name: str,
    days_ago: int,
    charges: float,
    insurance_paid: float,
    due_in: int = 45,
) -> dict[str, Any]:
    """One more statement with a balance, due `due_in` days after the service."""
    prov = provider(ctx, provider_name)
    charges_cents, paid_cents = int(round(charges * 100)), int(round(insurance_paid * 100))
    made = Bill(
        id=ctx.new_id("bill"),
        number=number,
        service=service,
        service_date=day(ctx, -days_ago),
        provider_id=prov.id,
        charges_cents=charges_cents,
        insurance_paid_cents=paid_cents,
        balance_cents=charges_cents - paid_cents,
        due_date=day(ctx, -days_ago + due_in),
        status="due",
    )
    ctx.state.bills.append(made)
    return {"bill_id": made.id, "balance_cents": made.balance_cents}


@builder("portal.prescription")
def plant_prescription(
    ctx: PortalContext,
    *,
    drug: str,
    strength: str,
    sig: str,
    prescriber: str,
    pharmacy_name: str,
    refills: int,
    filled_days_ago: int,
    days_supply: int = 30,
    quantity: int = 30,
) -> dict[str, Any]:
    """One more current prescription."""
    made = Prescription(
        id=ctx.new_id("rx"),
        drug=drug,
        strength=strength,
        sig=sig,
        prescriber_id=provider(ctx, prescriber).id,
        pharmacy_id=pharmacy(ctx, pharmacy_name).id,
        quantity=quantity,
        refills_left=refills,
        status="active",
        last_filled=day(ctx, -filled_days_ago),
        days_supply=days_supply,
        expires_on=day(ctx, 180),
    )
    ctx.state.prescriptions.append(made)
    return {"prescription_id": made.id}


@builder("portal.find_thread")
def find_thread(ctx: PortalContext, *, subject: str) -> dict[str, Any]:
    """The conversation of the default record with this subject (exactly one)."""
    found = [t for t in ctx.state.threads if t.subject == subject]
    if len(found) != 1:
        raise SeedError(f"expected one conversation {subject!r}, found {len(found)}")
    return {"thread_id": found[0].id, "team": found[0].team}


@builder("portal.busy_first_day")
def busy_first_day(
    ctx: PortalContext, *, provider_name: str, visit_type: str, other: str, time: str, reason: str
) -> dict[str, Any]:
    """A visit with `other` on the day of `provider_name`'s first open `visit_type` time, so that
    day is no longer free (at `time`, which must differ from that first time)."""
    first = earliest_slot(ctx, provider_name=provider_name, visit_type=visit_type) or {}
    offset = (date.fromisoformat(first["slot_start"][:10]) - ctx.now.date()).days
    if first["slot_start"][11:16] == time:
        time = "07:30"  # before any open time, so never the first open time itself
    made = plant_appointment(ctx, provider_name=other, offset=offset, time=time, reason=reason) or {}
    return {"busy_appointment_id": made["appointment_id"], "busy_day": first["slot_start"][:10]}
