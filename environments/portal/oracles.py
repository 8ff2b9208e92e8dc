"""Oracle and wrong solutions of Larkspur Health's tasks (Playwright, through the UI only).

An oracle is what a careful patient does: it reads what the pages show and checks the answer of
every write, recovering from what the variant throws at it (a look-alike clinician, a failed
request, an expired session, a covering box, an extra confirmation) without doing anything twice.
A WRONG solution is a plausible mistake and must fail the evaluator in both conditions.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from playwright.sync_api import Page

from humantrace.environments.oracles import OracleContext, choose
from humantrace.environments.portal import oracle_steps as ui


def _cancel_skin_check(page: Page, reason: str) -> None:
    ui.ready(page)
    ui.open_visit(page, "Skin check", "Dr. Irene Castillo")
    text = ui.cancel_visit(page, reason)
    assert "cancelled" in text, text


def cancel_oracle(page: Page, ctx: OracleContext) -> None:
    _cancel_skin_check(page, "Schedule conflict")


def cancel_wrong(page: Page, ctx: OracleContext) -> None:
    """Cancels the right visit but picks the first reason that sounds close."""
    _cancel_skin_check(page, "Booked another time")


def _request_refill(page: Page, drug: str, pharmacy: str | None) -> None:
    ui.ready(page)
    ui.nav(page, "Medications")
    for _ in range(3):
        page.get_by_role("button", name=f"Request refill of {drug}").click()
        if pharmacy:
            choose(page.locator("dialog[open]"), "Pharmacy", pharmacy)
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


def refill_oracle(page: Page, ctx: OracleContext) -> None:
    _request_refill(page, ctx.targets["drug"], None)


def refill_wrong(page: Page, ctx: OracleContext) -> None:
    """Sends the refill to the mail-order pharmacy instead of the usual one."""
    _request_refill(page, ctx.targets["drug"], "RxMail Home Delivery (mail order)")


def video_visit_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    text = ui.book(
        page,
        department="Primary Care",
        clinician="Dr. Marcus Webb",
        visit_type="Video visit",
        reason="Sinus pressure",
    )
    assert "is booked" in text, text


def video_visit_wrong(page: Page, ctx: OracleContext) -> None:
    """Books the first Primary Care clinician's earliest video time instead of Dr. Webb's."""
    ui.ready(page)
    ui.book(
        page,
        department="Primary Care",
        clinician="Dr. Hannah Okafor",
        visit_type="Video visit",
        reason="Sinus pressure",
    )


def _questionnaire(page: Page, tobacco: str) -> None:
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


def questionnaire_oracle(page: Page, ctx: OracleContext) -> None:
    _questionnaire(page, "Never")


def questionnaire_wrong(page: Page, ctx: OracleContext) -> None:
    """Answers "Former" for tobacco."""
    _questionnaire(page, "Former")


def _set_access(page: Page, person: str, access: str) -> None:
    """Change someone's access and check, after a reload, that it stuck."""
    for _ in range(3):
        choose(page, f"Access for {person}", access)
        page.get_by_role("button", name=f"Save access for {person}").click()
        ui.notice(page)
        page.reload()
        ui.ready(page)
        if ui.chosen(page, f"Access for {person}") == access:
            return
    raise AssertionError(f"{person}'s access never changed")


def _invite(page: Page, name: str, relationship: str, access: str) -> None:
    row = page.locator("tbody tr", has=page.get_by_text(name, exact=True)).last
    cells = row.locator("td").all_inner_texts()
    email, dob = cells[1].strip(), cells[2].strip()
    page.get_by_label("Full name").fill(name)
    choose(page, "Relationship", relationship)
    page.get_by_label("Email").fill(email)
    page.get_by_label("Their date of birth").fill(dob)
    choose(page, "Access", access)
    page.get_by_role("button", name="Review invitation").click()
    ui.confirm(page, "Send invitation")
    text = ui.notice(page)
    assert text.startswith("Invitation sent"), text


