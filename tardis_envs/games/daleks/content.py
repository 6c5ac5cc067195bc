"""Time of the Daleks components: YAML data -> validated :class:`Content` -> integer tables.

The files under ``content/`` (schema: ``content/SCHEMA.md``) hold every card of the
base game: Doctors, Earth and Alien Companions, Timey-Wimey cards, Location tiles,
Earth's Time Zones, Dilemmas and Time Anomalies. Each row says where its effect comes
from (``rulebook``, ``publisher`` or ``designed``). :func:`load_content` parses and
validates them once; every problem is a ``ValueError`` naming the file, the card and
the field. :func:`build_tables` packs content and rule options into the one ``int64``
table the kernels read (offsets ``T_*`` and record fields below).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from ...core.options import read_yaml

CONTENT_DIR = Path(__file__).parent / "content"

SYMBOLS = ("running", "cunning", "diplomacy", "tactics", "science", "strength")
COLOURS = ("black", "green", "blue", "red")
BLACK, GREEN, BLUE, RED = range(4)
NUM_SYMBOLS = len(SYMBOLS)
NUM_COLOURS = len(COLOURS)
# Story dice faces (the rulebook's dice reference): six faces per colour, as symbol indices.
DIE_FACES = np.array(
    [
        [0, 1, 2, 3, 4, 5],  # black: one of each
        [0, 0, 0, 2, 2, 3],  # green: running x3, diplomacy x2, tactics
        [4, 4, 4, 1, 1, 2],  # blue: science x3, cunning x2, diplomacy
        [5, 5, 5, 3, 3, 4],  # red: strength x3, tactics x2, science
    ],
    dtype=np.int64,
)
DICE_SUPPLY = np.array([8, 3, 3, 3], dtype=np.int64)  # physical dice of each colour

NUM_DOCTORS = 4
NUM_COMPANIONS = 27
NUM_EARTH_COMPANIONS = 15
NUM_CARDS = 30
NUM_LOCATIONS = 20
NUM_DILEMMAS = 25
NUM_ANOMALIES = 8
NUM_EARTH_ZONES = 3
NUM_ZONES = NUM_EARTH_ZONES + 2 * NUM_LOCATIONS
MAX_ABILITIES = 192
MAX_EFFECTS = 4  # effects in one reward / fail option / instant anomaly
MAX_FAIL_OPTIONS = 2
ORIGINS = ("rulebook", "publisher", "designed")

# --- the closed vocabulary of effects ---------------------------------------------
EFFECTS = (
    "none",
    "add_die",
    "focus",
    "reroll",
    "change_face",
    "gain_sonic",
    "draw",
    "move_tardis",
    "move_ship",
    "remove_dalek",
    "place_dalek",
    "lose_sonic",
    "discard_cards",
    "discard_companion",
    "dismiss_companion",
    "free_die",
    "progress",
    "regenerate",
    "trade_equipment",
    "swap_random_card",
    "first_doctor_travel",
    "equipment_discount",
)
(
    E_NONE,
    E_ADD_DIE,
    E_FOCUS,
    E_REROLL,
    E_CHANGE_FACE,
    E_GAIN_SONIC,
    E_DRAW,
    E_MOVE_TARDIS,
    E_MOVE_SHIP,
    E_REMOVE_DALEK,
    E_PLACE_DALEK,
    E_LOSE_SONIC,
    E_DISCARD_CARDS,
    E_DISCARD_COMPANION,
    E_DISMISS_COMPANION,
    E_FREE_DIE,
    E_PROGRESS,
    E_REGENERATE,
    E_TRADE_EQUIPMENT,
    E_SWAP_RANDOM_CARD,
    E_FIRST_DOCTOR_TRAVEL,
    E_EQUIPMENT_DISCOUNT,
) = range(len(EFFECTS))
# Effects a card may use on its own (abilities), by the moment they act.
DICE_EFFECTS = ("add_die", "focus", "reroll", "change_face")
INSTANT_EFFECTS = ("gain_sonic", "draw", "move_tardis", "move_ship", "remove_dalek", "free_die", "progress")
SPECIAL_EFFECTS = ("trade_equipment", "swap_random_card", "first_doctor_travel", "equipment_discount")
OUTCOME_EFFECTS = (
    "gain_sonic",
    "draw",
    "move_tardis",
    "move_ship",
    "remove_dalek",
    "place_dalek",
    "lose_sonic",
    "discard_cards",
    "discard_companion",
    "dismiss_companion",
    "free_die",
    "progress",
    "regenerate",
)

TIMINGS = ("passive", "prepare", "adventure", "any_adventure", "anytime", "travel")
TM_PASSIVE, TM_PREPARE, TM_ADVENTURE, TM_ANY_ADVENTURE, TM_ANYTIME, TM_TRAVEL = range(len(TIMINGS))
CARD_TYPES = ("equipment", "event", "transfer")
CT_EQUIPMENT, CT_EVENT, CT_TRANSFER = range(3)
OWNER_KINDS = ("doctor", "companion", "card")
OWN_DOCTOR, OWN_COMPANION, OWN_CARD = range(3)
REROLL_MODES = ("number", "any", "all")
RM_NUMBER, RM_ANY, RM_ALL = range(3)
# Effect colours: the four dice colours, plus
COLOUR_ANY = 4  # "any": the player picks (expanded into alternatives) / any die
COLOUR_COLOURED = 5  # green, blue or red
EFFECT_COLOURS = COLOURS + ("any", "coloured")
CONDITIONS = ("fixed_point", "time_locked", "time_breach")
COND_FIXED_POINT, COND_TIME_LOCKED, COND_TIME_BREACH = 1, 2, 4
ANOMALY_KINDS = ("location", "task", "instant")
AK_LOCATION, AK_TASK, AK_INSTANT = range(3)
ONGOING = ("none", "extra_ship", "time_breach", "fixed_point", "time_locked")
PLACES = ("here", "earth")
# Who an instant Time Anomaly's effect acts for: once for the table (a marker placed, the
# Doctors' regeneration) or once for each Doctor ("Each Doctor must ..."). Effects that act on
# a Doctor's own things (Sonic, hand, Companions, TARDIS) only make sense for each Doctor; a
# regeneration or a Task step happens once whatever the number of Doctors.
WHO = ("once", "each_doctor")
EACH_DOCTOR_ONLY = ("gain_sonic", "lose_sonic", "draw", "move_tardis", "discard_cards", "discard_companion", "dismiss_companion")
ONCE_ONLY = ("regenerate", "free_die", "progress")

# --- table layout ----------------------------------------------------------------
T_NUM_PLAYERS = 0
T_TRACK = 1  # index of Gallifrey (Skaro is 0)
T_FIRST_GAME = 2
T_MAX_ROUNDS = 3
T_TARDIS_FACES = 4  # TARDIS faces of the six-sided TARDIS die
T_NUM_ABILITIES = 5
T_EARTH_SPACE = 6
T_SEAT_DOCTOR = 8  # 4: doctor card of each seat at the start
T_MARKERS = 12  # 5: Time Anomaly marker spaces (-1 none)
T_DOCTORS = 20
DOCTOR_DICE = 0  # 4 colours
DOCTOR_LINKED = 4
DOCTOR_REGENERATION = 5
DOCTOR_FIRST_TRAVEL = 6
DOCTOR_DISCOUNT = 7
DOCTOR_FIELDS = 8
T_COMPANIONS = T_DOCTORS + NUM_DOCTORS * DOCTOR_FIELDS
COMPANION_DECK = 0  # 0 earth, 1 alien
COMPANION_DICE = 1  # 4
COMPANION_LINKS = 5  # bitmask over companions (groups expanded)
COMPANION_FIELDS = 6
T_CARDS = T_COMPANIONS + NUM_COMPANIONS * COMPANION_FIELDS
CARD_TYPE = 0
CARD_COST = 1
CARD_TIMING = 2
CARD_DICE = 3  # 4: passive add_die of an installed Equipment card
CARD_ACTIVE = 7  # 1 if it has an ability row (an effect that is used, not passive)
CARD_FIELDS = 8
T_ABILITIES = T_CARDS + NUM_CARDS * CARD_FIELDS
ABILITY_OWNER_KIND = 0
ABILITY_OWNER = 1
ABILITY_TIMING = 2
ABILITY_EFFECT = 3
ABILITY_COLOUR = 4
ABILITY_COUNT = 5
ABILITY_MODE = 6
ABILITY_SYMBOL = 7
ABILITY_COST = 8
ABILITY_WITH_DOCTOR = 9  # doctor card id or -1
ABILITY_GROUP = 10  # row whose used-flag this row shares (alternatives)
ABILITY_EFFECT2 = 11  # a second, instant effect of the same card (or E_NONE)
ABILITY_COUNT2 = 12
ABILITY_FIELDS = 13
T_ZONES = T_ABILITIES + MAX_ABILITIES * ABILITY_FIELDS
Z_CHALLENGE = 0  # 6 symbol counts
Z_REWARD = 6  # MAX_EFFECTS x (effect, count)
ZONE_FIELDS = Z_REWARD + 2 * MAX_EFFECTS
T_LOCATION_LINKS = T_ZONES + NUM_ZONES * ZONE_FIELDS  # 20 bitmasks
T_DILEMMAS = T_LOCATION_LINKS + NUM_LOCATIONS
DL_CHALLENGE = 0
DL_CONDITIONS = 6
DL_ADVANCED = 7
DL_LINKS = 8
DL_NUM_OPTIONS = 9
DL_OPTIONS = 10  # MAX_FAIL_OPTIONS x MAX_EFFECTS x (effect, count)
DILEMMA_FIELDS = DL_OPTIONS + MAX_FAIL_OPTIONS * MAX_EFFECTS * 2
T_ANOMALIES = T_DILEMMAS + NUM_DILEMMAS * DILEMMA_FIELDS
AN_KIND = 0
AN_ADVANCED = 1
AN_CONDITIONS = 2
AN_CHALLENGE = 3  # 6
AN_REWARD = 9  # MAX_EFFECTS x 2
AN_FAIL = AN_REWARD + 2 * MAX_EFFECTS
AN_EFFECTS = AN_FAIL + 2 * MAX_EFFECTS  # instant effects, MAX_EFFECTS x 2
AN_TRAVEL_TAX = AN_EFFECTS + 2 * MAX_EFFECTS  # 1: moving to a non-anomaly Location costs 2 Sonic or a card
AN_IMPRISON_COLOUR = AN_TRAVEL_TAX + 1
AN_IMPRISON_COUNT = AN_IMPRISON_COLOUR + 1
AN_PROGRESS_NEEDED = AN_IMPRISON_COUNT + 1
AN_TRIGGER_SYMBOLS = AN_PROGRESS_NEEDED + 1  # bitmask: a success whose challenge had one of these advances the task
AN_TRIGGER_EARTH = AN_TRIGGER_SYMBOLS + 1  # 1: a success on Earth advances the task
AN_ONGOING = AN_TRIGGER_EARTH + 1
AN_REPLACE = AN_ONGOING + 1  # 1: draw another anomaly after this instant one
AN_EACH_DOCTOR = AN_REPLACE + 1  # bitmask over the instant effects: bit j set: effect j acts for each Doctor, else once
ANOMALY_FIELDS = AN_EACH_DOCTOR + 1
TABLE_SIZE = T_ANOMALIES + NUM_ANOMALIES * ANOMALY_FIELDS


# --- parsed content ----------------------------------------------------------------
@dataclass(frozen=True)
class Effect:
    effect: int
    count: int = 0
    colour: int = -1  # dice effects
    colours: tuple[int, ...] = ()  # focus
    mode: int = 0  # reroll
    symbol: int = -1  # change_face
    place: int = 0  # place_dalek: 0 here, 1 earth
    each_doctor: bool = False  # instant anomaly effects: acts for each Doctor (True) or once (False)


@dataclass(frozen=True)
class Ability:
    effect: Effect
    timing: int
    cost: int = 0
    with_doctor: str | None = None
    group: str | None = None


@dataclass(frozen=True)
class Doctor:
    name: str
    regeneration: int
    origin: str
    linked: str
    dice: tuple[int, int, int, int]
    abilities: tuple[Ability, ...]
    text: str


@dataclass(frozen=True)
class Companion:
    name: str
    deck: str
    origin: str
    links: tuple[str, ...]
    groups: tuple[str, ...]
    dice: tuple[int, int, int, int]
    abilities: tuple[Ability, ...]
    text: str


@dataclass(frozen=True)
class Card:
    name: str
    type: int
    cost: int
    timing: int
    origin: str
    effects: tuple[Effect, ...]
    use_cost: int
    text: str


@dataclass(frozen=True)
class Zone:
    name: str
    challenge: tuple[int, ...]
    reward: tuple[Effect, ...]


@dataclass(frozen=True)
class Location:
    name: str
    origin: str
    links: tuple[str, ...]
    zones: tuple[Zone, Zone]
    text: str = ""


@dataclass(frozen=True)
class Dilemma:
    name: str
    origin: str
    challenge: tuple[int, ...]
    conditions: int
    advanced: bool
    links: tuple[str, ...]
    fail: tuple[tuple[Effect, ...], ...]
    text: str
    origin_note: str = ""  # how the effect was read from the rulebook's text, where that took a reading


@dataclass(frozen=True)
class Anomaly:
    name: str
    kind: int
    origin: str
    advanced: bool
    conditions: int
    challenge: tuple[int, ...] = ()
    reward: tuple[Effect, ...] = ()
    fail: tuple[Effect, ...] = ()
    effects: tuple[Effect, ...] = ()
    travel_tax: bool = False
    imprison_colour: int = -1
    imprison_count: int = 0
    progress_needed: int = 0
    trigger_symbols: tuple[int, ...] = ()
    trigger_earth: bool = False
    ongoing: int = 0
    replace: bool = False
    text: str = ""


@dataclass(frozen=True)
class Content:
    doctors: tuple[Doctor, ...]
    companions: tuple[Companion, ...]
    cards: tuple[Card, ...]
    earth: tuple[Zone, Zone, Zone]
    locations: tuple[Location, ...]
    dilemmas: tuple[Dilemma, ...]
    anomalies: tuple[Anomaly, ...]
    groups: dict = field(default_factory=dict)  # group name -> companion indices

    def doctor_index(self, name: str) -> int:
        return _find([d.name for d in self.doctors], name, "Doctor")

    def companion_index(self, name: str) -> int:
        return _find([c.name for c in self.companions], name, "Companion")

    def zone_name(self, zone: int) -> str:
        if zone < NUM_EARTH_ZONES:
            return self.earth[zone].name
        t, z = divmod(zone - NUM_EARTH_ZONES, 2)
        return self.locations[t].zones[z].name

    def zone(self, zone: int) -> Zone:
        if zone < NUM_EARTH_ZONES:
            return self.earth[zone]
        t, z = divmod(zone - NUM_EARTH_ZONES, 2)
        return self.locations[t].zones[z]


def _find(names: list[str], name: str, what: str) -> int:
    wanted = " ".join(str(name).lower().split())
    for i, candidate in enumerate(names):
        if candidate.lower() == wanted:
            return i
    raise ValueError(f"time_of_the_daleks_v2: unknown {what} {name!r}; known: {', '.join(names)}")


class ContentError(ValueError):
    """A content file problem, naming file, card and field."""


def _fail(source: str, where: str, problem: str) -> ContentError:
    return ContentError(f"content file {source!r}: {where}: {problem}")


def _int(source, where, value, low, high):
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _fail(source, where, f"must be an integer in [{low}, {high}], got {value!r}")
    return value


def _choice(source, where, value, allowed):
    if value not in allowed:
        raise _fail(source, where, f"must be one of {', '.join(map(str, allowed))}, got {value!r}")
    return allowed.index(value)


def _text(source, where, value, required=True):
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value.strip():
        raise _fail(source, where, f"must be a non-empty string, got {value!r}")
    return value.strip()


def _list(source, where, value, required=False):
    if value is None and not required:
        return []
    if not isinstance(value, list):
        raise _fail(source, where, f"must be a list, got {value!r}")
    return value


def _mapping(source, where, value):
    if not isinstance(value, dict):
        raise _fail(source, where, f"must be a mapping, got {value!r}")
    return value


def _entries(data, key, source, count):
    data = _mapping(source, "(top level)", data)
    rows = data.get(key)
    if not isinstance(rows, list):
        raise _fail(source, key, "must be a list")
    if count is not None and len(rows) != count:
        raise _fail(source, key, f"the base game has {count}, got {len(rows)}")
    names = []
    for i, row in enumerate(rows):
        _mapping(source, f"{key}[{i}]", row)
        names.append(_text(source, f"{key}[{i}].name", row.get("name")))
    lowered = [n.lower() for n in names]
    for i, n in enumerate(lowered):
        if lowered.index(n) != i:
            raise _fail(source, f"{key}[{i}] ({names[i]})", "name is used twice")
    return rows


def _dice(source, where, raw) -> tuple[int, int, int, int]:
    counts = [0, 0, 0, 0]
    for j, d in enumerate(_list(source, where, raw)):
        at = f"{where}[{j}]"
        d = _mapping(source, at, d)
        colour = _choice(source, f"{at}.colour", d.get("colour"), COLOURS)
        counts[colour] += _int(source, f"{at}.count", d.get("count"), 1, 8)
    return tuple(counts)


def _symbols(source, where, raw, low, high) -> tuple[int, ...]:
    raw = _list(source, where, raw, required=True)
    if not low <= len(raw) <= high:
        raise _fail(source, where, f"must list {low}..{high} symbols, got {len(raw)}")
    return tuple(_choice(source, f"{where}[{j}]", s, SYMBOLS) for j, s in enumerate(raw))


def _effect(source, where, raw, allowed) -> Effect:
    raw = _mapping(source, where, raw)
    name = raw.get("effect")
    if name not in allowed:
        raise _fail(source, f"{where}.effect", f"unknown or not allowed here: {name!r}; allowed: {', '.join(allowed)}")
    kind = EFFECTS.index(name)
    known = {"effect", "timing", "cost", "with_doctor", "group"}
    if name == "add_die":
        colour = _choice(source, f"{where}.colour", raw.get("colour"), COLOURS + ("any",))
        return Effect(kind, _int(source, f"{where}.count", raw.get("count"), 1, 4), colour=colour)
    if name == "focus":
        colours = _list(source, f"{where}.colours", raw.get("colours"), required=True)
        if not 1 <= len(colours) <= 2:
            raise _fail(source, f"{where}.colours", "must list one or two colours")
        idx = tuple(_choice(source, f"{where}.colours[{j}]", c, COLOURS[1:]) + 1 for j, c in enumerate(colours))
        return Effect(kind, 1, colours=idx)
    if name == "reroll":
        colour = _choice(source, f"{where}.colour", raw.get("colour"), EFFECT_COLOURS)
        mode = _choice(source, f"{where}.mode", raw.get("mode"), REROLL_MODES)
        count = _int(source, f"{where}.count", raw.get("count"), 1, 8) if mode == RM_NUMBER else 8
        return Effect(kind, count, colour=colour, mode=mode)
    if name == "change_face":
        colour = _choice(source, f"{where}.colour", raw.get("colour"), EFFECT_COLOURS)
        symbol = _choice(source, f"{where}.symbol", raw.get("symbol"), SYMBOLS)
        return Effect(kind, 1, colour=colour, symbol=symbol)
    if name in ("move_tardis", "move_ship"):
        spaces = _int(source, f"{where}.spaces", raw.get("spaces"), -5, 5)
        if spaces == 0:
            raise _fail(source, f"{where}.spaces", "must not be 0")
        return Effect(kind, spaces)
    if name == "place_dalek":
        return Effect(kind, 1, place=_choice(source, f"{where}.where", raw.get("where", "here"), PLACES))
    if name in ("regenerate", "trade_equipment", "swap_random_card", "first_doctor_travel"):
        return Effect(kind, 1)
    extra = set(raw) - known - {"count"}
    if extra:
        raise _fail(source, where, f"unknown field {sorted(extra)[0]!r} for effect {name!r}")
    return Effect(kind, _int(source, f"{where}.count", raw.get("count", 1), 1, 5))


def _effects(source, where, raw, allowed, low=0) -> tuple[Effect, ...]:
    raw = _list(source, where, raw, required=low > 0)
    if not low <= len(raw) <= MAX_EFFECTS:
        raise _fail(source, where, f"must list {low}..{MAX_EFFECTS} effects, got {len(raw)}")
    return tuple(_effect(source, f"{where}[{j}]", e, allowed) for j, e in enumerate(raw))


def _instant_effects(source, where, raw) -> tuple[Effect, ...]:
    """An instant Time Anomaly's effects; each states ``who:`` it acts for (:data:`WHO`)."""
    allowed = tuple(e for e in OUTCOME_EFFECTS if e != "move_ship")  # a Ship move could chain anomalies
    raw = _list(source, where, raw, required=True)
    if not 1 <= len(raw) <= MAX_EFFECTS:
        raise _fail(source, where, f"must list 1..{MAX_EFFECTS} effects, got {len(raw)}")
    effects = []
    for j, e in enumerate(raw):
        at = f"{where}[{j}]"
        e = dict(_mapping(source, at, e))
        who = _choice(source, f"{at}.who", e.pop("who", None), WHO)
        effect = _effect(source, at, e, allowed)
        name = EFFECTS[effect.effect]
        if WHO[who] == "once" and name in EACH_DOCTOR_ONLY:
            raise _fail(source, f"{at}.who", f"{name!r} acts on a Doctor's own things: it must be each_doctor")
        if WHO[who] == "each_doctor" and name in ONCE_ONLY:
            raise _fail(source, f"{at}.who", f"{name!r} happens once for the table: it must be once")
        effects.append(replace(effect, each_doctor=WHO[who] == "each_doctor"))
    return tuple(effects)


