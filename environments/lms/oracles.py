"""Oracle and wrong solutions of Canopy's tasks (Playwright, through the UI only).

An oracle is what a careful student does: it reads what the pages show and checks the answer of
every write, recovering from what the variant throws at it (a failed post, an expired session, a
refused message, a stuck quiz page, slow grades, a dialog over the page, a look-alike message)
without doing anything twice. A WRONG solution is a plausible mistake and must fail the evaluator.
"""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page

from humantrace.environments.lms import oracle_steps as ui
from humantrace.environments.oracles import OracleContext


def _reply(page: Page, code: str, text: str) -> None:
    ui.open_course(page, code, "Discussions")
    page.locator("#app table").get_by_role("link", name="Introduce yourself").click()
    ui.ready(page)
    for _ in range(3):
        ui.clear_toasts(page)
        page.get_by_label("Your reply").fill(text)
        page.get_by_role("button", name="Post reply").click()
        if ui.toast(page).startswith("Your reply was posted"):
            page.locator("article.reply p", has_text=text).first.wait_for(timeout=ui.LONG)
            return
        page.reload()
        ui.ready(page)
        if page.locator("article.reply p", has_text=text).count():
            return
    raise AssertionError("the reply was never posted")


def intro_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _reply(page, "CS 150", ctx.targets["text"])


def intro_wrong(page: Page, ctx: OracleContext) -> None:
    """Posts in BIO 201's introductions instead."""
    ui.ready(page)
    _reply(page, "BIO 201", ctx.targets["text"])


def _add_event(page: Page, date: str, end: str) -> None:
    ui.nav(page, "Calendar")
    page.get_by_label("Title").fill("Study group: STAT 220")
    page.get_by_label("Date").fill(date)
    page.get_by_label("Starts").fill("18:00")
    page.get_by_label("Ends").fill(end)
    page.get_by_label("Location").fill("Library room 2")
    ui.clear_toasts(page)
    page.get_by_role("button", name="Add event").click()
    assert "added to your calendar" in ui.toast(page)


def study_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _add_event(page, ctx.targets["date"], "19:30")


def study_wrong(page: Page, ctx: OracleContext) -> None:
    """Keeps the form's default one-hour length."""
    ui.ready(page)
    _add_event(page, ctx.targets["date"], "19:00")


def _open_assignment(page: Page, code: str, title: str) -> None:
    ui.open_course(page, code, "Assignments")
    page.locator("#app table").get_by_role("link", name=title, exact=True).click()
    ui.ready(page)


def lab_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _open_assignment(page, "STAT 220", "Lab report 4: Regression analysis")
    ui.submit_assignment(page, file_name="regression_lab.pdf", comment="Data tables are in the appendix.")


def lab_wrong(page: Page, ctx: OracleContext) -> None:
    """Hands the file in to the other STAT 220 lab report."""
    ui.ready(page)
    _open_assignment(page, "STAT 220", "Lab report 3: Comparing two groups")
    ui.submit_assignment(page, file_name="regression_lab.pdf", comment="Data tables are in the appendix.")


HIST = "HIST 110: World History since 1500"
TA_SUBJECT = "Missed Thursday's lecture"
TA_BODY = "Could you tell me which pages we should read for next week?"


def ta_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    name = ui.staff_name(page, "HIST 110", "Teaching assistant")
    ui.compose(
        page, course_label=HIST, person=f"{name} (Teaching assistant)", subject=TA_SUBJECT, body=TA_BODY
    )


def ta_wrong(page: Page, ctx: OracleContext) -> None:
    """Writes to the instructor instead of the TA."""
    ui.ready(page)
    ui.compose(page, course_label=HIST, person="(Instructor)", subject=TA_SUBJECT, body=TA_BODY)


def _notes(page: Page) -> list[str]:
    ui.open_course(page, "BIO 201")
    page.get_by_role("link", name="Quiz 4 study notes").click()
    ui.ready(page)
    lines = page.locator(".prose").inner_text().splitlines()
    return [line[2:].rstrip(".") for line in lines if line.startswith("- ")]


