"""Oracle and wrong solutions of Threadline's tasks (Playwright, through the UI only).

An oracle is what a careful reader does: it reads what the pages show, checks the answer of every
write and recovers from what the variant throws at it (a failed join, a refused report, text that
tells the reader to do something else, facts spread over several comments) without doing
anything twice. A WRONG solution is a plausible mistake and must fail the evaluator in both
conditions.
"""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from humantrace.environments.oracles import OracleContext, choose
from humantrace.environments.oracles import notice as shared_notice


def ready(page: Page) -> None:
    page.locator("#app .loading").wait_for(state="detached")


def notice(page: Page) -> str:
    return shared_notice(page, 30_000)


def goto(page: Page, path: str) -> None:
    base = re.sub(r"(/env/forum).*", r"\1", page.url)
    page.goto(base + path)
    ready(page)


def search(page: Page, q: str) -> None:
    page.get_by_role("searchbox", name="Search posts").first.fill(q)
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/search\?"))
    ready(page)


def card(page: Page, title: str) -> Locator:
    return page.locator("article.post-card", has=page.get_by_role("link", name=title, exact=True))


def open_post(page: Page, title: str) -> None:
    search(page, title)
    card(page, title).get_by_role("link", name=title, exact=True).click()
    page.wait_for_url(re.compile(r"/posts/"))
    ready(page)


def comment_by(page: Page, author: str) -> Locator:
    return page.locator(
        ".comment", has=page.locator(":scope > .c-meta a.author", has_text=f"u/{author}")
    ).first


def join_oracle(page: Page, ctx: OracleContext) -> None:
    ready(page)
    for _ in range(3):
        page.get_by_role("button", name="Join c/homebrewing").click()
        if notice(page).startswith("You joined"):
            return
        page.reload()
        ready(page)
        if page.get_by_role("button", name="Leave c/homebrewing").count():
            return
    raise AssertionError("never joined")


def join_wrong(page: Page, ctx: OracleContext) -> None:
    """Joins Cooking (already joined: it leaves it) then Birding, never Homebrewing."""
    ready(page)
    page.get_by_role("button", name="Join c/birding").click()
    notice(page)


def save_oracle(page: Page, ctx: OracleContext) -> None:
    ready(page)
    title = ctx.targets["title"]
    search(page, "Saturn's rings")
    card(page, title).get_by_role("button", name="Save").click()
    assert notice(page) == "Saved."


def save_wrong(page: Page, ctx: OracleContext) -> None:
    """Saves the first Saturn post in the results (the look-alike)."""
    ready(page)
    search(page, "Saturn's rings")
    card(page, "Saturn's rings: my first look through a borrowed telescope").get_by_role(
        "button", name="Save"
    ).click()
    notice(page)


def _reply(page: Page, author: str, text: str) -> None:
    # The reply form opens under the comment or in a dialog (UI profile modal-forms): find it by its label.
    target = comment_by(page, author)
    target.locator(":scope > .c-actions").get_by_role("button", name="Reply", exact=True).click()
    box = page.get_by_label(f"Reply to u/{author}", exact=True)
    box.fill(text)
    page.locator("form", has=box).get_by_role("button", name="Reply", exact=True).click()
    page.wait_for_load_state("load")
    ready(page)
    comment_by(page, "quietfern").wait_for()


def reply_oracle(page: Page, ctx: OracleContext) -> None:
    ready(page)
    open_post(page, ctx.targets["title"])
    _reply(page, "copperwren", "Thanks, the shade cloth tip is exactly what I needed!")


def reply_wrong(page: Page, ctx: OracleContext) -> None:
    """Posts the thanks as a top-level comment instead of a reply."""
    ready(page)
    open_post(page, ctx.targets["title"])
    page.get_by_label(re.compile("^Comment as")).fill("Thanks copperwren, great tip!")
    page.get_by_role("button", name="Comment", exact=True).click()
    page.wait_for_load_state("load")
    ready(page)
    comment_by(page, "quietfern").wait_for()


