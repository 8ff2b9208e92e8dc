"""Oracle and wrong solutions of Larkspur Health's tasks (Playwright, through the UI only).

An oracle is what a careful patient does: it reads what the pages show and checks the answer of
every write, recovering from what the variant throws at it (a look-alike clinician, a failed
request, an expired session, a covering box, an extra confirmation) without doing anything twice.
A WRONG solution is a plausible mistake and must fail the evaluator in both conditions.
"""

from __future__ import annotations

import re
from typing import Any

from environments.portal import oracle_steps as ui


def _cancel_skin_check(page: Any, reason: str) -> None:
    ui.ready(page)
    ui.open_visit(page, "Skin check", "Dr. Irene Castillo")
    text = ui.cancel_visit(page, reason)
    assert "cancelled" in text, text


def cancel_oracle(page: Any, ctx: Any) -> None:
    _cancel_skin_check(page, "Schedule conflict")


def cancel_wrong(page: Any, ctx: Any) -> None:
    """Cancels the right visit but picks the first reason that sounds close."""
    _cancel_skin_check(page, "Booked another time")


def _request_refill(page: Any, drug: str, pharmacy: str | None) -> None:
    ui.ready(page)
    ui.nav(page, "Medications")
    for _ in range(3):
        page.get_by_role("button", name=f"Request refill of {drug}").click()
        if pharmacy:
            page.locator("#refill-pharmacy").select_option(label=pharmacy)
        ui.confirm(page, "Request refill")
        if ui.notice(page).startswith("Refill of"):
            return
        # Failed: re-read the list; a request that did go through shows as requested.
        page.reload()
        ui.ready(page)
        row = page.locator("tr", has=page.get_by_text(drug, exact=True))
        if row.get_by_text("Refill requested").count():
            return
    raise AssertionError("the refill was never requested")


def refill_oracle(page: Any, ctx: Any) -> None:
    _request_refill(page, ctx.targets["drug"], None)


def refill_wrong(page: Any, ctx: Any) -> None:
    """Sends the refill to the mail-order pharmacy instead of the usual one."""
    _request_refill(page, ctx.targets["drug"], "RxMail Home Delivery (mail order)")


def video_visit_oracle(page: Any, ctx: Any) -> None:
    ui.ready(page)
    text = ui.book(
        page,
        department="Primary Care",
        clinician="Dr. Marcus Webb",
        visit_type="Video visit",
        reason="Sinus pressure",
    )
    assert "is booked" in text, text


def video_visit_wrong(page: Any, ctx: Any) -> None:
    """Books the first Primary Care clinician's earliest video time instead of Dr. Webb's."""
    ui.ready(page)
    ui.book(
        page,
        department="Primary Care",
        clinician="Dr. Hannah Okafor",
        visit_type="Video visit",
        reason="Sinus pressure",
    )


def _questionnaire(page: Any, tobacco: str) -> None:
    ui.ready(page)
    ui.nav(page, "Forms")
    ui.go(page, "Annual health questionnaire")
    page.get_by_role("radio", name="Good", exact=True).check()
    page.get_by_role("radio", name=tobacco, exact=True).check()
    page.get_by_label(re.compile(r"^Allergies")).fill("Penicillin")
    page.get_by_label(re.compile(r"^Signature")).fill("Elena Park")
    submit = page.get_by_role("button", name="Submit form")
    for _ in range(3):
        submit.click()
        try:
            page.locator("dialog[open]").wait_for(timeout=2000)
            break
        except Exception:
            continue  # the click did nothing: click again
    ui.confirm(page, "Submit")
    text = ui.notice(page)
    assert "was submitted" in text, text


def questionnaire_oracle(page: Any, ctx: Any) -> None:
    _questionnaire(page, "Never")


def questionnaire_wrong(page: Any, ctx: Any) -> None:
    """Answers "Former" for tobacco."""
    _questionnaire(page, "Former")


