"""Northbeam's pages (mounted at /env/brokerage): HTML shells whose data `northbeam.js` fetches.

Every page is `brokerage/base.html` with a page name, a title and a few `data-` values taken from
the URL (an account id, a symbol). Nothing session-specific is rendered here.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from environments.pages import render_page

ENV_ID = "brokerage"
router = APIRouter(include_in_schema=False)


def _render(request: Request, page: str, title: str, section: str, **data: str) -> Response:
    return render_page(
        request,
        ENV_ID,
        "brokerage/base.html",
        page=page,
        title=title,
        section=section,
        base=f"/env/{ENV_ID}",
        api=f"/api/env/{ENV_ID}",
        data=data,
    )


@router.get("/")
def portfolio(request: Request) -> Response:
    return _render(request, "portfolio", "Portfolio", "portfolio")


@router.get("/accounts/{account_id}")
def account(request: Request, account_id: str) -> Response:
    return _render(request, "account", "Account", "portfolio", account=account_id)


@router.get("/markets")
def markets(request: Request) -> Response:
    return _render(request, "markets", "Markets", "markets")


@router.get("/quote/{symbol}")
def quote(request: Request, symbol: str) -> Response:
    return _render(request, "quote", symbol.upper(), "markets", symbol=symbol.upper())


@router.get("/orders")
def orders(request: Request) -> Response:
    return _render(request, "orders", "Orders", "orders")


@router.get("/transfers")
def transfers(request: Request) -> Response:
    return _render(request, "transfers", "Transfers", "transfers")


@router.get("/watchlists")
def watchlists(request: Request) -> Response:
    return _render(request, "watchlists", "Watchlists", "watchlists")


@router.get("/automations")
def automations(request: Request) -> Response:
    return _render(request, "automations", "Recurring & alerts", "automations")


@router.get("/documents")
def documents(request: Request) -> Response:
    return _render(request, "documents", "Documents", "documents")
