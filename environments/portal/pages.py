"""Larkspur Health's pages (mounted at /env/portal): HTML shells whose data `pages.js` fetches.

Every page is `portal/base.html` with a page name, a title and a few `data-` values taken from the
URL (an appointment, a conversation, a result or a form id). Nothing session-specific is rendered here.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from environments.sitekit import PageSpec, SitePages

ENV_ID = "portal"
router = APIRouter(include_in_schema=False)
PAGES = SitePages(ENV_ID)
SCRIPT = "pages.js"

HOME = PageSpec("home", "Home", SCRIPT, "home")
VISITS = PageSpec("appointments", "Appointments", SCRIPT, "visits")
SCHEDULE = PageSpec("schedule", "Schedule a visit", SCRIPT, "visits")
VISIT = PageSpec("appointment", "Visit details", SCRIPT, "visits")
INBOX = PageSpec("messages", "Messages", SCRIPT, "messages")
COMPOSE = PageSpec("compose", "New message", SCRIPT, "messages")
THREAD = PageSpec("thread", "Conversation", SCRIPT, "messages")
MEDS = PageSpec("medications", "Medications", SCRIPT, "medications")
RESULTS = PageSpec("results", "Test results", SCRIPT, "results")
RESULT = PageSpec("result", "Test result", SCRIPT, "results")
BILLING = PageSpec("billing", "Billing", SCRIPT, "billing")
INSURANCE = PageSpec("insurance", "Insurance", SCRIPT, "billing")
FORMS = PageSpec("forms", "Forms", SCRIPT, "forms")
FORM = PageSpec("form", "Form", SCRIPT, "forms")
SHARING = PageSpec("sharing", "Share my record", SCRIPT, "account")
PROFILE = PageSpec("profile", "Personal information", SCRIPT, "account")


@router.get("/")
def home(request: Request) -> Response:
    return PAGES.render(request, HOME)


@router.get("/appointments")
def visits(request: Request) -> Response:
    return PAGES.render(request, VISITS)


@router.get("/appointments/new")
def schedule(request: Request) -> Response:
    return PAGES.render(request, SCHEDULE)


@router.get("/appointments/{appointment_id}")
def visit(request: Request, appointment_id: str) -> Response:
    return PAGES.render(request, VISIT, appointment=appointment_id)


@router.get("/messages")
def inbox(request: Request) -> Response:
    return PAGES.render(request, INBOX)


@router.get("/messages/new")
def compose(request: Request) -> Response:
    return PAGES.render(request, COMPOSE)


@router.get("/messages/{thread_id}")
def thread(request: Request, thread_id: str) -> Response:
    return PAGES.render(request, THREAD, thread=thread_id)


@router.get("/medications")
def medications(request: Request) -> Response:
    return PAGES.render(request, MEDS)


@router.get("/results")
def results(request: Request) -> Response:
    return PAGES.render(request, RESULTS)


@router.get("/results/{result_id}")
def result(request: Request, result_id: str) -> Response:
    return PAGES.render(request, RESULT, result=result_id)


@router.get("/billing")
def billing(request: Request) -> Response:
    return PAGES.render(request, BILLING)


@router.get("/insurance")
def insurance(request: Request) -> Response:
    return PAGES.render(request, INSURANCE)


@router.get("/forms")
def forms(request: Request) -> Response:
    return PAGES.render(request, FORMS)


@router.get("/forms/{form_id}")
def form(request: Request, form_id: str) -> Response:
    return PAGES.render(request, FORM, form=form_id)


@router.get("/sharing")
def sharing(request: Request) -> Response:
    return PAGES.render(request, SHARING)


@router.get("/profile")
def profile(request: Request) -> Response:
    return PAGES.render(request, PROFILE)