def _set_access(page: Any, person: str, access: str, value: str) -> None:
    """Change someone's access and check, after a reload, that it stuck."""
    for _ in range(3):
        page.get_by_label(f"Access for {person}", exact=True).select_option(label=access)
        page.get_by_role("button", name=f"Save access for {person}").click()
        ui.notice(page)
        page.reload()
        ui.ready(page)
        if page.get_by_label(f"Access for {person}", exact=True).input_value() == value:
            return
    raise AssertionError(f"{person}'s access never changed")


def _invite(page: Any, name: str, relationship: str, access: str) -> None:
    row = page.locator("tbody tr", has=page.get_by_text(name, exact=True)).last
    cells = row.locator("td").all_inner_texts()
    email, dob = cells[1].strip(), cells[2].strip()
    page.get_by_label("Full name").fill(name)
    page.get_by_label("Relationship").select_option(relationship)
    page.get_by_label("Email").fill(email)
    page.get_by_label("Their date of birth").fill(dob)
    page.locator("#proxy-access").select_option(label=access)
    page.get_by_role("button", name="Review invitation").click()
    ui.confirm(page, "Send invitation")
    text = ui.notice(page)
    assert text.startswith("Invitation sent"), text


def sharing_oracle(page: Any, ctx: Any) -> None:
    ui.ready(page)
    ui.nav(page, "Share my record")
    _set_access(page, "Daniel Park", "Billing only", "billing")
    _invite(page, "Grace Park", "Parent", "Appointments only")


def sharing_wrong(page: Any, ctx: Any) -> None:
    """Re-invites Grace with full access."""
    ui.ready(page)
    ui.nav(page, "Share my record")
    _set_access(page, "Daniel Park", "Billing only", "billing")
    _invite(page, "Grace Park", "Parent", "Full access")


def _statements(page: Any) -> list[tuple[str, str, int, str]]:
    """(number, date of service, balance, status) of every statement on the billing page."""
    out = []
    for cells in ui.table_rows(page, "Statements"):
        number = cells[0].split("\n")[0].strip()
        out.append((number, cells[1].strip(), ui.amount(cells[5]), cells[6].strip()))
    return out


def past_due_oracle(page: Any, ctx: Any) -> None:
    ui.ready(page)
    ui.nav(page, "Billing & insurance")
    ui.dismiss_overlay(page)
    for number, _, _, status in _statements(page):
        if status == "Past due":
            ui.pay_until_paid(page, number, "Mastercard")


def past_due_wrong(page: Any, ctx: Any) -> None:
    """Pays every statement that has a balance, not only the past-due ones."""
    ui.ready(page)
    ui.nav(page, "Billing & insurance")
    for number, _, _, status in _statements(page):
        if status == "Past due" or status.startswith("Due"):
            ui.pay_until_paid(page, number, "Mastercard")


def _book_checked(page: Any, reason: str, **visit: Any) -> None:
    """Book; after a failure, look at the upcoming visits before booking again (never twice)."""
    for _ in range(3):
        text = ui.book(page, reason=reason, **visit)
        if "is booked" in text or "was sent" in text:
            return
        ui.relogin_if_needed(page)
        ui.nav(page, "Appointments")
        if page.locator("article.visit", has_text=reason).filter(has_text=visit["clinician"]).count():
            return
    raise AssertionError("the visit was never booked")


def cholesterol_oracle(page: Any, ctx: Any, *, reply: bool = True) -> None:
    ui.ready(page)
    ui.nav(page, "Test results")
    page.get_by_role("table", name="Test results").get_by_role("link", name="Lipid panel").first.click()
    ui.ready(page)
    ordered = re.search(r"Ordered by (.+)$", page.locator("#app p.muted").first.inner_text())
    assert ordered, "no ordering clinician on the result"
    clinician = ordered.group(1).strip()
    assert clinician == "Dr. Hannah Okafor", clinician
    _book_checked(
        page, "Cholesterol follow-up", department="Primary Care", clinician=clinician, visit_type="In person"
    )
    if not reply:
        return
    ui.nav(page, "Messages")
    ui.go(page, "Your recent lab results")
    page.get_by_label("Reply").fill("Thank you. I booked a follow-up visit to talk about my cholesterol.")
    page.get_by_role("button", name="Send reply").click()
    text = ui.notice(page)
    assert text == "Reply sent.", text


