"""Threadline's public JSON API (mounted at /api/env/forum): the only surface pages and agents touch.

Handlers are thin: they call `service` (which refuses with `SiteError`) and emit one typed
semantic event per meaningful action (`EVENTS`; also in docs/sites/forum.md).
"""

from __future__ import annotations

from fastapi import APIRouter

from humantrace.environments.forum import service
from humantrace.environments.forum.models import (
    Comment,
    Community,
    ForumState,
    Message,
    Post,
    Report,
    Saved,
    Subscription,
    Vote,
)
from humantrace.environments.forum.schemas import (
    CommentView,
    CommunityList,
    CommunityPage,
    CommunityView,
    Inbox,
    Me,
    NewComment,
    NewMessage,
    NewPost,
    NewReport,
    NewSave,
    NewVote,
    Ok,
    PostDetail,
    PostPage,
    PostView,
    ReportResult,
    SavedList,
    UserView,
    VoteResult,
)
from humantrace.environments.sessions import EnvSessionDep
from humantrace.environments.sitekit import SiteError, add_sign_in_again, find_or_404, page_of, state_of

EVENTS: dict[str, tuple[str, ...]] = {
    "search": ("q", "page"),
    "post_view": ("post_id", "community"),
    "vote_cast": ("target_kind", "target_id", "value"),
    "item_saved": ("target_kind", "target_id"),
    "item_unsaved": ("target_id",),
    "subscribed": ("community",),
    "unsubscribed": ("community",),
    "post_created": ("post_id", "community", "kind"),
    "comment_posted": ("comment_id", "post_id", "parent_id"),
    "report_filed": ("report_id", "target_kind", "target_id", "reason"),
    "message_sent": ("message_id", "recipient"),
    "message_opened": ("message_id",),
    "signed_in": (),
}
PAGE_SIZE = 20

router = APIRouter()


def forum(env: EnvSessionDep) -> ForumState:
    return state_of(env, ForumState)


def _saved_ids(state: ForumState) -> set[str]:
    return {s.target_id for s in state.saved}


def _community_view(state: ForumState, cm: Community) -> CommunityView:
    subscribed = any(s.community_id == cm.id for s in state.subscriptions)
    return CommunityView(
        id=cm.id,
        name=cm.name,
        title=cm.title,
        description=cm.description,
        rules=cm.rules,
        members=cm.members + (1 if subscribed else 0),
        subscribed=subscribed,
        posts=sum(1 for p in state.posts if p.community_id == cm.id and not p.removed),
    )


def _post_view(
    state: ForumState, p: Post, names: dict[str, str], counts: dict[str, int], saved: set[str]
) -> PostView:
    return PostView(
        id=p.id,
        community=names[p.community_id],
        author=p.author,
        title=p.title,
        kind=p.kind,
        body=p.body,
        url=p.url,
        flair=p.flair,
        score=service.score(state, p),
        my_vote=service.my_vote(state, p.id),
        saved=p.id in saved,
        comments=counts.get(p.id, 0),
        created_at=p.created_at,
    )


def _posts(state: ForumState, posts: list[Post]) -> list[PostView]:
    names = {c.id: c.name for c in state.communities}
    counts: dict[str, int] = {}
    ids = {p.id for p in posts}
    for c in state.comments:
        if c.post_id in ids:
            counts[c.post_id] = counts.get(c.post_id, 0) + 1
    saved = _saved_ids(state)
    return [_post_view(state, p, names, counts, saved) for p in posts]


def _comment_view(state: ForumState, c: Comment, saved: set[str]) -> CommentView:
    return CommentView(
        id=c.id,
        post_id=c.post_id,
        parent_id=c.parent_id,
        author=c.author,
        body=c.body,
        score=service.score(state, c),
        my_vote=service.my_vote(state, c.id),
        saved=c.id in saved,
        created_at=c.created_at,
    )


def _page(state: ForumState, env: EnvSessionDep, posts: list[Post], sort: str, page: int) -> PostPage:
    ordered = service.ranked(state, posts, sort, env.now())
    chunk, page, pages = page_of(ordered, page, PAGE_SIZE)
    return PostPage(items=_posts(state, chunk), total=len(ordered), page=page, pages=pages, sort=sort)


@router.get("/me", response_model=Me)
def me(env: EnvSessionDep) -> Me:
    state = forum(env)
    person = state.profile[0]
    unread = sum(1 for m in state.messages if m.recipient == person.username and not m.read)
    return Me(
        signed_in=person.signed_in,
        username=person.username,
        display_name=person.display_name,
        unread=unread,
        now=env.now_iso(),
        subscribed=state.subscribed(),
    )


add_sign_in_again(router, lambda env: forum(env).profile[0], "reader")


@router.get("/communities", response_model=CommunityList)
def communities(env: EnvSessionDep) -> CommunityList:
    state = forum(env)
    views = [_community_view(state, c) for c in state.communities]
    return CommunityList(communities=sorted(views, key=lambda v: v.name))