def sharing_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    ui.nav(page, "Share my record")
    _set_access(page, "Daniel Park", "Billing only")
    _invite(page, "Grace Park", "Parent", "Appointments only")


def sharing_wrong(page: Page, ctx: OracleContext) -> None:
    """Re-invites Grace with full access."""
    ui.ready(page)
    ui.nav(page, "Share my record")
    _set_access(page, "Daniel Park", "Billing only")
    _invite(page, "Grace Park", "Parent", "Full access")


def _statements(page: Page) -> list[tuple[str, str, int, str]]:
    """(number, date of service, balance, status) of every statement on the billing page."""
    out = []
    for cells in ui.table_rows(page, "Statements"):
        number = cells[0].split("\n")[0].strip()
        out.append((number, cells[1].strip(), ui.amount(cells[5]), cells[6].strip()))
    return out


def past_due_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    ui.nav(page, "Billing & insurance")
    ui.dismiss_overlay(page)
    for number, _, _, status in _statements(page):
        if status == "Past due":
            ui.pay_until_paid(page, number, "Mastercard")


def past_due_wrong(page: Page, ctx: OracleContext) -> None:
    """Pays every statement that has a balance, not only the past-due ones."""
    ui.ready(page)
    ui.nav(page, "Billing & insurance")
    for number, _, _, status in _statements(page):
        if status == "Past due" or status.startswith("Due"):
            ui.pay_until_paid(page, number, "Mastercard")


def _book_checked(page: Page, reason: str, **visit: Any) -> None:
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


def cholesterol_oracle(page: Page, ctx: OracleContext, *, reply: bool = True) -> None:
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


def cholesterol_wrong(page: Page, ctx: OracleContext) -> None:
    """Books the visit but never answers the message."""
    cholesterol_oracle(page, ctx, reply=False)


def skin_video_oracle(page: Page, ctx: OracleContext, *, cancel: bool = True) -> None:
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


def skin_video_wrong(page: Page, ctx: OracleContext) -> None:
    """Books the video visit and forgets to cancel the old one."""
    skin_video_oracle(page, ctx, cancel=False)


def _pay_within_budget(page: Page, *, newest_first: bool) -> None:
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


def budget_oracle(page: Page, ctx: OracleContext) -> None:
    _pay_within_budget(page, newest_first=False)


def budget_wrong(page: Page, ctx: OracleContext) -> None:
    """Pays the newest statements first."""
    _pay_within_budget(page, newest_first=True)


def thyroid_oracle(page: Page, ctx: OracleContext, *, access: str = "Appointments only") -> None:
    ui.ready(page)
    ui.nav(page, "Share my record")
    _set_access(page, "Daniel Park", access)
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


def thyroid_wrong(page: Page, ctx: OracleContext) -> None:
    """Gives Daniel full access instead of appointments only."""
    thyroid_oracle(page, ctx, access="Full access")


def pay_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    ui.nav(page, "Billing & insurance")
    ui.pay_until_paid(page, ctx.targets["number"], "Visa")


def pay_wrong(page: Page, ctx: OracleContext) -> None:
    """Pays with the Mastercard (the other saved card)."""
    ui.ready(page)
    ui.nav(page, "Billing & insurance")
    ui.pay_until_paid(page, ctx.targets["number"], "Mastercard")


def _send_message(page: Page, *, team: str, subject: str, body: str, topic: str | None = None) -> None:
    """Write and send a new message; after an expired session, sign in and write it again."""
    ui.nav(page, "Messages")
    ui.go(page, "New message")
    for _ in range(3):
        choose(page, "To", team)
        if topic:
            choose(page, "Topic", topic)
        page.get_by_label("Subject", exact=True).fill(subject)
        page.get_by_label("Message", exact=True).fill(body)
        buttons = page.get_by_role("button", name="Send message")
        for index in range(buttons.count()):
            buttons.nth(index).click()
            try:
                text = ui.notice(page, timeout=4000)
                break
            except Exception:
                continue  # that button did nothing: use the other one
        else:
            raise AssertionError("no Send message button sent the message")
        if text.startswith("Message sent"):
            return
        if not ui.relogin_if_needed(page):
            raise AssertionError(text)
    raise AssertionError("the message was never sent")


