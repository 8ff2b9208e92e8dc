"""Every site's semantic events are the ones it declares: each declared event is emitted by some
endpoint, each emitted one is declared with exactly its parameters, and an emit that breaks the
declaration raises where it happens (so `tasks check` cannot accept an event condition no run can
satisfy)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from humantrace.environments import sitekit, sites
from humantrace.environments.deps import UndeclaredEvent, check_event

ROOT = Path(__file__).resolve().parents[2]


def _emits(tree: ast.AST) -> list[tuple[int, str | None, frozenset[str | None]]]:
    """(line, event name or None when not a literal, keyword names) of every `emit(...)` call, as a
    method (`env.emit`) or a passed-in callable (`emit`)."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if name != "emit":
            continue
        first = node.args[0] if node.args else None
        event = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
        found.append((node.lineno, event, frozenset(k.arg for k in node.keywords)))
    return found


def _kit_emits() -> dict[str, set[str]]:
    """The site kit's helpers that add an endpoint emitting an event: helper name -> events."""
    tree = ast.parse(Path(sitekit.__file__).read_text(encoding="utf-8"))
    helpers: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            names = {event for _, event, _ in _emits(node) if event}
            if names:
                helpers[node.name] = names
    return helpers


def _site_emits(site: str) -> dict[str, list[tuple[str, frozenset[str | None]]]]:
    """Event name -> (where, keyword names) of each emit in the site's package, the kit's
    endpoints the site adds included."""
    emitted: dict[str, list[tuple[str, frozenset[str | None]]]] = {}
    kit = _kit_emits()
    for path in sorted((ROOT / "environments" / site).rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        for line, event, keywords in _emits(tree):
            assert event is not None, f"{path.relative_to(ROOT)}:{line}: emit with a computed event name"
            assert None not in keywords, f"{path.relative_to(ROOT)}:{line}: emit(**params) cannot be checked"
            emitted.setdefault(event, []).append((f"{path.relative_to(ROOT)}:{line}", keywords))
        called = {
            n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        }
        for helper in called & set(kit):
            for event in kit[helper]:
                emitted.setdefault(event, []).append((f"sitekit.{helper} (from {path.name})", frozenset()))
    return emitted


@pytest.mark.parametrize("site", sites.SITES)
def test_every_declared_event_is_emitted_and_every_emitted_one_is_declared(site):
    declared = importlib.import_module(f"humantrace.environments.{site}.api").EVENTS
    emitted = _site_emits(site)
    assert sorted(set(declared) - set(emitted)) == [], "declared, but no endpoint emits them"
    assert sorted(set(emitted) - set(declared)) == [], "emitted, but not declared in api.EVENTS"
    for event, uses in emitted.items():
        for where, keywords in uses:
            assert keywords == frozenset(declared[event]), f"{where}: {event} {sorted(map(str, keywords))}"


def test_an_emit_off_the_declaration_raises_where_it_happens(lab):
    # The lab test site declares note_create(note_id, title), note_pin(note_id, pinned), note_view(note_id).
    check_event("lab", "note_pin", {"note_id": "n-1", "pinned": True})
    with pytest.raises(UndeclaredEvent, match="'note_pinned', which its api.EVENTS does not declare"):
        check_event("lab", "note_pinned", {"note_id": "n-1", "pinned": True})
    with pytest.raises(UndeclaredEvent, match=r"with parameters \['note_id', 'pin'\]"):
        check_event("lab", "note_pin", {"note_id": "n-1", "pin": True})
    with pytest.raises(UndeclaredEvent, match=r"\['note_id'\]; api.EVENTS declares \['note_id', 'pinned'\]"):
        check_event("lab", "note_pin", {"note_id": "n-1"})
