"""Debian's Chromium for BrowserGym: launch options, and a Playwright browsers folder.

BrowserGym launches the agent's browser with our `pw_chromium_kwargs` (`executable_path`), but
its chat window calls a bare `chromium.launch()` that looks for Playwright's own Chromium build,
which cannot be downloaded here. BrowserGym 0.14 has no switch to turn the chat off, so we make a
browsers folder in which that build's path is a link to Debian's Chromium and point
`PLAYWRIGHT_BROWSERS_PATH` at it before Playwright starts.

    python -m agentruns.browsers [FOLDER]    # what `./dev` runs at set-up
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from humantrace.agentruns.settings import AgentSettings


def expected_build() -> tuple[str, Path]:
    """(revision, path of the chrome binary inside a browsers folder) that this Playwright expects."""
    import playwright

    driver = Path(playwright.__file__).parent / "driver" / "package" / "browsers.json"
    browsers = json.loads(driver.read_text(encoding="utf-8"))["browsers"]
    revision = next(b["revision"] for b in browsers if b["name"] == "chromium")
    return revision, Path(f"chromium-{revision}") / "chrome-linux" / "chrome"


def ensure_browsers_dir(folder: Path | None = None, *, chromium: str | None = None) -> Path:
    """Make `folder` hold Playwright's expected Chromium build as a link to Debian's; returns it."""
    settings = AgentSettings()
    folder = Path(folder or settings.browsers_path)
    target = Path(chromium or settings.chromium)
    if not target.exists():
        raise FileNotFoundError(
            f"{target} does not exist: install Debian's chromium (apt-get install chromium)"
        )
    _revision, relative = expected_build()
    link = folder / relative
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.is_symlink() or link.exists():
        if link.is_symlink() and Path(os.readlink(link)) == target:
            return folder
        link.unlink()
    link.symlink_to(target)
    # Playwright treats a build without this marker as half-installed.
    (link.parents[1] / "INSTALLATION_COMPLETE").touch()
    return folder


def use_debian_chromium(settings: AgentSettings | None = None) -> dict:
    """Point Playwright (started later in this process) at the browsers folder; returns the
    `pw_chromium_kwargs` for BrowserGym's main browser."""
    from humantrace.core import playwright_stack

    playwright_stack.install()  # BrowserGym's env drives the page through Playwright's sync API
    settings = settings or AgentSettings()
    folder = ensure_browsers_dir(settings.browsers_path, chromium=settings.chromium)
    os.environ["PLAYWRIGHT_BROWSERS_PATH"] = str(folder)
    return {"executable_path": settings.chromium}


if __name__ == "__main__":
    made = ensure_browsers_dir(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
    print(f"PLAYWRIGHT_BROWSERS_PATH={made}")
