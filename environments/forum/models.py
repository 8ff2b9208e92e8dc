"""Threadline's state (the forum): communities, members, posts, threaded comments, votes, saved
items, subscriptions, moderation reports and direct messages.

Moments are ISO-8601 UTC strings from the session's virtual clock; scores are seeded counts of
other members' votes plus the reader's own vote (`Vote`), so every ranking follows from the seed.
"""

from __future__ import annotations

from humantrace.environments.state import Entity, EnvState, state_helper


class Community(Entity):
    name: str  # the short name shown as c/<name>
    title: str
    description: str
    rules: list[str] = []
    members: int
    created_at: str


class Member(Entity):
    """A forum member (the reader is `me` in `Profile`)."""

    username: str
    bio: str = ""
    karma: int
    joined_at: str


class Post(Entity):
    community_id: str
    author: str  # username
    title: str
    kind: str  # text | link | image
    body: str = ""
    url: str = ""
    base_score: int  # other members' votes
    created_at: str
    flair: str = ""
    removed: bool = False


class Comment(Entity):
    post_id: str
    parent_id: str | None = None
    author: str
    body: str
    base_score: int
    created_at: str


class Vote(Entity):
    """The reader's vote on a post or a comment (+1 or -1)."""

    target_kind: str  # post | comment
    target_id: str
    value: int


class Saved(Entity):
    target_kind: str  # post | comment
    target_id: str
    saved_at: str


class Subscription(Entity):
    community_id: str
    subscribed_at: str


class Report(Entity):
    """A moderation report filed by the reader."""

    target_kind: str  # post | comment
    target_id: str
    reason: str  # spam | harassment | misinformation | off_topic | other
    note: str = ""
    created_at: str


class Message(Entity):
    """A direct message to or from the reader."""

    sender: str
    recipient: str
    subject: str
    body: str
    sent_at: str
    read: bool = False


class Profile(Entity):
    """The signed-in reader (a single-entity collection)."""

    username: str
    display_name: str
    signed_in: bool = True


class ForumState(EnvState):
    """The whole forum as one reader sees it."""

    communities: list[Community] = []
    members: list[Member] = []
    posts: list[Post] = []
    comments: list[Comment] = []
    votes: list[Vote] = []
    saved: list[Saved] = []
    subscriptions: list[Subscription] = []
    reports: list[Report] = []
    messages: list[Message] = []
    profile: list[Profile] = []

    @state_helper
    def subscribed(self) -> list[str]:
        """Names of the communities the reader subscribes to, sorted."""
        ids = {s.community_id for s in self.subscriptions}
        return sorted(c.name for c in self.communities if c.id in ids)

    @state_helper
    def my_vote(self, target_id: str) -> int:
        """The reader's vote on a post or comment: 1, -1 or 0."""
        return next((v.value for v in self.votes if v.target_id == target_id), 0)