@router.get("/feed", response_model=PostPage)
def feed(env: EnvSessionDep, sort: str = "hot", page: int = 1, scope: str = "home") -> PostPage:
    """The home feed (subscribed communities) or, with `scope=all`, every community."""
    state = forum(env)
    ids = {s.community_id for s in state.subscriptions}
    posts = [p for p in state.posts if not p.removed and (scope == "all" or p.community_id in ids)]
    return _page(state, env, posts, sort, page)


@router.get("/communities/{name}", response_model=CommunityPage)
def community_page(name: str, env: EnvSessionDep, sort: str = "hot", page: int = 1) -> CommunityPage:
    state = forum(env)
    cm = service.community(state, name)
    posts = [p for p in state.posts if p.community_id == cm.id and not p.removed]
    return CommunityPage(community=_community_view(state, cm), posts=_page(state, env, posts, sort, page))


@router.put("/communities/{name}/subscription", response_model=CommunityView)
def subscribe(name: str, env: EnvSessionDep) -> CommunityView:
    state = forum(env)
    cm = service.community(state, name)
    if not any(s.community_id == cm.id for s in state.subscriptions):
        state.subscriptions.append(
            Subscription(id=env.new_id("sub"), community_id=cm.id, subscribed_at=env.now_iso())
        )
        env.emit("subscribed", community=cm.name)
    return _community_view(state, cm)


@router.delete("/communities/{name}/subscription", response_model=CommunityView)
def unsubscribe(name: str, env: EnvSessionDep) -> CommunityView:
    state = forum(env)
    cm = service.community(state, name)
    before = len(state.subscriptions)
    state.subscriptions = [s for s in state.subscriptions if s.community_id != cm.id]
    if len(state.subscriptions) != before:
        env.emit("unsubscribed", community=cm.name)
    return _community_view(state, cm)


@router.get("/search", response_model=PostPage)
def search(
    env: EnvSessionDep, q: str = "", sort: str = "top", page: int = 1, community: str = ""
) -> PostPage:
    state = forum(env)
    found = service.search(state, q)
    if community:
        cm = service.community(state, community)
        found = [p for p in found if p.community_id == cm.id]
    result = _page(state, env, found, sort, page)
    env.emit("search", q=q, page=result.page)
    return result


@router.get("/posts/{post_id}", response_model=PostDetail)
def post_detail(post_id: str, env: EnvSessionDep, sort: str = "top") -> PostDetail:
    """A post with all its comments (parents before replies; siblings by `top` or `new`)."""
    state = forum(env)
    p = service.post(state, post_id)
    saved = _saved_ids(state)
    comments = [c for c in state.comments if c.post_id == p.id]
    if sort == "new":
        comments.sort(key=lambda c: (c.created_at, c.id), reverse=True)
    else:
        comments.sort(key=lambda c: (-service.score(state, c), c.id))
    cm = next(c for c in state.communities if c.id == p.community_id)
    env.emit("post_view", post_id=p.id, community=cm.name)
    return PostDetail(
        post=_posts(state, [p])[0],
        community=_community_view(state, cm),
        comments=[_comment_view(state, c, saved) for c in comments],
    )


@router.post("/posts", response_model=PostView, status_code=201)
def create_post(body: NewPost, env: EnvSessionDep) -> PostView:
    state = forum(env)
    cm = service.community(state, body.community)
    if body.kind == "link" and not body.url.startswith(("http://", "https://")):
        raise SiteError(422, "A link post needs a web address starting with http:// or https://.")
    if not body.title.strip():
        raise SiteError(422, "Give your post a title.")
    made = Post(
        id=env.new_id("p"),
        community_id=cm.id,
        author=state.profile[0].username,
        title=body.title.strip(),
        kind=body.kind,
        body=body.body.strip(),
        url=body.url.strip() if body.kind == "link" else "",
        base_score=1,
        created_at=env.now_iso(),
    )
    state.posts.append(made)
    env.emit("post_created", post_id=made.id, community=cm.name, kind=made.kind)
    return _posts(state, [made])[0]


@router.post("/posts/{post_id}/comments", response_model=CommentView, status_code=201)
def add_comment(post_id: str, body: NewComment, env: EnvSessionDep) -> CommentView:
    state = forum(env)
    p = service.post(state, post_id)
    if body.parent_id is not None:
        parent = service.comment(state, body.parent_id or "")
        if parent.post_id != p.id:
            raise SiteError(422, "You can only reply to a comment on the same post.")
    if not body.body.strip():
        raise SiteError(422, "Write something before you post a comment.")
    made = Comment(
        id=env.new_id("c"),
        post_id=p.id,
        parent_id=body.parent_id,
        author=state.profile[0].username,
        body=body.body.strip(),
        base_score=1,
        created_at=env.now_iso(),
    )
    state.comments.append(made)
    env.emit("comment_posted", comment_id=made.id, post_id=p.id, parent_id=made.parent_id or "")
    return _comment_view(state, made, _saved_ids(state))