def _take_quiz(page: Page, pick: Any) -> None:
    ui.open_course(page, "BIO 201")
    page.get_by_role("link", name="Quiz 4: Cell signalling review").first.click()
    ui.ready(page)
    page.get_by_role("button", name="Start quiz").click()
    ui.confirm(page, "Start quiz")
    page.wait_for_url(re.compile(r"/attempts/"))
    ui.ready(page)
    for fieldset in page.locator("fieldset.question").all():
        prompt = fieldset.locator("legend").inner_text().rsplit(" (", 1)[0]
        choices = [c.strip() for c in fieldset.locator("label.choice").all_inner_texts()]
        choice = pick(prompt, choices)
        fieldset.get_by_label(choice, exact=True).check()
        fieldset.locator(".saved", has_text=re.compile("^Saved$")).wait_for(timeout=ui.LONG)
    ui.clear_toasts(page)
    page.get_by_role("button", name="Submit quiz").click()
    ui.confirm(page, "Submit quiz")
    assert ui.toast(page).startswith("Quiz submitted")


def quiz_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    facts = _notes(page)

    def pick(prompt: str, choices: list[str]) -> str:
        line = next(f for f in facts if f.startswith(prompt))
        return line[len(prompt) :].strip()

    _take_quiz(page, pick)


def quiz_wrong(page: Page, ctx: OracleContext) -> None:
    """Guesses the first answer of every question without reading the notes."""
    ui.ready(page)
    _take_quiz(page, lambda prompt, choices: choices[0])


def _lowest(page: Page, *, by_percent: bool) -> str:
    ui.open_course(page, "ENG 105", "Grades")
    best: tuple[float, str] | None = None
    for row in page.locator("#app tbody tr").all():
        cells = row.locator("td").all_inner_texts()
        link = row.get_by_role("link").first.get_attribute("href") or ""
        if "/assignments/" not in link or cells[3].strip() != "Graded":
            continue
        got, total = (int(p) for p in re.findall(r"\d+", cells[4])[:2])
        key = got / total if by_percent else got
        if best is None or key < best[0]:
            best = (key, cells[0].strip())
    assert best is not None
    return best[1]


def regrade_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    title = _lowest(page, by_percent=True)
    ui.compose(
        page,
        course_label="ENG 105: Academic Writing",
        person="(Instructor)",
        subject=f"Regrade request: {title}",
        body="Could you look at the grading of this one again?",
    )


def regrade_wrong(page: Page, ctx: OracleContext) -> None:
    """Takes the first graded assignment on the list as the lowest."""
    ui.ready(page)
    ui.open_course(page, "ENG 105", "Grades")
    row = page.locator("#app tbody tr", has=page.locator("a[href*='/assignments/']")).first
    title = row.locator("td").first.inner_text().strip()
    ui.compose(
        page,
        course_label="ENG 105: Academic Writing",
        person="(Instructor)",
        subject=f"Regrade request: {title}",
        body="Could you look at the grading of this one again?",
    )


def _current_module(page: Page) -> Any:
    ui.open_course(page, "STAT 220")
    return page.locator("section.module:not(.locked)").last


def _mark_all(page: Page) -> None:
    module = _current_module(page)
    title = module.locator("h2").inner_text()
    for _ in range(10):
        section = page.locator("section.module", has=page.get_by_role("heading", name=title, exact=True))
        todo = section.locator("button.check[aria-pressed=false]")
        if not todo.count():
            return
        ui.clear_toasts(page)
        todo.first.click()
        said = ui.toast(page)
        if not said.startswith("Marked as done"):
            page.wait_for_timeout(1200)  # "too many requests": wait as asked, then go on
        ui.ready(page)
    raise AssertionError("the module was never finished")


