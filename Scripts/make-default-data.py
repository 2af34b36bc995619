#!/usr/bin/env python3
"""Synthesize CasinoCache's embedded default data under data/.

Writes, deterministically (byte-identical on every run):

  data/provider/recording.json                     what was "recorded" and how
  data/provider/<edition>/categories.json          GET /v1/casino/categories?...
  data/provider/<edition>/games/<DIR>/<offset>.json GET /v1/casino/games?...&filter=categories(id=C)
  data/feed/acme-feed.xml                          the XML game feed (second source format)
  data/README.md                                   layout, DIR rule, where each quirk lives

The provider files are synthesized in the shape of verbatim EveryMatrix-style API responses
(see docs/PROVIDER_API.md); nothing here was fetched from a real server. Every game name,
id and URL is invented.

Usage: Scripts/make-default-data.py [--out DIR]   (default: <repo>/data)

Only the standard library is used. Randomness comes from random.Random(20261120) alone, sets
are never iterated, and every JSON file is json.dumps(obj, indent=2, ensure_ascii=False) plus
a newline, so the output depends on nothing but this file.

WHERE THE QUIRKS ARE (the exact game ids and files are listed in the generated README.md; the
QUIRK_* names below are the comments on the lines of assign_quirks() that pick the games):
  * protocol-relative image URLs ("//static.example-cdn.com/...")  -> most games; see image_url()
  * absolute https image URLs                                        -> QUIRK_HTTPS_IMAGES
  * description with HTML tags and entities                          -> LARA_DESCRIPTION, QUIRK_HTML
  * theoreticalPayOut as fraction / percent number / string / absent -> rtp_value(), QUIRK_RTP_*
  * booleans as "0"/"1" strings                                      -> QUIRK_STRING_BOOLS
  * id as an int (gId int everywhere)                                -> QUIRK_INT_ID
  * platform as one comma-separated string                           -> QUIRK_PLATFORM_STRING
  * vendor unexpanded ({"href": ...} only)                           -> QUIRK_VENDOR_HREF
  * unknown extra fields ("experimentalFlags", "_trace")             -> QUIRK_EXTRA_FIELDS
  * missing optional fields (backgroundImageUrl, description, RTP)   -> QUIRK_NO_BACKGROUND,
                                                                        QUIRK_NO_DESCRIPTION, QUIRK_RTP_MISSING
  * restrictedTerritories with subdivisions ("CA-ON", "US-NJ")       -> every full-field game
  * names with surrounding whitespace                                -> WHITESPACE_NAMES
  * French category names: decomposed "e" + U+0301, padded name      -> CATEGORIES (fr names)
  * full field set for FULL_GAMES (22) games, lean records for the rest -> assign_full(), game_item()
EDGE RECORDS (the normalizer must drop them):
  * VIDEOSLOTS: the last game of page 0 appears again first on page 10 (duplicate across pages)
  * NEW:        one record with an empty name (page 10; 1 of 23)    -> INVALID_EMPTY_NAME
  * BLACKJACK:  one record with launchUrl http://insecure.example.com/x (page 10; 1 of 22) -> INVALID_HTTP
"""

import hashlib
import json
import os
import random
import re
import shutil
import sys
import unicodedata
import urllib.parse
from xml.sax.saxutils import escape as xml_escape

SEED = 20261120
BASE = "https://casino-api.example-staging.com"
FETCHED_AT = "2026-11-20T10:00:00Z"
EDITIONS = ["en-iPhone", "fr-iPhone"]
PAGE_LIMIT = 10
CDN = "static.example-cdn.com"
LAUNCH = "https://launch.example-staging.com/Loader/Start/4093"

# ---------------------------------------------------------------------------------------------
# The DIR rule (the Swift code uses the same rule).
# ---------------------------------------------------------------------------------------------


def category_dir(category_id):
    """Directory name for a category's pages.

    Lowercase ASCII letters only (not str.lower(): U+212A KELVIN SIGN would become "k"), keep
    a-z0-9, replace every run of other characters by one "_", strip leading/trailing "_", cut
    to 40 characters and strip a trailing "_" again, use "id" if nothing is left; then append
    "-" and the first 10 hex characters of sha256 over the id's UTF-8 bytes.
    """
    lowered = "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in category_id)
    stem = re.sub(r"[^a-z0-9]+", "_", lowered).strip("_")
    stem = stem[:40].rstrip("_")
    if not stem:
        stem = "id"
    return stem + "-" + hashlib.sha256(category_id.encode("utf-8")).hexdigest()[:10]


# ---------------------------------------------------------------------------------------------
# Categories, in lobby order. total = games.total; pages = how many pages of 10 were recorded.
# Three have games.total == 0 (never fetched). NEW, JACKPOTS and BLACKJACK are recorded completely
# (their last page is short); the others have more games than the 2 recorded pages hold.
# French names: NEW is written decomposed ("e" + U+0301), ROULETTE has surrounding spaces.
# ---------------------------------------------------------------------------------------------

CATEGORIES = [
    # id,            en name,          fr name,                    total, recorded pages
    ("POPULAR", "Popular", "Populaires", 96, 2),
    ("NEW", "New Games", "Nouveaute\u0301s", 23, 3),
    ("VIDEOSLOTS", "Video Slots", "Machines à sous", 133, 2),
    ("JACKPOTS", "Jackpots", "Jackpots", 17, 2),
    ("VIRTUALSPORTS", "Virtual Sports", "Sports virtuels", 0, 0),
    ("MEGAWAYS", "Megaways", "Megaways", 48, 1),
    ("TABLEGAMES", "Table Games", "Jeux de table", 61, 1),
    ("BLACKJACK", "Blackjack", "Blackjack", 22, 3),
    ("ROULETTE", "Roulette", " Roulette  ", 34, 1),
    ("SCRATCHCARDS", "Scratch Cards", "Cartes à gratter", 0, 0),
    ("LIVECASINO", "Live Casino", "Casino en direct", 212, 1),
    ("TOURNAMENTS", "Tournaments", "Tournois", 0, 0),
]

# ---------------------------------------------------------------------------------------------
# Vendors: id -> (name, displayName, short slug suffix, isTopVendor)
# ---------------------------------------------------------------------------------------------

VENDORS = {
    266: ("RGS_Matrix", "RGS Matrix", "rgs", False),
    22: ("NetEnt", "NetEnt", "netent", True),
    71: ("Pragmatic Play", "Pragmatic Play", "pp", True),
    45: ("Evolution", "Evolution", "evo", True),
    38: ("Play'n GO", "Play'n GO", "png", True),
    112: ("Red Tiger", "Red Tiger", "rt", False),
    97: ("Big Time Gaming", "Big Time Gaming", "btg", False),
    150: ("Nolimit City", "Nolimit City", "nlc", False),
    188: ("Hacksaw Gaming", "Hacksaw Gaming", "hacksaw", False),
    61: ("Yggdrasil", "Yggdrasil", "ygg", False),
    203: ("Ezugi", "Ezugi", "ezugi", False),
    301: ("Relax Gaming", "Relax Gaming", "relax", False),
}

