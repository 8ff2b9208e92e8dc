"""Screenshots of Northbeam's UI profiles (docs/ui-variants/brokerage.md).

Run: PYTHONPATH=$PWD .venv/bin/python docs/ui-variants/shots_brokerage.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from shots import Shot, take  # noqa: E402


def open_select(label: str):
    return lambda page: page.get_by_role("combobox", name=label, exact=True).click()


def open_menu(page) -> None:
    page.get_by_role("button", name="Menu", exact=True).click()


take(
    [
        Shot("brokerage-001", "default", "/quote/NBTM", "brokerage-default-ticket.png"),
        Shot(
            "brokerage-001",
            "custom-controls",
            "/quote/NBTM",
            "brokerage-custom-select.png",
            open_select("Action"),
        ),
        Shot("brokerage-001", "custom-controls", "/quote/NBTM", "brokerage-stepper.png"),
        Shot("brokerage-001", "default", "/", "brokerage-default-nav.png"),
        Shot("brokerage-001", "side-menu", "/", "brokerage-side-menu-closed.png"),
        Shot("brokerage-001", "side-menu", "/", "brokerage-side-menu-open.png", open_menu),
    ]
)
