"""Keys to the TARDIS components: YAML data -> validated ``Components`` -> integer tables."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ...core.options import read_yaml

CONTENT_FILE = Path(__file__).parent / "content" / "keys_default.yaml"

GRID = 7
NUM_TILES = GRID * GRID
CENTRE = (GRID // 2) * GRID + GRID // 2
NUM_COLOURS = 4
TILE_KINDS = ("plain", "dalek", "key_tile", "extra_turn", "teleport", "control")
CARD_NAMES = (
    "red key",
    "blue key",
    "green key",
    "yellow key",
    "sonic screwdriver",
    "time barrier",
    "time tunnel",
    "jam cookie",
    "pandorica",
    "cyberman assault",
)
NUM_CARD_TYPES = len(CARD_NAMES)
SEAT_SIDES = {2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3)}  # sides: 0 south, 1 west, 2 north, 3 east
SIDE_NAMES = ("south", "west", "north", "east")


@dataclass(frozen=True)
class Components:
    colours: tuple[str, ...]
    hand_size: int
    tiles_per_colour: dict
    card_counts: tuple[int, ...]  # per card type, in CARD_NAMES order
    pandorica_turns: int

    @property
    def num_cards(self) -> int:
        return sum(self.card_counts)


def _fail(key: str, problem: str) -> ValueError:
    return ValueError(f"Keys to the TARDIS content file {str(CONTENT_FILE)!r}: {key}: {problem}")


def _count(value: object, key: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise _fail(key, f"must be an integer >= {low}, got {value!r}")
    return value


def parse_components(data: object) -> Components:
    if not isinstance(data, dict):
        raise _fail("(top level)", "must be a mapping")
    if data.get("grid_size") != GRID:
        raise _fail("grid_size", f"the kernels are built for a {GRID}x{GRID} grid")
    colours = data.get("colours")
    if not isinstance(colours, list) or len(colours) != NUM_COLOURS:
        raise _fail("colours", f"must list {NUM_COLOURS} colours")
    tiles = data.get("tiles_per_colour")
    if not isinstance(tiles, dict) or set(tiles) != set(TILE_KINDS[:-1]):
        raise _fail("tiles_per_colour", f"must give counts for {', '.join(TILE_KINDS[:-1])}")
    tiles = {k: _count(v, f"tiles_per_colour.{k}") for k, v in tiles.items()}
    if NUM_COLOURS * sum(tiles.values()) != NUM_TILES - 1:
        raise _fail(
            "tiles_per_colour",
            f"{NUM_COLOURS} colours x {sum(tiles.values())} tiles must fill the {NUM_TILES - 1} squares around the Control Tile",
        )
    cards = data.get("cards")
    names = ("key", "sonic_screwdriver", "time_barrier", "time_tunnel", "jam_cookie", "pandorica", "cyberman_assault")
    if not isinstance(cards, dict) or set(cards) != set(names):
        raise _fail("cards", f"must give counts for {', '.join(names)}")
    counts = [_count(cards["key"], "cards.key")] * NUM_COLOURS + [_count(cards[n], f"cards.{n}") for n in names[1:]]
    hand = _count(data.get("hand_size"), "hand_size", 1)
    turns = _count(data.get("pandorica_turns"), "pandorica_turns", 1)
    if sum(counts) < 4 * (hand + 1) + 30:
        raise _fail("cards", "too few cards for four hands and the cards that stay on the board")
    return Components(tuple(colours), hand, tiles, tuple(counts), turns)


@lru_cache(maxsize=1)
def load_components() -> Components:
    return parse_components(read_yaml(CONTENT_FILE, "content file"))


# --- integer tables handed to the kernels -------------------------------------------
T_NUM_PLAYERS = 0
T_MAX_TURNS = 1
T_REVEAL_TILES = 2
T_HAND_SIZE = 3
T_PANDORICA_TURNS = 4
T_SEAT_SIDE = 5  # 4 words: board side of each seat
T_CARD_COUNT = T_SEAT_SIDE + 4  # NUM_CARD_TYPES words
T_TILE_COUNT = T_CARD_COUNT + NUM_CARD_TYPES  # 5 words: door tiles per colour by kind
T_ROUTE_LENGTHS = T_TILE_COUNT + 5  # option route_lengths: 1 adds the route planner's lengths to the observation
TABLES_SIZE = T_ROUTE_LENGTHS + 1


def build_tables(components: Components, num_players: int, max_turns: int, reveal_tiles: bool, route_lengths: bool) -> np.ndarray:
    tables = np.zeros(TABLES_SIZE, dtype=np.int64)
    tables[T_NUM_PLAYERS] = num_players
    tables[T_MAX_TURNS] = max_turns
    tables[T_REVEAL_TILES] = int(reveal_tiles)
    tables[T_HAND_SIZE] = components.hand_size
    tables[T_PANDORICA_TURNS] = components.pandorica_turns
    for seat, side in enumerate(SEAT_SIDES[num_players]):
        tables[T_SEAT_SIDE + seat] = side
    tables[T_CARD_COUNT : T_CARD_COUNT + NUM_CARD_TYPES] = components.card_counts
    for k, kind in enumerate(TILE_KINDS[:-1]):
        tables[T_TILE_COUNT + k] = components.tiles_per_colour[kind]
    tables[T_ROUTE_LENGTHS] = int(route_lengths)
    return tables


# --- notation shared by the game (describe, actions) and the drawings ---------------------
def square_name(tile: int) -> str:
    """Absolute tile -> 'c4' (files a..g west to east, ranks 1..7 south to north)."""
    return f"{'abcdefg'[tile % GRID]}{tile // GRID + 1}"


def square_index(name: str) -> int:
    name = name.strip().lower()
    if len(name) != 2 or name[0] not in "abcdefg" or name[1] not in "1234567":
        raise ValueError(f"keys_to_the_tardis_v0: {name!r} is not a square a1..g7")
    return (int(name[1]) - 1) * GRID + "abcdefg".index(name[0])


def compass(dr: int, dc: int) -> str:
    return "-".join(w for w in (("north" if dr > 0 else "south" if dr < 0 else ""), ("east" if dc > 0 else "west" if dc < 0 else "")) if w)
