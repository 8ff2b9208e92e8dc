"""Threadline's default state and the helpers the task builders share.

`build_default_state` makes 14 communities, 60 members, 300 posts (text, link and image posts)
with about 2,500 threaded comments, the reader's subscriptions, a saved post and a small inbox.
Every random draw goes through `ctx.rng` in a fixed order, so the same seed gives the same forum.
"""

from __future__ import annotations

from humantrace.environments.forum.models import (
    Comment,
    Community,
    ForumState,
    Member,
    Message,
    Post,
    Profile,
    Saved,
    Subscription,
)
from humantrace.environments.seeding import SeedContext, SeedError

READER = "quietfern"
READER_NAME = "Sam Rivera"
POST_COUNT = 300

COMMUNITIES: tuple[tuple[str, str, str], ...] = (
    ("gardening", "Gardening", "Vegetables, flowers, soil and everything that grows."),
    ("homebrewing", "Homebrewing", "Beer, cider and mead made at home."),
    ("cycling", "Cycling", "Road, gravel, commuting and bike maintenance."),
    ("personalfinance", "Personal Finance", "Budgets, saving, debt and retirement, without the hype."),
    ("photography", "Photography", "Gear, technique and critique."),
    ("cooking", "Cooking", "Recipes, techniques and kitchen questions."),
    ("boardgames", "Board Games", "Reviews, rules questions and game nights."),
    ("diy", "DIY & Home Repair", "Fix it yourself: plumbing, wiring, carpentry."),
    ("astronomy", "Astronomy", "Telescopes, sky events and astrophotography."),
    ("running", "Running", "From couch to marathon."),
    ("learnprogramming", "Learn Programming", "Questions from people learning to code."),
    ("birding", "Birding", "Sightings, identification help and field guides."),
    ("localnews", "Brookfield Local", "News and events in and around Brookfield."),
    ("books", "Books", "What you are reading and what you thought of it."),
)
NAME_A = (
    "maple",
    "river",
    "quiet",
    "amber",
    "copper",
    "north",
    "pine",
    "silver",
    "little",
    "stone",
    "velvet",
    "early",
    "cloud",
    "harbor",
    "wild",
    "lunar",
)
NAME_B = (
    "fox",
    "otter",
    "wren",
    "heron",
    "badger",
    "lark",
    "moth",
    "finch",
    "owl",
    "hare",
    "crane",
    "beetle",
    "robin",
    "trout",
    "stag",
    "kite",
)
TOPICS: dict[str, tuple[str, ...]] = {
    "gardening": (
        "tomatoes",
        "raised beds",
        "compost",
        "garlic",
        "aphids",
        "seed starting",
        "mulch",
        "roses",
    ),
    "homebrewing": ("yeast starters", "IPA recipes", "cider", "fermentation temperature", "kegging", "mead"),
    "cycling": (
        "gravel tyres",
        "chain wear",
        "commuting in rain",
        "saddle pain",
        "tubeless setup",
        "clipless pedals",
    ),
    "personalfinance": (
        "emergency funds",
        "index funds",
        "credit scores",
        "student loans",
        "budget apps",
        "renting vs buying",
    ),
    "photography": (
        "prime lenses",
        "night shots",
        "editing workflow",
        "film cameras",
        "tripods",
        "portrait lighting",
    ),
    "cooking": ("sourdough", "cast iron", "knife skills", "stock", "meal prep", "spice blends"),
    "boardgames": (
        "two-player games",
        "game nights",
        "co-op games",
        "rules disputes",
        "card sleeves",
        "legacy games",
    ),
    "diy": ("leaky taps", "drywall patches", "deck stain", "light switches", "shelving", "grout"),
    "astronomy": (
        "Saturn's rings",
        "light pollution",
        "star parties",
        "Dobsonians",
        "meteor showers",
        "eyepieces",
    ),
    "running": ("shin splints", "tempo runs", "race nutrition", "running shoes", "half marathons", "cadence"),
    "learnprogramming": ("Python loops", "git branches", "first job", "recursion", "debugging", "SQL joins"),
    "birding": ("warblers", "binoculars", "feeders", "owls at dusk", "migration", "bird calls"),
    "localnews": (
        "the library",
        "road works",
        "the farmers market",
        "the council vote",
        "the river trail",
        "school fees",
    ),
    "books": ("slow fantasy", "book clubs", "audiobooks", "translated fiction", "re-reads", "short stories"),
}
TITLE_FORMS = (
    "Question about {t}",
    "What I learned from a year of {t}",
    "Is it just me or is {t} overrated?",
    "Beginner here: where do I start with {t}?",
    "Update on my {t} experiment",
    "Best resources for {t}?",
    "Unpopular opinion on {t}",
    "Finally got {t} right (photos inside)",
    "Need advice: {t}",
    "Weekly thread: {t}",
)
BODY_LINES = (
    "I have been at this for a while and wanted to share what worked for me.",
    "Any advice is welcome, I am honestly a bit lost.",
    "Long story short, the first attempt went badly and the second went much better.",
    "I read the wiki first, so please do not just link it.",
    "Curious whether anyone else has run into the same thing.",
    "Edit: thanks everyone for the replies, this community is great.",
    "For context, I am in a small flat with limited space and budget.",
    "The usual advice did not work for me, so I tried something different.",
)
COMMENT_LINES = (
    "Great write-up, thanks for sharing.",
    "I had the same problem last spring. Patience was the answer.",
    "Have you checked the sidebar? There is a good guide there.",
    "Respectfully, I disagree. It depends a lot on your setup.",
    "This is the kind of post I come here for.",
    "Following, I want to know the answer too.",
    "Try it the other way round and report back.",
    "Came here to say exactly this.",
    "Source? I have read the opposite.",
    "Honestly the cheapest option worked fine for me.",
    "Saved for later, thank you.",
    "That's a rookie mistake, we all made it once.",
)
LINK_HOSTS = ("example.org", "example.net", "blog.example.com", "news.example.com")

