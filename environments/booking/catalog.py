"""Fixed reference data of Staywell: cities, neighbourhoods, name parts, room types, amenities and
review phrases. The seed draws from these with the session's RNG; nothing here is random.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CitySpec:
    """A destination and what its hotels look like."""

    name: str
    country: str
    region: str
    tagline: str
    neighborhoods: tuple[str, ...]
    streets: tuple[str, ...]
    price_factor: float
    hue: int


CITIES: tuple[CitySpec, ...] = (
    CitySpec(
        "Lisbon",
        "Portugal",
        "Lisbon District",
        "Tiled façades, trams and sunsets over the Tagus",
        ("Baixa", "Alfama", "Chiado", "Príncipe Real", "Belém"),
        ("Rua Augusta", "Rua da Prata", "Rua do Carmo", "Calçada do Combro", "Rua de São Bento"),
        0.9,
        205,
    ),
    CitySpec(
        "Barcelona",
        "Spain",
        "Catalonia",
        "Gaudí, tapas and a long city beach",
        ("Eixample", "Gràcia", "Gothic Quarter", "El Born", "Barceloneta"),
        (
            "Carrer de Mallorca",
            "Carrer de Provença",
            "Passeig de Gràcia",
            "Carrer del Rec",
            "Carrer de Balmes",
        ),
        1.05,
        15,
    ),
    CitySpec(
        "Amsterdam",
        "Netherlands",
        "North Holland",
        "Canal houses, bikes and world-class museums",
        ("Jordaan", "De Pijp", "Canal Ring", "Oud-West", "Plantage"),
        ("Prinsengracht", "Keizersgracht", "Ferdinand Bolstraat", "Overtoom", "Plantage Middenlaan"),
        1.2,
        28,
    ),
    CitySpec(
        "Rome",
        "Italy",
        "Lazio",
        "Ancient ruins, piazzas and late dinners",
        ("Trastevere", "Monti", "Centro Storico", "Prati", "Testaccio"),
        ("Via del Corso", "Via Cavour", "Via Cola di Rienzo", "Via della Lungaretta", "Via Marmorata"),
        1.1,
        35,
    ),
    CitySpec(
        "Paris",
        "France",
        "Île-de-France",
        "Boulevards, bistros and the banks of the Seine",
        ("Le Marais", "Saint-Germain", "Montmartre", "Latin Quarter", "Opéra"),
        ("Rue de Rivoli", "Boulevard Saint-Germain", "Rue Lepic", "Rue Mouffetard", "Rue Saint-Lazare"),
        1.25,
        250,
    ),
    CitySpec(
        "Berlin",
        "Germany",
        "Berlin",
        "Galleries, history and long summer evenings by the Spree",
        ("Mitte", "Kreuzberg", "Prenzlauer Berg", "Charlottenburg", "Friedrichshain"),
        ("Friedrichstraße", "Oranienstraße", "Kastanienallee", "Kurfürstendamm", "Warschauer Straße"),
        0.95,
        350,
    ),
    CitySpec(
        "Vienna",
        "Austria",
        "Vienna",
        "Coffee houses, concerts and imperial palaces",
        ("Innere Stadt", "Neubau", "Leopoldstadt", "Wieden", "Mariahilf"),
        ("Kärntner Straße", "Neubaugasse", "Praterstraße", "Wiedner Hauptstraße", "Mariahilfer Straße"),
        1.0,
        140,
    ),
    CitySpec(
        "Prague",
        "Czechia",
        "Bohemia",
        "Spires, bridges and cosy beer halls",
        ("Old Town", "Malá Strana", "Vinohrady", "New Town", "Žižkov"),
        ("Celetná", "Nerudova", "Vinohradská", "Vodičkova", "Seifertova"),
        0.75,
        95,
    ),
)

# Words the generated hotels are named from. Task builders name their hotels from other words,
# so a generated hotel never looks like a task's target by accident.
NAME_WORDS: tuple[str, ...] = (
    "Meridian",
    "Lumen",
    "Linden",
    "Juniper",
    "Atlas",
    "Ivy",
    "Olive",
    "Orchard",
    "Cobalt",
    "Saffron",
    "Marble",
    "Granite",
    "Heron",
    "Willow",
    "Cedar",
    "Beacon",
    "Larkspur",
    "Quill",
    "Amber",
    "Sable",
    "Fenwick",
    "Harlow",
    "Carrow",
    "Tessel",
    "Arden",
    "Morrow",
    "Rowan",
    "Calder",
    "Ember",
    "Haven",
    "Kestrel",
    "Laurel",
    "Mosaic",
    "Parish",
    "Sterling",
    "Thistle",
    "Verity",
    "Wren",
    "Yarrow",
    "Zephyr",
)
NAME_PATTERNS: tuple[tuple[str, str], ...] = (
    ("Hotel {w}", "Hotel"),
    ("The {w} Hotel", "Hotel"),
    ("{w} Suites", "Hotel"),
    ("{w} House", "Guesthouse"),
    ("Hotel {w} {n}", "Hotel"),
    ("{w} Boutique Hotel", "Hotel"),
    ("{w} Apartments {n}", "Apartments"),
    ("{w} Rooms", "Guesthouse"),
    ("Grand Hotel {w}", "Hotel"),
    ("{w} Inn", "Hotel"),
    ("{w} Residences", "Apartments"),
    ("{w} Hostel & Suites", "Hostel"),
)

AMENITIES: tuple[str, ...] = (
    "Free WiFi",
    "Air conditioning",
    "24-hour front desk",
    "Non-smoking rooms",
    "Restaurant",
    "Bar",
    "Breakfast available",
    "Fitness centre",
    "Pool",
    "Spa",
    "Parking",
    "Airport shuttle",
    "Pet friendly",
    "Family rooms",
    "Kitchen",
    "Rooftop terrace",
    "Laundry",
    "Lift",
)
# The amenities the results page offers as filters (in this order).
FILTER_AMENITIES: tuple[str, ...] = (
    "Free WiFi",
    "Breakfast available",
    "Pool",
    "Spa",
    "Fitness centre",
    "Parking",
    "Pet friendly",
    "Airport shuttle",
    "Air conditioning",
    "Kitchen",
)


@dataclass(frozen=True)
class RoomSpec:
    """A room type: name, beds, how many sleep in it, size range and price relative to a double."""

    type: str
    beds: str
    capacity: int
    size: tuple[int, int]
    factor: float
    features: tuple[str, ...]


ROOM_TYPES: dict[str, RoomSpec] = {
    spec.type: spec
    for spec in (
        RoomSpec("Single Room", "1 single bed", 1, (11, 15), 0.74, ("Shower", "Desk", "Free WiFi")),
        RoomSpec(
            "Standard Double Room",
            "1 double bed",
            2,
            (16, 21),
            1.0,
            ("Private bathroom", "Flat-screen TV", "Free WiFi"),
        ),
        RoomSpec(
            "Twin Room",
            "2 single beds",
            2,
            (17, 22),
            1.03,
            ("Private bathroom", "Flat-screen TV", "Free WiFi"),
        ),
        RoomSpec(
            "Superior Double Room",
            "1 queen bed",
            2,
            (22, 27),
            1.22,
            ("City view", "Coffee machine", "Rain shower"),
        ),
        RoomSpec(
            "Deluxe King Room", "1 king bed", 2, (28, 35), 1.45, ("Balcony", "Bathtub", "Nespresso machine")
        ),
        RoomSpec(
            "Junior Suite",
            "1 king bed and 1 sofa bed",
            3,
            (36, 46),
            1.9,
            ("Seating area", "Bathtub", "Minibar"),
        ),
        RoomSpec(
            "Family Room",
            "1 double bed and 2 single beds",
            4,
            (30, 38),
            1.6,
            ("Two rooms", "Kettle", "Free WiFi"),
        ),
    )
}

STAR_PRICES: dict[int, tuple[int, int]] = {2: (52, 78), 3: (78, 125), 4: (118, 205), 5: (215, 390)}

RATE_NAMES: dict[str, str] = {
    "nr": "Non-refundable",
    "nr_bb": "Non-refundable · Breakfast included",
    "flex": "Free cancellation",
    "flex_bb": "Free cancellation · Breakfast included",
}

FIRST_NAMES: tuple[str, ...] = (
    "Maria",
    "Lukas",
    "Sofia",
    "James",
    "Chloé",
    "Marco",
    "Anna",
    "David",
    "Inês",
    "Tom",
    "Elena",
    "Jonas",
    "Priya",
    "Kenji",
    "Laura",
    "Pedro",
    "Hannah",
    "Omar",
    "Julia",
    "Mateo",
    "Nora",
    "Ravi",
    "Emma",
    "Felix",
)
LAST_INITIALS: tuple[str, ...] = tuple("ABCDEFGHJKLMNPRSTVW")
TRAVELER_TYPES: tuple[str, ...] = ("Couple", "Solo", "Family", "Business", "Friends")
COUNTRIES: tuple[str, ...] = (
    "United Kingdom",
    "Germany",
    "United States",
    "France",
    "Spain",
    "Netherlands",
    "Italy",
    "Canada",
    "Australia",
    "Ireland",
    "Portugal",
    "Sweden",
)

# Review title and text by score band (low: 1-5, mid: 6-7, good: 8, great: 9-10).
REVIEW_LINES: dict[str, tuple[tuple[str, str], ...]] = {
    "low": (
        ("Disappointing", "The room was smaller than the photos suggest and the street noise kept us up."),
        ("Not as advertised", "Air conditioning barely worked and the front desk was hard to reach."),
        ("Would not return", "Check-in took forty minutes and the bathroom needed a proper clean."),
    ),
    "mid": (
        (
            "Fine for a short stay",
            "Good location, basic room. Breakfast was average but the staff were kind.",
        ),
        ("Decent value", "Nothing special, but clean and close to the metro. Thin walls."),
        ("OK overall", "The bed was comfortable; the WiFi dropped now and then. Fair price."),
    ),
    "good": (
        ("Very good stay", "Friendly staff, spotless room and an easy walk to the old town."),
        ("Great location", "Everything within walking distance. Quiet room at the back of the building."),
        ("Would stay again", "Comfortable beds, good shower, helpful tips from reception."),
    ),
    "great": (
        (
            "Exceptional",
            "One of the best hotels we've stayed in: lovely room, superb breakfast, warm welcome.",
        ),
        ("Perfect city break", "Beautiful design, very quiet at night and the rooftop view is stunning."),
        ("Loved every minute", "The staff remembered our names and the breakfast spread was outstanding."),
    ),
}


def review_band(score: int) -> str:
    """The phrase band of a 1..10 review score."""
    if score <= 5:
        return "low"
    if score <= 7:
        return "mid"
    if score == 8:
        return "good"
    return "great"


def score_word(rating: float) -> str:
    """The word a score badge shows ("Superb" for 9.0 and above)."""
    if rating >= 9.0:
        return "Superb"
    if rating >= 8.5:
        return "Excellent"
    if rating >= 8.0:
        return "Very good"
    if rating >= 7.0:
        return "Good"
    return "Pleasant"
