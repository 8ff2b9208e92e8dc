"""Staywell's pages (mounted at /env/booking): HTML shells whose data the page scripts fetch.

Every page is `booking/base.html` with a page name, a title, its script and a few `data-` values
taken from the URL (a hotel id, a booking id). Nothing session-specific is rendered here.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from environments.sitekit import PageSpec, SitePages

ENV_ID = "booking"
router = APIRouter(include_in_schema=False)
PAGES = SitePages(ENV_ID)


HOME = PageSpec("home", "Find your next stay", "home.js")
SEARCH = PageSpec("search", "Search results", "search.js")
HOTEL = PageSpec("hotel", "Hotel", "hotel.js")
BOOK = PageSpec("book", "Your details", "book.js")
TRIPS = PageSpec("trips", "Your trips", "trips.js", "trips")
TRIP = PageSpec("trip", "Trip details", "trip.js", "trips")
LISTS = PageSpec("lists", "Saved lists", "lists.js", "lists")
ACCOUNT = PageSpec("account", "Account", "account.js", "account")


@router.get("/")
def home(request: Request) -> Response:
    return PAGES.render(request, HOME)


@router.get("/search")
def results(request: Request) -> Response:
    return PAGES.render(request, SEARCH)


@router.get("/hotel/{hotel_id}")
def hotel(request: Request, hotel_id: str) -> Response:
    return PAGES.render(request, HOTEL, hotel=hotel_id)


@router.get("/book")
def book(request: Request) -> Response:
    return PAGES.render(request, BOOK)


@router.get("/trips")
def trips(request: Request) -> Response:
    return PAGES.render(request, TRIPS)


@router.get("/trips/{booking_id}")
def trip(request: Request, booking_id: str) -> Response:
    return PAGES.render(request, TRIP, booking=booking_id)


@router.get("/lists")
def lists(request: Request) -> Response:
    return PAGES.render(request, LISTS)


@router.get("/account")
def account(request: Request) -> Response:
    return PAGES.render(request, ACCOUNT)