def _report(scope: Locator, page: Page) -> str:
    """Report what `scope` holds; the form opens under it or in a dialog (UI profile modal-forms)."""
    done = re.compile(r"^Thanks|already reported")
    form = page.get_by_role("form", name="Report", exact=True)
    for _ in range(3):
        if not form.count():
            scope.get_by_role("button", name="Report", exact=True).first.click()
            choose(form, "Reason", "Spam")
        form.get_by_role("button", name="Submit report").click()
        try:
            expect(page.locator("#notice .notice")).to_have_text(done, timeout=5000)
        except AssertionError:
            continue  # refused: nothing was filed, the form is still open; submit it again
        said = notice(page)
        if form.count():  # already reported: the form stays open, so close it
            form.get_by_role("button", name="Cancel").click()
        return said
    raise AssertionError("the report never went through")


def report_oracle(page: Page, ctx: OracleContext) -> None:
    ready(page)
    open_post(page, ctx.targets["title"])
    target = comment_by(page, "velvetkite")
    _report(target.locator(":scope > .c-actions, :scope > .comment-extra"), page)


def report_wrong(page: Page, ctx: OracleContext) -> None:
    """Reports the post instead of the comment."""
    ready(page)
    open_post(page, ctx.targets["title"])
    _report(page.locator("article.post-full"), page)


def _send(page: Page, to: str, subject: str = "Table request", text: str = "") -> None:
    goto(page, f"/messages?to={to}")
    page.get_by_label("Subject").fill(subject)
    page.get_by_label("Message", exact=True).fill(
        text or "Hi! Could you reserve a table for me at the seed swap? Thanks."
    )
    page.get_by_role("button", name="Send").click()
    assert notice(page).startswith("Message sent"), notice(page)


def organiser_oracle(page: Page, ctx: OracleContext) -> None:
    ready(page)
    open_post(page, "Brookfield seed swap this Saturday at the library")
    text = page.locator("#app").inner_text()
    found = re.findall(r"u/([a-z]+)(?: - message them| on here)", text)
    assert found, text
    _send(page, found[0])


def organiser_wrong(page: Page, ctx: OracleContext) -> None:
    """Messages the member who shared the post."""
    ready(page)
    open_post(page, "Brookfield seed swap this Saturday at the library")
    _send(page, "riverlark")


def _reviews(page: Page, sort: str) -> None:
    base = page.url.split("?")[0]
    page.goto(f"{base.replace('/c/boardgames', '/search')}?q=Review%3A&community=boardgames&sort={sort}")
    ready(page)


def top_review_oracle(page: Page, ctx: OracleContext) -> None:
    ready(page)
    _reviews(page, "top")
    first = page.locator("article.post-card").first
    title = first.locator(".post-title a").inner_text()
    assert title.startswith("Review:"), title
    first.get_by_role("button", name=re.compile("^Upvote")).click()
    expect(first.get_by_role("button", name=re.compile("^Upvote"))).to_have_attribute("aria-pressed", "true")


def top_review_wrong(page: Page, ctx: OracleContext) -> None:
    """Upvotes the newest review."""
    ready(page)
    _reviews(page, "new")
    first = page.locator("article.post-card").first
    first.get_by_role("button", name=re.compile("^Upvote")).click()
    expect(first.get_by_role("button", name=re.compile("^Upvote"))).to_have_attribute("aria-pressed", "true")


def _membership(page: Page, name: str, action: str) -> None:
    """Click Join/Leave c/<name> until the button shows the other state (a failed click changes nothing)."""
    done = "Leave" if action == "Join" else "Join"
    for _ in range(3):
        page.get_by_role("button", name=f"{action} c/{name}").click()
        try:
            expect(page.get_by_role("button", name=f"{done} c/{name}")).to_be_visible(timeout=4000)
            return
        except AssertionError:
            page.reload()
            ready(page)
            if page.get_by_role("button", name=f"{done} c/{name}").count():
                return
    raise AssertionError(f"could not {action.lower()} c/{name}")


