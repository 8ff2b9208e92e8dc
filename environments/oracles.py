"""What an oracle (a scripted competent person) gets, and where a site's oracles are found.

A site's `oracles.py` defines `ORACLES` and `WRONG`: task id -> `fn(page, ctx)`, where `page` is a
Playwright sync Page already on the task's start page. Oracles act through the UI only (clicks and
typing) and recover from the variant's intervention; WRONG solutions must fail the task.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from humantrace.environments.registry import Environment
from humantrace.environments.sitekit import Oracle

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page


@dataclass(frozen=True)
class OracleContext:
    """The task as the person sees it (instruction) plus the resolved targets (to act on)."""

    targets: dict[str, Any]
    condition: str
    instruction: str
    base_url: str
    task_id: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


# `fn(page, ctx)` over Playwright's sync `Page`: the site kit's `Oracle` protocol.
OracleFn = Oracle

# Counts the page's fetches in flight (until their bodies are read). Installed into the browser
# context by `settle_network` the first time, so every later page of the context carries it.
NETWORK_TRACKER_JS = """
(() => {
  if (window.__htNet || !window.fetch) return;
  const net = window.__htNet = { pending: 0, last: performance.now() };
  const done = () => { net.pending -= 1; net.last = performance.now(); };
  const original = window.fetch;
  window.fetch = function (...args) {
    net.pending += 1;
    net.last = performance.now();
    return original.apply(this, args).then(
      (response) => response.clone().arrayBuffer().then(() => { done(); return response; }, () => { done(); return response; }),
      (error) => { done(); throw error; });
  };
})();
"""
QUIET_MS = 150
_IDLE = f"() => !window.__htNet || (window.__htNet.pending === 0 && performance.now() - window.__htNet.last > {QUIET_MS})"


def settle_network(page: Page, timeout_ms: float = 30_000) -> None:
    """Wait until the page has loaded and no fetch has been in flight for `QUIET_MS`.

    Playwright's "networkidle" waits for 500 ms of silence after every step; counting the page's
    own fetches needs only a short quiet spell. Pages opened before the tracker was installed
    fall back to "networkidle".
    """
    context = page.context
    if not getattr(context, "_ht_network_tracker", False):
        context.add_init_script(NETWORK_TRACKER_JS)
        # A marker on Playwright's context object (it has no slot for our own data).
        context._ht_network_tracker = True  # type: ignore[attr-defined]
    page.wait_for_load_state("load")
    if page.evaluate("() => !!window.__htNet"):
        page.wait_for_function(_IDLE, polling=50, timeout=timeout_ms)
    else:
        # This document started before the tracker: it cannot know the fetches already in flight.
        page.wait_for_load_state("networkidle")
        page.evaluate(NETWORK_TRACKER_JS)


# Steps every site's oracles share (the site kit's page contract: `#app` starts with a `.loading`
# placeholder the page script replaces, writes answer in `#notice`, an expiry leads to the shared
# relogin page).
LONG_MS = 20_000  # slow networks in some variants
_APP_LOADED = (
    "() => { const app = document.getElementById('app');"
    " return app && !app.querySelector(':scope > .loading') && app.children.length > 0; }"
)


def app_loaded(page: Page, timeout: float = LONG_MS) -> None:
    """Wait until the page has loaded and its main content (`#app`) has replaced the loading placeholder."""
    page.wait_for_load_state("load")
    page.wait_for_function(_APP_LOADED, timeout=timeout)


def shows(locator: Locator) -> bool:
    """Whether `locator` matches something that is visible now (no waiting)."""
    return locator.count() > 0 and locator.first.is_visible()


def attribute(locator: Locator, name: str) -> str:
    """The value of the attribute `name` of the element of `locator`, which must have it."""
    value = locator.get_attribute(name)
    assert value is not None, f"no {name} attribute"
    return value


def notice(page: Page, timeout: float = LONG_MS) -> str:
    """The text of the page's latest notice (`#notice`: the answer to a write, success or error)."""
    found = page.locator("#notice .notice").first
    found.wait_for(timeout=timeout)
    return str(found.inner_text())


def ready_or_reload(page: Page, loaded: Callable[[Page], None], *, close: tuple[str, ...] = ()) -> None:
    """`loaded(page)`, then a moment for a cover or dialog that appears late: the buttons named in
    `close` are pressed (a dialog over the page), and a loading cover (`progressbar`) that never goes
    away is dealt with by reloading (three tries)."""
    for _ in range(3):
        loaded(page)
        page.wait_for_timeout(700)  # a cover or a dialog that appears a moment later is still in the way
        for name in close:
            button = page.get_by_role("button", name=name, exact=True)
            if shows(button):
                button.first.click()
        if not shows(page.get_by_role("progressbar")):
            return
        page.reload()
    raise AssertionError("the page never finished loading")


def sign_in_again(page: Page, trigger: Locator, *, only_visible: bool = True) -> bool:
    """After a session expiry: if `trigger` (a "Sign in again" link or button) is there (and visible,
    unless `only_visible` is False), follow it to the shared relogin page and sign in there; True if
    it was needed."""
    if not (shows(trigger) if only_visible else trigger.count()):
        return False
    trigger.first.click()
    page.wait_for_url(re.compile(r"/relogin"))
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_load_state("load")
    return True


def choose(
    scope: Page | Locator,
    label: str,
    option: str | re.Pattern[str] | None = None,
    *,
    value: str | None = None,
) -> None:
    """Choose an option of the select named `label` (its accessible name), whichever build shows.

    Under the default UI profile that is a native `<select>`; under `select=custom`
    (`environments.ui`) it is a combobox button whose listbox is in the page only while open. Both
    carry the role "combobox" and the same name, so an oracle written with `choose` passes on every
    profile. Give the option's visible text (`option`: exact text, or a pattern it must contain)
    or its value (`value`).
    """
    if (option is None) == (value is None):
        raise ValueError("choose() takes an option's text or its value, not both")
    box = scope.get_by_role("combobox", name=label, exact=True)
    if box.evaluate("el => el.tagName") == "SELECT":
        if isinstance(option, re.Pattern):
            value = box.locator("option").filter(has_text=option).first.get_attribute("value")
            option = None
        if option is not None:
            box.select_option(label=option)
        else:
            box.select_option(value=value)
        return
    box.click()
    listbox = scope.get_by_role("listbox", name=label, exact=True)
    if isinstance(option, re.Pattern):
        listbox.get_by_role("option", name=option).first.click()
    elif option is not None:
        listbox.get_by_role("option", name=option, exact=True).click()
    else:
        listbox.locator(f'[role="option"][data-value="{value}"]').click()


@dataclass(frozen=True)
class SiteOracles:
    """A site's oracle and wrong solutions by task id."""

    oracles: dict[str, OracleFn]
    wrong: dict[str, OracleFn]


def load_oracles(env: Environment) -> SiteOracles:
    """`ORACLES` and `WRONG` of `env` (from `<package>.oracles`, else the package itself)."""
    module_name = f"{env.package}.oracles"
    try:
        found = importlib.util.find_spec(module_name) is not None
    except ModuleNotFoundError:
        found = False
    module = importlib.import_module(module_name if found else env.package)
    return SiteOracles(oracles=dict(getattr(module, "ORACLES", {})), wrong=dict(getattr(module, "WRONG", {})))