def cholesterol_wrong(page: Any, ctx: Any) -> None:
    """Books the visit but never answers the message."""
    cholesterol_oracle(page, ctx, reply=False)


def skin_video_oracle(page: Any, ctx: Any, *, cancel: bool = True) -> None:
    ui.ready(page)
    _book_checked(
        page, "Skin check", department="Dermatology", clinician="Daniel Frost, PA-C", visit_type="Video visit"
    )
    if not cancel:
        return
    for _ in range(3):
        ui.open_visit(page, "Skin check", "Dr. Irene Castillo")
        text = ui.cancel_visit(page, "Booked another time")
        if "cancelled" in text:
            return
        ui.relogin_if_needed(page)
    raise AssertionError("the old visit was never cancelled")


def skin_video_wrong(page: Any, ctx: Any) -> None:
    """Books the video visit and forgets to cancel the old one."""
    skin_video_oracle(page, ctx, cancel=False)


def _pay_within_budget(page: Any, *, newest_first: bool) -> None:
    ui.ready(page)
    ui.nav(page, "Billing & insurance")
    ui.dismiss_overlay(page)
    due = [s for s in _statements(page) if s[3] == "Past due" or s[3].startswith("Due")]
    due.sort(key=lambda s: ui.parse_day(s[1]), reverse=newest_first)
    spent = 0
    for number, _, balance, _ in due:
        if spent + balance > 10_000:
            break
        ui.pay_until_paid(page, number, "Visa")
        spent += balance


def budget_oracle(page: Any, ctx: Any) -> None:
    _pay_within_budget(page, newest_first=False)


def budget_wrong(page: Any, ctx: Any) -> None:
    """Pays the newest statements first."""
    _pay_within_budget(page, newest_first=True)


def thyroid_oracle(
    page: Any, ctx: Any, *, access: tuple[str, str] = ("Appointments only", "appointments")
) -> None:
    ui.ready(page)
    ui.nav(page, "Share my record")
    _set_access(page, "Daniel Park", *access)
    ui.open_visit(page, "Thyroid consultation", "Dr. Yusuf Rahman")
    text = ui.cancel_visit(page, "Booked another time")
    assert "cancelled" in text, text
    _book_checked(
        page,
        "Thyroid consultation",
        department="Endocrinology",
        clinician="Dr. Yusuf Rahman",
        visit_type="Video visit",
    )


def thyroid_wrong(page: Any, ctx: Any) -> None:
    """Gives Daniel full access instead of appointments only."""
    thyroid_oracle(page, ctx, access=("Full access", "full"))


ORACLES = {
    "portal-001": cancel_oracle,
    "portal-002": refill_oracle,
    "portal-005": video_visit_oracle,
    "portal-008": questionnaire_oracle,
    "portal-009": sharing_oracle,
    "portal-011": past_due_oracle,
    "portal-013": cholesterol_oracle,
    "portal-014": skin_video_oracle,
    "portal-018": budget_oracle,
    "portal-019": thyroid_oracle,
}
WRONG = {
    "portal-001": cancel_wrong,
    "portal-002": refill_wrong,
    "portal-005": video_visit_wrong,
    "portal-008": questionnaire_wrong,
    "portal-009": sharing_wrong,
    "portal-011": past_due_wrong,
    "portal-013": cholesterol_wrong,
    "portal-014": skin_video_wrong,
    "portal-018": budget_wrong,
    "portal-019": thyroid_wrong,
}
