"""Oracle and wrong solutions for Parcel Mail's tasks (Playwright, through the UI only).

`ORACLES[task_id](page, ctx)` solves the task as a careful person would, and recovers from the
task's variant by noticing what the page shows (an error, a dialog, a list that did not change).
`WRONG[task_id]` makes a plausible mistake that the evaluator must fail. Both start on the task's
start page. The steps they share are in `oracle_steps`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from humantrace.environments.mail.oracle_steps import (
    Expired,
    add_contact,
    close_dialogs,
    contact_row,
    create_label,
    fill_recipients,
    follow,
    has_label,
    home,
    label_as,
    message,
    open_conversation,
    open_folder,
    open_nav,
    reload,
    rows,
    search,
    select_rows,
    send,
    settle,
    show_more,
    toolbar,
    wait_for,
    write_on_top,
)
from humantrace.environments.oracles import OracleContext, choose
from humantrace.environments.sitekit import Oracle

if TYPE_CHECKING:
    from playwright.sync_api import Page

Ctx = OracleContext


# ------------------------------------------------------------------ mail-001 star


def star_roadmap(page: Page, ctx: Ctx) -> None:
    settle(page)
    for _ in range(3):
        row = rows(page, "Q3 roadmap draft for review", "Marcus Lee").first
        star = row.locator("button.star")
        if star.get_attribute("aria-pressed") == "true":
            return
        star.click()
        page.wait_for_timeout(500)
        reload(page)
    raise AssertionError("the roadmap email never showed as starred")


def star_first_roadmap(page: Page, ctx: Ctx) -> None:
    # Stars the newest conversation that mentions the roadmap, without checking who sent it.
    search(page, "roadmap")
    page.locator("li.row").first.locator("button.star").click()
    page.wait_for_timeout(500)


# ------------------------------------------------------------------ mail-002 mark unread


def mark_boiler_unread(page: Page, ctx: Ctx) -> None:
    settle(page)
    for _ in range(3):
        open_conversation(page, "Boiler service next Tuesday")
        for _ in range(3):
            toolbar(page, "Mark as unread").click()
            if wait_for(page, lambda: "/thread/" not in page.url, timeout=3):
                break  # back in the list; otherwise nothing happened: press it again
        settle(page)
        if "unread" in (rows(page, "Boiler service next Tuesday").first.get_attribute("class") or ""):
            return
    raise AssertionError("the boiler email never showed as unread")


def open_boiler_only(page: Page, ctx: Ctx) -> None:
    settle(page)
    open_conversation(page, "Boiler service next Tuesday")
    follow(page, page.get_by_role("link", name="Back to Inbox"))


# ------------------------------------------------------------------ mail-003 add contact


def add_caterer(page: Page, ctx: Ctx) -> None:
    t = ctx.targets
    open_nav(page, "Contacts")
    add_contact(page, name=t["name"], email=t["email"], company=t["company"])
    assert contact_row(page, t["name"]).locator("td", has_text=t["email"]).count() == 1


def add_caterer_typo(page: Page, ctx: Ctx) -> None:
    t = ctx.targets
    open_nav(page, "Contacts")
    add_contact(page, name=t["name"], email=t["email"].replace(".com", ".co"), company=t["company"])


# ------------------------------------------------------------------ mail-004 delete


SALE = "Last call: the spring sale ends tonight"


def delete_sale(page: Page, ctx: Ctx) -> None:
    settle(page)
    for _ in range(3):
        if rows(page, SALE).count() == 0:
            open_folder(page, "Trash")
            assert rows(page, SALE).count() == 1
            return
        open_conversation(page, SALE)
        toolbar(page, "Delete").click()
        page.wait_for_timeout(300)
        close_dialogs(page, "Move to Trash")
        wait_for(page, lambda: "/thread/" not in page.url, timeout=5)
        home(page)
    raise AssertionError("the sale email is still in the inbox")


def archive_sale(page: Page, ctx: Ctx) -> None:
    settle(page)
    open_conversation(page, SALE)
    follow(page, toolbar(page, "Archive"))


# ------------------------------------------------------------------ mail-005 reply with the new time


REVIEW = "Moving Thursday's design review?"


def _reply_in_thread(
    page: Page, subject: str, sender: str, index: int, text: str, mode: str = "Reply"
) -> None:
    open_conversation(page, subject)
    message(page, sender, index).get_by_role("button", name=mode, exact=True).click()
    page.locator("#send").wait_for()
    write_on_top(page, text)
    send(page)


def confirm_time(page: Page, ctx: Ctx) -> None:
    settle(page)
    _reply_in_thread(
        page,
        REVIEW,
        "Marcus Lee",
        -1,
        "Hi Marcus,\n\nFriday at 3:30 PM in the small room works for me. See you then!\n\nJamie",
    )
    assert page.locator("article.message", has_text="Friday at 3:30 PM in the small room works").count() == 1


def confirm_time_to_first(page: Page, ctx: Ctx) -> None:
    settle(page)
    _reply_in_thread(page, REVIEW, "Marcus Lee", 0, "Friday at 3:30 PM works for me.")


# ------------------------------------------------------------------ mail-006 label invoices


def label_invoices(page: Page, ctx: Ctx) -> None:
    settle(page)
    for _ in range(3):
        search(page, "from:inkwellprint.com invoice")
        found = rows(page).filter(has=page.locator(".subject", has_text=re.compile(r"^Invoice INV-")))
        select_rows(page, found)
        label_as(page, "Receipts")
        search(page, "from:inkwellprint.com invoice")
        invoices = rows(page).filter(has=page.locator(".subject", has_text=re.compile(r"^Invoice INV-")))
        labelled = invoices.filter(has=page.locator(".chip", has_text=re.compile(r"^Receipts$")))
        if invoices.count() == 3 and labelled.count() == 3:
            return
    raise AssertionError("the Inkwell invoices are not all labelled")


def label_inbox_invoices(page: Page, ctx: Ctx) -> None:
    settle(page)
    found = rows(page, who="Inkwell Print Co.").filter(
        has=page.locator(".subject", has_text=re.compile(r"^Invoice INV-"))
    )
    select_rows(page, found)
    label_as(page, "Receipts")


# ------------------------------------------------------------------ mail-007 restore


LEASE = "Your lease renewal for 14 Alder Street"


def restore_lease(page: Page, ctx: Ctx) -> None:
    open_folder(page, "Trash")
    for _ in range(5):
        if rows(page, LEASE).count():
            break
        assert show_more(page), "the lease email is not in Trash"
    select_rows(page, rows(page, LEASE))
    page.get_by_role("button", name="Restore", exact=True).click()
    page.wait_for_timeout(500)
    home(page)
    assert rows(page, LEASE).count() == 1


def restore_newest_from_harold(page: Page, ctx: Ctx) -> None:
    # Restores the newest message from Harold in Trash without reading its subject.
    search(page, "in:trash from:harold")
    select_rows(page, rows(page).first)
    page.get_by_role("button", name="Move to Inbox", exact=True).click()
    page.wait_for_timeout(800)


# ------------------------------------------------------------------ mail-008 vacation reply


def _vacation(page: Page, start: str, end: str, message: str) -> None:
    open_nav(page, "Settings")
    for _ in range(3):
        page.get_by_label("Send an automatic reply while I'm away").check()
        page.get_by_label("First day").fill(start)
        page.get_by_label("Last day").fill(end)
        page.get_by_label("Subject", exact=True).fill("Out of office")
        page.get_by_label("Message", exact=True).fill(message)
        with page.expect_response(lambda r: r.url.endswith("/settings") and r.request.method == "PUT"):
            page.get_by_role("button", name="Save changes").click()
        reload(page)
        if (
            page.get_by_label("First day").input_value() == start
            and page.get_by_label("Last day").input_value() == end
            and page.get_by_label("Send an automatic reply while I'm away").is_checked()
        ):
            return
    raise AssertionError("the vacation dates did not stick")


VACATION_MESSAGE = (
    "Hi, I'm on vacation and back soon. For anything urgent, please contact Marcus Lee ({addr})."
)


def set_vacation(page: Page, ctx: Ctx) -> None:
    t = ctx.targets
    settle(page)
    _vacation(page, t["start"], t["end"], VACATION_MESSAGE.format(addr=t["backup_addr"]))


def set_vacation_short(page: Page, ctx: Ctx) -> None:
    # Ends the reply the day before the last vacation day (an off-by-one reading of "through").
    from datetime import date, timedelta

    t = ctx.targets
    settle(page)
    end = (date.fromisoformat(t["end"]) - timedelta(days=1)).isoformat()
    _vacation(page, t["start"], end, VACATION_MESSAGE.format(addr=t["backup_addr"]))


# ------------------------------------------------------------------ mail-009 forward invoices


BRIGHTPATH = [
    "Your Brightpath Hosting invoice BH-10482 (February)",
    "Your Brightpath Hosting invoice BH-10571 (March)",
]


def _forward(
    page: Page, sender: str, to: str, *, keep_files: bool = True, note: str = "Forwarding for your records."
) -> None:
    message(page, sender).get_by_role("button", name="Forward", exact=True).click()
    page.locator("#send").wait_for()
    fill_recipients(page, "To", [to])
    if not keep_files:
        for button in page.get_by_role("button", name=re.compile(r"^Remove attachment")).all():
            button.click()
    write_on_top(page, note)
    send(page)


def forward_invoices(page: Page, ctx: Ctx, *, keep_files: bool = True) -> None:
    addr = ctx.targets["accounting_addr"]
    settle(page)
    for subject in BRIGHTPATH:
        search(page, "Brightpath invoice")
        open_conversation(page, subject)
        assert page.locator(".msg-from .addr", has_text="billing@brightpathhosting.com").count()
        _forward(page, "Brightpath Hosting", addr, keep_files=keep_files)
        follow(page, toolbar(page, "Archive"))
    open_folder(page, "Sent")
    assert sum(rows(page, subject).count() for subject in BRIGHTPATH) == 2
    home(page)
    for subject in BRIGHTPATH:
        assert rows(page, subject).count() == 0


def forward_invoices_without_files(page: Page, ctx: Ctx) -> None:
    forward_invoices(page, ctx, keep_files=False)


# ------------------------------------------------------------------ mail-010 newsletters


def _label_and_archive(page: Page, sender_query: str, label: str) -> None:
    for _ in range(4):
        search(page, f"in:inbox from:{sender_query}")
        if rows(page).count() == 0:
            return
        unlabelled = rows(page).filter(has_not=page.locator(".chip", has_text=re.compile(rf"^{label}$")))
        if unlabelled.count():
            select_rows(page, unlabelled)
            label_as(page, label)
        page.get_by_label("Select all").check()
        page.get_by_role("button", name="Archive", exact=True).click()
        page.wait_for_timeout(600)
        # Re-read the inbox: the rows leave the list at once whether or not the server archived them.
    raise AssertionError(f"mail from {sender_query} is still in the inbox")


def sort_newsletters(
    page: Page, ctx: Ctx, *, senders: tuple[str, ...] = ("morningbrief.co", "designweekly.io")
) -> None:
    settle(page)
    create_label(page, "Newsletters")
    for sender in senders:
        _label_and_archive(page, sender, "Newsletters")


def sort_one_newsletter(page: Page, ctx: Ctx) -> None:
    sort_newsletters(page, ctx, senders=("morningbrief.co",))


# ------------------------------------------------------------------ mail-011 finish the draft


DRAFT_SUBJECT = "Packaging redesign proposal"


def _finish_draft(page: Page, *, cc: bool, price: str) -> None:
    for _ in range(3):
        open_folder(page, "Drafts")
        with page.expect_navigation():
            rows(page).filter(has=page.locator(".subject", has_text=DRAFT_SUBJECT)).first.locator(
                ".gist"
            ).click()
        page.locator("#send").wait_for()
        body = page.get_by_label("Message", exact=True)
        body.fill(body.input_value().replace("would be \n", f"would be {price}.\n", 1))
        if cc:
            fill_recipients(page, "Cc", ["elena.garcia@orchardline.com"])
        try:
            send(page)
            return
        except Expired:
            home(page)  # signed in again; the draft is back as it was saved, so start over
    raise AssertionError("the proposal could not be sent")


def finish_proposal(page: Page, ctx: Ctx) -> None:
    settle(page)
    _finish_draft(page, cc=True, price="$18,400")
    open_folder(page, "Sent")
    assert rows(page, DRAFT_SUBJECT).count() == 1


def finish_proposal_without_cc(page: Page, ctx: Ctx) -> None:
    settle(page)
    _finish_draft(page, cc=False, price="$18,400")


# ------------------------------------------------------------------ mail-012 flight change


SCHEDULE_CHANGE = "Schedule change: your April 14 flight now departs at 7:10 AM"
BOOKING = "Booking confirmed: Portland (PDX) to Boston (BOS), April 14"


def _label_skyharbor(page: Page) -> None:
    for _ in range(3):
        search(page, "from:skyharbor")
        if not has_label(page, "Travel"):
            create_label(page, "Travel")
            continue
        select_rows(page, rows(page, who="SkyHarbor Airlines"))
        label_as(page, "Travel")
        labelled = rows(page, who="SkyHarbor Airlines").filter(
            has=page.locator(".chip", has_text=re.compile(r"^Travel$"))
        )
        if labelled.count() == 2:
            return
    raise AssertionError("the SkyHarbor emails are not labelled Travel")


def share_flight(page: Page, ctx: Ctx, *, subject: str = SCHEDULE_CHANGE) -> None:
    settle(page)
    search(page, "from:skyharbor")
    open_conversation(page, subject)
    _forward(
        page,
        "SkyHarbor Airlines",
        ctx.targets["nora_addr"],
        note="Hi Nora, my flight changed, here's the new itinerary.",
    )
    _label_skyharbor(page)


def share_old_flight(page: Page, ctx: Ctx) -> None:
    share_flight(page, ctx, subject=BOOKING)


# ------------------------------------------------------------------ mail-013 client filter and signature


def _create_filter(page: Page, *, sender: str, label: str, existing: bool) -> None:
    settle(page)
    page.wait_for_timeout(1200)  # promotions tend to pop up right after a page opens
    close_dialogs(page, "No thanks", "Close")
    for _ in range(3):
        page.get_by_label("From contains").fill(sender)
        choose(page, "Apply the label", label)
        if existing:
            page.get_by_label(
                "Also apply the filter to matching conversations already in your mailbox"
            ).check()
        page.get_by_role("button", name="Create filter").click()
        if wait_for(
            page, lambda: page.locator("#filters .filter-rule", has_text=sender).count() > 0, timeout=10
        ):
            return
        close_dialogs(page, "No thanks", "Close")
    raise AssertionError("the filter was not created")


def _filters_page(page: Page) -> None:
    open_nav(page, "Settings")
    follow(page, page.get_by_role("navigation", name="Settings sections").get_by_role("link", name="Filters"))


def client_filter(page: Page, ctx: Ctx, *, existing: bool = True) -> None:
    settle(page)
    create_label(page, "Clients")
    _filters_page(page)
    _create_filter(page, sender="wrenanalytics.com", label="Clients", existing=existing)
    open_nav(page, "Settings")
    signature = page.get_by_label("Added to the end of every message you write")
    lines = signature.input_value().split("\n")
    lines[1] = ctx.targets["new_title"]
    signature.fill("\n".join(lines))
    page.get_by_role("button", name="Save changes").click()
    page.wait_for_timeout(500)
    reload(page)
    assert (
        ctx.targets["new_title"]
        in page.get_by_label("Added to the end of every message you write").input_value()
    )


def client_filter_new_mail_only(page: Page, ctx: Ctx) -> None:
    client_filter(page, ctx, existing=False)


# ------------------------------------------------------------------ mail-014 spam rescue


SOPHIE_SPAM = ["Contract renewal: signed copy", "Workshop room is booked"]


def rescue_from_spam(page: Page, ctx: Ctx, *, everything: bool = False) -> None:
    t = ctx.targets
    settle(page)
    open_folder(page, "Spam")
    if everything:
        page.get_by_label("Select all").check()
    else:
        for subject in SOPHIE_SPAM:
            select_rows(page, rows(page, subject, "Sophie Turner"))
    page.get_by_role("button", name="Not spam", exact=True).click()
    for subject in SOPHIE_SPAM:  # the move is saved once they leave the Spam list (a fixed wait raced it)
        rows(page, subject, "Sophie Turner").first.wait_for(state="detached")
    home(page)
    for subject in SOPHIE_SPAM:
        star = rows(page, subject, "Sophie Turner").first.locator("button.star")
        if star.get_attribute("aria-pressed") != "true":
            star.click()
            page.wait_for_timeout(400)
    reload(page)
    for subject in SOPHIE_SPAM:
        assert rows(page, subject).first.locator("button.star").get_attribute("aria-pressed") == "true"
    open_nav(page, "Contacts")
    add_contact(page, name=t["colleague_name"], email=t["colleague_email"], company=t["colleague_company"])


def rescue_all_spam(page: Page, ctx: Ctx) -> None:
    rescue_from_spam(page, ctx, everything=True)


# ------------------------------------------------------------------ mail-015 Tom's new address


FAREWELL = "Moving on: Friday is my last day"


def _edit_contact(page: Page, name: str, email: str, company: str) -> None:
    for _ in range(3):
        contact_row(page, name).get_by_role("button", name=f"Edit {name}").click()
        page.get_by_label("Email", exact=True).fill(email)
        page.get_by_label("Company", exact=True).fill(company)
        page.get_by_role("button", name="Save contact").click()
        wait_for(
            page,
            lambda: page.locator("#contact-form").count() == 0 or page.locator(".toast.error").count() > 0,
            timeout=10,
        )
        if page.locator("#contact-form").count() == 0:
            break
        reload(page)  # "changed by someone else": reload and edit again
    reload(page)
    assert contact_row(page, name).locator("td", has_text=email).count() == 1


def _delete_contact(page: Page, name: str) -> None:
    contact_row(page, name).get_by_role("button", name=f"Delete {name}").click()
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    wait_for(page, lambda: contact_row(page, name).count() == 0, timeout=10)


def update_tom(page: Page, ctx: Ctx, *, swap: bool = False) -> None:
    t = ctx.targets
    settle(page)
    open_nav(page, "Contacts")
    _edit_contact(page, "T. Becker" if swap else "Tom Becker", t["new_email"], t["new_company"])
    _delete_contact(page, "Tom Becker" if swap else "T. Becker")
    home(page)
    open_conversation(page, FAREWELL)
    _forward(page, "Tom Becker", t["aisha_addr"], note="Hi Aisha, Tom's farewell in case you missed it.")


def update_wrong_tom(page: Page, ctx: Ctx) -> None:
    update_tom(page, ctx, swap=True)


# ------------------------------------------------------------------ mail-016 insurance certificate


CERTIFICATE = "Your renter's insurance policy documents"
CAR_QUOTE = "Your car insurance renewal quote"
REQUEST = "Renter's insurance certificate"


def send_certificate(page: Page, ctx: Ctx, *, subject: str = CERTIFICATE) -> None:
    settle(page)
    search(page, "from:sheltera.com")
    if rows(page, subject).count() == 0:
        open_folder(page, "Spam")  # not in the mailbox: maybe it was caught as spam
    open_conversation(page, subject)
    _forward(
        page,
        "Sheltera Insurance",
        ctx.targets["harold_addr"],
        note="Hello Harold,\n\nHere is my renter's insurance certificate.\n\nJamie",
    )
    home(page)
    open_conversation(page, REQUEST)
    follow(page, toolbar(page, "Archive"))
    assert rows(page, REQUEST).count() == 0


def send_car_quote(page: Page, ctx: Ctx) -> None:
    send_certificate(page, ctx, subject=CAR_QUOTE)


# ------------------------------------------------------------------ mail-017 workshop date


WORKSHOP = "Fwd: Joint workshop dates"


def settle_workshop(page: Page, ctx: Ctx, *, date: str = "April 15") -> None:
    t = ctx.targets
    settle(page)
    create_label(page, "Workshop")
    home(page)
    open_conversation(page, WORKSHOP)
    message(page, "Marcus Lee").get_by_role("button", name="Reply all", exact=True).click()
    page.locator("#send").wait_for()
    fill_recipients(page, "Cc", [t["priya_addr"]])
    write_on_top(
        page,
        f"Hi all,\n\n{date} is the one date that works for both Wren Analytics and Greenleaf, so let's hold {date} for the joint workshop.\n\nJamie",
    )
    send(page)
    label_as(page, "Workshop")
    assert page.locator(".thread-labels .chip", has_text="Workshop").count() == 1


def settle_workshop_stale(page: Page, ctx: Ctx) -> None:
    settle_workshop(page, ctx, date="April 9")


# ------------------------------------------------------------------ mail-018 new client team


def onboard_greenleaf(page: Page, ctx: Ctx, *, people: int = 3) -> None:
    t = ctx.targets
    settle(page)
    open_nav(page, "Contacts")
    for person in t["people"][:people]:
        add_contact(page, name=person["name"], email=person["email"], company="Greenleaf Foods")
    create_label(page, "Greenleaf")
    _filters_page(page)
    _create_filter(page, sender="greenleaffoods.com", label="Greenleaf", existing=True)
    home(page)
    open_conversation(page, "Meet the Greenleaf team")
    message(page, "Raj Mehta").get_by_role("button", name="Reply", exact=True).click()
    page.locator("#send").wait_for()
    write_on_top(
        page,
        "Hi Raj,\n\nThanks! Mia, Daniel and Hannah are in my contacts now, and your team's mail is filed under Greenleaf.\n\nJamie",
    )
    send(page)


def onboard_two(page: Page, ctx: Ctx) -> None:
    onboard_greenleaf(page, ctx, people=2)


# ------------------------------------------------------------------ mail-019 rent


CORRECTION = "Correction: rent from May 1"
OUTDATED = "Rent from May 1"


def _sent_shows(page: Page, subject: str, phrase: str) -> None:
    # The list can lag behind a change: look again before doing anything twice.
    open_folder(page, "Sent")
    for _ in range(4):
        if rows(page, subject).filter(has_text=phrase).count():
            return
        page.get_by_role("button", name="Refresh").click()
        page.wait_for_timeout(500)
        settle(page)
    raise AssertionError(f"{subject!r} is not in Sent")


def sort_rent(page: Page, ctx: Ctx, *, reply_to: str = CORRECTION, delete: str = OUTDATED) -> None:
    t = ctx.targets
    settle(page)
    open_conversation(page, reply_to)
    message(page, "Harold Jenkins").get_by_role("button", name="Reply", exact=True).click()
    page.locator("#send").wait_for()
    write_on_top(
        page, "Hello Harold,\n\nThanks for the correction. Confirmed: $2,100 a month from May 1.\n\nJamie"
    )
    send(page)
    _sent_shows(page, reply_to, "Confirmed: $2,100 a month")
    search(page, "from:jenkinsproperties.com rent")
    open_conversation(page, reply_to)
    _forward(
        page,
        "Harold Jenkins",
        t["ben_addr"],
        note="Ben, the rent from May will be $2,100 (see below), so $1,050 each.",
    )
    _sent_shows(page, reply_to, "so $1,050 each")
    search(page, "from:jenkinsproperties.com rent")
    open_conversation(page, delete)
    toolbar(page, "Delete").click()
    wait_for(page, lambda: "/thread/" not in page.url, timeout=5)
    open_folder(page, "Trash")
    for _ in range(4):
        if rows(page, delete).count():
            return
        page.get_by_role("button", name="Refresh").click()
        page.wait_for_timeout(500)
        settle(page)
    raise AssertionError("the outdated email is not in Trash")


def sort_rent_backwards(page: Page, ctx: Ctx) -> None:
    sort_rent(page, ctx, reply_to=OUTDATED, delete=CORRECTION)


# ------------------------------------------------------------------ mail-020 expenses


RECEIPTS = [
    ("SkyHarbor", "Your SkyHarbor receipt: PDX ⇄ BOS, March 4–6", "SkyHarbor Airlines"),
    ("Harbor View", "Your folio from Harbor View Hotel Boston", "Harbor View Hotel Boston"),
    ("CityCab", "Your CityCab ride receipt", "CityCab Boston"),
]


def _label_open_thread(page: Page, label: str) -> None:
    for _ in range(3):
        if page.locator(".thread-labels .chip", has_text=re.compile(rf"^{label}")).count():
            return
        label_as(page, label)
        reload(page)
    raise AssertionError(f"the label {label} did not stick")


def file_expenses(page: Page, ctx: Ctx, *, taxi: str = "CityCab Boston") -> None:
    t = ctx.targets
    settle(page)
    for query, subject, sender in RECEIPTS:
        sender = taxi if query == "CityCab" else sender
        search(page, query)
        open_conversation(page, subject, sender)
        _forward(page, sender, t["accounting_addr"], note="Receipt from the Boston trip (approved by Priya).")
        _label_open_thread(page, "Receipts")
    search(page, "Boston trip expenses")
    open_conversation(page, "Boston trip expenses")
    message(page, "Priya Raman").get_by_role("button", name="Reply", exact=True).click()
    page.locator("#send").wait_for()
    write_on_top(
        page,
        "Hi Priya,\n\nDone: the three receipts are with accounting. The total is $1,150.35 ($412.60 flight, $689.00 hotel, $48.75 taxi).\n\nJamie",
    )
    send(page)


def file_wrong_taxi(page: Page, ctx: Ctx) -> None:
    file_expenses(page, ctx, taxi="CityCab Portland")


ORACLES: dict[str, Oracle] = {
    "mail-001": star_roadmap,
    "mail-002": mark_boiler_unread,
    "mail-003": add_caterer,
    "mail-004": delete_sale,
    "mail-005": confirm_time,
    "mail-006": label_invoices,
    "mail-007": restore_lease,
    "mail-008": set_vacation,
    "mail-009": forward_invoices,
    "mail-010": sort_newsletters,
    "mail-011": finish_proposal,
    "mail-012": share_flight,
    "mail-013": client_filter,
    "mail-014": rescue_from_spam,
    "mail-015": update_tom,
    "mail-016": send_certificate,
    "mail-017": settle_workshop,
    "mail-018": onboard_greenleaf,
    "mail-019": sort_rent,
    "mail-020": file_expenses,
}

WRONG: dict[str, Oracle] = {
    "mail-001": star_first_roadmap,
    "mail-002": open_boiler_only,
    "mail-003": add_caterer_typo,
    "mail-004": archive_sale,
    "mail-005": confirm_time_to_first,
    "mail-006": label_inbox_invoices,
    "mail-007": restore_newest_from_harold,
    "mail-008": set_vacation_short,
    "mail-009": forward_invoices_without_files,
    "mail-010": sort_one_newsletter,
    "mail-011": finish_proposal_without_cc,
    "mail-012": share_old_flight,
    "mail-013": client_filter_new_mail_only,
    "mail-014": rescue_all_spam,
    "mail-015": update_wrong_tom,
    "mail-016": send_car_quote,
    "mail-017": settle_workshop_stale,
    "mail-018": onboard_two,
    "mail-019": sort_rent_backwards,
    "mail-020": file_wrong_taxi,
}
