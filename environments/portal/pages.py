"""Larkspur Health's pages (mounted at /env/portal): HTML shells whose data `pages.js` fetches.

Every page is `portal/base.html` with a page name, a title and a few `data-` values taken from the
URL (an appointment, a conversation, a result or a form id). Nothing session-specific is rendered here.
"""

from __future__ import annotations

from humantrace.environments.sitekit import PageSpec, SitePages

ENV_ID = "portal"
PAGES = SitePages(ENV_ID)
router = PAGES.router
SCRIPT = "pages.js"


PAGES.add("/", PageSpec("home", "Home", SCRIPT, "home"))
PAGES.add("/appointments", PageSpec("appointments", "Appointments", SCRIPT, "visits"))
PAGES.add("/appointments/new", PageSpec("schedule", "Schedule a visit", SCRIPT, "visits"))
PAGES.add("/appointments/{appointment_id}", PageSpec("appointment", "Visit details", SCRIPT, "visits"))
PAGES.add("/messages", PageSpec("messages", "Messages", SCRIPT, "messages"))
PAGES.add("/messages/new", PageSpec("compose", "New message", SCRIPT, "messages"))
PAGES.add("/messages/{thread_id}", PageSpec("thread", "Conversation", SCRIPT, "messages"))
PAGES.add("/medications", PageSpec("medications", "Medications", SCRIPT, "medications"))
PAGES.add("/results", PageSpec("results", "Test results", SCRIPT, "results"))
PAGES.add("/results/{result_id}", PageSpec("result", "Test result", SCRIPT, "results"))
PAGES.add("/billing", PageSpec("billing", "Billing", SCRIPT, "billing"))
PAGES.add("/insurance", PageSpec("insurance", "Insurance", SCRIPT, "billing"))
PAGES.add("/forms", PageSpec("forms", "Forms", SCRIPT, "forms"))
PAGES.add("/forms/{form_id}", PageSpec("form", "Form", SCRIPT, "forms"))
PAGES.add("/sharing", PageSpec("sharing", "Share my record", SCRIPT, "account"))
PAGES.add("/profile", PageSpec("profile", "Personal information", SCRIPT, "account"))