def _abilities(source, where, raw, doctor_names) -> tuple[Ability, ...]:
    out = []
    raw = _list(source, where, raw)
    if len(raw) > 3:
        raise _fail(source, where, "at most 3 abilities per card")
    for j, a in enumerate(raw):
        at = f"{where}[{j}]"
        a = _mapping(source, at, a)
        allowed = DICE_EFFECTS + INSTANT_EFFECTS + ("first_doctor_travel", "equipment_discount")
        name = a.get("effect")
        if name == "equipment_discount":
            effect = Effect(E_EQUIPMENT_DISCOUNT, _int(source, f"{at}.count", a.get("count"), 1, 3))
        else:
            effect = _effect(source, at, a, allowed)
        timing = _choice(source, f"{at}.timing", a.get("timing"), TIMINGS)
        if (name in ("focus",) or name == "equipment_discount") and timing != TM_PASSIVE:
            raise _fail(source, f"{at}.timing", f"{name} is passive")
        if timing == TM_PASSIVE and name not in ("add_die", "focus", "equipment_discount"):
            raise _fail(source, f"{at}.timing", f"only add_die, focus and equipment_discount are passive, not {name}")
        if (timing == TM_TRAVEL) != (name == "first_doctor_travel"):
            raise _fail(source, f"{at}.timing", "timing travel goes with first_doctor_travel only")
        if name in ("reroll", "change_face") and timing not in (TM_ADVENTURE, TM_ANY_ADVENTURE, TM_ANYTIME):
            raise _fail(source, f"{at}.timing", f"{name} acts on dice: adventure, any_adventure or anytime")
        if name in INSTANT_EFFECTS and timing not in (TM_PREPARE, TM_ANYTIME):
            raise _fail(source, f"{at}.timing", f"{name} on a character acts in the Prepare step: prepare or anytime")
        if name == "add_die" and timing not in (TM_PASSIVE, TM_ADVENTURE, TM_ANY_ADVENTURE, TM_ANYTIME):
            raise _fail(source, f"{at}.timing", "add_die acts while the dice pool is built")
        with_doctor = a.get("with_doctor")
        if with_doctor is not None and with_doctor not in doctor_names:
            raise _fail(source, f"{at}.with_doctor", f"{with_doctor!r} is not a Doctor ({', '.join(doctor_names)})")
        cost = _int(source, f"{at}.cost", a.get("cost", 0), 0, 5)
        group = a.get("group")
        out.append(Ability(effect, timing, cost, with_doctor, None if group is None else str(group)))
    return tuple(out)