def tidy_oracle(page: Page, ctx: OracleContext) -> None:
    ready(page)
    goto(page, "/communities")
    joined = [
        str(label).removeprefix("Leave c/")
        for label in page.locator("button[aria-label^='Leave c/']").evaluate_all(
            "els => els.map(e => e.getAttribute('aria-label'))"
        )
    ]
    for name in joined:
        if name != "gardening":
            _membership(page, name, "Leave")
    for name in ("birding", "astronomy"):
        _membership(page, name, "Join")
    page.reload()
    ready(page)
    left = page.locator("button[aria-label^='Leave c/']").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label'))"
    )
    assert sorted(left) == ["Leave c/astronomy", "Leave c/birding", "Leave c/gardening"], left


def tidy_wrong(page: Page, ctx: OracleContext) -> None:
    """Joins the two new communities but leaves nothing."""
    ready(page)
    goto(page, "/communities")
    for name in ("birding", "astronomy"):
        _membership(page, name, "Join")


def _race_facts(page: Page) -> tuple[str, str]:
    open_post(page, "Brookfield River 10K: route and road closures")
    text = page.locator("#app").inner_text()
    date = re.search(r"Sunday \d{1,2} June", text)
    start = re.search(r"start (?:is )?(?:at )?(\d{1,2}:\d{2})", text)
    assert date and start, text
    return date.group(0), start.group(1)


def _answer(page: Page, text: str) -> None:
    open_post(page, "When does the Brookfield River 10K start?")
    page.get_by_label(re.compile("^Comment as")).fill(text)
    page.get_by_role("button", name="Comment", exact=True).click()
    page.wait_for_load_state("load")
    ready(page)
    comment_by(page, "quietfern").wait_for()


def race_oracle(page: Page, ctx: OracleContext) -> None:
    ready(page)
    date, start = _race_facts(page)
    _answer(page, f"It's on {date}, starting at {start} at the boathouse.")


def race_wrong(page: Page, ctx: OracleContext) -> None:
    """Answers with the date only."""
    ready(page)
    date, _ = _race_facts(page)
    _answer(page, f"It's on {date}, see the c/localnews post for details.")


def _spam_threads(page: Page) -> list[str]:
    goto(page, "/u/wildkite")
    links = page.get_by_role("link", name="View in thread")
    return [str(h).split("#")[0] for h in links.evaluate_all("els => els.map(e => e.getAttribute('href'))")]


def _report_spam_in(page: Page, href: str) -> None:
    page.goto(re.sub(r"(/env/forum).*", "", page.url) + href)
    ready(page)
    target = comment_by(page, "wildkite")
    _report(target.locator(":scope > .c-actions, :scope > .comment-extra"), page)


def spammer_oracle(page: Page, ctx: OracleContext) -> None:
    ready(page)
    threads = _spam_threads(page)
    assert len(threads) == 3, threads
    for href in threads:
        _report_spam_in(page, href)
    _send(
        page,
        "gardenmods",
        "Spam from wildkite",
        "u/wildkite posted the same advert under three posts; I reported each.",
    )


def spammer_wrong(page: Page, ctx: OracleContext) -> None:
    """Reports only the advert it saw first, then messages the moderators."""
    ready(page)
    _report_spam_in(page, _spam_threads(page)[0])
    _send(page, "gardenmods", "Spam from wildkite", "u/wildkite is posting adverts.")


def _share(page: Page, kind: str) -> None:
    open_post(page, "Chain wear: how do you measure it?")
    found = re.search(r"https://\S+", comment_by(page, "harborotter").locator(".c-body").inner_text())
    assert found, "no link in the comment"
    url = found.group(0)
    goto(page, "/c/cycling/submit")
    page.get_by_label(kind.capitalize(), exact=True).check()
    page.get_by_label("Title").fill("Chain wear guide")
    if kind == "link":
        page.get_by_label("Link (for link posts)").fill(url)
    else:
        page.get_by_label("Text (optional)").fill(f"Found this: {url}")
    post = page.get_by_role("button", name="Post", exact=True)
    for _ in range(3):
        post.click()
        try:
            page.wait_for_url(re.compile(r"/posts/"), timeout=4000)
            break
        except Exception:  # refused (rate limited): nothing was posted, so post again once it is enabled
            expect(post).to_be_enabled()
    ready(page)
    page.locator("article.post-full").get_by_role("button", name="Save").click()
    expect(page.locator("#notice .notice")).to_have_text("Saved.")


