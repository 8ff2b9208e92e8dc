"""`core.playwright_stack`: Playwright's sync API records the same caller frames without reading
source lines, and its errors still name the call that failed."""

from __future__ import annotations

import inspect
import traceback

import pytest

from humantrace.core import playwright_stack


def _frames_here() -> tuple[list[tuple[str, int, str]], list[tuple[str, int, str]]]:
    ours = playwright_stack._stack()
    theirs = inspect.stack(0)
    # both are taken in this function, one line apart
    return [(f.filename, f.lineno, f.function) for f in ours], [
        (f.filename, f.lineno, f.function) for f in theirs
    ]


def test_the_stack_has_inspects_frames_without_source_lines():
    ours, theirs = _frames_here()
    assert len(ours) == len(theirs) > 5
    assert [(f, fn) for f, _, fn in ours] == [(f, fn) for f, _, fn in theirs]
    assert ours[0][1] + 1 == theirs[0][1] and ours[1:] == theirs[1:]
    assert all(frame.code_context is None for frame in playwright_stack._stack())


def test_the_summary_reads_its_lines_only_when_asked():
    summary = playwright_stack._extract_stack()
    expected = traceback.extract_stack()
    assert [(f.filename, f.name) for f in summary] == [(f.filename, f.name) for f in expected]
    assert summary[-1].line == "summary = playwright_stack._extract_stack()"


@pytest.mark.browser
def test_a_failed_call_still_names_itself_and_the_callers_line(context):
    from playwright._impl import _sync_base

    assert not inspect.ismodule(_sync_base.inspect)  # the suite's Playwright runs installed
    page = context.new_page()
    try:
        page.set_content("<main><p>Nothing to press here.</p></main>")
        with pytest.raises(Exception) as failed:
            page.get_by_role("button", name="Press").click(timeout=300)
        assert str(failed.value).startswith("Locator.click: Timeout 300ms exceeded.")
        assert page.get_by_text("Nothing to press").count() == 1
    finally:
        page.close()