def _origin(source, where, raw):
    if raw not in ORIGINS:
        raise _fail(source, f"{where}.origin", f"must be one of {', '.join(ORIGINS)}, got {raw!r}")
    return raw


DOCTOR_NAMES = ("First Doctor", "Fourth Doctor", "Eleventh Doctor", "Twelfth Doctor")


def parse_content(files: dict[str, object], sources: dict[str, str] | None = None) -> Content:
    """Validate the parsed YAML of every content file (keys: doctors, companions,
    timey_wimey, earth, locations, dilemmas, anomalies)."""
    src = {k: (sources or {}).get(k, f"{k}.yaml") for k in files}
    s = src["doctors"]
    doctors = []
    for i, d in enumerate(_entries(files["doctors"], "doctors", s, NUM_DOCTORS)):
        at = f"doctors[{i}] ({d['name']})"
        doctors.append(
            Doctor(
                d["name"],
                _int(s, f"{at}.regeneration", d.get("regeneration"), 1, 13),
                _origin(s, at, d.get("origin")),
                _text(s, f"{at}.linked", d.get("linked")),
                _dice(s, f"{at}.dice", d.get("dice")),
                _abilities(s, f"{at}.abilities", d.get("abilities"), DOCTOR_NAMES),
                _text(s, f"{at}.text", d.get("text"), required=False),
            )
        )
    if tuple(d.name for d in doctors) != DOCTOR_NAMES:
        raise _fail(s, "doctors", f"must be {', '.join(DOCTOR_NAMES)} in regeneration order")
    if [d.regeneration for d in doctors] != sorted(d.regeneration for d in doctors):
        raise _fail(s, "doctors", "must be listed in regeneration order")
    s = src["companions"]
    companions = []
    for i, c in enumerate(_entries(files["companions"], "companions", s, NUM_COMPANIONS)):
        at = f"companions[{i}] ({c['name']})"
        deck = c.get("deck")
        if deck not in ("earth", "alien"):
            raise _fail(s, f"{at}.deck", f"must be earth or alien, got {deck!r}")
        companions.append(
            Companion(
                c["name"],
                deck,
                _origin(s, at, c.get("origin")),
                tuple(_text(s, f"{at}.links[{j}]", x) for j, x in enumerate(_list(s, f"{at}.links", c.get("links")))),
                tuple(_text(s, f"{at}.groups[{j}]", x) for j, x in enumerate(_list(s, f"{at}.groups", c.get("groups")))),
                _dice(s, f"{at}.dice", c.get("dice")),
                _abilities(s, f"{at}.abilities", c.get("abilities"), DOCTOR_NAMES),
                _text(s, f"{at}.text", c.get("text"), required=False),
            )
        )
    earth_count = sum(c.deck == "earth" for c in companions)
    if earth_count != NUM_EARTH_COMPANIONS:
        raise _fail(
            s,
            "companions",
            f"the base game has {NUM_EARTH_COMPANIONS} Earth and {NUM_COMPANIONS - NUM_EARTH_COMPANIONS} Alien Companions, got {earth_count} Earth",
        )
    # Earth companions first (ids 0..14), then Alien; stable within each deck
    companions.sort(key=lambda c: c.deck != "earth")
    names = [c.name for c in companions]
    groups: dict[str, list[int]] = {}
    for k, c in enumerate(companions):
        for g in c.groups:
            groups.setdefault(g, []).append(k)
    for c in companions:
        for link in c.links:
            if link not in names and link not in groups:
                raise _fail(s, f"{c.name}.links", f"{link!r} is neither a Companion nor a group")
    for d in doctors:
        if d.linked not in names:
            raise _fail(src["doctors"], f"{d.name}.linked", f"{d.linked!r} is not a Companion")
    if len({d.linked for d in doctors}) != NUM_DOCTORS:
        raise _fail(src["doctors"], "doctors", "each Doctor needs its own Linked Companion")
    s = src["timey_wimey"]
    cards = []
    for i, c in enumerate(_entries(files["timey_wimey"], "cards", s, NUM_CARDS)):
        at = f"cards[{i}] ({c['name']})"
        ctype = _choice(s, f"{at}.type", c.get("type"), CARD_TYPES)
        timing = _choice(s, f"{at}.timing", c.get("timing"), TIMINGS[1:5]) + 1
        allowed = DICE_EFFECTS[:1] + DICE_EFFECTS[2:] + INSTANT_EFFECTS + ("trade_equipment", "swap_random_card")
        effects = _effects(s, f"{at}.effects", c.get("effects"), allowed, low=1)
        if len(effects) > 2:
            raise _fail(s, f"{at}.effects", "at most 2 effects per card")
        kinds = [EFFECTS[e.effect] for e in effects]
        dice_like = [k for k in kinds if k in ("add_die", "reroll", "change_face")]
        if len(effects) == 2 and set(kinds) & {"trade_equipment", "swap_random_card"}:
            raise _fail(s, f"{at}.effects", "trade_equipment and swap_random_card stand alone on a card")
        if len(effects) == 2 and len(dice_like) == 1:
            raise _fail(s, f"{at}.effects", "a card's two effects are both dice effects or both instant effects")
        if len(effects) == 2 and dice_like and ctype != CT_EQUIPMENT:
            raise _fail(s, f"{at}.effects", "only an Equipment card carries two dice abilities (an Event is used once)")
        if "trade_equipment" in kinds and ctype != CT_EQUIPMENT:
            raise _fail(s, f"{at}.type", "trade_equipment is an Equipment card's effect")
        if dice_like and timing == TM_PREPARE:
            raise _fail(s, f"{at}.timing", f"{dice_like[0]} acts on the dice pool: not in the Prepare step")
        instant = [k for k in kinds if k in INSTANT_EFFECTS]
        if instant and timing not in (TM_PREPARE, TM_ANYTIME):
            raise _fail(s, f"{at}.timing", f"{instant[0]} acts in the Prepare step: timing prepare or anytime")
        cards.append(
            Card(
                c["name"],
                ctype,
                _int(s, f"{at}.cost", c.get("cost", 0), 0, 4),
                timing,
                _origin(s, at, c.get("origin")),
                effects,
                _int(s, f"{at}.use_cost", c.get("use_cost", 0), 0, 3),
                _text(s, f"{at}.text", c.get("text"), required=False),
            )
        )
    for special in ("trade_equipment", "swap_random_card"):
        holders = [c.name for c in cards if any(EFFECTS[e.effect] == special for e in c.effects)]
        if len(holders) > 1:
            raise _fail(s, "cards", f"{special} may be on one card only (the action encoding has one), found on {', '.join(holders)}")
    reward_ok = ("gain_sonic", "draw", "move_tardis", "move_ship", "remove_dalek")

    def zone(source, at, z):
        z = _mapping(source, at, z)
        return Zone(
            _text(source, f"{at}.name", z.get("name")),
            _symbols(source, f"{at}.challenge", z.get("challenge"), 1, 4),
            _effects(source, f"{at}.reward", z.get("reward"), reward_ok, low=1),
        )

    s = src["earth"]
    raw_earth = _list(s, "zones", _mapping(s, "(top level)", files["earth"]).get("zones"), required=True)
    if len(raw_earth) != NUM_EARTH_ZONES:
        raise _fail(s, "zones", f"Earth has {NUM_EARTH_ZONES} Time Zones, got {len(raw_earth)}")
    earth = tuple(zone(s, f"zones[{j}]", z) for j, z in enumerate(raw_earth))
    s = src["locations"]
    locations = []
    for i, loc in enumerate(_entries(files["locations"], "locations", s, NUM_LOCATIONS)):
        at = f"locations[{i}] ({loc['name']})"
        zs = _list(s, f"{at}.zones", loc.get("zones"), required=True)
        if len(zs) != 2:
            raise _fail(s, f"{at}.zones", f"a Location tile has two Time Zones, got {len(zs)}")
        links = tuple(_list(s, f"{at}.links", loc.get("links")))
        for x in links:
            if x not in names and x not in groups:
                raise _fail(s, f"{at}.links", f"{x!r} is neither a Companion nor a group")
        locations.append(
            Location(
                loc["name"],
                _origin(s, at, loc.get("origin")),
                links,
                (zone(s, f"{at}.zones[0]", zs[0]), zone(s, f"{at}.zones[1]", zs[1])),
                _text(s, f"{at}.text", loc.get("text"), required=False),
            )
        )
    zone_names = [z.name.lower() for z in earth] + [z.name.lower() for loc in locations for z in loc.zones]
    for i, n in enumerate(zone_names):
        if zone_names.index(n) != i:
            raise _fail(s, "zones", f"Time Zone name {n!r} is used twice")
    fail_ok = ("move_ship", "lose_sonic", "discard_cards", "discard_companion", "dismiss_companion", "move_tardis", "place_dalek")

    def conditions(source, at, raw):
        bits = 0
        for j, c in enumerate(_list(source, at, raw)):
            bits |= 1 << _choice(source, f"{at}[{j}]", c, CONDITIONS)
        return bits

    s = src["dilemmas"]
    dilemmas = []
    for i, d in enumerate(_entries(files["dilemmas"], "dilemmas", s, NUM_DILEMMAS)):
        at = f"dilemmas[{i}] ({d['name']})"
        options = _list(s, f"{at}.fail", d.get("fail"), required=True)
        if not 1 <= len(options) <= MAX_FAIL_OPTIONS:
            raise _fail(s, f"{at}.fail", f"must list 1..{MAX_FAIL_OPTIONS} options (each a list of effects)")
        links = tuple(_list(s, f"{at}.links", d.get("links")))
        for x in links:
            if x not in names and x not in groups:
                raise _fail(s, f"{at}.links", f"{x!r} is neither a Companion nor a group")
        advanced = d.get("advanced", False)
        if not isinstance(advanced, bool):
            raise _fail(s, f"{at}.advanced", f"must be true or false, got {advanced!r}")
        dilemmas.append(
            Dilemma(
                d["name"],
                _origin(s, at, d.get("origin")),
                _symbols(s, f"{at}.challenge", d.get("challenge"), 1, 4),
                conditions(s, f"{at}.conditions", d.get("conditions")),
                advanced,
                links,
                tuple(_effects(s, f"{at}.fail[{j}]", o, fail_ok, low=1) for j, o in enumerate(options)),
                _text(s, f"{at}.text", d.get("text"), required=False),
                _text(s, f"{at}.origin_note", d.get("origin_note"), required=False),
            )
        )
    s = src["anomalies"]
    anomalies = []
    for i, a in enumerate(_entries(files["anomalies"], "anomalies", s, NUM_ANOMALIES)):
        at = f"anomalies[{i}] ({a['name']})"
        kind = _choice(s, f"{at}.kind", a.get("kind"), ANOMALY_KINDS)
        advanced = a.get("advanced", False)
        if not isinstance(advanced, bool):
            raise _fail(s, f"{at}.advanced", f"must be true or false, got {advanced!r}")
        common = dict(
            name=a["name"],
            kind=kind,
            origin=_origin(s, at, a.get("origin")),
            advanced=advanced,
            conditions=conditions(s, f"{at}.conditions", a.get("conditions")),
            text=_text(s, f"{at}.text", a.get("text"), required=False),
        )
        if kind == AK_LOCATION:
            anomalies.append(
                Anomaly(
                    **common,
                    challenge=_symbols(s, f"{at}.challenge", a.get("challenge"), 2, 6),
                    reward=_effects(s, f"{at}.reward", a.get("reward"), reward_ok, low=1),
                    fail=_effects(s, f"{at}.fail", a.get("fail"), fail_ok, low=1),
                    travel_tax=bool(a.get("travel_tax", False)),
                )
            )
        elif kind == AK_TASK:
            imprison = a.get("imprison")
            colour, count = -1, 0
            if imprison is not None:
                imprison = _mapping(s, f"{at}.imprison", imprison)
                colour = _choice(s, f"{at}.imprison.colour", imprison.get("colour"), COLOURS)
                count = _int(s, f"{at}.imprison.count", imprison.get("count"), 1, 3)
            needed = _int(s, f"{at}.progress_needed", a.get("progress_needed", count), 1, 6)
            if count and needed != count:
                raise _fail(s, f"{at}.progress_needed", "a task that imprisons dice ends when the last one is freed")
            trig = tuple(
                _choice(s, f"{at}.trigger_symbols[{j}]", x, SYMBOLS)
                for j, x in enumerate(_list(s, f"{at}.trigger_symbols", a.get("trigger_symbols")))
            )
            earth_trigger = bool(a.get("trigger_earth", False))
            if not trig and not earth_trigger:
                raise _fail(s, f"{at}", "a task needs trigger_symbols or trigger_earth (what completes a step)")
            anomalies.append(
                Anomaly(
                    **common,
                    imprison_colour=colour,
                    imprison_count=count,
                    progress_needed=needed,
                    trigger_symbols=trig,
                    trigger_earth=earth_trigger,
                    ongoing=_choice(s, f"{at}.ongoing", a.get("ongoing", "none"), ONGOING),
                )
            )
        else:
            anomalies.append(
                Anomaly(
                    **common,
                    effects=_instant_effects(s, f"{at}.effects", a.get("effects")),
                    replace=bool(a.get("replace", False)),
                )
            )
    return Content(
        tuple(doctors),
        tuple(companions),
        tuple(cards),
        earth,
        tuple(locations),
        tuple(dilemmas),
        tuple(anomalies),
        {g: tuple(v) for g, v in groups.items()},
    )


