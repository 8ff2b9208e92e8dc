"""The text of the everyday mailbox: conversations, newsletters, receipts and notifications.

`CONVERSATIONS` are threads (the first message starts it; `me` marks a reply Jamie sent);
`SINGLES` are one-message threads. `day` is how many days before the session start the message
arrived (the seed adds a random hour), so the mailbox always spans the three weeks before "now".
"""

from __future__ import annotations

from typing import Any

# (key, subject, [(sender, day, body)], folder of the received messages, labels)
CONVERSATIONS: list[dict[str, Any]] = [
    {
        "subject": "Design review moved to the small room",
        "labels": ["Work"],
        "messages": [
            (
                "priya",
                12,
                "Hi all,\n\nThe big room is booked for the board visit, so Thursday's design review moves to the small room on the 3rd floor. Same time, 2pm.\n\nPriya",
            ),
            ("me", 12, "Thanks Priya, noted. I'll bring the printed flows.\n\nJamie"),
            ("marcus", 11, "Works for me. Can someone reserve the projector?\n\nMarcus"),
        ],
        "cc": ["marcus", "elena"],
        "folder": "archive",
    },
    {
        "subject": "Onboarding checklist for the new intern",
        "labels": ["Work"],
        "messages": [
            (
                "aisha",
                9,
                "Hey Jamie,\n\nLeo starts on Monday. Could you walk him through the component library on Tuesday morning? I've shared the onboarding checklist in the team drive.\n\nThanks!\nAisha",
            ),
            ("me", 9, "Happy to. Tuesday 10am works, I'll book a room.\n\nJamie"),
        ],
        "folder": "inbox",
    },
    {
        "subject": "Icon set licence",
        "labels": ["Work"],
        "messages": [
            (
                "dan",
                16,
                "Jamie, do we have a licence for the Lineal icon set or were we using the trial? Legal is asking.\n\nDan",
            ),
            (
                "me",
                16,
                "We bought the team licence in January, the receipt is in the Receipts label. I'll forward it.\n\nJamie",
            ),
            ("dan", 15, "Perfect, thanks!"),
        ],
        "folder": "archive",
    },
    {
        "subject": "Dinner on Saturday?",
        "labels": ["Personal"],
        "messages": [
            (
                "ben",
                6,
                "Hey! Marta and I are doing a small dinner on Saturday, 7ish. You in? Bring nothing but yourself.\n\nBen",
            ),
            ("me", 6, "I'm in! I'll bring dessert anyway.\n\nJ"),
            ("ben", 5, "Ha, fine. See you then."),
        ],
        "folder": "inbox",
    },
    {
        "subject": "Mom's birthday present",
        "labels": ["Personal"],
        "messages": [
            (
                "nora",
                8,
                "Jamie! Mom's birthday is in three weeks. I was thinking we go halves on the pottery class she keeps talking about? It's $180 for the two of them.\n\nNora",
            ),
            ("me", 7, "Love it. Send me your half of the details and I'll book it.\n\nJ"),
        ],
        "folder": "inbox",
    },
    {
        "subject": "Usability test recruits",
        "labels": ["Work"],
        "messages": [
            (
                "elena",
                4,
                "Hi Jamie,\n\nWe have six participants confirmed for the checkout usability sessions next week. I've put the schedule in the research calendar. Can you take the Wednesday sessions?\n\nElena",
            ),
        ],
        "folder": "inbox",
    },
    {
        "subject": "Sprint 14 retro notes",
        "labels": ["Work"],
        "messages": [
            (
                "marcus",
                3,
                "Retro notes are up. Main themes: too many late design changes, and the staging environment was down twice. Action items assigned in the tracker.\n\nMarcus",
            ),
        ],
        "cc": ["priya", "aisha", "dan"],
        "folder": "inbox",
    },
]

