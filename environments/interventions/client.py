"""The client layer: which DOM changes a page gets, and the script tag that carries them.

Every page of every session gets the script (with no dispatches on a clean page), so the two
conditions load the same scripts and an annotator cannot tell them apart by what is loaded; the
config travels base64-encoded in a data attribute, so the page's text holds no dispatch names,
targets, variant id or secret. The `epoch` changes on every reset, so per-session budgets the script keeps in
sessionStorage (e.g. "swallow the first 2 clicks") start afresh for the warm attempt.
"""

from __future__ import annotations

import base64
import fnmatch
import hashlib
import json
from typing import Any

from markupsafe import Markup, escape

SCRIPT_URL = "/env-static/ux.js"


def dispatches_for_page(dispatches: list[dict[str, Any]], page_path: str) -> list[dict[str, Any]]:
    """The dispatches whose `pages` glob matches `page_path` (no glob: every page)."""
    chosen = []
    for dispatch in dispatches:
        pages = dispatch.get("pages")
        if pages and not fnmatch.fnmatchcase(page_path, pages):
            continue
        chosen.append({key: value for key, value in dispatch.items() if key != "pages"})
    return chosen


def client_config(dispatches: list[dict[str, Any]], *, session_id: str, reset_count: int) -> dict[str, Any]:
    """The JSON the script reads: an opaque epoch and the dispatch list."""
    epoch = hashlib.sha256(f"{session_id}:{reset_count}".encode()).hexdigest()[:16]
    return {"epoch": epoch, "dispatches": dispatches}


def script_tag(config: dict[str, Any]) -> Markup:
    """`<script src=... data-c=...>` for `config`."""
    payload = base64.b64encode(json.dumps(config, separators=(",", ":")).encode()).decode()
    return Markup(f'<script src="{SCRIPT_URL}" data-c="{escape(payload)}" defer></script>')


def inject(html: str, tag: str) -> str:
    """`html` with `tag` placed just before `</body>` (appended when there is none)."""
    # Plain strings on both sides: str + Markup would escape the whole page.
    html, tag = str(html), str(tag)
    index = html.lower().rfind("</body>")
    if index < 0:
        return html + tag
    return html[:index] + tag + html[index:]