SLOT_VENDORS = [22, 71, 266, 38, 112, 150, 188, 61, 301]
MEGAWAYS_VENDORS = [97, 112, 71, 301]
JACKPOT_VENDORS = [22, 112, 38, 61, 266]
TABLE_VENDORS = [22, 38, 71, 266]
LIVE_VENDORS = [45, 203, 71]

# ---------------------------------------------------------------------------------------------
# The game pool: 120 invented games. Each has a role; the role decides its kind (category
# membership) and its popularity band, and the bands are laid out so that every pool game is
# recorded at least once while the category pages stay consistent with sortedField=popularity:
#   top slots      70-96   -> VIDEOSLOTS pages 0 and 10 (the 19 most popular slots)
#   popular slots  60-70   -> POPULAR only (curated, see below)
#   new slots       1-30   -> NEW only (isNew)
#   megaways       30-60   -> MEGAWAYS page 0;  jackpot-megaways 1-10 -> JACKPOTS (and MEGAWAYS, unrecorded)
#   jackpots        1-60   -> JACKPOTS (complete)
#   other tables   50-95   -> TABLEGAMES page 0 (RNG blackjack/roulette rank below them)
#   roulette RNG   20-50, live roulette 50-90 -> ROULETTE page 0 (all ten)
#   blackjack RNG   1-50, live blackjack 1-60 -> BLACKJACK (complete)
#   live other     90-99.9 -> LIVECASINO page 0 (live blackjack/roulette rank below them)
# ---------------------------------------------------------------------------------------------

SLOTS = [
    # top slots (19)
    "Lara Jones is Cleopatra", "Book of Pharaohs", "Golden Reels Deluxe", "Fruit Fiesta 5",
    "Sweet Cascade", "Wild West Gold Rush", "Moonlit Princess", "Neon Nights", "Lucky Sevens Classic",
    "Hot Chilli Fiesta", "Mystic Forest", "Legend of the Kraken", "Space Miners", "Candy Carnival",
    "Rise of Anubis", "Robin's Arrow", "Gods of Asgard", "Frozen Crystals", "Tiki Treasures",
    # popular slots (8)
    "Lucky Panda Bamboo", "Crimson Dragon", "Château Fortune", "Le Bandit Doré", "Big Bass Lagoon",
    "Blazing Joker", "Wild Buffalo Plains", "Pearl Diver's Fortune",
    # new slots (15)
    "Samba Spins", "Mayan Moonstone", "Lucky Clover Farm", "Spartan Shields", "Ice Queen's Palace",
    "Circus of Wonders", "Dragon's Lair Riches", "Gold Rush Gordon", "Honey Hive Wilds",
    "Jade Emperor's Garden", "Midnight Vampire", "Safari Sunset", "Viking Voyage", "Zeus Thunder Reels",
    "Mermaid's Lagoon",
]
MEGAWAYS = [
    "Gold Quarry Megaways", "Viking Tides Megaways", "Thunder Bison Megaways", "Gems of Atlantis Megaways",
    "Wolf Moon Rising Megaways", "Pirate's Plunder Megaways", "Dragon Forge Megaways",
    "Jungle Cascade Megaways", "Neon Tiger Megaways", "Sugar Storm Megaways",
]
JACKPOT_MEGAWAYS = ["Jackpot Raiders Megaways"]  # in JACKPOTS and MEGAWAYS
JACKPOTS = [
    "Divine Riches Jackpot", "Pharaoh's Vault Mega Jackpot", "Treasure Nile Progressive",
    "Cash Volcano Jackpot", "Lucky Dragon Pearls Jackpot", "Major Millions Reels", "Diamond Empire Jackpot",
    "Golden Goose Grand", "Wild Safari Jackpot King", "Royal Crown Treasury", "Arctic Fortune Jackpot",
    "Big Bank Bonanza", "Midas Reels Jackpot", "Cosmic Gems Jackpot", "Piggy Heist Jackpot",
    "Castle Gold Jackpot",
]
RNG_TABLE = [
    "Punto Banco Baccarat", "Casino Hold'em", "Three Card Poker", "Sic Bo Dragons", "Red Dog",
    "Caribbean Stud Poker", "Pai Gow Deluxe", "Texas Hold'em Bonus", "Craps Royale", "Baccarat Gold Edition",
]
RNG_ROULETTE = [
    "European Roulette", "French Roulette", "American Roulette", "Crème de la Crème Roulette",
    "Double Ball Roulette",
]
LIVE_ROULETTE = [
    "Thunderbolt Roulette Live", "Auto Roulette Live", "Speed Roulette Live", "Live Roulette Française",
    "Golden Ball Roulette Live",
]
RNG_BLACKJACK = [
    "Blackjack Classic", "European Blackjack", "Atlantic City Blackjack", "Multihand Blackjack Pro",
    "Blackjack Switch Deluxe", "Single Deck Blackjack", "Vegas Strip Blackjack", "Double Exposure Blackjack",
    "Blackjack Lucky Sevens", "Perfect Pairs Blackjack", "Blackjack Surrender",
]
LIVE_BLACKJACK = [
    "Live Blackjack A", "Live Blackjack VIP Gold", "Infinite Blackjack Live", "Speed Blackjack Live",
    "Blackjack Party Live", "Live Blackjack Français", "Power Blackjack Live", "Salon Privé Blackjack",
    "Free Bet Blackjack Live", "Blackjack Royale Live",
]
LIVE_OTHER = [
    "Live Baccarat Squeeze", "Speed Baccarat Live", "No Commission Baccarat Live", "Dragon Tiger Live",
    "Mega Wheel Live", "Fortune Wheel Live", "Crazy Coin Flip Live", "Money Drop Live", "Candy Drop Live",
    "Goal Rush Live",
]

# (names, kind, popularity band lo, hi)
ROLES = [
    (SLOTS[:19], "slot", 70, 96),
    (SLOTS[19:27], "slot", 60, 70),
    (SLOTS[27:], "slot", 1, 30),
    (MEGAWAYS, "megaways", 30, 60),
    (JACKPOT_MEGAWAYS, "jackpot-megaways", 1, 10),
    (JACKPOTS, "jackpot", 1, 60),
    (RNG_TABLE, "table", 50, 95),
    (RNG_ROULETTE, "roulette", 20, 50),
    (LIVE_ROULETTE, "live-roulette", 50, 90),
    (RNG_BLACKJACK, "blackjack", 1, 50),
    (LIVE_BLACKJACK, "live-blackjack", 1, 60),
    (LIVE_OTHER, "live-other", 90, 100),
]
POPULAR_SLOTS = SLOTS[19:27]
NEW_SLOTS = SLOTS[27:]

