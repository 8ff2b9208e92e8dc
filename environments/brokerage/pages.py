"""Northbeam's pages (mounted at /env/brokerage): HTML shells whose data `northbeam.js` fetches.

Every page is `brokerage/base.html` with a page name, a title and a few `data-` values taken from
the URL (an account id, a symbol). Nothing session-specific is rendered here.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response

from humantrace.environments.sitekit import PageSpec, SitePages

PAGES = SitePages("brokerage")
router = PAGES.router
SCRIPT = "northbeam.js"  # the base template loads it for every page

PAGES.add("/", PageSpec("portfolio", "Portfolio", SCRIPT, "portfolio"))
PAGES.add("/accounts/{account_id}", PageSpec("account", "Account", SCRIPT, "portfolio"))
PAGES.add("/markets", PageSpec("markets", "Markets", SCRIPT, "markets"))
QUOTE = PageSpec("quote", "", SCRIPT, "markets")


@router.get("/quote/{symbol}")
def quote(request: Request, symbol: str) -> Response:
    return PAGES.render(request, QUOTE.titled(symbol.upper()), symbol=symbol.upper())


PAGES.add("/orders", PageSpec("orders", "Orders", SCRIPT, "orders"))
PAGES.add("/transfers", PageSpec("transfers", "Transfers", SCRIPT, "transfers"))
PAGES.add("/watchlists", PageSpec("watchlists", "Watchlists", SCRIPT, "watchlists"))
PAGES.add("/automations", PageSpec("automations", "Recurring & alerts", SCRIPT, "automations"))
PAGES.add("/documents", PageSpec("documents", "Documents", SCRIPT, "documents"))
