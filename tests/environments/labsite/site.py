"""A tiny notes website used to test the environments framework end to end ("lab").

It has the full shape of a site (typed state, builders, API, pages, tasks, variants, oracles) but
lives under tests/ and is registered only by the test fixtures. Loaded by file path as `ht_labsite`.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from pydantic import BaseModel

from humantrace.environments.oracles import choose
from humantrace.environments.pages import render_page
from humantrace.environments.registry import Environment
from humantrace.environments.seeding import SeedContext, builder
from humantrace.environments.sessions import EnvSessionDep
from humantrace.environments.sitekit import state_of
from humantrace.environments.state import Entity, EnvState
from humantrace.environments.ui import UIProfile

ROOT = Path(__file__).parent
WORDS = ["budget", "garden", "piano", "trip", "invoice", "recipe", "meeting", "library", "bicycle", "kitchen"]


class Note(Entity):
    title: str
    body: str = ""
    pinned: bool = False
    created_at: str


class Account(Entity):
    name: str
    email: str


class LabState(EnvState):
    notes: list[Note] = []
    account: list[Account] = []


LabContext = SeedContext[LabState]


def build_default_state(ctx: LabContext) -> None:
    ctx.state.account.append(Account(id="me", name="Robin Lab", email="robin@example.test"))
    for _ in range(3):
        add_note(ctx, title=f"{ctx.rng.choice(WORDS).title()} ideas")


def add_note(ctx: LabContext, *, title: str, body: str = "") -> Note:
    note = Note(
        id=ctx.new_id("n"),
        title=title,
        body=body or f"About {title.lower()}.",
        created_at=ctx.ago(hours=ctx.rng.randint(1, 200)),
    )
    ctx.state.notes.append(note)
    return note


@builder("lab.notes")
def notes(ctx: LabContext, *, count: int = 4) -> dict[str, Any]:
    made = [
        add_note(ctx, title=f"{ctx.rng.choice(WORDS).title()} {ctx.rng.randint(2, 99)}") for _ in range(count)
    ]
    return {"note_ids": [note.id for note in made]}


@builder("lab.target_note")
def target_note(ctx: LabContext) -> dict[str, Any]:
    title = f"{ctx.rng.choice(WORDS).title()} plan {ctx.rng.randint(100, 999)}"
    note = add_note(ctx, title=title)
    # `marker` never enters the state: tests check that no public surface ever shows a target.
    return {"note_id": note.id, "title": title, "marker": f"tgtmark{ctx.rng.randint(10**8, 10**9)}"}


@builder("lab.new_title")
def new_title(ctx: LabContext) -> dict[str, Any]:
    return {
        "title": f"Call {ctx.rng.choice(WORDS)} shop {ctx.rng.randint(10, 99)}",
        "marker": f"tgtmark{ctx.rng.randint(10**8, 10**9)}",
    }


@builder("lab.decoy_notes")
def decoy_notes(ctx: LabContext, *, like: str, count: int = 2) -> dict[str, Any]:
    made = [add_note(ctx, title=f"{like} (copy {i + 1})") for i in range(count)]
    return {"decoy_ids": [note.id for note in made]}


# --------------------------------------------------------------------------- API

api = APIRouter()


class NewNote(BaseModel):
    title: str
    body: str = ""


class NoteChanges(BaseModel):
    pinned: bool | None = None
    title: str | None = None


@api.get("/notes")
def list_notes(env: EnvSessionDep) -> dict[str, Any]:
    return {"notes": [note.model_dump() for note in state_of(env, LabState).notes]}


@api.post("/notes", status_code=201)
def create_note(body: NewNote, env: EnvSessionDep) -> dict[str, Any]:
    if not body.title.strip():
        raise HTTPException(status_code=422, detail="A note needs a title.")
    note = Note(id=env.new_id("n"), title=body.title.strip(), body=body.body, created_at=env.now_iso())
    state_of(env, LabState).notes.append(note)
    env.emit("note_create", note_id=note.id, title=note.title)
    return note.model_dump()


@api.patch("/notes/{note_id}")
def change_note(note_id: str, body: NoteChanges, env: EnvSessionDep) -> dict[str, Any]:
    note = env.state.find("notes", note_id)
    if note is None:
        raise HTTPException(status_code=404, detail="No such note.")
    if body.pinned is not None:
        note.pinned = body.pinned
        env.emit("note_pin", note_id=note_id, pinned=body.pinned)
    if body.title is not None:
        # Checked after the pin on purpose: a refusal after a partial change must leave no trace.
        if not body.title.strip():
            raise HTTPException(status_code=422, detail="A note needs a title.")
        note.title = body.title
    return note.model_dump()


class ReadHold:
    """Holds `GET /notes/{id}/touch` inside its handler while armed (tests of reads that write)."""

    def __init__(self) -> None:
        self.armed, self.entered, self.release = threading.Event(), threading.Event(), threading.Event()

    def wait_here(self) -> None:
        if self.armed.is_set():
            self.entered.set()
            self.release.wait(timeout=20)


READ_HOLD = ReadHold()


@api.get("/notes/{note_id}/open")
def open_note(note_id: str, env: EnvSessionDep) -> dict[str, Any]:
    """A read that records a semantic event (like a product view)."""
    note = env.state.find("notes", note_id)
    if note is None:
        raise HTTPException(status_code=404, detail="No such note.")
    env.emit("note_view", note_id=note_id)
    return note.model_dump()


@api.get("/notes/{note_id}/touch")
def touch_note(note_id: str, env: EnvSessionDep) -> dict[str, Any]:
    """A read that changes the state (marks the note's body as opened): rare, but sites may do it."""
    note = env.state.find("notes", note_id)
    if note is None:
        raise HTTPException(status_code=404, detail="No such note.")
    READ_HOLD.wait_here()
    note.body = note.body + " [opened]"
    return note.model_dump()


@api.get("/scratch")
def scratch_note(env: EnvSessionDep) -> dict[str, Any]:
    """The session's scratch note, made on the first call: a read that creates an entity (and so
    needs a fresh id, which reads the initial snapshot)."""
    for note in state_of(env, LabState).notes:
        if note.title == "Scratch":
            return note.model_dump()
    note = Note(id=env.new_id("n"), title="Scratch", body="", created_at=env.now_iso())
    state_of(env, LabState).notes.append(note)
    return note.model_dump()


@api.post("/auth/login")
def login(env: EnvSessionDep) -> dict[str, Any]:
    return {"ok": True}


pages = APIRouter()


@pages.get("/")
def index(request: Request):
    return render_page(request, "lab", "index.html")


ENVIRONMENT = Environment(
    env_id="lab",
    title="Lab Notes",
    state_model=LabState,
    package="ht_labsite",
    api_router=api,
    page_router=pages,
    build_default_state=build_default_state,
    root=ROOT,
    events={
        "note_create": ("note_id", "title"),
        "note_pin": ("note_id", "pinned"),
        "note_view": ("note_id",),
    },
    ui_profiles=(
        UIProfile(
            name="icon-buttons",
            title="Icon buttons",
            description="Pin and Save show only an icon; their words are their accessible names.",
            controls={"button": "icon"},
            classes=("button",),
        ),
        UIProfile(
            name="kit-controls",
            title="Kit controls",
            description="The order select is a custom listbox; confirmations appear in the page.",
            controls={"select": "custom", "confirmation": "inline"},
            classes=("select", "confirmation"),
        ),
    ),
)

# --------------------------------------------------------------------------- oracles


def _note_row(page: Any, title: str) -> Any:
    return page.locator("li.note", has=page.locator(".note-title", has_text=title)).filter(
        has=page.get_by_text(title, exact=True)
    )


def pin_oracle(page: Any, ctx: Any) -> None:
    title = ctx.targets["title"]
    choose(page, "Order", "By title")  # a native select or the kit's listbox, by the UI profile
    page.locator("#notes[data-loaded=true]").wait_for()
    for _ in range(4):
        row = _note_row(page, title)
        if row.get_attribute("data-pinned") == "true":
            return
        with page.expect_response(lambda response: "/api/env/lab/notes/" in response.url):
            row.get_by_role("button", name="Pin").click()
        page.reload()  # a competent person re-reads the list after saving
        page.locator("#notes[data-loaded=true]").wait_for()
    raise AssertionError("the note never showed as pinned")


def pin_wrong(page: Any, ctx: Any) -> None:
    # Pins the first note in the list, whatever its title.
    page.locator("li.note").first.get_by_role("button", name="Pin").click()
    page.wait_for_timeout(200)


def _close_overlays(page: Any) -> None:
    for button in page.get_by_role("button", name="Close").all():
        if button.is_visible():
            button.click()


def create_oracle(page: Any, ctx: Any) -> None:
    title = ctx.targets["title"]
    page.get_by_label("Title").fill(title)
    page.get_by_label("Body").fill("Remember to call.")
    for _ in range(4):
        _close_overlays(page)
        try:
            with page.expect_request(
                lambda request: request.method == "POST" and request.url.endswith("/api/env/lab/notes"),
                timeout=3000,
            ):
                page.get_by_role("button", name="Save note").click()
        except PlaywrightTimeout:  # the click sent nothing: look for what got in the way, try again
            continue
        # Sent once: wait for it (pressing Save again while a slow answer is on its way made a
        # second note, a side effect the evaluator rightly penalised, in a CI run under load).
        page.locator("li.note .note-title", has_text=title).first.wait_for(timeout=20_000)
        return
    raise AssertionError("the new note never appeared")


def create_wrong(page: Any, ctx: Any) -> None:
    page.get_by_label("Title").fill("Something else entirely")
    _close_overlays(page)
    page.get_by_role("button", name="Save note").click(force=True)
    page.wait_for_timeout(200)


ORACLES = {"lab-001": pin_oracle, "lab-002": create_oracle}
WRONG = {"lab-001": pin_wrong, "lab-002": create_wrong}