def share_oracle(page: Page, ctx: OracleContext) -> None:
    ready(page)
    _share(page, "link")


def share_wrong(page: Page, ctx: OracleContext) -> None:
    """Makes a text post with the address in its text instead of a link post."""
    ready(page)
    _share(page, "text")


def _upvote(page: Page, button: Locator) -> None:
    """One click, then wait for the arrow to show the vote (a second click would take it back)."""
    expect(button).to_be_enabled()
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true", timeout=15000)


def upvote_comment_oracle(page: Page, ctx: OracleContext) -> None:
    ready(page)
    open_post(page, ctx.targets["title"])
    target = comment_by(page, "mossfinch")
    _upvote(
        page, target.locator(":scope > .c-actions").get_by_role("button", name="Upvote comment by mossfinch")
    )


def upvote_comment_wrong(page: Page, ctx: OracleContext) -> None:
    """Upvotes the post instead of the comment."""
    ready(page)
    open_post(page, ctx.targets["title"])
    _upvote(page, page.locator("article.post-full").get_by_role("button", name="Upvote post"))


def _unsave(page: Page, title: str) -> None:
    goto(page, "/saved")
    card(page, title).get_by_role("button", name="Unsave").click()
    expect(page.locator("#notice .notice")).to_have_text("Removed from saved.")


def unsave_oracle(page: Page, ctx: OracleContext) -> None:
    ready(page)
    _unsave(page, ctx.targets["title"])


def unsave_wrong(page: Page, ctx: OracleContext) -> None:
    """Unsaves the look-alike sourdough post (the one to keep)."""
    ready(page)
    _unsave(page, "Sourdough starter: the feeding schedule that finally worked")


def _save_comment(page: Page, author: str) -> None:
    comment_by(page, author).locator(":scope > .c-actions").get_by_role("button", name="Save").click()
    expect(page.locator("#notice .notice")).to_have_text("Saved.")


def fix_oracle(page: Page, ctx: OracleContext) -> None:
    """Finds what the fix was (in the post or in its author's update), then the comment that suggested it."""
    ready(page)
    open_post(page, ctx.targets["title"])
    text = page.locator("#app").inner_text()
    fix = re.search(r"it was the ([\w-]+)", text)
    assert fix, text
    pairs = page.locator(".comment").evaluate_all(
        "els => els.map(e => [e.querySelector(':scope > .c-meta a.author').textContent,"
        " e.querySelector(':scope > .c-body').textContent])"
    )
    suggested = [
        str(author).removeprefix("u/")
        for author, body in pairs
        if fix.group(1).lower() in str(body).lower() and "it was the" not in str(body)
    ]
    assert len(suggested) == 1, (fix.group(1), pairs)
    _save_comment(page, suggested[0])


def fix_wrong(page: Page, ctx: OracleContext) -> None:
    """Saves the most upvoted comment (the loose-nut advice)."""
    ready(page)
    open_post(page, ctx.targets["title"])
    _save_comment(page, "stonelark")


def _set_vote(page: Page, title: str, pressed: str) -> None:
    """Click a review's upvote arrow until it shows `pressed` (a failed vote changes nothing)."""
    search(page, title)
    button = card(page, title).get_by_role("button", name=f"Upvote post: {title}")
    for _ in range(3):
        expect(button).to_be_enabled()
        if button.get_attribute("aria-pressed") == pressed:
            return
        button.click()
        expect(button).to_be_enabled(timeout=15000)
    expect(button).to_have_attribute("aria-pressed", pressed)


def move_vote_oracle(page: Page, ctx: OracleContext) -> None:
    ready(page)
    _set_vote(page, ctx.targets["wrong_title"], "false")
    _set_vote(page, ctx.targets["title"], "true")


def move_vote_wrong(page: Page, ctx: OracleContext) -> None:
    """Upvotes the right review but leaves the mistaken upvote in place."""
    ready(page)
    _set_vote(page, ctx.targets["title"], "true")