def week_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    module = _current_module(page)
    module.get_by_role("link", name=re.compile("^Problem set")).click()
    ui.ready(page)
    ui.submit_assignment(page, file_name="ps7.pdf")
    _mark_all(page)


def week_wrong(page: Page, ctx: OracleContext) -> None:
    """Marks everything done but never hands in the problem set."""
    ui.ready(page)
    _mark_all(page)


def _delete_gyms(page: Page, months: int) -> None:
    ui.nav(page, "Calendar")
    for month in range(months):
        for _ in range(8):
            cell = page.locator(".cell", has=page.locator(".chip[title='Gym']"))
            if not cell.count():
                break
            cell.first.locator(".daynum").click()
            ui.clear_toasts(page)
            page.locator("#agenda").get_by_role("button", name="Delete Gym", exact=True).first.click()
            ui.confirm(page, "Delete")
            ui.toast(page)
            ui.ready(page)  # deleted or refused: the calendar is shown again as it now is
        if month + 1 < months:
            page.get_by_role("link", name="Next month").click()
            ui.ready(page)


def gym_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _delete_gyms(page, 2)


def gym_wrong(page: Page, ctx: OracleContext) -> None:
    """Clears this month only."""
    ui.ready(page)
    _delete_gyms(page, 1)


def _weakest(page: Page) -> str:
    rows = page.locator("table.rubric-scores tbody tr").all()
    ranked = []
    for row in rows:
        name, score = row.locator("td").all_inner_texts()
        got, total = (int(p) for p in re.findall(r"\d+", score))
        ranked.append((got / total, name.strip()))
    return min(ranked)[1]


def resubmit_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _open_assignment(page, "CS 150", "Programming lab: Word counter")
    criterion = _weakest(page)
    ui.submit_assignment(page, file_name="wordcount_final.py", comment=f"I improved the {criterion} part.")
    name = ui.staff_name(page, "CS 150", "Teaching assistant")
    ui.compose(
        page,
        course_label="CS 150: Introduction to Programming",
        person=f"{name} (Teaching assistant)",
        subject="Word counter resubmitted",
        body="I submitted my second attempt.",
    )


def resubmit_wrong(page: Page, ctx: OracleContext) -> None:
    """Resubmits, but tells the instructor instead of the TA."""
    ui.ready(page)
    _open_assignment(page, "CS 150", "Programming lab: Word counter")
    criterion = _weakest(page)
    ui.submit_assignment(page, file_name="wordcount_final.py", comment=f"I improved the {criterion} part.")
    ui.compose(
        page,
        course_label="CS 150: Introduction to Programming",
        person="(Instructor)",
        subject="Word counter resubmitted",
        body="I submitted my second attempt.",
    )


def _send_reply(page: Page, text: str) -> None:
    """Answer the open conversation and wait for the site to confirm it."""
    ui.clear_toasts(page)
    page.get_by_label("Reply").fill(text)
    page.get_by_role("button", name="Send reply").click()
    assert ui.toast(page).startswith("Reply sent")


def _partner(page: Page, *, first: bool) -> None:
    ui.open_course(page, "BIO 201", "Discussions")
    page.locator("#app table").get_by_role("link", name="Introduce yourself").click()
    ui.ready(page)
    authors = page.locator("section.panel > article.reply > .reply-head strong").all_inner_texts()
    name = authors[0] if first else authors[-1]
    ui.nav(page, "Inbox")
    page.locator("a.conv", has_text="Lab partners for next week").click()
    ui.ready(page)
    assert "Dr. Helen Marsh" in page.locator("#app").inner_text()
    _send_reply(page, f"My lab partner is {name}.")


def partner_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _partner(page, first=True)


def partner_wrong(page: Page, ctx: OracleContext) -> None:
    """Names the latest poster instead of the first."""
    ui.ready(page)
    _partner(page, first=False)