# Fixed values for the documented example game and the whitespace-name games (all top slots,
# on VIDEOSLOTS page 0 and POPULAR page 0).
LARA_ID = 34795
LARA_DESCRIPTION = {
    "en": "<p>Did you grow up playing <b>Tomb Raider</b>? &amp; more</p>",
    "fr": "<p>Vous avez grandi avec <b>Tomb Raider</b>&nbsp;? &amp; plus encore</p>",
}
FIXED_POPULARITY = {"Lara Jones is Cleopatra": 98.71, "Book of Pharaohs": 97.93, "Golden Reels Deluxe": 96.42}
# QUIRK: names with surrounding whitespace (both editions, wherever these games appear).
WHITESPACE_NAMES = {"Book of Pharaohs": "  Book of Pharaohs ", "Golden Reels Deluxe": "Golden Reels Deluxe  "}

# EDGE RECORDS: invalid records, each in one category (both editions), not part of the pool.
INVALID_EMPTY_NAME = {"category": "NEW", "position": 14, "id": "48210", "name": "",
                      "slug": "golden-lotus-pp", "vendor": 71}
INVALID_HTTP = {"category": "BLACKJACK", "position": 17, "id": "51377", "name": "Blackjack Live Test Table",
                "slug": "blackjack-live-test-table-evo", "vendor": 45, "launchUrl": "http://insecure.example.com/x"}

# How many recorded games carry the full field set (the rest are lean). A third of the pool
# would not fit the 700 KB budget of data/ (25 directories alone take 100 KB on ext4).
FULL_GAMES = 22

TERRITORY_SETS = [
    ["AF", "AD", "CA-ON", "US"],
    ["US", "FR", "CA-ON", "CA-QC"],
    ["GB", "US-NJ", "US-PA", "AU"],
    ["AF", "IR", "KP", "CA-ON", "ES"],
    ["US", "IT", "BE-VLG"],
]


def slugify(text):
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    return re.sub(r"[^a-z0-9]+", "-", plain).strip("-")


class PoolGame:
    def __init__(self, index, name, kind, vendor, gid, popularity, rtp_bp):
        self.index = index
        self.name = name
        self.kind = kind
        self.vendor = vendor
        self.gid = gid
        self.popularity = popularity
        self.rtp_bp = rtp_bp  # basis points, 9646 -> 0.9646 / 96.46 / "96.46"
        self.slug = slugify(name) + "-" + VENDORS[vendor][2]
        self.full = False  # set by assign_full()
        self.is_new = False
        self.popular = False
        self.categories = []  # category ids this game belongs to, lobby order
        self.tags = []
        self.territories = TERRITORY_SETS[index % len(TERRITORY_SETS)]
        self.has_fun = True
        self.has_anon_fun = not kind.startswith("live")  # live tables need an account
        self.width, self.height = (1280, 720) if index % 4 else (960, 600)
        self.jackpot_names = []
        self.quirks = []


def build_pool(rng):
    spec = [(name, kind, lo, hi) for names, kind, lo, hi in ROLES for name in names]
    assert len(spec) == len({s[0] for s in spec}) == 120, len(spec)

    gids = rng.sample(range(10000, 59999), len(spec))
    taken_pop = list(FIXED_POPULARITY.values())
    pool = []
    for i, (name, kind, lo, hi) in enumerate(spec):
        if name == "Lara Jones is Cleopatra":
            vendor, gid = 266, LARA_ID
        else:
            vendors = {"slot": SLOT_VENDORS, "megaways": MEGAWAYS_VENDORS, "jackpot": JACKPOT_VENDORS,
                       "jackpot-megaways": MEGAWAYS_VENDORS}.get(kind, TABLE_VENDORS)
            if kind.startswith("live"):
                vendors = LIVE_VENDORS
            vendor = vendors[rng.randrange(len(vendors))]
            gid = gids[i] if gids[i] != LARA_ID else 59999
        if name in FIXED_POPULARITY:
            pop = FIXED_POPULARITY[name]
        else:
            while True:
                pop = rng.randint(lo * 100, hi * 100 - 1) / 100
                if pop not in taken_pop:
                    break
            taken_pop.append(pop)
        if name == "Lara Jones is Cleopatra":
            rtp = 9646
        elif "roulette" in kind:
            rtp = 9474 if "American" in name else 9730
        elif "blackjack" in kind:
            rtp = rng.randint(9940, 9960)
        elif kind.startswith("live") or kind == "table":
            rtp = rng.randint(9780, 9890)
        else:
            rtp = rng.randint(9400, 9700)
        pool.append(PoolGame(i, name, kind, vendor, gid, pop, rtp))

    # isNew: NEW's total minus its invalid record (22 games): the 15 new slots plus a seeded
    # sample of 7 others (so some games are in NEW and in their own category).
    new_total = next(c[3] for c in CATEGORIES if c[0] == "NEW") - 1
    others = [g for g in pool if g.name not in NEW_SLOTS and g.name not in FIXED_POPULARITY]
    for g in [g for g in pool if g.name in NEW_SLOTS] + rng.sample(others, new_total - len(NEW_SLOTS)):
        g.is_new = True

    # POPULAR is curated (editorial), 40 games; its pages are sorted by popularity like any other.
    # The 20 recorded are the 3 fixed top slots, 9 other games of popularity >= 70 (also on their
    # own category's page) and the 8 popular slots (60-70); the 20 unrecorded ones are below 60.
    fixed = [g for g in pool if g.name in FIXED_POPULARITY]
    high = [g for g in pool if g.popularity >= 70 and g not in fixed]
    low = [g for g in pool if g.popularity < 60]
    for g in fixed + [g for g in pool if g.name in POPULAR_SLOTS] + rng.sample(high, 9) + rng.sample(low, 20):
        g.popular = True

    # Tags and jackpots, from the kind plus a seeded pick.
    for g in pool:
        tags = []
        if g.kind in ("slot", "megaways", "jackpot", "jackpot-megaways"):
            main = ["Free Spins", "Free Spins", "Bonus Buy", "Hold & Win", "Cascading Reels", "Multiplier"]
            tags.append(main[rng.randrange(len(main))])
        if "megaways" in g.kind:
            tags.append("Megaways")
        if "jackpot" in g.kind:
            tags.append("Jackpot")
            g.jackpot_names = ["Mega Drop" if g.index % 2 else "Grand Progressive"]
        if g.kind in ("blackjack", "roulette", "table"):
            tags.append("Table Games")
            if g.index % 5 == 0:
                tags.append("Classic")
        if g.kind.startswith("live"):
            tags.append("Live Dealer")
            if g.name.endswith("Wheel Live") or "Drop Live" in g.name or "Flip" in g.name or "Goal" in g.name:
                tags.append("Game Show")
        if any(ch in g.name for ch in "éèçâà"):
            tags.append("French")
        g.tags = tags
    return pool