ADDRESS = "Hello, please send my bills to my new address: 1450 Birch Lane, Larkspur, OR 97203. Thank you!"


def address_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _send_message(page, team="Billing Office", subject="New mailing address", body=ADDRESS)


def address_wrong(page: Page, ctx: OracleContext) -> None:
    """Sends the address to Primary Care (the first care team) instead of billing."""
    ui.ready(page)
    _send_message(page, team="Primary Care", subject="New mailing address", body=ADDRESS)


def _add_card(page: Page, *, coverage: str, effective: str) -> None:
    """Add the Cascade Mutual card; check the cards on file and add it again only if it is missing."""
    ui.nav(page, "Insurance cards")
    for _ in range(3):
        page.get_by_label("Insurance company").fill("Cascade Mutual")
        page.get_by_label("Plan name").fill("Cascade Choice PPO")
        page.get_by_label("Member ID").fill("CMX48213377")
        page.get_by_label("Group number").fill("77120")
        choose(page, "Coverage", coverage)
        page.get_by_label("Effective date").fill(effective)
        page.get_by_role("button", name="Review card").click()
        ui.confirm(page, "Add card")
        ui.notice(page)
        page.reload()
        ui.ready(page)
        if page.locator("article.ins-card", has_text="Cascade Mutual").count():
            return
    raise AssertionError("the card was never added")


def card_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _add_card(page, coverage="Primary", effective="2026-04-01")


def card_wrong(page: Page, ctx: OracleContext) -> None:
    """Adds the new card as secondary, so BlueHarbor stays primary."""
    ui.ready(page)
    _add_card(page, coverage="Secondary", effective="2026-04-01")


def afternoon_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    ui.open_visit(page, "Skin check", "Dr. Irene Castillo")
    page.get_by_role("button", name="Reschedule").click()
    ui.pick_slot(page, page.locator("#app .sub"), from_hour=13)
    page.get_by_role("button", name="Review new time").click()
    ui.confirm(page, "Move visit")
    text = ui.notice(page)
    assert text == "Your visit was moved.", text


def afternoon_wrong(page: Page, ctx: OracleContext) -> None:
    """Books a second visit at that time instead of moving the one there is."""
    ui.ready(page)
    ui.book(
        page,
        department="Dermatology",
        clinician="Dr. Irene Castillo",
        visit_type="In person",
        reason="Skin check",
        from_hour=13,
    )


def _no_refill_drug(page: Page, *, first: bool = False) -> str:
    ui.nav(page, "Medications")
    for cells in ui.table_rows(page, "Current medications"):
        if first or "No refills left" in cells[-1]:
            return cells[0].split("\n")[0].strip()
    raise AssertionError("every medication has refills")


def renewal_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    drug = _no_refill_drug(page)
    _send_message(
        page,
        team="Primary Care",
        subject="Renewal request",
        body=f"Hello, my {drug} has no refills left. Could you please renew it?",
        topic="About a prescription",
    )


def renewal_wrong(page: Page, ctx: OracleContext) -> None:
    """Asks to renew the first medication on the list."""
    ui.ready(page)
    drug = _no_refill_drug(page, first=True)
    _send_message(
        page,
        team="Primary Care",
        subject="Renewal request",
        body=f"Hello, my {drug} has no refills left. Could you please renew it?",
        topic="About a prescription",
    )


def _dermatology_visits(page: Page) -> list[str]:
    ui.nav(page, "Appointments")
    cards = page.locator("article.visit", has_text="Dermatology")
    return [
        str(c.get_by_role("link", name=re.compile(r"^Details")).get_attribute("href")) for c in cards.all()
    ]