ForumContext = SeedContext[ForumState]


def community(ctx: ForumContext, name: str) -> Community:
    found = next((c for c in ctx.state.communities if c.name == name), None)
    if found is None:
        raise SeedError(f"no community named {name!r}")
    return found


def member(ctx: ForumContext, username: str, *, karma: int = 420, bio: str = "") -> Member:
    """The member `username`, made when missing."""
    state = ctx.state
    found = next((m for m in state.members if m.username == username), None)
    if found is None:
        found = Member(
            id=ctx.new_id("u"), username=username, bio=bio, karma=karma, joined_at=ctx.ago(days=400)
        )
        state.members.append(found)
    return found


def add_post(
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
) -> Post:
    member(ctx, author)
    made = Post(
        id=ctx.new_id("p"),
        community_id=community(ctx, community_name).id,
        author=author,
        title=title,
        kind=kind,
        body=body,
        url=url,
        base_score=score,
        created_at=ctx.ago(hours=hours_ago),
        flair=flair,
    )
    ctx.state.posts.append(made)
    return made


def add_comment(
    ctx: ForumContext,
    *,
    post_id: str,
    author: str,
    body: str,
    parent_id: str | None = None,
    score: int = 3,
    hours_ago: float = 2,
) -> Comment:
    member(ctx, author)
    made = Comment(
        id=ctx.new_id("c"),
        post_id=post_id,
        parent_id=parent_id,
        author=author,
        body=body,
        base_score=score,
        created_at=ctx.ago(hours=hours_ago),
    )
    ctx.state.comments.append(made)
    return made


def build_default_state(ctx: ForumContext) -> None:
    """The forum every task starts from (then the task's builders add its situation)."""
    state = ctx.state
    rng = ctx.rng
    state.profile.append(Profile(id="profile", username=READER, display_name=READER_NAME))
    state.members.append(
        Member(
            id="u-0000",
            username=READER,
            bio="Gardener, reader, occasional cyclist.",
            karma=1312,
            joined_at=ctx.ago(days=900),
        )
    )
    names = [a + b for a in NAME_A for b in NAME_B]
    rng.shuffle(names)
    people = [n for n in names if n != READER][:60]
    for name in people:
        member(ctx, name, karma=rng.randint(5, 25000))
    for short, title, description in COMMUNITIES:
        state.communities.append(
            Community(
                id=ctx.new_id("cm"),
                name=short,
                title=title,
                description=description,
                rules=["Be kind and assume good faith.", "Stay on topic.", "No spam or self-promotion."],
                members=rng.randint(1200, 480000),
                created_at=ctx.ago(days=rng.randint(800, 3000)),
            )
        )
    for i in range(POST_COUNT):
        cm = state.communities[i % len(state.communities)]
        topic = rng.choice(TOPICS[cm.name])
        kind = rng.choices(("text", "link", "image"), weights=(6, 2, 2))[0]
        title = rng.choice(TITLE_FORMS).format(t=topic)
        body = " ".join(rng.sample(BODY_LINES, 3)) if kind == "text" else ""
        url = (
            f"https://{rng.choice(LINK_HOSTS)}/{topic.replace(' ', '-').replace(chr(39), '')}-{i}"
            if kind == "link"
            else ""
        )
        post = add_post(
            ctx,
            community_name=cm.name,
            author=rng.choice(people),
            title=title[0].upper() + title[1:],
            body=body,
            kind=kind,
            url=url,
            score=int(rng.paretovariate(1.3) * 4),
            hours_ago=rng.uniform(1, 24 * 60),
        )
        made: list[str] = []
        for _ in range(rng.randint(0, 16)):
            parent = rng.choice(made) if made and rng.random() < 0.45 else None
            made.append(
                add_comment(
                    ctx,
                    post_id=post.id,
                    parent_id=parent,
                    author=rng.choice(people),
                    body=" ".join(rng.sample(COMMENT_LINES, rng.randint(1, 2))),
                    score=rng.randint(-3, 40),
                    hours_ago=rng.uniform(0.2, 48),
                ).id
            )
    for short in ("gardening", "cycling", "books", "cooking"):
        state.subscriptions.append(
            Subscription(
                id=ctx.new_id("sub"), community_id=community(ctx, short).id, subscribed_at=ctx.ago(days=200)
            )
        )
    state.saved.append(
        Saved(id=ctx.new_id("sv"), target_kind="post", target_id=state.posts[3].id, saved_at=ctx.ago(days=3))
    )
    for sender, subject, body, days in (
        (people[0], "Seed swap", "Hi! Still up for swapping some tomato seeds this spring?", 2),
        (people[1], "Thanks", "Thanks for the tip about the chain checker, it saved me a new cassette.", 6),
    ):
        state.messages.append(
            Message(
                id=ctx.new_id("dm"),
                sender=sender,
                recipient=READER,
                subject=subject,
                body=body,
                sent_at=ctx.ago(days=days),
            )
        )