def _archive(page: Page, subject: str | None) -> None:
    ui.nav(page, "Inbox")
    conv = page.locator("a.conv", has_text=subject).first if subject else page.locator("a.conv").nth(1)
    conv.click()
    ui.ready(page)
    for _ in range(3):
        ui.clear_toasts(page)
        page.get_by_role("button", name="Archive").click()
        if ui.toast(page).startswith("Conversation archived"):
            return
    raise AssertionError("the conversation was never archived")


def archive_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _archive(page, "Room booking confirmed")


def archive_wrong(page: Page, ctx: OracleContext) -> None:
    """Archives the conversation below it in the list (a slip of the eye)."""
    ui.ready(page)
    _archive(page, None)


def _mark(page: Page, code: str, title: str) -> None:
    ui.open_course(page, code)
    for _ in range(3):
        ui.clear_toasts(page)
        page.get_by_role("button", name=f"Mark {title} as done", exact=True).click()
        if ui.toast(page).startswith("Marked as done"):
            page.locator(f"button.check[aria-pressed=true][aria-label='Mark {title} as done']").wait_for(
                timeout=ui.LONG
            )
            return
        ui.ready(page)
    raise AssertionError("the item was never marked")


def reading_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _mark(page, "HIST 110", "Reading: Imperialism")


def reading_wrong(page: Page, ctx: OracleContext) -> None:
    """Marks the week's slides instead of the reading."""
    ui.ready(page)
    _mark(page, "HIST 110", "Lecture slides - week 7.pdf")


def text_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _open_assignment(page, "CS 150", "Problem set 7: Classes")
    ui.submit_assignment(page, text=ctx.targets["text"])


def text_wrong(page: Page, ctx: OracleContext) -> None:
    """Hands the answer in to another course's problem set 7."""
    ui.ready(page)
    _open_assignment(page, "HIST 110", "Problem set 7: Imperialism")
    ui.submit_assignment(page, text=ctx.targets["text"])


def _answer_zoe(page: Page, ctx: OracleContext, *, threaded: bool) -> None:
    ui.open_course(page, "STAT 220", "Discussions")
    page.locator("#app table").get_by_role("link", name=ctx.targets["discussion_title"]).click()
    ui.ready(page)
    if threaded:
        page.get_by_role("button", name="Reply to Zoe Tanaka", exact=True).first.click()
        page.get_by_text("Replying to Zoe Tanaka").wait_for()
    ui.clear_toasts(page)
    page.get_by_label("Your reply").fill(ctx.targets["text"])
    page.get_by_role("button", name="Post reply").click()
    assert ui.toast(page).startswith("Your reply was posted")


def zoe_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _answer_zoe(page, ctx, threaded=True)


def zoe_wrong(page: Page, ctx: OracleContext) -> None:
    """Answers as a new top-level reply instead of under her post."""
    ui.ready(page)
    _answer_zoe(page, ctx, threaded=False)


def _course_grades(page: Page) -> dict[str, float]:
    ui.nav(page, "Grades")
    grades = {}
    for row in page.locator("#app tbody tr").all():
        cells = row.locator("td").all_inner_texts()
        if cells[1].strip() == "Fall 2025" or "%" not in cells[2]:
            continue
        grades[cells[0].split(":")[0].strip()] = float(cells[2].strip().rstrip("%"))
    return grades


def _study_event(page: Page, title: str, date: str) -> None:
    ui.nav(page, "Calendar")
    page.get_by_label("Title").fill(title)
    page.get_by_label("Date").fill(date)
    page.get_by_label("Starts").fill("17:00")
    page.get_by_label("Ends").fill("18:00")
    ui.clear_toasts(page)
    page.get_by_role("button", name="Add event").click()
    assert "added to your calendar" in ui.toast(page)


def weakest_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    grades = _course_grades(page)
    _study_event(page, f"Extra study: {min(grades, key=lambda c: grades[c])}", ctx.targets["date"])


def weakest_wrong(page: Page, ctx: OracleContext) -> None:
    """Picks the course with the highest grade."""
    ui.ready(page)
    grades = _course_grades(page)
    _study_event(page, f"Extra study: {max(grades, key=lambda c: grades[c])}", ctx.targets["date"])