FILES = ("doctors", "companions", "timey_wimey", "earth", "locations", "dilemmas", "anomalies")


def load_files(directory: Path = CONTENT_DIR) -> Content:
    data, sources = {}, {}
    for name in FILES:
        path = Path(directory) / f"{name}.yaml"
        data[name] = read_yaml(path, "content file")
        sources[name] = path.name
    return parse_content(data, sources)


@lru_cache(maxsize=None)
def load_content() -> Content:
    return load_files(CONTENT_DIR)


# --- integer tables ----------------------------------------------------------------
def _put_effects(t, base, effects):
    for j, e in enumerate(effects):
        t[base + 2 * j] = e.effect
        t[base + 2 * j + 1] = e.place if e.effect == E_PLACE_DALEK else e.count


def _link_mask(content: Content, links) -> int:
    names = [c.name for c in content.companions]
    mask = 0
    for x in links:
        for k in content.groups.get(x, ()) if x in content.groups else (names.index(x),):
            mask |= 1 << k
    return mask


def ability_rows(content: Content) -> list[tuple]:
    """Every usable ability as (owner kind, owner id, Ability-or-Effect, timing, cost, with_doctor,
    colour): abilities with a colour choice become one row per colour (alternatives)."""
    rows = []

    def add(kind, owner, effect, timing, cost, with_doctor, group_key):
        if effect.effect == E_ADD_DIE and timing == TM_PASSIVE:
            return  # passive dice are in the dice tables
        if effect.effect in (E_EQUIPMENT_DISCOUNT, E_FIRST_DOCTOR_TRAVEL):
            return  # read from the Doctor's table record
        if effect.effect == E_FOCUS:
            colours = effect.colours
        elif effect.effect == E_ADD_DIE and effect.colour == COLOUR_ANY:
            colours = (BLACK, GREEN, BLUE, RED)
        else:
            colours = (effect.colour,)
        for colour in colours:
            rows.append((kind, owner, effect, timing, cost, with_doctor, colour, group_key))

    for i, d in enumerate(content.doctors):
        for j, a in enumerate(d.abilities):
            add(OWN_DOCTOR, i, a.effect, a.timing, a.cost, a.with_doctor, (OWN_DOCTOR, i, a.group or j))
    for i, c in enumerate(content.companions):
        for j, a in enumerate(c.abilities):
            add(OWN_COMPANION, i, a.effect, a.timing, a.cost, a.with_doctor, (OWN_COMPANION, i, a.group or j))
    for i, c in enumerate(content.cards):
        passive_dice = c.type == CT_EQUIPMENT and all(e.effect == E_ADD_DIE and e.colour != COLOUR_ANY for e in c.effects)
        if passive_dice:
            continue
        first = c.effects[0]
        add(OWN_CARD, i, first, c.timing, c.use_cost, None, (OWN_CARD, i, 0))
        if len(c.effects) > 1 and EFFECTS[c.effects[1].effect] in DICE_EFFECTS:
            # an Equipment card's second dice ability: used once per turn on its own
            add(OWN_CARD, i, c.effects[1], c.timing, c.use_cost, None, (OWN_CARD, i, 1))
    return rows