def cancel_all_oracle(page: Page, ctx: OracleContext, *, only_first: bool = False) -> None:
    ui.ready(page)
    origin = page.url.split(ui.BASE)[0]
    for href in _dermatology_visits(page):
        page.goto(origin + href)
        ui.ready(page)
        if not page.get_by_role("button", name="Cancel visit").count():
            continue  # within 24 hours: it can't be changed online
        for _ in range(3):
            if "cancelled" in ui.cancel_visit(page, "Feeling better"):
                break
            page.reload()  # refused: re-read the visit before trying again
            ui.ready(page)
        else:
            raise AssertionError("the visit was never cancelled")
        if only_first:
            return


def cancel_all_wrong(page: Page, ctx: OracleContext) -> None:
    """Cancels only the first Dermatology visit it finds."""
    cancel_all_oracle(page, ctx, only_first=True)


def _today(page: Page) -> datetime:
    ui.nav(page, "Home")
    text = page.get_by_text(re.compile(r"^Today is ")).inner_text()
    return datetime.strptime(text.removeprefix("Today is ").rstrip("."), "%A, %B %d, %Y")


def due_refills_oracle(
    page: Page, ctx: OracleContext, *, pharmacy: str | None = "RxMail Home Delivery (mail order)"
) -> None:
    ui.ready(page)
    today = _today(page)
    ui.nav(page, "Medications")
    due = []
    for cells in ui.table_rows(page, "Current medications"):
        drug = cells[0].split("\n")[0].strip()
        runs_out = ui.parse_day(cells[5].split("Runs out")[1])
        if int(cells[4]) > 0 and 0 <= (runs_out - today).days <= 7 and "Refill requested" not in cells[6]:
            due.append(drug)
    assert due, "nothing runs out this week"
    for drug in due:
        _request_refill(page, drug, pharmacy)


def due_refills_wrong(page: Page, ctx: OracleContext) -> None:
    """Requests the right refills but leaves each at its usual pharmacy."""
    due_refills_oracle(page, ctx, pharmacy=None)


def insurer_reply_oracle(page: Page, ctx: OracleContext, *, reply: bool = True) -> None:
    ui.ready(page)
    _add_card(page, coverage="Primary", effective=ctx.targets["effective"])
    note = "My insurance changed: my new insurer is Cascade Mutual (Cascade Choice PPO). Please re-submit the claim."
    if not reply:
        _send_message(
            page, team="Billing Office", subject="Statement S-20418", body=note, topic="About a bill"
        )
        return
    ui.nav(page, "Messages")
    ui.go(page, "Statement S-20418")
    for _ in range(3):
        page.get_by_label("Reply").fill(note)
        page.get_by_role("button", name="Send reply").click()
        ui.notice(page)
        page.reload()
        ui.ready(page)
        if page.locator("article.bubble.mine", has_text="Cascade Mutual").count():
            return
    raise AssertionError("the reply never arrived")


def insurer_reply_wrong(page: Page, ctx: OracleContext) -> None:
    """Starts a new conversation instead of replying in the statement's one."""
    insurer_reply_oracle(page, ctx, reply=False)


def _fill_questionnaire(page: Page, title: str, *, health: str, tobacco: str, allergies: str) -> None:
    ui.nav(page, "Forms")
    ui.go(page, title)
    page.get_by_role("radio", name=health, exact=True).check()
    page.get_by_role("radio", name=tobacco, exact=True).check()
    page.get_by_label(re.compile(r"^Allergies")).fill(allergies)
    page.get_by_label(re.compile(r"^Signature")).fill("Elena Park")
    page.get_by_role("button", name="Submit form").click()
    ui.confirm(page, "Submit")
    text = ui.notice(page)
    assert "was submitted" in text, text