@router.post("/votes", response_model=VoteResult)
def vote(body: NewVote, env: EnvSessionDep) -> VoteResult:
    """Set the reader's vote on a post or comment (0 takes it back)."""
    state = forum(env)
    item = service.target(state, body.target_kind, body.target_id)
    state.votes = [v for v in state.votes if v.target_id != item.id]
    if body.value:
        state.votes.append(
            Vote(id=env.new_id("v"), target_kind=body.target_kind, target_id=item.id, value=body.value)
        )
    env.emit("vote_cast", target_kind=body.target_kind, target_id=item.id, value=body.value)
    return VoteResult(target_id=item.id, score=service.score(state, item), my_vote=body.value)


@router.get("/saved", response_model=SavedList)
def saved_items(env: EnvSessionDep) -> SavedList:
    state = forum(env)
    order = sorted(state.saved, key=lambda s: s.saved_at, reverse=True)
    posts = [p for s in order if s.target_kind == "post" and (p := state.find("posts", s.target_id))]
    saved = _saved_ids(state)
    comments = [
        _comment_view(state, c, saved)
        for s in order
        if s.target_kind == "comment" and (c := state.find("comments", s.target_id))
    ]
    return SavedList(posts=_posts(state, posts), comments=comments)


@router.post("/saved", response_model=Ok)
def save(body: NewSave, env: EnvSessionDep) -> Ok:
    state = forum(env)
    item = service.target(state, body.target_kind, body.target_id)
    if item.id not in _saved_ids(state):
        state.saved.append(
            Saved(
                id=env.new_id("sv"), target_kind=body.target_kind, target_id=item.id, saved_at=env.now_iso()
            )
        )
        env.emit("item_saved", target_kind=body.target_kind, target_id=item.id)
    return Ok()


@router.delete("/saved/{target_id}", response_model=Ok)
def unsave(target_id: str, env: EnvSessionDep) -> Ok:
    state = forum(env)
    before = len(state.saved)
    state.saved = [s for s in state.saved if s.target_id != target_id]
    if len(state.saved) == before:
        raise SiteError(404, "That item is not in your saved list.")
    env.emit("item_unsaved", target_id=target_id)
    return Ok()


@router.post("/reports", response_model=ReportResult, status_code=201)
def report(body: NewReport, env: EnvSessionDep) -> ReportResult:
    state = forum(env)
    item = service.target(state, body.target_kind, body.target_id)
    if any(r.target_id == item.id for r in state.reports):
        raise SiteError(409, "You already reported this. The moderators will review it.")
    made = Report(
        id=env.new_id("rep"),
        target_kind=body.target_kind,
        target_id=item.id,
        reason=body.reason,
        note=body.note.strip(),
        created_at=env.now_iso(),
    )
    state.reports.append(made)
    env.emit(
        "report_filed", report_id=made.id, target_kind=made.target_kind, target_id=item.id, reason=made.reason
    )
    return ReportResult(id=made.id, target_id=item.id, reason=made.reason)


@router.get("/users/{username}", response_model=UserView)
def user(username: str, env: EnvSessionDep) -> UserView:
    state = forum(env)
    found = next((m for m in state.members if m.username == username), None)
    if found is None:
        raise SiteError(404, f"There is no member called u/{username}.")
    posts = sorted(
        (p for p in state.posts if p.author == username and not p.removed),
        key=lambda p: p.created_at,
        reverse=True,
    )
    comments = sorted(
        (c for c in state.comments if c.author == username), key=lambda c: c.created_at, reverse=True
    )
    saved = _saved_ids(state)
    return UserView(
        username=found.username,
        bio=found.bio,
        karma=found.karma,
        joined_at=found.joined_at,
        posts=_posts(state, posts[:25]),
        comments=[_comment_view(state, c, saved) for c in comments[:25]],
    )


@router.get("/messages", response_model=Inbox)
def inbox(env: EnvSessionDep) -> Inbox:
    state = forum(env)
    me_name = state.profile[0].username
    newest = sorted(state.messages, key=lambda m: m.sent_at, reverse=True)
    return Inbox(
        received=[m for m in newest if m.recipient == me_name],
        sent=[m for m in newest if m.sender == me_name],
    )


@router.post("/messages/{message_id}/read", response_model=Message)
def open_message(message_id: str, env: EnvSessionDep) -> Message:
    state = forum(env)
    found = find_or_404(state, "messages", message_id, "That message does not exist.")
    if not found.read:
        found.read = True
        env.emit("message_opened", message_id=found.id)
    return found


@router.post("/messages", response_model=Message, status_code=201)
def send_message(body: NewMessage, env: EnvSessionDep) -> Message:
    state = forum(env)
    name = body.recipient.strip().removeprefix("u/")
    if not any(m.username == name for m in state.members):
        raise SiteError(404, f"There is no member called u/{name}.")
    me_name = state.profile[0].username
    if name == me_name:
        raise SiteError(422, "You cannot send a message to yourself.")
    made = Message(
        id=env.new_id("dm"),
        sender=me_name,
        recipient=name,
        subject=body.subject.strip(),
        body=body.body.strip(),
        sent_at=env.now_iso(),
        read=True,
    )
    state.messages.append(made)
    env.emit("message_sent", message_id=made.id, recipient=name)
    return made