def membership(pool):
    """Category id -> pool games (all members), ordered by popularity, highest first."""
    def by_pop(games):
        return sorted(games, key=lambda g: (-g.popularity, g.gid))

    members = {
        "POPULAR": by_pop([g for g in pool if g.popular]),
        "NEW": by_pop([g for g in pool if g.is_new]),
        "VIDEOSLOTS": by_pop([g for g in pool if g.kind in ("slot", "megaways", "jackpot", "jackpot-megaways")]),
        "JACKPOTS": by_pop([g for g in pool if "jackpot" in g.kind]),
        "MEGAWAYS": by_pop([g for g in pool if "megaways" in g.kind]),
        "TABLEGAMES": by_pop([g for g in pool if g.kind in ("blackjack", "roulette", "table")]),
        "BLACKJACK": by_pop([g for g in pool if "blackjack" in g.kind]),
        "ROULETTE": by_pop([g for g in pool if "roulette" in g.kind]),
        "LIVECASINO": by_pop([g for g in pool if g.kind.startswith("live")]),
    }
    for cid, _, _, _, _ in CATEGORIES:
        for g in members.get(cid, []):
            g.categories.append(cid)
    return members


# ---------------------------------------------------------------------------------------------
# Recorded records per category: list of ("game", PoolGame) / ("invalid", dict), in page order.
# ---------------------------------------------------------------------------------------------


def recorded_records(members):
    out = {}
    for cid, _, _, total, pages in CATEGORIES:
        if total == 0:
            continue
        n = min(total, pages * PAGE_LIMIT)
        games = members[cid]
        records = [("game", g) for g in games]
        for inv in (INVALID_EMPTY_NAME, INVALID_HTTP):
            if inv["category"] == cid:
                records = records[: inv["position"]] + [("invalid", inv)] + records[inv["position"]:]
        if cid == "VIDEOSLOTS":
            # EDGE: duplicate across pages. The provider's popularity order shifted between the two
            # requests, so page 10 starts with the game that ended page 0.
            records = records[:PAGE_LIMIT] + [records[PAGE_LIMIT - 1]] + records[PAGE_LIMIT:]
        if total <= pages * PAGE_LIMIT:
            # Recorded completely: the pool holds exactly `total` members.
            assert len(records) == total, (cid, len(records), total)
        assert len(records) >= n, (cid, len(records), n)
        out[cid] = records[:n]
    return out


