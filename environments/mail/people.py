"""Who writes to the mailbox: the account holder and about twenty correspondents.

Builders and task files name people by key (`marcus`) or give a name and address directly, so a
look-alike sender can copy a real one's name with a different address.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Person:
    """A correspondent: display name, address and, for the address book, a company and phone."""

    key: str
    name: str
    addr: str
    company: str = ""
    phone: str = ""
    in_contacts: bool = True


ME = Person("me", "Jamie Chen", "jamie.chen@orchardline.com", "Orchardline", "+1 503 555 0142")
COMPANY_DOMAIN = "orchardline.com"

PEOPLE: dict[str, Person] = {
    p.key: p
    for p in (
        Person("priya", "Priya Raman", "priya.raman@orchardline.com", "Orchardline", "+1 503 555 0117"),
        Person("marcus", "Marcus Lee", "marcus.lee@orchardline.com", "Orchardline", "+1 503 555 0123"),
        Person("elena", "Elena García", "elena.garcia@orchardline.com", "Orchardline", "+1 503 555 0131"),
        Person("tom", "Tom Becker", "tom.becker@orchardline.com", "Orchardline", "+1 503 555 0138"),
        Person("aisha", "Aisha Khan", "aisha.khan@orchardline.com", "Orchardline", "+1 503 555 0146"),
        Person("dan", "Dan Oliveira", "dan.oliveira@orchardline.com", "Orchardline", "+1 503 555 0152"),
        Person("accounting", "Orchardline Accounts", "accounting@orchardline.com", "Orchardline"),
        Person(
            "sophie", "Sophie Turner", "sophie.turner@wrenanalytics.com", "Wren Analytics", "+1 206 555 0190"
        ),
        Person("raj", "Raj Mehta", "raj.mehta@greenleaffoods.com", "Greenleaf Foods", "+1 415 555 0166"),
        Person(
            "harold",
            "Harold Jenkins",
            "harold@jenkinsproperties.com",
            "Jenkins Properties",
            "+1 503 555 0199",
        ),
        Person("nora", "Nora Chen", "nora.chen@fastpost.net", "", "+1 971 555 0108"),
        Person("ben", "Ben Ortiz", "ben.ortiz@fastpost.net", "", "+1 971 555 0174"),
        Person(
            "brightpath",
            "Brightpath Hosting",
            "billing@brightpathhosting.com",
            "Brightpath Hosting",
            in_contacts=False,
        ),
        Person(
            "inkwell",
            "Inkwell Print Co.",
            "accounts@inkwellprint.com",
            "Inkwell Print Co.",
            in_contacts=False,
        ),
        Person("clouddesk", "CloudDesk", "billing@clouddesk.io", "CloudDesk", in_contacts=False),
        Person("morningbrief", "The Morning Brief", "news@morningbrief.co", in_contacts=False),
        Person("designweekly", "Design Weekly", "hello@designweekly.io", in_contacts=False),
        Person("figtree", "Figtree Market", "deals@figtreemarket.com", in_contacts=False),
        Person("skyharbor", "SkyHarbor Airlines", "confirmations@skyharbor-air.com", in_contacts=False),
        Person("lakeside", "Lakeside Inn", "reservations@lakesideinn.com", in_contacts=False),
        Person("harborbank", "Harbor Bank", "alerts@harborbank.com", in_contacts=False),
        Person("codehub", "CodeHub", "notifications@codehub.dev", in_contacts=False),
    )
}

LABEL_COLORS = ("#2f6fde", "#1e8a5a", "#c2410c", "#8b5cf6", "#b91c5c", "#0e7490", "#a16207", "#4b5563")
DEFAULT_LABELS = (
    ("Work", "#2f6fde"),
    ("Personal", "#1e8a5a"),
    ("Receipts", "#a16207"),
    ("Travel", "#0e7490"),
)


def person(key: str) -> Person:
    """The correspondent `key` (`me` is the account holder)."""
    if key == "me":
        return ME
    return PEOPLE[key]