# (sender, day, subject, body, folder, labels, attachments, starred)
SINGLES: list[tuple[str, int, str, str, str, list[str], list[tuple[str, int]], bool]] = [
    (
        "priya",
        19,
        "Quarterly goals",
        "Hi Jamie,\n\nAttached are the design team's goals for the quarter. Let's go over yours in our 1:1.\n\nPriya",
        "archive",
        ["Work"],
        [("Design-goals-Q2.pdf", 184)],
        True,
    ),
    (
        "clouddesk",
        18,
        "Your CloudDesk receipt",
        "Thanks for your payment.\n\nPlan: Team (5 seats)\nAmount: $75.00\nPaid with card ending 4417.\n\nThe receipt is attached.",
        "archive",
        ["Receipts"],
        [("CloudDesk-receipt-2291.pdf", 41)],
        False,
    ),
    (
        "harborbank",
        17,
        "Your statement is ready",
        "Your monthly statement for the account ending 0932 is ready to view in online banking.\n\nHarbor Bank will never ask for your password by email.",
        "inbox",
        [],
        [],
        False,
    ),
    (
        "codehub",
        15,
        "[orchardline/web] Pull request #482 merged",
        'marcus-lee merged #482 "Checkout: new address form" into main.\n\nYou are receiving this because you were requested to review.',
        "inbox",
        [],
        [],
        False,
    ),
    (
        "harold",
        14,
        "Gutter cleaning on Friday",
        "Hello Jamie,\n\nJust a heads up that the gutter crew will be on the roof this Friday between 9 and 11. No need to be home.\n\nBest,\nHarold Jenkins\nJenkins Properties",
        "inbox",
        [],
        [],
        False,
    ),
    (
        "lakeside",
        13,
        "Thank you for staying with us",
        "Dear Jamie,\n\nThank you for choosing Lakeside Inn. We hope you enjoyed your stay. Your folio is attached for your records.\n\nWarm regards,\nLakeside Inn",
        "archive",
        ["Travel"],
        [("Lakeside-folio-88120.pdf", 96)],
        False,
    ),
    (
        "codehub",
        10,
        "[orchardline/web] Review requested on #491",
        'aisha-khan requested your review on #491 "Design tokens: spacing scale".',
        "inbox",
        [],
        [],
        False,
    ),
    (
        "harborbank",
        9,
        "Card payment of $64.20 at Corner Grocer",
        "A card payment of $64.20 was made at Corner Grocer with your card ending 4417.\n\nIf you don't recognise this payment, call us at the number on the back of your card.",
        "inbox",
        [],
        [],
        False,
    ),
    (
        "tom",
        8,
        "Lunch & learn: accessibility audits",
        "Hi all,\n\nNext Wednesday I'm running a lunch & learn on how we audit accessibility. Pizza provided. Bring questions!\n\nTom",
        "inbox",
        ["Work"],
        [],
        False,
    ),
    (
        "sophie",
        7,
        "Dashboard mockups: first impressions",
        "Hi Jamie,\n\nThanks for the mockups. The team loves the new filter bar. One request: can the export button be more visible?\n\nBest,\nSophie Turner\nWren Analytics",
        "inbox",
        [],
        [],
        True,
    ),
    (
        "codehub",
        5,
        "[orchardline/web] Build failed on main",
        "The build for commit 3f9a2c1 on main failed: 2 tests failed in checkout/address.spec.ts.",
        "inbox",
        [],
        [],
        False,
    ),
    (
        "raj",
        4,
        "Packaging photos",
        "Hi Jamie,\n\nAs promised, the photos of the new packaging are in the shared folder. Let me know if you need higher resolution.\n\nRaj",
        "inbox",
        [],
        [],
        False,
    ),
    (
        "harborbank",
        2,
        "Card payment of $23.50 at Blue Door Books",
        "A card payment of $23.50 was made at Blue Door Books with your card ending 4417.",
        "inbox",
        [],
        [],
        False,
    ),
    (
        "codehub",
        1,
        "[orchardline/web] Review requested on #497",
        'elena-garcia requested your review on #497 "Copy: checkout error messages".',
        "inbox",
        [],
        [],
        False,
    ),
    (
        "figtree",
        20,
        "Your weekly basket ideas",
        "Fresh this week: blood oranges, spring onions and sourdough from Harlow Bakery. Free delivery over $40.",
        "trash",
        [],
        [],
        False,
    ),
    (
        "codehub",
        19,
        "[orchardline/web] 3 new issues",
        "3 new issues were opened in orchardline/web this week.",
        "trash",
        [],
        [],
        False,
    ),
    (
        "morningbrief",
        21,
        "Markets wobble, a new moon mission and the best soup in town",
        "Good morning. Here's what you need to know today...",
        "trash",
        [],
        [],
        False,
    ),
]

SPAM: list[tuple[str, str, int, str, str]] = [
    (
        "Prize Center",
        "winner@prize-center-claims.biz",
        11,
        "Congratulations! You have been selected",
        "You have been selected to receive a $1,000 gift card. Click here to claim your prize before it expires!",
    ),
    (
        "Crypto Alpha",
        "signals@crypto-alpha-signals.net",
        6,
        "Turn $250 into $25,000 this month",
        "Our signals group doubled members' money three times last month. Join now, spaces are limited.",
    ),
    (
        "Parcel Tracking",
        "noreply@parcel-track-update.info",
        2,
        "Your package is on hold",
        "We could not deliver your package. Pay the $1.99 redelivery fee within 24 hours to avoid return to sender.",
    ),
]

MORNING_BRIEF = [
    "City council approves the riverside park plan",
    "Rents rise again, and a guide to this weekend's markets",
    "Why everyone is talking about heat pumps",
    "The library's late-fee amnesty, explained",
    "A new bike lane opens on Alder Street",
    "Five things to know before the long weekend",
    "Inside the food hall that's taking over downtown",
]
DESIGN_WEEKLY = [
    "Typography for dashboards, and a free icon pack",
    "The case for fewer modals",
    "Colour contrast tools we actually use",
]
FIGTREE = [
    "Citrus season is here: blood oranges are back",
    "New: local honey and fresh pasta",
]

# Messages Jamie sent outside the conversations above: (to, day, subject, body, attachments)
SENT: list[tuple[str, int, str, str, list[tuple[str, int]]]] = [
    (
        "sophie",
        13,
        "Dashboard mockups v1",
        "Hi Sophie,\n\nAttached are the first mockups for the analytics dashboard. Looking forward to your thoughts.\n\nBest,\nJamie",
        [("Wren-dashboard-v1.pdf", 2310)],
    ),
    (
        "nora",
        10,
        "Photos from the hike",
        "Here they are! The one with the goat is my favourite.\n\nJ",
        [("hike-01.jpg", 1840), ("hike-02.jpg", 2022)],
    ),
    (
        "priya",
        5,
        "Out on Friday afternoon",
        "Hi Priya,\n\nI have a dentist appointment on Friday at 2, so I'll be offline from 1:30. Everything for the sprint demo is ready.\n\nJamie",
        [],
    ),
]

# An unfinished message in Drafts: (to, subject, body)
DRAFTS: list[tuple[str, str, str]] = [
    ("ben", "Book club pick", "Hey Ben,\n\nFor next month I was thinking we could read"),
]
