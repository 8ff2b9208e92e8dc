"""Threadline's pages (mounted at /env/forum): HTML shells whose data `threadline.js` fetches.

Every page is `forum/base.html` with a page name, a title and a few `data-` values taken from the
URL (a community, a post id, a username). Nothing session-specific is rendered here.
"""

from __future__ import annotations

from humantrace.environments.sitekit import PageSpec, SitePages

PAGES = SitePages("forum")
router = PAGES.router
SCRIPT = "threadline.js"  # the base template loads it for every page

PAGES.add("/", PageSpec("feed", "Home", SCRIPT, "home"), scope="home")
PAGES.add("/all", PageSpec("feed", "All communities", SCRIPT, "all"), scope="all")
PAGES.add("/communities", PageSpec("communities", "Communities", SCRIPT, "communities"))
PAGES.add("/c/{community}", PageSpec("community", "c/{community}", SCRIPT, "communities"))
PAGES.add("/c/{community}/submit", PageSpec("submit", "Create a post", SCRIPT, "communities"))
PAGES.add("/posts/{post_id}", PageSpec("post", "Post", SCRIPT, "communities"))
PAGES.add("/search", PageSpec("search", "Search", SCRIPT, "search"))
PAGES.add("/u/{user}", PageSpec("user", "u/{user}", SCRIPT, "profile"))
PAGES.add("/saved", PageSpec("saved", "Saved", SCRIPT, "saved"))
PAGES.add("/messages", PageSpec("messages", "Messages", SCRIPT, "messages"))
