"""Staywell's pages (mounted at /env/booking): HTML shells whose data the page scripts fetch.

Every page is `booking/base.html` with a page name, a title, its script and a few `data-` values
taken from the URL (a hotel id, a booking id). Nothing session-specific is rendered here.
"""

from __future__ import annotations

from humantrace.environments.sitekit import PageSpec, SitePages

ENV_ID = "booking"
PAGES = SitePages(ENV_ID)
router = PAGES.router


PAGES.add("/", PageSpec("home", "Find your next stay", "home.js"))
PAGES.add("/search", PageSpec("search", "Search results", "search.js"))
PAGES.add("/hotel/{hotel_id}", PageSpec("hotel", "Hotel", "hotel.js"))
PAGES.add("/book", PageSpec("book", "Your details", "book.js"))
PAGES.add("/trips", PageSpec("trips", "Your trips", "trips.js", "trips"))
PAGES.add("/trips/{booking_id}", PageSpec("trip", "Trip details", "trip.js", "trips"))
PAGES.add("/lists", PageSpec("lists", "Saved lists", "lists.js", "lists"))
PAGES.add("/account", PageSpec("account", "Account", "account.js", "account"))
