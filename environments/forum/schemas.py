"""Threadline's API bodies: what pages and agents send (`New*`) and the answers they get."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from humantrace.environments.forum.models import Message
from humantrace.environments.responses import Answer, Ok  # noqa: F401  (Ok: the sites' shared answer)


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Me(Answer):
    signed_in: bool
    username: str
    display_name: str
    unread: int
    now: str
    subscribed: list[str]


class CommunityView(Answer):
    id: str
    name: str
    title: str
    description: str
    rules: list[str]
    members: int
    subscribed: bool
    posts: int


class CommunityList(Answer):
    communities: list[CommunityView]


class PostView(Answer):
    id: str
    community: str
    author: str
    title: str
    kind: str
    body: str
    url: str
    flair: str
    score: int
    my_vote: int
    saved: bool
    comments: int
    created_at: str


class PostPage(Answer):
    items: list[PostView]
    total: int
    page: int
    pages: int
    sort: str


class CommunityPage(Answer):
    community: CommunityView
    posts: PostPage


class CommentView(Answer):
    id: str
    post_id: str
    parent_id: str | None
    author: str
    body: str
    score: int
    my_vote: int
    saved: bool
    created_at: str


class PostDetail(Answer):
    post: PostView
    community: CommunityView
    comments: list[CommentView]


class UserView(Answer):
    username: str
    bio: str
    karma: int
    joined_at: str
    posts: list[PostView]
    comments: list[CommentView]


class SavedList(Answer):
    posts: list[PostView]
    comments: list[CommentView]


class Inbox(Answer):
    received: list[Message]
    sent: list[Message]


Kind = Literal["post", "comment"]


class NewVote(Body):
    target_kind: Kind
    target_id: str
    value: Literal[-1, 0, 1]


class VoteResult(Answer):
    target_id: str
    score: int
    my_vote: int


class NewSave(Body):
    target_kind: Kind
    target_id: str


class NewPost(Body):
    community: str
    title: str = Field(min_length=1, max_length=300)
    kind: Literal["text", "link", "image"] = "text"
    body: str = Field("", max_length=20000)
    url: str = ""


class NewComment(Body):
    body: str = Field(min_length=1, max_length=10000)
    parent_id: str | None = None


class NewReport(Body):
    target_kind: Kind
    target_id: str
    reason: Literal["spam", "harassment", "misinformation", "off_topic", "other"]
    note: str = Field("", max_length=1000)


class ReportResult(Answer):
    id: str
    target_id: str
    reason: str


class NewMessage(Body):
    recipient: str = Field(min_length=1)
    subject: str = Field(min_length=1, max_length=200)
    body: str = Field(min_length=1, max_length=10000)