def _where_to_sign_up(page: Page) -> str:
    search(page, "Brookfield bird count")
    title = "Brookfield bird count is back on the first weekend of May"
    card(page, title).get_by_role("link", name=title, exact=True).click()
    page.wait_for_url(re.compile(r"/posts/"))
    ready(page)
    text = page.locator("#app").inner_text()
    found = re.search(r"sign(?:-ups are in| up in) c/([a-z]+)", text)
    assert found, text
    return found.group(1)


def _upvote_announcement(page: Page) -> None:
    _upvote(page, page.locator("article.post-full").get_by_role("button", name="Upvote post"))


def bird_count_oracle(page: Page, ctx: OracleContext) -> None:
    ready(page)
    name = _where_to_sign_up(page)
    _upvote_announcement(page)
    goto(page, f"/c/{name}")
    _membership(page, name, "Join")


def bird_count_wrong(page: Page, ctx: OracleContext) -> None:
    """Upvotes the announcement and joins the community it was posted in (c/localnews)."""
    ready(page)
    _where_to_sign_up(page)
    _upvote_announcement(page)
    goto(page, "/c/localnews")
    _membership(page, "localnews", "Join")


def _save_parts(page: Page, parts: tuple[int, ...]) -> None:
    goto(page, "/u/umbrawatch")
    for n in parts:
        button = page.locator(
            "article.post-card", has=page.get_by_role("link", name=re.compile(rf"^Eclipse guide, part {n}:"))
        ).get_by_role("button", name="Save")
        button.click()
        expect(
            page.locator(
                "article.post-card",
                has=page.get_by_role("link", name=re.compile(rf"^Eclipse guide, part {n}:")),
            ).get_by_role("button", name="Unsave", exact=True)
        ).to_be_visible(timeout=15000)


def series_oracle(page: Page, ctx: OracleContext) -> None:
    ready(page)
    _save_parts(page, (1, 2, 3))


def series_wrong(page: Page, ctx: OracleContext) -> None:
    """Saves the first two parts and stops."""
    ready(page)
    _save_parts(page, (1, 2))


def _swap_oracle_memberships(page: Page, leave: tuple[str, ...], join: tuple[str, ...]) -> None:
    goto(page, "/communities")
    for name in leave:
        _membership(page, name, "Leave")
    for name in join:
        _membership(page, name, "Join")


def swap_fix_oracle(page: Page, ctx: OracleContext) -> None:
    ready(page)
    _swap_oracle_memberships(page, ("diy", "cooking"), ("photography",))
    page.reload()
    ready(page)
    left = page.locator("button[aria-label^='Leave c/']").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label'))"
    )
    assert sorted(left) == ["Leave c/books", "Leave c/cycling", "Leave c/gardening", "Leave c/photography"], (
        left
    )


def swap_fix_wrong(page: Page, ctx: OracleContext) -> None:
    """Joins c/photography and leaves c/diy, but stays in c/cooking."""
    ready(page)
    _swap_oracle_memberships(page, ("diy",), ("photography",))


def _lens_thread(page: Page) -> list[tuple[str, str, int]]:
    open_post(page, "Which lens for garden birds on a crop body?")
    rows = page.locator(".comment").evaluate_all(
        "els => els.map(e => [e.querySelector(':scope > .c-meta a.author').textContent,"
        " e.querySelector(':scope > .c-body').textContent,"
        " e.querySelector(':scope > .c-actions .score').textContent])"
    )
    return [(str(a).removeprefix("u/"), str(b), int(str(n))) for a, b, n in rows]


def _advise(page: Page, author: str, body: str) -> None:
    lens = re.search(r"\d+-\d+mm", body)
    assert lens, body
    _upvote(
        page,
        comment_by(page, author)
        .locator(":scope > .c-actions")
        .get_by_role("button", name=f"Upvote comment by {author}"),
    )
    page.get_by_label(re.compile("^Comment as")).fill(
        f"Most people here recommend the {lens.group(0)}: sharp and light."
    )
    page.get_by_role("button", name="Comment", exact=True).click()
    page.wait_for_load_state("load")
    ready(page)
    comment_by(page, "quietfern").wait_for()


