"""Ghosts of Gallifrey duel content: the Time Deck, the roster and the scenes.

YAML files under ``content/`` (shipped in the package) are loaded and validated
once into :class:`Content`, then packed with the rule options into one ``int64``
table for the kernels (offsets ``T_*`` below). Every problem is a
``ValueError`` naming the file, the entry and the key.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ...core.options import read_yaml

CONTENT_DIR = Path(__file__).parent / "content"
ASPECTS = ("dynamism", "memory", "stasis", "foresight")  # active, active, passive, passive
DYNAMISM, MEMORY, STASIS, FORESIGHT = range(4)
MODIFIER_KINDS = ("situational", "accessory", "motivation")
DECK_SIZE = 36
MAX_ACQUIRED = 3
MAX_CHARACTERS = 16
MAX_SCENES = 8
MODES = ("contest", "dramatic", "climactic")
THREATS = ("trivial", "dangerous", "deadly")
CONDITIONS = ("restrain", "subdue", "wound", "kill")

# --- table layout --------------------------------------------------------------
T_MODE = 0
T_THREAT = 1
T_FORCED_PPM = 2  # forced_draw_p in millionths
T_MAX_EXCHANGES = 3
T_PAIR = 4  # 2: roster index of each seat, -1 = drawn per episode
T_SCENE = 6  # -1 = drawn per episode
T_NUM_CHARACTERS = 7
T_NUM_SCENES = 8
T_VORTEX = 9  # the card always treated as the Flux card
T_CARD_MODIFIER = 10  # DECK_SIZE
T_CARD_ESCALATION = T_CARD_MODIFIER + DECK_SIZE  # DECK_SIZE
T_CHARACTERS = T_CARD_ESCALATION + DECK_SIZE
# one character record
C_ASPECT = 0  # 4 base Aspects
C_MODIFIER = 4  # 4: sum of the character's situational/accessory/motivation levels per Aspect
C_EDGES = 8
C_NUM_ACQUIRED = 9
C_ACQUIRED = 10  # MAX_ACQUIRED card ids
C_WAR = C_ACQUIRED + MAX_ACQUIRED
C_FAULT = C_WAR + 1
CHARACTER_FIELDS = C_FAULT + 1
T_SCENES = T_CHARACTERS + MAX_CHARACTERS * CHARACTER_FIELDS
S_MODIFIER = 0  # 4 levels per Aspect, both combatants
S_FLUX = 4
SCENE_FIELDS = 5
# derived from the above, not content: the observation's eight Aspect entries of each
# character in each scene as the bytes of a word, ``character * MAX_SCENES + scene``
# (rules.fill_aspect_entries fills them; build_tables leaves them 0)
T_ASPECT_ENTRIES = T_SCENES + MAX_SCENES * SCENE_FIELDS
TABLE_SIZE = T_ASPECT_ENTRIES + MAX_CHARACTERS * MAX_SCENES


@dataclass(frozen=True)
class Card:
    name: str
    modifier: int
    escalation: int


@dataclass(frozen=True)
class Modifier:
    kind: str
    aspect: int
    levels: int
    why: str


@dataclass(frozen=True)
class Character:
    name: str
    kind: str
    aspects: tuple[int, int, int, int]
    modifiers: tuple[Modifier, ...]
    edges: int
    powers: tuple[str, ...]
    acquired: tuple[int, ...]
    war_card: int
    fault_card: int


@dataclass(frozen=True)
class Scene:
    name: str
    flux_card: int
    modifiers: tuple[Modifier, ...]


@dataclass(frozen=True)
class Content:
    cards: tuple[Card, ...]
    characters: tuple[Character, ...]
    scenes: tuple[Scene, ...]

    def card_index(self, name: str) -> int:
        return [c.name for c in self.cards].index(name)

    def character_index(self, name: str) -> int:
        return _find([c.name for c in self.characters], name, "character", "roster")

    def scene_index(self, name: str) -> int:
        return _find([s.name for s in self.scenes], name, "scene", "scenes")


def _find(names: list[str], name: str, what: str, listing: str) -> int:
    """Index of ``name`` among ``names`` (case and outer blanks ignored) or a ValueError listing them."""
    wanted = name.strip().lower()
    for i, candidate in enumerate(names):
        if candidate.lower() == wanted:
            return i
    raise ValueError(f"gallifrey_duel_v1: unknown {what} {name!r}; {listing}: {', '.join(names)}")


def _fail(source: str, where: str, problem: str) -> ValueError:
    return ValueError(f"content file {source!r}: {where}: {problem}")


def _int(source, where, value, low, high):
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _fail(source, where, f"must be an integer in [{low}, {high}], got {value!r}")
    return value


def _entries(data, key, source):
    if not isinstance(data, dict) or not isinstance(data.get(key), list) or not data[key]:
        raise _fail(source, key, "must be a non-empty list")
    for i, entry in enumerate(data[key]):
        if not isinstance(entry, dict):
            raise _fail(source, f"{key}[{i}]", "must be a mapping")
    return data[key]


def _modifiers(source, where, raw, with_kind):
    if not isinstance(raw, list):
        raise _fail(source, where, "must be a list")
    out = []
    for j, m in enumerate(raw):
        at = f"{where}[{j}]"
        if not isinstance(m, dict):
            raise _fail(source, at, "must be a mapping")
        kind = m.get("kind", "situational")
        if with_kind and kind not in MODIFIER_KINDS:
            raise _fail(source, f"{at}.kind", f"must be one of {', '.join(MODIFIER_KINDS)}, got {kind!r}")
        if m.get("aspect") not in ASPECTS:
            raise _fail(source, f"{at}.aspect", f"must be one of {', '.join(ASPECTS)}, got {m.get('aspect')!r}")
        levels = _int(source, f"{at}.levels", m.get("levels"), -3, 3)
        out.append(Modifier(kind, ASPECTS.index(m["aspect"]), levels, str(m.get("why", ""))))
    return tuple(out)


def parse_content(deck: object, roster: object, scenes: object, sources=("time_deck", "roster", "scenes")) -> Content:
    src_deck, src_roster, src_scenes = sources
    raw_cards = _entries(deck, "cards", src_deck)
    if len(raw_cards) != DECK_SIZE:
        raise _fail(src_deck, "cards", f"the Time Deck has {DECK_SIZE} cards, got {len(raw_cards)}")
    cards = []
    for i, c in enumerate(raw_cards):
        name = c.get("name")
        if not isinstance(name, str) or not name:
            raise _fail(src_deck, f"cards[{i}].name", "must be a non-empty string")
        cards.append(
            Card(
                name,
                _int(src_deck, f"cards[{i}] ({name}).modifier", c.get("modifier"), -2, 2),
                _int(src_deck, f"cards[{i}] ({name}).escalation", c.get("escalation"), 0, 2),
            )
        )
    names = [c.name for c in cards]
    if len(set(names)) != DECK_SIZE:
        raise _fail(src_deck, "cards", "card names must be unique")
    if "The Vortex" not in names:
        raise _fail(src_deck, "cards", "the deck must hold The Vortex (always treated as the Flux card)")

    def card(source, where, name):
        if name not in names:
            raise _fail(source, where, f"{name!r} is not a Time Deck card")
        return names.index(name)

    characters = []
    for i, c in enumerate(_entries(roster, "characters", src_roster)):
        who = f"characters[{i}] ({c.get('name')})"
        if not isinstance(c.get("name"), str):
            raise _fail(src_roster, f"characters[{i}].name", "must be a string")
        aspects = c.get("aspects")
        if not isinstance(aspects, dict) or set(aspects) != set(ASPECTS):
            raise _fail(src_roster, f"{who}.aspects", f"must give exactly {', '.join(ASPECTS)}")
        values = tuple(_int(src_roster, f"{who}.aspects.{a}", aspects[a], 1, 10) for a in ASPECTS)
        acquired = c.get("acquired", [])
        if not isinstance(acquired, list) or len(acquired) > MAX_ACQUIRED:
            raise _fail(src_roster, f"{who}.acquired", f"must be a list of at most {MAX_ACQUIRED} card names")
        powers = c.get("powers", [])
        characters.append(
            Character(
                name=c["name"],
                kind=str(c.get("kind", "")),
                aspects=values,
                modifiers=_modifiers(src_roster, f"{who}.modifiers", c.get("modifiers", []), True),
                edges=_int(src_roster, f"{who}.edges", c.get("edges", 0), 0, 3),
                powers=tuple(str(p) for p in powers) if isinstance(powers, list) else (),
                acquired=tuple(card(src_roster, f"{who}.acquired", a) for a in acquired),
                war_card=card(src_roster, f"{who}.war_card", c.get("war_card")),
                fault_card=card(src_roster, f"{who}.fault_card", c.get("fault_card")),
            )
        )
    if not 2 <= len(characters) <= MAX_CHARACTERS:
        raise _fail(src_roster, "characters", f"must hold 2..{MAX_CHARACTERS} characters")
    if len({c.name.lower() for c in characters}) != len(characters):
        raise _fail(src_roster, "characters", "names must be unique")
    for c in characters:
        if c.war_card == c.fault_card:
            raise _fail(src_roster, f"{c.name}", "war_card and fault_card must differ")
    scene_list = []
    for i, s in enumerate(_entries(scenes, "scenes", src_scenes)):
        who = f"scenes[{i}] ({s.get('name')})"
        if not isinstance(s.get("name"), str):
            raise _fail(src_scenes, f"scenes[{i}].name", "must be a string")
        scene_list.append(
            Scene(
                s["name"],
                card(src_scenes, f"{who}.flux_card", s.get("flux_card")),
                _modifiers(src_scenes, f"{who}.modifiers", s.get("modifiers", []), False),
            )
        )
    if len(scene_list) > MAX_SCENES:
        raise _fail(src_scenes, "scenes", f"at most {MAX_SCENES} scenes")
    return Content(tuple(cards), tuple(characters), tuple(scene_list))


@lru_cache(maxsize=None)
def load_content() -> Content:
    files = [CONTENT_DIR / f"{name}.yaml" for name in ("time_deck", "roster", "scenes")]
    data = [read_yaml(path, "content file") for path in files]
    return parse_content(*data, sources=tuple(str(p.name) for p in files))


def build_tables(
    content: Content, mode: str, threat: str, forced_draw_p: float, max_exchanges: int, pair: tuple[int, int], scene: int
) -> np.ndarray:
    t = np.zeros(TABLE_SIZE, dtype=np.int64)
    t[T_MODE] = MODES.index(mode)
    t[T_THREAT] = THREATS.index(threat)
    t[T_FORCED_PPM] = int(round(forced_draw_p * 1_000_000))
    t[T_MAX_EXCHANGES] = max_exchanges
    t[T_PAIR], t[T_PAIR + 1] = pair
    t[T_SCENE] = scene
    t[T_NUM_CHARACTERS] = len(content.characters)
    t[T_NUM_SCENES] = len(content.scenes)
    t[T_VORTEX] = content.card_index("The Vortex")
    for i, card in enumerate(content.cards):
        t[T_CARD_MODIFIER + i] = card.modifier
        t[T_CARD_ESCALATION + i] = card.escalation
    for i, c in enumerate(content.characters):
        base = T_CHARACTERS + i * CHARACTER_FIELDS
        t[base + C_ASPECT : base + C_ASPECT + 4] = c.aspects
        for m in c.modifiers:
            t[base + C_MODIFIER + m.aspect] += m.levels
        t[base + C_EDGES] = c.edges
        t[base + C_NUM_ACQUIRED] = len(c.acquired)
        t[base + C_ACQUIRED : base + C_ACQUIRED + MAX_ACQUIRED] = -1
        for j, card in enumerate(c.acquired):
            t[base + C_ACQUIRED + j] = card
        t[base + C_WAR] = c.war_card
        t[base + C_FAULT] = c.fault_card
    for i, s in enumerate(content.scenes):
        base = T_SCENES + i * SCENE_FIELDS
        for m in s.modifiers:
            t[base + S_MODIFIER + m.aspect] += m.levels
        t[base + S_FLUX] = s.flux_card
    return t
