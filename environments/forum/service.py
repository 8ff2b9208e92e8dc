"""Threadline's rules: scores, ranking, votes, saving, subscriptions, posting, reports and messages.

Ranking is deterministic: `hot` divides a post's score by its age (from the session's virtual
clock), `new` is newest first, `top` is highest score first; ties go to the lower id.
"""

from __future__ import annotations

from datetime import datetime

from humantrace.environments.forum.models import Comment, Community, ForumState, Post
from humantrace.environments.sitekit import SiteError

SORTS = ("hot", "new", "top")


def community(state: ForumState, name: str) -> Community:
    found = next((c for c in state.communities if c.name == name.lower()), None)
    if found is None:
        raise SiteError(404, f"There is no community called c/{name}.")
    return found


def post(state: ForumState, post_id: str) -> Post:
    found = state.find("posts", post_id)
    if found is None or found.removed:
        raise SiteError(404, "That post does not exist or was removed.")
    return found


def comment(state: ForumState, comment_id: str) -> Comment:
    found = state.find("comments", comment_id)
    if found is None:
        raise SiteError(404, "That comment does not exist.")
    return found


def target(state: ForumState, kind: str, target_id: str) -> Post | Comment:
    return post(state, target_id) if kind == "post" else comment(state, target_id)


def my_vote(state: ForumState, target_id: str) -> int:
    return next((v.value for v in state.votes if v.target_id == target_id), 0)


def score(state: ForumState, item: Post | Comment) -> int:
    return item.base_score + my_vote(state, item.id)


def _age_hours(item: Post, now: datetime) -> float:
    made = datetime.fromisoformat(item.created_at.replace("Z", "+00:00"))
    return max(0.0, (now - made).total_seconds() / 3600)


def ranked(state: ForumState, posts: list[Post], sort: str, now: datetime) -> list[Post]:
    if sort not in SORTS:
        raise SiteError(422, f"Sort must be one of {', '.join(SORTS)}.")
    if sort == "new":
        return sorted(posts, key=lambda p: (p.created_at, p.id), reverse=True)
    if sort == "top":
        return sorted(posts, key=lambda p: (-score(state, p), p.id))
    return sorted(
        posts, key=lambda p: (-(max(score(state, p), 0) + 1) / (_age_hours(p, now) + 2) ** 1.5, p.id)
    )


def search(state: ForumState, q: str) -> list[Post]:
    """Posts whose title, body or link contain every word of `q` (case-insensitive)."""
    words = q.lower().split()
    if not words:
        raise SiteError(422, "Type something to search for.")
    found = []
    for p in state.posts:
        text = f"{p.title} {p.body} {p.url}".lower()
        if not p.removed and all(w in text for w in words):
            found.append(p)
    return found