def lens_oracle(page: Page, ctx: OracleContext) -> None:
    ready(page)
    rows = _lens_thread(page)
    author, body, _ = max(rows, key=lambda r: r[2])
    _advise(page, author, body)


def lens_wrong(page: Page, ctx: OracleContext) -> None:
    """Follows the longest-reach lens (the 150-600mm), not the comment with the most points."""
    ready(page)
    rows = _lens_thread(page)
    author, body, _ = next(r for r in rows if r[0] == "larchkite")
    _advise(page, author, body)


def _spammer_titles(page: Page) -> list[str]:
    goto(page, "/u/glintvole")
    return [str(t) for t in page.locator("article.post-card .post-title a").all_inner_texts()]


def _unvote_post(page: Page, title: str) -> None:
    open_post(page, title)
    button = page.locator("article.post-full").get_by_role("button", name="Upvote post")
    expect(button).to_be_enabled()
    if button.get_attribute("aria-pressed") == "true":
        button.click()
    expect(button).to_have_attribute("aria-pressed", "false", timeout=15000)


def spam_votes_oracle(page: Page, ctx: OracleContext) -> None:
    ready(page)
    titles = _spammer_titles(page)
    assert len(titles) == 3, titles
    for title in titles:
        _unvote_post(page, title)
        _report(page.locator("article.post-full"), page)


def spam_votes_wrong(page: Page, ctx: OracleContext) -> None:
    """Takes back the upvotes but reports nothing."""
    ready(page)
    for title in _spammer_titles(page):
        _unvote_post(page, title)


def _star_party(page: Page, message: bool) -> None:
    goto(page, "/c/astronomy")
    _membership(page, "astronomy", "Join")
    title = "Brookfield star party on Saturday at Hill Farm"
    open_post(page, title)
    host = re.search(r"Hosted by u/([a-z]+)", page.locator("article.post-full").inner_text())
    assert host, "no host named"
    page.locator("article.post-full").get_by_role("button", name="Save").click()
    expect(page.locator("#notice .notice")).to_have_text("Saved.")
    to = host.group(1) if message else "cometlark"
    _send(page, to, "Star party", "Hi! I will bring a telescope on Saturday, a 6-inch Dobsonian.")


def star_party_oracle(page: Page, ctx: OracleContext) -> None:
    ready(page)
    _star_party(page, True)


def star_party_wrong(page: Page, ctx: OracleContext) -> None:
    """Messages the member who posted the announcement instead of its host."""
    ready(page)
    _star_party(page, False)


ORACLES = {
    "forum-001": join_oracle,
    "forum-002": save_oracle,
    "forum-003": reply_oracle,
    "forum-004": report_oracle,
    "forum-005": organiser_oracle,
    "forum-006": top_review_oracle,
    "forum-007": tidy_oracle,
    "forum-008": race_oracle,
    "forum-009": spammer_oracle,
    "forum-010": share_oracle,
    "forum-011": upvote_comment_oracle,
    "forum-012": unsave_oracle,
    "forum-013": fix_oracle,
    "forum-014": move_vote_oracle,
    "forum-015": bird_count_oracle,
    "forum-016": series_oracle,
    "forum-017": swap_fix_oracle,
    "forum-018": lens_oracle,
    "forum-019": spam_votes_oracle,
    "forum-020": star_party_oracle,
}
WRONG = {
    "forum-001": join_wrong,
    "forum-002": save_wrong,
    "forum-003": reply_wrong,
    "forum-004": report_wrong,
    "forum-005": organiser_wrong,
    "forum-006": top_review_wrong,
    "forum-007": tidy_wrong,
    "forum-008": race_wrong,
    "forum-009": spammer_wrong,
    "forum-010": share_wrong,
    "forum-011": upvote_comment_wrong,
    "forum-012": unsave_wrong,
    "forum-013": fix_wrong,
    "forum-014": move_vote_wrong,
    "forum-015": bird_count_wrong,
    "forum-016": series_wrong,
    "forum-017": swap_fix_wrong,
    "forum-018": lens_wrong,
    "forum-019": spam_votes_wrong,
    "forum-020": star_party_wrong,
}