def counseling_oracle(page: Page, ctx: OracleContext, *, check_days: bool = True) -> None:
    ui.ready(page)
    busy: tuple[str, ...] = ()
    if check_days:
        ui.nav(page, "Appointments")
        texts = page.locator("article.visit p.muted").all_inner_texts()
        busy = tuple(t.split(" at ")[0].strip() for t in texts if " at " in t)
    _book_checked(
        page,
        "Stress",
        department="Behavioral Health",
        clinician="Lena Hoffman, PhD",
        visit_type="Video visit",
        skip_days=busy,
        overlay=ctx.condition == "intervention",
    )
    _fill_questionnaire(
        page, "Pre-visit questionnaire: Dermatology", health="Good", tobacco="Never", allergies="None"
    )


def counseling_wrong(page: Page, ctx: OracleContext) -> None:
    """Books the earliest video time without checking which days already have a visit."""
    counseling_oracle(page, ctx, check_days=False)


def low_result_oracle(page: Page, ctx: OracleContext, *, exact_name: bool = True) -> None:
    ui.ready(page)
    ui.nav(page, "Test results")
    table = page.get_by_role("table", name="Test results")
    flagged = [
        row.get_by_role("link").first.inner_text()
        for row in table.locator("tbody tr").all()
        if "Final" in row.inner_text() and "out of range" in row.inner_text()
    ]
    low = None
    for index in range(len(flagged)):
        rows = [
            r
            for r in table.locator("tbody tr").all()
            if "Final" in r.inner_text() and "out of range" in r.inner_text()
        ]
        rows[index].get_by_role("link").first.click()
        ui.ready(page)
        if page.get_by_role("table", name="Result components").get_by_text("Low", exact=True).count():
            low = page.get_by_role("heading", level=1).inner_text().strip()
            break
        ui.nav(page, "Test results")
        table = page.get_by_role("table", name="Test results")
    assert low, "no final result has a low value"
    subject = low if exact_name else low.split(",")[0]
    _send_message(
        page,
        team="Primary Care",
        subject=subject,
        body="One of the values in this result is flagged low. What should I do about it?",
        topic="About a test result",
    )
    _book_checked(
        page, "Lab review", department="Primary Care", clinician="Priya Natarajan, NP", visit_type="In person"
    )


def low_result_wrong(page: Page, ctx: OracleContext) -> None:
    """Shortens the subject to the test's common name."""
    low_result_oracle(page, ctx, exact_name=False)


ORACLES = {
    "portal-001": cancel_oracle,
    "portal-002": refill_oracle,
    "portal-003": pay_oracle,
    "portal-004": address_oracle,
    "portal-005": video_visit_oracle,
    "portal-006": card_oracle,
    "portal-007": afternoon_oracle,
    "portal-008": questionnaire_oracle,
    "portal-009": sharing_oracle,
    "portal-010": renewal_oracle,
    "portal-011": past_due_oracle,
    "portal-012": cancel_all_oracle,
    "portal-013": cholesterol_oracle,
    "portal-014": skin_video_oracle,
    "portal-015": due_refills_oracle,
    "portal-016": insurer_reply_oracle,
    "portal-017": counseling_oracle,
    "portal-018": budget_oracle,
    "portal-019": thyroid_oracle,
    "portal-020": low_result_oracle,
}
WRONG = {
    "portal-001": cancel_wrong,
    "portal-002": refill_wrong,
    "portal-003": pay_wrong,
    "portal-004": address_wrong,
    "portal-005": video_visit_wrong,
    "portal-006": card_wrong,
    "portal-007": afternoon_wrong,
    "portal-008": questionnaire_wrong,
    "portal-009": sharing_wrong,
    "portal-010": renewal_wrong,
    "portal-011": past_due_wrong,
    "portal-012": cancel_all_wrong,
    "portal-013": cholesterol_wrong,
    "portal-014": skin_video_wrong,
    "portal-015": due_refills_wrong,
    "portal-016": insurer_reply_wrong,
    "portal-017": counseling_wrong,
    "portal-018": budget_wrong,
    "portal-019": thyroid_wrong,
    "portal-020": low_result_wrong,
}