def assign_full(pool, records):
    """FULL_GAMES recorded games get the full field set, the rest the lean one.

    The documented example game (Lara Jones) is always full; the others are spread evenly over
    the games recorded only once (so a full record is rarely repeated across categories).
    """
    appearances = {}
    for cid in records:
        for kind, g in records[cid]:
            if kind == "game":
                appearances[g.index] = appearances.get(g.index, 0) + 1
    assert len(appearances) == len(pool), "every pool game must be recorded"
    pool[0].full = True
    singles = [g for g in pool if appearances[g.index] == 1 and g.index != 0]
    want = FULL_GAMES - 1
    for k in range(want):
        singles[k * len(singles) // want].full = True


def assign_quirks(pool, records):
    """Pick the quirk games among recorded games, by stride over pool order (deterministic)."""
    recorded = []
    for cid in records:
        for kind, g in records[cid]:
            if kind == "game" and g not in recorded:
                recorded.append(g)
    recorded.sort(key=lambda g: g.index)
    lara = pool[0]
    others = [g for g in recorded if g is not lara and g.name not in WHITESPACE_NAMES]
    full = [g for g in others if g.full]
    for j, g in enumerate(others):
        if j % 6 == 4:
            g.quirks.append("https-images")  # QUIRK_HTTPS_IMAGES
        if j % 7 == 1:
            g.quirks.append("html-description")  # QUIRK_HTML
        if j % 15 == 11:
            g.quirks.append("rtp-missing")  # QUIRK_RTP_MISSING
        elif j % 10 == 3:
            g.quirks.append("rtp-percent")  # QUIRK_RTP_PERCENT
        elif j % 10 == 7:
            g.quirks.append("rtp-string")  # QUIRK_RTP_STRING
        if j % 17 == 5:
            g.quirks.append("string-bools")  # QUIRK_STRING_BOOLS
        if j % 19 == 8:
            g.quirks.append("platform-string")  # QUIRK_PLATFORM_STRING
        if j % 23 == 13:
            g.quirks.append("vendor-href")  # QUIRK_VENDOR_HREF
        if j % 21 == 2:
            g.quirks.append("extra-fields")  # QUIRK_EXTRA_FIELDS
        if j % 16 == 9:
            g.quirks.append("no-background")  # QUIRK_NO_BACKGROUND
        if j % 12 == 6:
            g.quirks.append("no-description")  # QUIRK_NO_DESCRIPTION
    for k, g in enumerate(full):
        if k % 8 == 2:
            g.quirks.append("int-id")  # QUIRK_INT_ID (full games: they carry gId too)
    return recorded


# ---------------------------------------------------------------------------------------------
# Rendering provider JSON
# ---------------------------------------------------------------------------------------------


def image_url(g, role, ext="jpg"):
    """QUIRK: protocol-relative by default; absolute https for games with "https-images"."""
    digest = hashlib.sha256(f"{g.gid}/{role}".encode()).hexdigest().upper()
    scheme = "https:" if "https-images" in g.quirks else ""
    return f"{scheme}//{CDN}/cms2/base/_casino/{digest[0]}/{digest[1:9]}.{ext}"


def vendor_object(vid, expanded=True):
    name, display, short, top = VENDORS[vid]
    href = f"{BASE}/v1/casino/vendors/{vid}"
    if not expanded:
        return {"href": href}
    return {
        "href": href,
        "id": vid,
        "name": name,
        "displayName": display,
        "image": f"//{CDN}/vendors/{short}.png",
        "logo": f"//{CDN}/vendors/{short}.svg",
        "isTopVendor": top,
    }


def href_envelope(hrefs):
    # Nested envelopes hold one page; the provider leaves their page links null.
    n = len(hrefs)
    return {"count": n, "total": n, "items": [{"href": h} for h in hrefs],
            "pages": {"first": None, "next": None, "previous": None, "last": None}}


KIND_TEXT = {
    "slot": ("video slot", "une machine à sous"),
    "megaways": ("Megaways slot", "une machine à sous Megaways"),
    "jackpot": ("progressive jackpot slot", "une machine à sous à jackpot progressif"),
    "jackpot-megaways": ("Megaways jackpot slot", "une machine à sous Megaways à jackpot"),
    "blackjack": ("blackjack table", "une table de blackjack"),
    "roulette": ("roulette wheel", "une roulette"),
    "table": ("table game", "un jeu de table"),
    "live-blackjack": ("live blackjack table", "une table de blackjack en direct"),
    "live-roulette": ("live roulette studio", "une roulette en direct"),
    "live-other": ("live studio game", "un jeu en direct"),
}


def description(g, lang):
    if g.index == 0:
        return LARA_DESCRIPTION[lang]
    vendor = VENDORS[g.vendor][0]
    en_kind, fr_kind = KIND_TEXT[g.kind]
    feature = g.tags[1] if len(g.tags) > 1 else g.tags[0]
    if "html-description" in g.quirks:
        # QUIRK: HTML tags and entities in the description.
        if lang == "en":
            return (f"<p><b>{xml_escape(g.name)}</b> is a {en_kind} by {xml_escape(vendor)}.</p>"
                    f"<p>Features: {xml_escape(feature)} &amp; more &ndash; play now!</p>")
        return (f"<p><b>{xml_escape(g.name)}</b> est {fr_kind} de {xml_escape(vendor)}.</p>"
                f"<p>Fonctionnalités&nbsp;: {xml_escape(feature)} &amp; plus encore&nbsp;!</p>")
    if lang == "en":
        return f"A {en_kind} by {vendor}: {feature}."
    return f"{fr_kind[0].upper()}{fr_kind[1:]} de {vendor} : {feature}."


def rtp_value(g):
    """QUIRK: RTP as a fraction (most), a percent number, a string, or absent (None)."""
    if "rtp-missing" in g.quirks:
        return None
    if "rtp-percent" in g.quirks:
        return g.rtp_bp / 100
    if "rtp-string" in g.quirks:
        return f"{g.rtp_bp / 100:g}"
    return g.rtp_bp / 10000


def boolean(g, value):
    """QUIRK: booleans as "0"/"1" strings for games with "string-bools"."""
    if "string-bools" in g.quirks:
        return "1" if value else "0"
    return value


def platforms(g):
    plats = ["iPhone", "Android", "iPad"] if g.kind.startswith("live") else ["PC", "iPhone", "Android", "iPad"]
    if "platform-string" in g.quirks:
        return "iPhone,Android,iPad"  # QUIRK: one comma-separated string
    return plats


def game_item(g, lang):
    gid_str = str(g.gid)
    href = f"{BASE}/v1/casino/games/{gid_str}"
    name = WHITESPACE_NAMES.get(g.name, g.name)
    desc = None if "no-description" in g.quirks else description(g, lang)
    rtp = rtp_value(g)
    tag_hrefs = [f"{BASE}/v1/casino/tags/{urllib.parse.quote(t, safe='')}" for t in g.tags]
    vendor = vendor_object(g.vendor, expanded="vendor-href" not in g.quirks)
    item = {}
    if not g.full:
        # Lean record: the fields the lobby needs, in the provider's order.
        item["id"] = gid_str
        item["slug"] = g.slug
        item["name"] = name
        if desc is not None:
            item["description"] = desc
        item["launchUrl"] = f"{LAUNCH}/{g.slug}"
        item["thumbnail"] = image_url(g, "thumb")
        if "no-background" not in g.quirks:
            item["backgroundImageUrl"] = image_url(g, "bg")
        item["hasFunMode"] = boolean(g, g.has_fun)
        item["hasAnonymousFunMode"] = boolean(g, g.has_anon_fun)
        item["popularity"] = g.popularity
        item["isNew"] = boolean(g, g.is_new)
        item["vendor"] = vendor
        item["tags"] = href_envelope(tag_hrefs)
        if rtp is not None:
            item["theoreticalPayOut"] = rtp
        item["platform"] = platforms(g)
        if "extra-fields" in g.quirks:
            item["experimentalFlags"] = {"newTileLayout": True, "abBucket": "B"}  # QUIRK: unknown field
        return item

    item["href"] = href
    item["id"] = g.gid if "int-id" in g.quirks else gid_str  # QUIRK: int id
    item["gId"] = g.gid
    item["gameCode"] = VENDORS[g.vendor][2] + "_" + g.slug.rsplit("-", 1)[0].replace("-", "_")
    item["slug"] = g.slug
    item["name"] = name
    if desc is not None:
        item["description"] = desc
    item["launchUrl"] = f"{LAUNCH}/{g.slug}"
    item["thumbnail"] = image_url(g, "thumb")
    item["defaultThumbnail"] = image_url(g, "default", "png")
    if "no-background" not in g.quirks:
        item["backgroundImageUrl"] = image_url(g, "bg")
    item["logo"] = image_url(g, "logo", "png")
    item["icons"] = {"44": image_url(g, "icon44", "png"), "114": image_url(g, "icon114", "png")}
    item["width"] = g.width
    item["height"] = g.height
    item["hasFunMode"] = boolean(g, g.has_fun)
    item["hasAnonymousFunMode"] = boolean(g, g.has_anon_fun)
    item["realMode"] = {"fun": boolean(g, g.has_fun), "anonymity": boolean(g, g.has_anon_fun),
                        "realMoney": boolean(g, True)}
    item["popularity"] = g.popularity
    item["isNew"] = boolean(g, g.is_new)
    item["promo"] = {"effective": False}
    item["exclusive"] = {"effective": g.index % 9 == 0}
    item["vendor"] = vendor
    item["subVendor"] = VENDORS[g.vendor][0]
    item["type"] = "casino-games"
    if "extra-fields" in g.quirks:
        item["experimentalFlags"] = {"newTileLayout": True, "abBucket": "B"}  # QUIRK: unknown field
        item["_trace"] = "edge-7f3a"  # QUIRK: unknown field
    item["advancedTags"] = [slugify(t).replace("-", "") for t in g.tags]
    item["tags"] = href_envelope(tag_hrefs)
    item["categories"] = href_envelope([f"{BASE}/v1/casino/categories/{c}" for c in g.categories])
    item["jackpots"] = href_envelope([f"{BASE}/v1/casino/jackpots/{urllib.parse.quote(j, safe='')}"
                                                        for j in g.jackpot_names])
    if rtp is not None:
        item["theoreticalPayOut"] = rtp
    item["platform"] = platforms(g)
    item["languages"] = ["en", "fr"]
    item["currencies"] = ["EUR", "CAD"]
    item["license"] = "Malta"
    item["restrictedTerritories"] = g.territories  # QUIRK: subdivisions like "CA-ON"
    item["maxBetRestriction"] = {"defaultMaxBet": {"EUR": 100 if g.kind.startswith("live") else 20},
                                 "defaultMaxWin": {"EUR": 250000},
                                 "defaultMaxMultiplier": 5000}
    return item


def invalid_item(inv, popularity):
    """EDGE: a lean record the normalizer must drop (empty name / non-https launchUrl)."""
    return {
        "id": inv["id"],
        "slug": inv["slug"],
        "name": inv["name"],
        "launchUrl": inv.get("launchUrl", f"{LAUNCH}/{inv['slug']}"),
        "thumbnail": f"//{CDN}/cms2/base/_casino/0/{inv['id']}00A.jpg",
        "hasFunMode": True,
        "hasAnonymousFunMode": False,
        "popularity": popularity,
        "isNew": inv["category"] == "NEW",
        "vendor": vendor_object(inv["vendor"]),
        "tags": href_envelope([]),
        "platform": ["iPhone", "Android"],
    }


def games_url(lang, cid, offset, limit=PAGE_LIMIT):
    return (f"{BASE}/v1/casino/games?language={lang}&platform=iPhone&pagination=offset={offset},limit={limit}"
            f"&expand=vendor&filter=categories(id={cid})&sortedField=popularity")


def page_links(lang, cid, offset, total):
    last = ((total - 1) // PAGE_LIMIT) * PAGE_LIMIT
    return {
        "first": games_url(lang, cid, 0),
        "next": games_url(lang, cid, offset + PAGE_LIMIT) if offset + PAGE_LIMIT < total else None,
        "previous": games_url(lang, cid, max(0, offset - PAGE_LIMIT)) if offset > 0 else None,
        "last": games_url(lang, cid, last),
    }


def categories_response(lang):
    url = (f"{BASE}/v1/casino/categories?language={lang}&platform=iPhone"
           f"&pagination=offset=0,games(offset=0,limit=0)&fields=id,name,href,games")
    items = []
    for cid, en, fr, total, _ in CATEGORIES:
        nested = (f"{BASE}/v1/casino/games?language={lang}&platform=iPhone&pagination=offset=0,limit=0"
                  f"&filter=categories(id={cid})") if total else None
        items.append({
            "href": f"{BASE}/v1/casino/categories/{cid}",
            "id": cid,
            "name": en if lang == "en" else fr,
            "games": {"count": 0, "total": total, "items": [],
                      "pages": {"first": nested, "next": None, "previous": None, "last": nested}},
        })
    return {"count": len(items), "total": len(items), "items": items,
            "pages": {"first": url, "next": None, "previous": None, "last": url}}


def dump_json(path, obj, sort_keys=False):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps(obj, indent=2, ensure_ascii=False, sort_keys=sort_keys) + "\n")


def write_provider(out, pool, records):
    prov = os.path.join(out, "provider")
    dump_json(os.path.join(prov, "recording.json"),
              {"baseURL": BASE, "fetchedAt": FETCHED_AT, "editions": EDITIONS, "pageLimit": PAGE_LIMIT},
              sort_keys=True)
    written = []  # (edition, cid, dir, offset, items)
    for edition in EDITIONS:
        lang = edition.split("-")[0]
        dump_json(os.path.join(prov, edition, "categories.json"), categories_response(lang))
        for cid, _, _, total, _ in CATEGORIES:
            if total == 0:
                continue
            recs = records[cid]
            d = category_dir(cid)
            for offset in range(0, len(recs), PAGE_LIMIT):
                chunk = recs[offset: offset + PAGE_LIMIT]
                items = []
                for pos, (kind, x) in enumerate(chunk):
                    if kind == "game":
                        items.append(game_item(x, lang))
                    else:
                        # popularity between its neighbours, so the page stays sorted
                        absolute = offset + pos
                        before = recs[absolute - 1][1].popularity
                        after = recs[absolute + 1][1].popularity if absolute + 1 < len(recs) else before - 1
                        items.append(invalid_item(x, round((before + after) / 2, 2)))
                body = {"count": len(items), "total": total, "items": items,
                        "pages": page_links(lang, cid, offset, total)}
                dump_json(os.path.join(prov, edition, "games", d, f"{offset}.json"), body)
                written.append((edition, cid, d, offset, items))
    return written


# ---------------------------------------------------------------------------------------------
# XML feed
# ---------------------------------------------------------------------------------------------

FEED_CATEGORIES = [  # id, en, fr; TOURNAMENTS has no game referencing it
    ("VIDEOSLOTS", "Video Slots", "Machines à sous"),
    ("JACKPOTS", "Jackpots", "Jackpots"),
    ("NEW", "New Games", "Nouveautés"),
    ("TABLEGAMES", "Table Games", "Jeux de table"),
    ("LIVECASINO", "Live Casino", "Casino en direct"),
    ("TOURNAMENTS", "Tournaments", "Tournois"),
]


def attr(text):
    return xml_escape(str(text), {'"': "&quot;"})


def write_feed(out, pool):
    # 40 games: 16 slots (incl. the French-named ones), 6 jackpot slots, 8 RNG table, 10 live.
    def pick(kinds, count, must=()):
        chosen = [g for g in pool if g.name in must]
        for g in pool:
            if len(chosen) >= count:
                break
            if g.kind in kinds and g not in chosen and g.index % 2 == 0:
                chosen.append(g)
        for g in pool:  # top up with odd indices if needed
            if len(chosen) >= count:
                break
            if g.kind in kinds and g not in chosen:
                chosen.append(g)
        return chosen

    games = (pick(("slot", "megaways"), 16, must=("Château Fortune", "Le Bandit Doré"))
             + pick(("jackpot", "jackpot-megaways"), 6)
             + pick(("blackjack", "roulette", "table"), 8, must=("Crème de la Crème Roulette",))
             + pick(("live-blackjack", "live-roulette", "live-other"), 10, must=("Salon Privé Blackjack",)))
    assert len(games) == 40 and len({g.gid for g in games}) == 40
    games.sort(key=lambda g: g.index)

    cats = {}
    for g in games:
        cs = []
        if g.kind in ("slot", "megaways", "jackpot", "jackpot-megaways"):
            cs.append("VIDEOSLOTS")
        if "jackpot" in g.kind:
            cs.append("JACKPOTS")
        if g.kind in ("blackjack", "roulette", "table"):
            cs.append("TABLEGAMES")
        if g.kind.startswith("live"):
            cs.append("LIVECASINO")
        if g.is_new or g.index % 11 == 1:
            cs.append("NEW")
        cats[g.gid] = cs[:3]
    positions = {}
    for cid, _, _ in FEED_CATEGORIES:
        members = sorted([g for g in games if cid in cats[g.gid]], key=lambda g: (-g.popularity, g.gid))
        for p, g in enumerate(members, start=1):
            positions[(g.gid, cid)] = p

    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<feed provider="acme" generated="{FETCHED_AT}" version="1">', "  <categories>"]
    for pos, (cid, en, fr) in enumerate(FEED_CATEGORIES, start=1):
        lines.append(f'    <category id="{attr(cid)}" position="{pos}">')
        lines.append(f'      <name lang="en">{xml_escape(en)}</name><name lang="fr">{xml_escape(fr)}</name>')
        lines.append("    </category>")
    lines += ["  </categories>", "  <games>"]
    for g in games:
        tf = lambda b: "true" if b else "false"
        lines.append(f'    <game id="{g.gid}" slug="{attr(g.slug)}" isNew="{tf(g.is_new)}" '
                     f'funMode="{tf(g.has_fun)}" anonymousFunMode="{tf(g.has_anon_fun)}">')
        lines.append(f"      <name>{xml_escape(g.name)}</name>")
        lines.append(f'      <vendor id="{g.vendor}">{xml_escape(VENDORS[g.vendor][0])}</vendor>')
        desc = LARA_DESCRIPTION["en"] if g.index == 0 else (
            f"<p><b>{xml_escape(g.name)}</b> is a {KIND_TEXT[g.kind][0]} &amp; a lobby favourite.</p>"
            if g.index % 2 == 0 else f"<p>{xml_escape(g.name)} — {KIND_TEXT[g.kind][1]} très apprécié(e).</p>")
        assert "]]>" not in desc
        lines.append(f"      <description><![CDATA[{desc}]]></description>")
        lines.append(f"      <thumbnail>{xml_escape(image_url(g, 'thumb'))}</thumbnail>")
        lines.append(f"      <background>{xml_escape(image_url(g, 'bg'))}</background>")
        lines.append(f"      <launchUrl>{xml_escape(LAUNCH + '/' + g.slug)}</launchUrl>")
        plats = ["iPhone", "Android", "iPad"] if g.kind.startswith("live") else ["iPhone", "Android", "iPad", "PC"]
        lines.append("      <platforms>" + "".join(f"<platform>{p}</platform>" for p in plats) + "</platforms>")
        lines.append("      <categories>" + "".join(
            f'<category ref="{c}" position="{positions[(g.gid, c)]}"/>' for c in cats[g.gid]) + "</categories>")
        lines.append(f"      <popularity>{g.popularity}</popularity><rtp>{g.rtp_bp / 100}</rtp>")
        lines.append("      <tags>" + "".join(f"<tag>{xml_escape(t)}</tag>" for t in g.tags) + "</tags>")
        lines.append(f"      <restrictedTerritories>{' '.join(g.territories)}</restrictedTerritories>")
        lines.append("    </game>")
    lines += ["  </games>", "</feed>"]
    path = os.path.join(out, "feed", "acme-feed.xml")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    return games, cats


# ---------------------------------------------------------------------------------------------
# README (generated, so the quirk locations it lists are always the real ones)
# ---------------------------------------------------------------------------------------------

QUIRK_DETECTORS = [
    ("protocol-relative image URLs (`//static.example-cdn.com/...`)",
     lambda it: str(it.get("thumbnail", "")).startswith("//")),
    ("absolute https image URLs", lambda it: str(it.get("thumbnail", "")).startswith("https://")),
    ("description with HTML tags and entities", lambda it: "<" in str(it.get("description", ""))),
    ("theoreticalPayOut as a fraction (`0.9646`)",
     lambda it: isinstance(it.get("theoreticalPayOut"), float) and it["theoreticalPayOut"] <= 1),
    ("theoreticalPayOut as a percent number (`96.21`)",
     lambda it: isinstance(it.get("theoreticalPayOut"), float) and it["theoreticalPayOut"] > 1),
    ("theoreticalPayOut as a string (`\"96.5\"`)", lambda it: isinstance(it.get("theoreticalPayOut"), str)),
    ("theoreticalPayOut missing", lambda it: "theoreticalPayOut" not in it),
    ("booleans as `\"0\"`/`\"1\"` strings", lambda it: isinstance(it.get("hasFunMode"), str)),
    ("`id` as an int", lambda it: isinstance(it.get("id"), int)),
    ("`platform` as one comma-separated string", lambda it: isinstance(it.get("platform"), str)),
    ("vendor unexpanded (`{\"href\"}` only)", lambda it: list(it.get("vendor", {}).keys()) == ["href"]),
    ("unknown extra fields (`experimentalFlags`, `_trace`)", lambda it: "experimentalFlags" in it),
    ("no `backgroundImageUrl`", lambda it: "backgroundImageUrl" not in it),
    ("no `description`", lambda it: "description" not in it),
    ("`restrictedTerritories` with subdivisions (`CA-ON`, `US-NJ`, ...)",
     lambda it: any("-" in t for t in it.get("restrictedTerritories", []))),
    ("name with surrounding whitespace",
     lambda it: isinstance(it.get("name"), str) and it["name"] and it["name"] != it["name"].strip()),
    ("full field set (href, gId, icons, realMode, categories, jackpots, maxBetRestriction, ...)",
     lambda it: "gId" in it),
    ("lean field set", lambda it: "gId" not in it),
]

INVALID_IDS = [INVALID_EMPTY_NAME["id"], INVALID_HTTP["id"]]


def quirk_index(written):
    """quirk -> [(game id, first file)] over en-iPhone (fr-iPhone has the same games)."""
    result = []
    for label, detect in QUIRK_DETECTORS:
        hits = []
        seen = []
        for edition, cid, d, offset, items in written:
            if edition != "en-iPhone":
                continue
            for it in items:
                gid = str(it.get("id"))
                if gid in INVALID_IDS or gid in seen:
                    continue
                if detect(it):
                    seen.append(gid)
                    hits.append((gid, f"provider/en-iPhone/games/{d}/{offset}.json"))
        result.append((label, hits))
    return result


def write_readme(out, pool, records, written, feed_games, feed_cats):
    L = []
    L.append("# Embedded default data")
    L.append("")
    L.append("Synthesized by `Scripts/make-default-data.py` (deterministic, stdlib only; regenerate with")
    L.append("`python3 Scripts/make-default-data.py`) **in the shape of recorded responses** of an")
    L.append("EveryMatrix-style casino API (see docs/PROVIDER_API.md). Nothing was fetched from a real server;")
    L.append("every game, id and URL is invented. Do not edit by hand: change the script and rerun it.")
    L.append("")
    L.append("## Layout")
    L.append("")
    L.append("```")
    L.append("data/")
    L.append("  provider/")
    L.append("    recording.json                 baseURL, fetchedAt, editions, pageLimit (keys sorted)")
    L.append("    <edition>/categories.json      GET /v1/casino/categories?language=<lang>&platform=iPhone")
    L.append("                                       &pagination=offset=0,games(offset=0,limit=0)&fields=id,name,href,games")
    L.append("    <edition>/games/<DIR>/<offset>.json")
    L.append("                                   GET /v1/casino/games?language=<lang>&platform=iPhone")
    L.append("                                       &pagination=offset=<offset>,limit=10&expand=vendor")
    L.append("                                       &filter=categories(id=<C>)&sortedField=popularity")
    L.append("  feed/acme-feed.xml               the XML game feed (second source format)")
    L.append("```")
    L.append("")
    L.append(f"Editions: {', '.join(EDITIONS)}. `<offset>` is 0, 10, 20 ... (decimal, no padding). Each file is")
    L.append("the verbatim response body: a collection envelope `{count, total, items, pages{first, next,")
    L.append("previous, last}}`; `count` is the length of `items`, `total` equals the category's")
    L.append("`games.total` in categories.json, `pages.next` is null on the last page.")
    L.append("Categories with `games.total == 0` have no games directory.")
    L.append("")
    L.append("### The DIR rule")
    L.append("")
    L.append("Take the category id, lowercase ASCII letters (A-Z only), keep `a-z0-9`, replace every run of")
    L.append("other characters by one `_`, strip leading/trailing `_`, cut to 40 characters (then strip a")
    L.append("trailing `_` again), use `id` if that leaves nothing; then append `-` and the first 10 hex")
    L.append("characters of sha256 over the id's UTF-8 bytes. The Swift code uses the same rule.")
    L.append("")
    L.append("## Categories (same ids, totals and games in both editions)")
    L.append("")
    L.append("| # | id | en name | fr name (JSON-escaped) | games.total | DIR | recorded pages (records) |")
    L.append("|---|----|---------|------------------------|-------------|-----|--------------------------|")
    for i, (cid, en, fr, total, pages) in enumerate(CATEGORIES, start=1):
        if total:
            n = len(records[cid])
            offs = ", ".join(str(o) for o in range(0, n, PAGE_LIMIT))
            last_count = n - ((n - 1) // PAGE_LIMIT) * PAGE_LIMIT
            complete = " complete" if n == total else ""
            rec = f"{offs} ({n}; last page {last_count}){complete}"
            dirname = f"`{category_dir(cid)}`"
        else:
            rec, dirname = "none (empty, not fetched)", "-"
        L.append(f"| {i} | {cid} | {en} | `{json.dumps(fr, ensure_ascii=True)}` | {total} | {dirname} | {rec} |")
    L.append("")
    L.append("fr-iPhone quirks in categories.json: `NEW` is written decomposed (`e` + U+0301,")
    L.append("\"Nouveaute\\u0301s\"), `ROULETTE` is `\" Roulette  \"` (leading/trailing spaces).")
    L.append("")
    distinct = [g for g in pool if any(g is x for c in records for k, x in records[c] if k == "game")]
    L.append(f"Game pool: {len(pool)} invented games, {len(distinct)} of them recorded; a game can be in several")
    L.append("categories (the same record everywhere, e.g. Lara Jones is Cleopatra in POPULAR and VIDEOSLOTS).")
    L.append(f"{FULL_GAMES} games carry the full field set (Lara Jones plus games spread over those recorded only")
    L.append("once); the rest are lean (id, slug, name, description, launchUrl, thumbnail, backgroundImageUrl,")
    L.append("hasFunMode, hasAnonymousFunMode, popularity, isNew, vendor, tags, theoreticalPayOut, platform).")
    L.append("Full records are about 2.5 times the size of lean ones, so more of them would not fit the")
    L.append("700 KB budget of data/ (its 25 directories alone count 100 KB in `du -sb` on ext4).")
    L.append("fr-iPhone differs from en-iPhone only in category names, descriptions and `language=fr` links.")
    L.append("")
    L.append("## Edge records (the normalizer must drop them)")
    L.append("")
    vd = category_dir("VIDEOSLOTS")
    dup = records["VIDEOSLOTS"][PAGE_LIMIT - 1][1]
    L.append(f"- Duplicate across pages: VIDEOSLOTS game `{dup.gid}` ({dup.name.strip()}) is the last item of")
    L.append(f"  `games/{vd}/0.json` and again the first item of `games/{vd}/10.json`; keep the first.")
    for label, inv in (("Empty name", INVALID_EMPTY_NAME),
                       ("Non-https launchUrl (`http://insecure.example.com/x`)", INVALID_HTTP)):
        c = inv["category"]
        page = inv["position"] // PAGE_LIMIT * PAGE_LIMIT
        L.append(f"- {label}: {c} record `{inv['id']}` in `games/{category_dir(c)}/{page}.json`"
                 f" (1 of {len(records[c])} records).")
    L.append("")
    L.append("All in both editions.")
    L.append("")
    L.append("## Where the quirks are")
    L.append("")
    L.append("Game id and the first en-iPhone file it appears in (the same games carry the same quirks in")
    L.append("fr-iPhone and in every other category they appear in). Paths are relative to data/.")
    L.append("")
    for label, hits in quirk_index(written):
        L.append(f"- {label}: {len(hits)} game(s)")
        shown = hits if len(hits) <= 8 else hits[:4]
        for gid, f in shown:
            L.append(f"  - `{gid}` in `{f}`")
        if len(hits) > len(shown):
            L.append(f"  - ... and {len(hits) - len(shown)} more")
    L.append("")
    L.append("## The XML feed (`feed/acme-feed.xml`)")
    L.append("")
    used = [c for c, _, _ in FEED_CATEGORIES if any(c in cats for cats in feed_cats.values())]
    unused = [c for c, _, _ in FEED_CATEGORIES if c not in used]
    L.append(f"Format of docs/PROVIDER_API.md's \"XML game feed\": UTF-8, no DOCTYPE, root")
    L.append(f"`<feed provider=\"acme\" generated=\"{FETCHED_AT}\" version=\"1\">`. {len(FEED_CATEGORIES)} categories"
             f" with en/fr names ({', '.join(unused)} has no game referencing it), {len(feed_games)} games, each in")
    L.append("1-3 categories with its position there; descriptions are CDATA holding HTML; image URLs are")
    L.append("protocol-relative or https like the JSON's; `rtp` is a percent; `restrictedTerritories` is")
    L.append("space-separated and includes subdivisions. French characters appear in category names,")
    L.append("game names (Château Fortune, Le Bandit Doré, ...) and descriptions.")
    L.append("")
    with open(os.path.join(out, "README.md"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(L) + "\n")


def main(argv):
    out = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
    if len(argv) == 3 and argv[1] == "--out":
        out = argv[2]
    elif len(argv) != 1:
        sys.stderr.write("usage: make-default-data.py [--out DIR]\n")
        return 2
    for sub in ("provider", "feed"):  # only what this script owns
        shutil.rmtree(os.path.join(out, sub), ignore_errors=True)
    os.makedirs(out, exist_ok=True)

    rng = random.Random(SEED)
    pool = build_pool(rng)
    members = membership(pool)
    records = recorded_records(members)
    assign_full(pool, records)
    assign_quirks(pool, records)
    written = write_provider(out, pool, records)
    feed_games, feed_cats = write_feed(out, pool)
    write_readme(out, pool, records, written, feed_games, feed_cats)
    print(f"wrote {len(written)} games pages, categories for {len(EDITIONS)} editions, "
          f"feed with {len(feed_games)} games -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
