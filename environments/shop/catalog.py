"""The default catalogue as data: categories and product templates.

Names, brands and descriptions are fixed; prices, ratings, stock and option stock are drawn from
the session RNG by `seed.build_default_state`, always in the order listed here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CategorySpec:
    """One department of the store."""

    slug: str
    name: str
    description: str
    hue: int


@dataclass(frozen=True)
class ProductSpec:
    """One product template; `price` is the (low, high) range in whole dollars."""

    name: str
    brand: str
    icon: str
    price: tuple[int, int]
    description: str
    features: tuple[str, ...] = ()
    sizes: tuple[str, ...] = ()
    colors: tuple[str, ...] = ()
    returnable: bool = True


CATEGORIES: tuple[CategorySpec, ...] = (
    CategorySpec(
        "electronics", "Electronics", "Chargers, audio and the small gadgets you use every day.", 210
    ),
    CategorySpec("home-kitchen", "Home & Kitchen", "Cookware, mugs and things that make a kitchen work.", 25),
    CategorySpec("clothing", "Clothing", "Everyday basics and outerwear for every season.", 340),
    CategorySpec("shoes", "Shoes", "Running, hiking and everyday shoes.", 15),
    CategorySpec(
        "sports-outdoors", "Sports & Outdoors", "Gear for the gym, the trail and the campsite.", 140
    ),
    CategorySpec("beauty", "Beauty & Personal Care", "Skin care, hair care and grooming.", 300),
    CategorySpec("office", "Office & Stationery", "Notebooks, pens and a tidy desk.", 45),
    CategorySpec("toys-games", "Toys & Games", "Puzzles, building sets and games for all ages.", 265),
)

APPAREL_SIZES = ("XS", "S", "M", "L", "XL")
SHOE_SIZES = ("7", "8", "9", "10", "11", "12")

PRODUCTS: dict[str, tuple[ProductSpec, ...]] = {
    "electronics": (
        ProductSpec(
            "Pulse ANC Over-Ear Headphones",
            "Sonora",
            "headphones",
            (89, 149),
            "Wireless over-ear headphones with active noise cancelling and 30-hour battery.",
            ("Active noise cancelling", "30 h battery", "USB-C fast charge"),
            colors=("Black", "Silver", "Navy"),
        ),
        ProductSpec(
            "Buds Lite True Wireless Earbuds",
            "Sonora",
            "earbuds",
            (29, 59),
            "Compact earbuds with a pocket charging case.",
            ("IPX4 splash resistant", "24 h with case"),
        ),
        ProductSpec(
            "Boombox Mini Bluetooth Speaker",
            "Kestrel Audio",
            "speaker",
            (24, 49),
            "A palm-sized speaker that still fills a room.",
            ("12 h playtime", "Pairs two speakers"),
            colors=("Black", "Teal", "Coral"),
        ),
        ProductSpec(
            "PowerCell 10000 mAh Power Bank",
            "Voltara",
            "battery",
            (19, 39),
            "Slim power bank that charges a phone about twice.",
            ("USB-C in/out", "LED charge level"),
        ),
        ProductSpec(
            "Braided USB-C to USB-C Cable, 2 m",
            "Voltara",
            "cable",
            (9, 19),
            "Nylon-braided 100 W cable that survives a backpack.",
            ("100 W power delivery", "480 Mbps data"),
        ),
        ProductSpec(
            "Arcline 30W USB-C Wall Charger",
            "Voltara",
            "charger",
            (15, 25),
            "Compact single-port charger for phones and tablets.",
            ("GaN technology", "Foldable plug"),
        ),
        ProductSpec(
            "HomeView 1080p Indoor Camera",
            "Lumio",
            "camera",
            (29, 49),
            "Wi-Fi camera with night vision and two-way talk.",
            ("Motion alerts", "Local SD storage"),
        ),
        ProductSpec(
            "Glide Wireless Mouse",
            "Keyforge",
            "mouse",
            (14, 34),
            "Quiet-click mouse with a two-year battery life.",
            ("Silent buttons", "Bluetooth + receiver"),
            colors=("Graphite", "White"),
        ),
    ),
    "home-kitchen": (
        ProductSpec(
            "Stainless Steel Electric Kettle, 1.7 L",
            "Hearthstone",
            "kettle",
            (29, 59),
            "Boils a full kettle in under four minutes with auto shut-off.",
            ("Boil-dry protection", "360° base"),
        ),
        ProductSpec(
            "Ceramic Coffee Mug Set of 4",
            "Claybird",
            "mug",
            (22, 36),
            "Stoneware mugs with a reactive glaze, 12 oz each.",
            ("Dishwasher safe", "Microwave safe"),
            colors=("Sand", "Sage", "Slate"),
        ),
        ProductSpec(
            "Nonstick Frying Pan, 28 cm",
            "Ironleaf",
            "pan",
            (24, 44),
            "PFOA-free nonstick pan that works on induction.",
            ("Oven safe to 230 °C", "Induction base"),
        ),
        ProductSpec(
            "Pour-Over Coffee Dripper",
            "Claybird",
            "dripper",
            (14, 26),
            "Porcelain dripper for size 02 filters.",
            ("Even extraction", "Fits most mugs"),
        ),
        ProductSpec(
            "Bamboo Cutting Board Set",
            "Greenhollow",
            "board",
            (19, 34),
            "Three boards with juice grooves.",
            ("Knife friendly", "Hang holes"),
        ),
        ProductSpec(
            "Glass Food Storage Containers, 10-piece",
            "Hearthstone",
            "container",
            (26, 42),
            "Oven-safe glass with snap-lock lids.",
            ("Leak-proof lids", "Freezer safe"),
        ),
        ProductSpec(
            "Linen Blend Throw Blanket",
            "Greenhollow",
            "blanket",
            (34, 59),
            "A soft, washable throw for the sofa.",
            ("130 × 170 cm", "Machine washable"),
            colors=("Oat", "Rust", "Forest"),
        ),
        ProductSpec(
            "Digital Kitchen Scale",
            "Ironleaf",
            "scale",
            (12, 24),
            "Weighs to the gram up to 5 kg.",
            ("Tare function", "Auto off"),
        ),
    ),
    "clothing": (
        ProductSpec(
            "Everyday Crew Neck T-Shirt",
            "Northfold",
            "shirt",
            (12, 22),
            "Midweight cotton tee with a relaxed fit.",
            ("100% cotton", "Pre-shrunk"),
            APPAREL_SIZES,
            ("White", "Black", "Heather Grey", "Navy"),
        ),
        ProductSpec(
            "Fleece Pullover Hoodie",
            "Northfold",
            "hoodie",
            (34, 54),
            "Brushed fleece hoodie with a kangaroo pocket.",
            ("Cotton blend", "Ribbed cuffs"),
            APPAREL_SIZES,
            ("Charcoal", "Forest", "Burgundy"),
        ),
        ProductSpec(
            "Packable Rain Jacket",
            "Summit & Co.",
            "jacket",
            (59, 99),
            "Waterproof shell that packs into its own pocket.",
            ("Sealed seams", "Adjustable hood"),
            APPAREL_SIZES,
            ("Yellow", "Black", "Cobalt"),
        ),
        ProductSpec(
            "Merino Wool Crew Socks, 3-pack",
            "Summit & Co.",
            "socks",
            (18, 28),
            "Cushioned merino socks that don't hold odour.",
            ("Merino blend", "Reinforced heel"),
            ("S", "M", "L"),
            ("Grey", "Olive"),
        ),
        ProductSpec(
            "Slim Stretch Chino Pants",
            "Northfold",
            "pants",
            (39, 59),
            "Chinos with a little stretch for all-day comfort.",
            ("98% cotton, 2% elastane",),
            ("28", "30", "32", "34", "36"),
            ("Khaki", "Navy", "Olive"),
        ),
        ProductSpec(
            "Quilted Puffer Vest",
            "Summit & Co.",
            "vest",
            (49, 79),
            "Lightweight insulated vest for layering.",
            ("Recycled fill", "Zip pockets"),
            APPAREL_SIZES,
            ("Black", "Navy"),
        ),
        ProductSpec(
            "Cotton Pajama Set",
            "Dreamloom",
            "shirt",
            (29, 45),
            "Soft woven pajamas with a drawstring waist.",
            ("Brushed cotton",),
            APPAREL_SIZES,
            ("Blue Check", "Grey Stripe"),
            returnable=False,
        ),
    ),
    "shoes": (
        ProductSpec(
            "Stride Road Running Shoe",
            "Fleetfoot",
            "shoe",
            (79, 129),
            "Responsive cushioning for daily miles.",
            ("Breathable mesh", "8 mm drop"),
            SHOE_SIZES,
            ("Black/White", "Blue/Orange"),
        ),
        ProductSpec(
            "Ridgeback Waterproof Hiking Boot",
            "Trailmark",
            "boot",
            (109, 169),
            "Waterproof leather boot with a grippy lugged sole.",
            ("Waterproof membrane", "Vibram-style sole"),
            SHOE_SIZES,
            ("Brown", "Grey"),
        ),
        ProductSpec(
            "Canvas Low-Top Sneaker",
            "Common Thread",
            "shoe",
            (39, 59),
            "Classic canvas sneaker with a vulcanised sole.",
            ("Cotton canvas", "Cushioned insole"),
            SHOE_SIZES,
            ("White", "Black", "Red"),
        ),
        ProductSpec(
            "Slip-On House Slipper",
            "Dreamloom",
            "slipper",
            (19, 34),
            "Memory-foam slippers with an outdoor-ready sole.",
            ("Memory foam",),
            ("S", "M", "L", "XL"),
            ("Grey", "Navy"),
        ),
        ProductSpec(
            "Trail Runner GTX",
            "Trailmark",
            "shoe",
            (119, 159),
            "Trail shoe with a waterproof upper and rock plate.",
            ("Rock plate", "Waterproof"),
            SHOE_SIZES,
            ("Green/Black", "Grey/Lime"),
        ),
        ProductSpec(
            "Leather Everyday Loafer",
            "Common Thread",
            "shoe",
            (69, 99),
            "Soft leather loafer you can wear all day.",
            ("Full-grain leather",),
            SHOE_SIZES,
            ("Tan", "Dark Brown"),
        ),
    ),
    "sports-outdoors": (
        ProductSpec(
            "Insulated Water Bottle, 750 ml",
            "Peakform",
            "bottle",
            (19, 34),
            "Keeps drinks cold for 24 hours or hot for 12.",
            ("Double-wall steel", "Leak-proof lid"),
            colors=("Matte Black", "Glacier Blue", "Sunset Orange"),
        ),
        ProductSpec(
            "Non-Slip Yoga Mat, 6 mm",
            "Peakform",
            "mat",
            (24, 44),
            "Cushioned mat with a grippy textured surface.",
            ("183 × 61 cm", "Carry strap"),
            colors=("Plum", "Teal", "Charcoal"),
        ),
        ProductSpec(
            "Resistance Band Set of 5",
            "Ironclad Fitness",
            "band",
            (14, 29),
            "Five latex-free bands from extra light to extra heavy.",
            ("Door anchor", "Carry bag"),
        ),
        ProductSpec(
            "Adjustable Dumbbell, 2–24 kg",
            "Ironclad Fitness",
            "dumbbell",
            (149, 229),
            "One dumbbell that replaces fifteen.",
            ("Dial adjustment", "Storage tray"),
        ),
        ProductSpec(
            "Daypack 22 L Hiking Backpack",
            "Trailmark",
            "backpack",
            (44, 79),
            "Ventilated back panel and hydration sleeve.",
            ("Rain cover", "Hip belt"),
            colors=("Moss", "Black", "Rust"),
        ),
        ProductSpec(
            "Ultralight Camping Hammock",
            "Trailmark",
            "hammock",
            (29, 49),
            "Parachute-nylon hammock with tree straps.",
            ("Holds 180 kg", "Packs to fist size"),
        ),
        ProductSpec(
            "Foam Roller, 45 cm",
            "Ironclad Fitness",
            "roller",
            (16, 29),
            "Firm textured roller for recovery.",
            ("High-density EVA",),
        ),
        ProductSpec(
            "Jump Rope with Ball Bearings",
            "Peakform",
            "rope",
            (9, 19),
            "Fast, tangle-free rope with adjustable length.",
            ("Steel cable", "Foam handles"),
        ),
    ),
    "beauty": (
        ProductSpec(
            "Daily Hydrating Face Moisturizer, 50 ml",
            "Lumen Botanics",
            "jar",
            (14, 29),
            "Lightweight moisturizer with hyaluronic acid.",
            ("Fragrance free", "Non-comedogenic"),
            returnable=False,
        ),
        ProductSpec(
            "Mineral Sunscreen SPF 50, 100 ml",
            "Lumen Botanics",
            "tube",
            (12, 24),
            "Zinc-based sunscreen that doesn't leave a cast.",
            ("Reef friendly", "Water resistant 80 min"),
            returnable=False,
        ),
        ProductSpec(
            "Argan Oil Shampoo, 400 ml",
            "Willow & Ash",
            "bottle",
            (9, 18),
            "Sulfate-free shampoo for dry hair.",
            ("Sulfate free",),
            returnable=False,
        ),
        ProductSpec(
            "Rechargeable Electric Toothbrush",
            "Brightline",
            "toothbrush",
            (39, 79),
            "Sonic toothbrush with a two-minute timer.",
            ("3 modes", "30-day battery"),
            colors=("White", "Black", "Rose"),
        ),
        ProductSpec(
            "Cordless Beard Trimmer",
            "Brightline",
            "trimmer",
            (29, 59),
            "Precision trimmer with 20 length settings.",
            ("USB-C charging", "Washable head"),
        ),
        ProductSpec(
            "Bamboo Hair Brush",
            "Willow & Ash",
            "brush",
            (11, 19),
            "Paddle brush with bamboo pins.",
            ("Anti-static",),
        ),
        ProductSpec(
            "Vitamin C Brightening Serum, 30 ml",
            "Lumen Botanics",
            "dropper",
            (18, 34),
            "15% vitamin C serum for an even tone.",
            ("15% L-ascorbic acid",),
            returnable=False,
        ),
    ),
    "office": (
        ProductSpec(
            "Dotted Hardcover Notebook, A5",
            "Paperlane",
            "notebook",
            (11, 21),
            "192 pages of 100 gsm dotted paper that lies flat.",
            ("Lay-flat binding", "Ribbon marker"),
            colors=("Black", "Sage", "Terracotta"),
        ),
        ProductSpec(
            "Gel Ink Pens, 12-pack",
            "Paperlane",
            "pen",
            (8, 15),
            "Smooth 0.5 mm gel pens in assorted colours.",
            ("Quick dry",),
        ),
        ProductSpec(
            "LED Desk Lamp with USB Port",
            "Lumio",
            "lamp",
            (29, 49),
            "Dimmable lamp with five colour temperatures.",
            ("Touch controls", "USB charging port"),
            colors=("White", "Black"),
        ),
        ProductSpec(
            "Ergonomic Seat Cushion",
            "Deskwell",
            "cushion",
            (24, 39),
            "Memory-foam cushion that relieves pressure on long days.",
            ("Removable cover",),
        ),
        ProductSpec(
            "Monitor Riser with Drawer",
            "Deskwell",
            "riser",
            (27, 45),
            "Lifts your screen to eye level and hides the clutter.",
            ("Holds 20 kg",),
        ),
        ProductSpec(
            "Wireless Keyboard, Full Size",
            "Keyforge",
            "keyboard",
            (34, 59),
            "Low-profile keyboard that pairs with three devices.",
            ("Multi-device", "2-year battery"),
            colors=("Graphite", "White"),
        ),
        ProductSpec(
            "Cork Desk Pad, 80 × 40 cm",
            "Deskwell",
            "pad",
            (15, 26),
            "Natural cork mat that protects the desk.",
            ("Water resistant",),
        ),
    ),
    "toys-games": (
        ProductSpec(
            "1000-Piece Jigsaw Puzzle: Harbour Lights",
            "Puzzleworks",
            "puzzle",
            (14, 24),
            "A night-time harbour scene with plenty of detail.",
            ("Poster included",),
        ),
        ProductSpec(
            "Classic Building Bricks, 500 pieces",
            "Brickhaven",
            "blocks",
            (24, 44),
            "Compatible bricks in 30 colours.",
            ("Storage tub", "Ages 4+"),
        ),
        ProductSpec(
            "Strategy Board Game: Trade Routes",
            "Meeple & Co.",
            "dice",
            (34, 54),
            "Build trade routes across a changing map; 2–5 players.",
            ("45–60 min", "Ages 10+"),
        ),
        ProductSpec(
            "Wooden Stacking Rainbow",
            "Little Oak",
            "rainbow",
            (19, 32),
            "Seven painted arches for open-ended play.",
            ("Non-toxic paint",),
        ),
        ProductSpec(
            "Remote Control Off-Road Car",
            "Zoomline",
            "car",
            (39, 69),
            "1:18 scale car with a rechargeable battery.",
            ("2.4 GHz", "25 min runtime"),
            colors=("Red", "Blue"),
        ),
        ProductSpec(
            "Card Game: Fox & Hound",
            "Meeple & Co.",
            "cards",
            (9, 16),
            "A quick trick-taking game for two.",
            ("20 min",),
        ),
        ProductSpec(
            "Plush Otter, 30 cm",
            "Little Oak",
            "plush",
            (15, 25),
            "A soft otter that holds a little shell.",
            ("Machine washable",),
        ),
    ),
}

FIRST_NAMES = (
    "Maya",
    "Liam",
    "Priya",
    "Noah",
    "Elena",
    "Marcus",
    "Aisha",
    "Tom",
    "Sofia",
    "Kenji",
    "Grace",
    "Omar",
    "Hannah",
    "Diego",
    "Chloe",
    "Ravi",
    "Nina",
    "Sam",
    "Leah",
    "Ben",
)
LAST_INITIALS = "ABCDEFGHJKLMNPRSTW"

REVIEW_LINES: dict[int, tuple[tuple[str, str], ...]] = {
    5: (
        ("Exactly what I wanted", "Great quality for the price. Would buy again."),
        ("Love it", "Works perfectly and arrived earlier than expected."),
        ("Five stars", "Better than the one I had before. Very happy."),
    ),
    4: (
        ("Very good", "Does the job well. Only small complaint is the packaging."),
        ("Solid purchase", "Good value. Not perfect but close."),
        ("Happy with it", "Nice build quality, would recommend."),
    ),
    3: (
        ("It's okay", "Fine for the price, nothing special."),
        ("Average", "Works, but I expected a bit more."),
    ),
    2: (
        ("Disappointed", "Stopped working properly after a few weeks."),
        ("Not as described", "Smaller than the pictures suggest."),
    ),
    1: (("Returned it", "Arrived damaged and customer service was slow."),),
}
