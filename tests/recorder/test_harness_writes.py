"""An agent harness's own DOM writes are not page changes: BrowserGym marks every element (bid,
browsergym_* attributes, a bid prefix in aria-description, the live value copied into the value
attribute) before it reads the page, and the recorder's dom_change must not count those, or an
agent's trace would show a DOM change after every step that a person's never has."""

from __future__ import annotations

import pytest
from browsergym.core.observation import _post_extract, _pre_extract

pytestmark = pytest.mark.browser


def test_browsergym_marks_are_not_dom_changes(live_server, context, wait_all_acked):
    rid, token = live_server.new_recording()
    context.add_cookies([{"name": "htrec", "value": token, "url": live_server.base_url}])
    page = context.new_page()
    page.goto(live_server.base_url + "/env/page1.html")
    page.fill("#name", "Ada")
    wait_all_acked(page, token, live_server, rid)
    before = live_server.frame(rid)

    for _ in range(3):  # what BrowserGym does around each observation
        _pre_extract(page, tags_to_mark="standard_html", lenient=True)
        _post_extract(page)
    assert page.locator("[bid]").count() > 10  # the page really was marked
    wait_all_acked(page, token, live_server, rid)
    after = live_server.frame(rid)
    new = after[after["seq"] > before["seq"].max()]
    assert new[new["type"] == "dom_change"].empty, new.to_dict(orient="records")

    # A real change on a marked page is still a dom_change.
    page.click("#grow")
    wait_all_acked(page, token, live_server, rid)
    final = live_server.frame(rid)
    grown = final[(final["seq"] > after["seq"].max()) & (final["type"] == "dom_change")]
    assert not grown.empty and int(grown["added"].sum()) >= 1