def _resume(page: Page, *, fix: bool) -> None:
    ui.open_course(page, "STAT 220")
    page.get_by_role("link", name="Quiz 4 study notes").click()
    ui.ready(page)
    facts = [
        line[2:].rstrip(".")
        for line in page.locator(".prose").inner_text().splitlines()
        if line.startswith("- ")
    ]
    ui.open_course(page, "STAT 220", "Quizzes")
    page.locator("#app table").get_by_role("link", name="Quiz 4: Regression check").click()
    ui.ready(page)
    page.get_by_role("link", name="Resume quiz").click()
    ui.ready(page)
    if fix:
        for fieldset in page.locator("fieldset.question").all():
            prompt = fieldset.locator("legend").inner_text().rsplit(" (", 1)[0]
            right = next(f for f in facts if f.startswith(prompt))[len(prompt) :].strip()
            radio = fieldset.get_by_label(right, exact=True)
            if not radio.is_checked():
                radio.check()
                fieldset.locator(".saved", has_text=re.compile("^Saved$")).wait_for(timeout=ui.LONG)
    ui.clear_toasts(page)
    page.get_by_role("button", name="Submit quiz").click()
    ui.confirm(page, "Submit quiz")
    assert ui.toast(page).startswith("Quiz submitted")


def resume_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _resume(page, fix=True)


def resume_wrong(page: Page, ctx: OracleContext) -> None:
    """Trusts the saved answers and submits straight away."""
    ui.ready(page)
    _resume(page, fix=False)


def _overlaps(a: tuple[str, str], b: tuple[str, str]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _agenda(page: Page) -> list[tuple[str, tuple[str, str], bool]]:
    out = []
    items = page.locator("#agenda li").evaluate_all(
        "(lis) => lis.map((li) => [li.querySelector('div > div').innerText, li.innerText,"
        " li.querySelector('button') !== null])"
    )
    for title, text, mine in items:
        times = re.search(r"(\d\d:\d\d)–(\d\d:\d\d)", text)
        if times:
            out.append((title.strip(), (times.group(1), times.group(2)), bool(mine)))
    return out


def _clear_clashes(page: Page, *, every_personal: bool) -> None:
    ui.nav(page, "Calendar")
    for month in range(2):
        # only the days whose cell shows a personal event, or hides some behind "+N more" (as a
        # person scans the month for their own entries)
        days = page.locator(".cell:has(.chip.personal) button.daynum, .cell:has(.more) button.daynum")
        days = days.evaluate_all("(bs) => bs.map((b) => b.dataset.day)")
        for day in days:
            for _ in range(4):
                page.locator(f"button.daynum[data-day='{day}']").click()
                entries = _agenda(page)
                lectures = [span for title, span, _ in entries if title == "BIO 201 lecture"]
                doomed = [
                    title
                    for title, span, mine in entries
                    if mine and (every_personal or any(_overlaps(span, lec) for lec in lectures))
                ]
                if not doomed:
                    break
                ui.clear_toasts(page)
                page.locator("#agenda").get_by_role("button", name=f"Delete {doomed[0]}", exact=True).click()
                ui.confirm(page, "Delete")
                ui.toast(page)
                ui.ready(page)
        if month == 0:
            page.get_by_role("link", name="Next month").click()
            ui.ready(page)


def clash_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _clear_clashes(page, every_personal=False)


def clash_wrong(page: Page, ctx: OracleContext) -> None:
    """Deletes every personal event, clashing or not."""
    ui.ready(page)
    _clear_clashes(page, every_personal=True)


def _ben(page: Page, *, reply: bool) -> None:
    ui.nav(page, "Inbox")
    page.locator("a.conv", has_text="ENG 105 project: first meeting").first.click()
    ui.ready(page)
    text = page.locator("article.message p").first.inner_text()
    found = re.search(r"on \w+ (\d+) (\w+) from (\d\d:\d\d) to (\d\d:\d\d) in (.+?) to plan", text)
    assert found, text
    day, month, start, end, place = found.groups()
    url = page.url
    ui.nav(page, "Calendar")
    year = page.get_by_role("heading", level=1).inner_text().split()[-1]
    months = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ]
    page.get_by_label("Title").fill("Project meeting")
    page.get_by_label("Date").fill(f"{year}-{months.index(month) + 1:02d}-{int(day):02d}")
    page.get_by_label("Starts").fill(start)
    page.get_by_label("Ends").fill(end)
    page.get_by_label("Location").fill(place)
    ui.clear_toasts(page)
    page.get_by_role("button", name="Add event").click()
    assert "added to your calendar" in ui.toast(page)
    if not reply:
        return
    page.goto(url)
    ui.ready(page)
    _send_reply(page, "Sounds good, it's in my calendar. See you then!")