def build_tables(
    content: Content,
    num_players: int,
    seat_doctors: tuple[int, ...],
    first_game: bool,
    track_length: int,
    max_rounds: int,
    tardis_faces: int,
) -> np.ndarray:
    t = np.zeros(TABLE_SIZE, dtype=np.int64)
    t[T_NUM_PLAYERS] = num_players
    t[T_TRACK] = track_length
    t[T_FIRST_GAME] = int(first_game)
    t[T_MAX_ROUNDS] = max_rounds
    t[T_TARDIS_FACES] = tardis_faces
    t[T_EARTH_SPACE] = 2
    t[T_SEAT_DOCTOR : T_SEAT_DOCTOR + 4] = -1
    for seat, d in enumerate(seat_doctors):
        t[T_SEAT_DOCTOR + seat] = d
    markers = (8, 11, 14) if first_game else (6, 9, 12, 15)
    t[T_MARKERS : T_MARKERS + 5] = -1
    for j, m in enumerate(markers):
        t[T_MARKERS + j] = m
    names = [c.name for c in content.companions]
    for i, d in enumerate(content.doctors):
        base = T_DOCTORS + i * DOCTOR_FIELDS
        t[base + DOCTOR_DICE : base + DOCTOR_DICE + 4] = d.dice
        t[base + DOCTOR_LINKED] = names.index(d.linked)
        t[base + DOCTOR_REGENERATION] = d.regeneration
        t[base + DOCTOR_FIRST_TRAVEL] = int(any(a.effect.effect == E_FIRST_DOCTOR_TRAVEL for a in d.abilities))
        t[base + DOCTOR_DISCOUNT] = sum(a.effect.count for a in d.abilities if a.effect.effect == E_EQUIPMENT_DISCOUNT)
    for i, c in enumerate(content.companions):
        base = T_COMPANIONS + i * COMPANION_FIELDS
        t[base + COMPANION_DECK] = int(c.deck == "alien")
        dice = list(c.dice)
        for a in c.abilities:
            if a.effect.effect == E_ADD_DIE and a.timing == TM_PASSIVE:
                dice[a.effect.colour] += a.effect.count
        t[base + COMPANION_DICE : base + COMPANION_DICE + 4] = dice
        t[base + COMPANION_LINKS] = _link_mask(content, c.links)
    rows = ability_rows(content)
    if len(rows) > MAX_ABILITIES:
        raise ValueError(f"time_of_the_daleks_v2: {len(rows)} ability rows exceed {MAX_ABILITIES}")
    for i, c in enumerate(content.cards):
        base = T_CARDS + i * CARD_FIELDS
        t[base + CARD_TYPE] = c.type
        t[base + CARD_COST] = c.cost
        t[base + CARD_TIMING] = c.timing
        if c.type == CT_EQUIPMENT:
            for e in c.effects:
                if e.effect == E_ADD_DIE and e.colour != COLOUR_ANY:
                    t[base + CARD_DICE + e.colour] += e.count
        t[base + CARD_ACTIVE] = int(any(r[0] == OWN_CARD and r[1] == i for r in rows))
    t[T_NUM_ABILITIES] = len(rows)
    first_of_group: dict = {}
    for r, (kind, owner, effect, timing, cost, with_doctor, colour, group_key) in enumerate(rows):
        base = T_ABILITIES + r * ABILITY_FIELDS
        t[base + ABILITY_OWNER_KIND] = kind
        t[base + ABILITY_OWNER] = owner
        t[base + ABILITY_TIMING] = timing
        t[base + ABILITY_EFFECT] = effect.effect
        t[base + ABILITY_COLOUR] = colour
        t[base + ABILITY_COUNT] = effect.count
        t[base + ABILITY_MODE] = effect.mode
        t[base + ABILITY_SYMBOL] = effect.symbol
        t[base + ABILITY_COST] = cost
        t[base + ABILITY_WITH_DOCTOR] = -1 if with_doctor is None else DOCTOR_NAMES.index(with_doctor)
        t[base + ABILITY_GROUP] = first_of_group.setdefault(group_key, r)
        t[base + ABILITY_EFFECT2] = E_NONE
        if kind == OWN_CARD:
            card = content.cards[owner]
            if len(card.effects) == 2 and EFFECTS[card.effects[1].effect] not in DICE_EFFECTS:
                t[base + ABILITY_EFFECT2] = card.effects[1].effect
                t[base + ABILITY_COUNT2] = card.effects[1].count
    zones = list(content.earth) + [z for loc in content.locations for z in loc.zones]
    for k, z in enumerate(zones):
        base = T_ZONES + k * ZONE_FIELDS
        for sym in z.challenge:
            t[base + Z_CHALLENGE + sym] += 1
        _put_effects(t, base + Z_REWARD, z.reward)
    for i, loc in enumerate(content.locations):
        t[T_LOCATION_LINKS + i] = _link_mask(content, loc.links)
    for i, d in enumerate(content.dilemmas):
        base = T_DILEMMAS + i * DILEMMA_FIELDS
        for sym in d.challenge:
            t[base + DL_CHALLENGE + sym] += 1
        t[base + DL_CONDITIONS] = d.conditions
        t[base + DL_ADVANCED] = int(d.advanced)
        t[base + DL_LINKS] = _link_mask(content, d.links)
        t[base + DL_NUM_OPTIONS] = len(d.fail)
        for j, option in enumerate(d.fail):
            _put_effects(t, base + DL_OPTIONS + j * MAX_EFFECTS * 2, option)
    for i, a in enumerate(content.anomalies):
        base = T_ANOMALIES + i * ANOMALY_FIELDS
        t[base + AN_KIND] = a.kind
        t[base + AN_ADVANCED] = int(a.advanced)
        t[base + AN_CONDITIONS] = a.conditions
        for sym in a.challenge:
            t[base + AN_CHALLENGE + sym] += 1
        _put_effects(t, base + AN_REWARD, a.reward)
        _put_effects(t, base + AN_FAIL, a.fail)
        _put_effects(t, base + AN_EFFECTS, a.effects)
        t[base + AN_TRAVEL_TAX] = int(a.travel_tax)
        t[base + AN_IMPRISON_COLOUR] = a.imprison_colour
        t[base + AN_IMPRISON_COUNT] = a.imprison_count
        t[base + AN_PROGRESS_NEEDED] = a.progress_needed
        t[base + AN_TRIGGER_SYMBOLS] = sum(1 << s for s in a.trigger_symbols)
        t[base + AN_TRIGGER_EARTH] = int(a.trigger_earth)
        t[base + AN_ONGOING] = a.ongoing
        t[base + AN_REPLACE] = int(a.replace)
        t[base + AN_EACH_DOCTOR] = sum(1 << j for j, e in enumerate(a.effects) if e.each_doctor)
    return t
