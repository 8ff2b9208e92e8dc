"""The HTML report opens offline in Chromium, without console errors or network requests."""

from __future__ import annotations

import re

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
    # every chart is inline SVG, also saved as PNG and SVG beside the CSVs
    assert page.locator("svg.chart").count() == 11
    for name in (
        "pass_rates",
        "model_primitive",
        "env_primitive",
        "false_positive",
        "verification_gap",
        "failure_classes",
        "time_ratio",
        "human_time",
        "duplicates",
        "primitives",
        "tasks",
    ):
        assert (compared.out_dir / f"fig_{name}.png").stat().st_size > 1000
        assert (compared.out_dir / f"fig_{name}.svg").read_text().lstrip().startswith("<?xml")
    # every bar shows its n and its 95% interval, or says the interval would rest on too few units
    labels = page.evaluate("""() => [...document.querySelectorAll('svg.chart [id^="bar-"]')].map(bar => {
        const label = document.getElementById('barlabel-' + bar.id.slice(4));
        return [bar.id, label ? label.textContent.trim() : null];
    })""")
    assert len(labels) > 30
    for bar_id, text in labels:
        assert text is not None and re.fullmatch(r"n=\d+ \[-?[\d.]+, -?[\d.]+\]|n=\d+, n too small", text), (
            bar_id,
            text,
        )
    assert "n=5 [3.6, 62.4]" in [t for _, t in labels]  # M1: 1 of 5 intervention runs passed, Wilson
    assert all("[" not in t for _, t in labels if int(t[2:].split(" ")[0].rstrip(",")) < 5)
    # no legend sits over a bar or marker
    overlaps = page.evaluate("""() => {
        const hit = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
        const out = [];
        for (const legend of document.querySelectorAll('svg.chart [id^="legend-"]')) {
            const box = legend.getBoundingClientRect();
            for (const mark of legend.closest('svg').querySelectorAll('[id^="bar-"], [id^="marker-"]')) {
                if (hit(box, mark.getBoundingClientRect())) out.push([legend.id, mark.id]);
            }
        }
        return out;
    }""")
    assert overlaps == []
    # no table is cut off inside its column (nothing hidden behind a sideways scroll)
    cut = page.evaluate(
        "() => [...document.querySelectorAll('.scroll')].filter(d => d.scrollWidth > d.clientWidth + 1).length"
    )
    assert cut == 0
    # no empty table cell: a missing value says why
    blank = page.evaluate(
        """() => [...document.querySelectorAll('tbody td')].filter(td => !td.textContent.trim()).length"""
    )
    assert blank == 0
    # headline numbers are on the page as a reader sees them
    kpis = page.locator(".kpi b").all_inner_texts()
    assert kpis == ["80.0%", "100.0%", "40.0%", "80.0%"]
    drop_row = page.locator("tr", has_text="drop (clean − int.)").first.inner_text()
    assert "+40.0" in drop_row and "[0.0, 80.0]" in drop_row
    # the page fits a laptop screen's width: no horizontal scrolling
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366

    page.screenshot(path=str(screenshot_dir / "exports_report_top.png"))
    page.screenshot(path=str(screenshot_dir / "exports_report_full.png"), full_page=True)