def ben_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _ben(page, reply=True)


def ben_wrong(page: Page, ctx: OracleContext) -> None:
    """Puts the meeting in the calendar but never answers Ben."""
    ui.ready(page)
    _ben(page, reply=False)


def _late(page: Page, role: str) -> None:
    ui.nav(page, "Dashboard")
    item = page.locator("ul.todo li", has_text="Overdue").first
    code = item.locator(".tag").inner_text().strip()  # the course's code, as the to-do list shows it
    item.get_by_role("link").click()
    ui.ready(page)
    title = page.get_by_role("heading", level=1).inner_text().strip()
    ui.submit_assignment(page, text="Submitted late - apologies.")
    ui.compose(
        page,
        course_label=code,
        person=f"({role})",
        subject=f"Late submission: {title}",
        body="Sorry this is late: I have now submitted it.",
    )


def late_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _late(page, "Instructor")


def late_wrong(page: Page, ctx: OracleContext) -> None:
    """Hands it in but tells the TA instead of the instructor."""
    ui.ready(page)
    _late(page, "Teaching assistant")


def combo_oracle(page: Page, ctx: OracleContext) -> None:
    quiz_oracle(page, ctx)
    _partner(page, first=True)


def combo_wrong(page: Page, ctx: OracleContext) -> None:
    """Names the partner but never takes the quiz."""
    ui.ready(page)
    _partner(page, first=True)


ORACLES = {
    "lms-001": intro_oracle,
    "lms-002": study_oracle,
    "lms-003": lab_oracle,
    "lms-004": ta_oracle,
    "lms-005": quiz_oracle,
    "lms-006": regrade_oracle,
    "lms-007": week_oracle,
    "lms-008": gym_oracle,
    "lms-009": resubmit_oracle,
    "lms-010": partner_oracle,
    "lms-011": archive_oracle,
    "lms-012": reading_oracle,
    "lms-013": text_oracle,
    "lms-014": zoe_oracle,
    "lms-015": weakest_oracle,
    "lms-016": resume_oracle,
    "lms-017": clash_oracle,
    "lms-018": ben_oracle,
    "lms-019": late_oracle,
    "lms-020": combo_oracle,
}
WRONG = {
    "lms-001": intro_wrong,
    "lms-002": study_wrong,
    "lms-003": lab_wrong,
    "lms-004": ta_wrong,
    "lms-005": quiz_wrong,
    "lms-006": regrade_wrong,
    "lms-007": week_wrong,
    "lms-008": gym_wrong,
    "lms-009": resubmit_wrong,
    "lms-010": partner_wrong,
    "lms-011": archive_wrong,
    "lms-012": reading_wrong,
    "lms-013": text_wrong,
    "lms-014": zoe_wrong,
    "lms-015": weakest_wrong,
    "lms-016": resume_wrong,
    "lms-017": clash_wrong,
    "lms-018": ben_wrong,
    "lms-019": late_wrong,
    "lms-020": combo_wrong,
}
