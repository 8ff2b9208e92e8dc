"""Seed builders for Threadline's task situations (registered as `forum.<name>`).

Each builder adds one situation to the default forum and returns named outputs that task files
bind to targets.
"""

from __future__ import annotations

from typing import Any

from humantrace.environments.forum.models import Saved, Subscription, Vote
from humantrace.environments.forum.seed import ForumContext, add_comment, add_post, community, member
from humantrace.environments.seeding import builder


@builder("forum.refs")
def refs(ctx: ForumContext) -> dict[str, Any]:
    """The ids of the communities, by name."""
    return {"community_ids": {c.name: c.id for c in ctx.state.communities}}


@builder("forum.post")
def plant_post(
    ctx: ForumContext,
    *,
    community_name: str,
    author: str,
    title: str,
    body: str = "",
    kind: str = "text",
    url: str = "",
    score: int = 10,
    hours_ago: float = 5,
    flair: str = "",
) -> dict[str, Any]:
    """One post in a community."""
    made = add_post(
        ctx,
        community_name=community_name,
        author=author,
        title=title,
        body=body,
        kind=kind,
        url=url,
        score=score,
        hours_ago=hours_ago,
        flair=flair,
    )
    return {"post_id": made.id, "title": made.title, "community_id": made.community_id}


@builder("forum.comment")
def plant_comment(
    ctx: ForumContext,
    *,
    post_id: str,
    author: str,
    body: str,
    parent_id: str | None = None,
    score: int = 3,
    hours_ago: float = 2,
) -> dict[str, Any]:
    """One comment (or reply, with `parent_id`) on a post."""
    made = add_comment(
        ctx, post_id=post_id, author=author, body=body, parent_id=parent_id, score=score, hours_ago=hours_ago
    )
    return {"comment_id": made.id}


@builder("forum.member")
def plant_member(ctx: ForumContext, *, username: str, bio: str = "", karma: int = 420) -> dict[str, Any]:
    made = member(ctx, username, karma=karma, bio=bio)
    return {"username": made.username}


@builder("forum.saved")
def plant_saved(
    ctx: ForumContext, *, target_id: str, target_kind: str = "post", days_ago: float = 1
) -> dict[str, Any]:
    """One post (or comment) in the reader's saved items."""
    made = Saved(
        id=ctx.new_id("sv"), target_kind=target_kind, target_id=target_id, saved_at=ctx.ago(days=days_ago)
    )
    ctx.state.saved.append(made)
    return {"saved_id": made.id}


@builder("forum.vote")
def plant_vote(
    ctx: ForumContext, *, target_id: str, target_kind: str = "post", value: int = 1
) -> dict[str, Any]:
    """The reader's own vote (+1 or -1) on a post or comment."""
    made = Vote(id=ctx.new_id("v"), target_kind=target_kind, target_id=target_id, value=value)
    ctx.state.votes.append(made)
    return {"vote_id": made.id}


@builder("forum.subscription")
def plant_subscription(ctx: ForumContext, *, name: str, days_ago: float = 1) -> dict[str, Any]:
    """The reader's subscription to c/<name> (made when missing) and its id."""
    found = community(ctx, name)
    state = ctx.state
    sub = next((s for s in state.subscriptions if s.community_id == found.id), None)
    if sub is None:
        sub = Subscription(id=ctx.new_id("sub"), community_id=found.id, subscribed_at=ctx.ago(days=days_ago))
        state.subscriptions.append(sub)
    return {"subscription_id": sub.id}


@builder("forum.community")
def community_ref(ctx: ForumContext, *, name: str) -> dict[str, Any]:
    found = community(ctx, name)
    return {"community_id": found.id, "community_title": found.title}


@builder("forum.subscriptions")
def subscriptions(ctx: ForumContext) -> dict[str, Any]:
    """The reader's subscriptions, by community name."""
    state = ctx.state
    names = {c.id: c.name for c in state.communities}
    return {"subscription_ids": {names[s.community_id]: s.id for s in state.subscriptions}}
