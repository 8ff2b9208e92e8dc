"""The HTML report opens offline in Chromium, without console errors or network requests."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_report_renders_offline_without_errors(compared, context, screenshot_dir):
    page = context.new_page()
    problems: list[str] = []
    requests: list[str] = []
    page.on("console", lambda msg: problems.append(msg.text) if msg.type in ("error", "warning") else None)
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    page.on("request", lambda req: requests.append(req.url))
    page.goto(compared.report_path.resolve().as_uri())
    page.wait_for_load_state("load")

    assert problems == []
    # only the file itself and its inline images: nothing leaves the machine
    assert all(url.startswith(("file:", "data:")) for url in requests), requests
    html = compared.report_path.read_text()
    assert "http://" not in html and "https://" not in html

    assert page.title() == "humantrace: humans vs agents"
    # every chart is an inline PNG that decoded to a real image
    sizes = page.eval_on_selector_all("figure img", "imgs => imgs.map(i => [i.complete, i.naturalWidth])")
    assert len(sizes) == 4 and all(done and width > 200 for done, width in sizes)
    # headline numbers are on the page as a reader sees them
    kpis = page.locator(".kpi b").all_inner_texts()
    assert kpis == ["80.0%", "100.0%", "40.0%", "80.0%"]
    drop_row = page.locator("tr", has_text="drop (clean − int.)").first.inner_text()
    assert "+40.0" in drop_row and "[0.0, 80.0]" in drop_row
    # the page fits a laptop screen's width: no horizontal scrolling
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366

    page.screenshot(path=str(screenshot_dir / "exports_report_top.png"))
    page.screenshot(path=str(screenshot_dir / "exports_report_full.png"), full_page=True)
