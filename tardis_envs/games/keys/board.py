"""Keys to the TARDIS board helpers the rules, the observation and the heuristic share: the
four seats' frames, the tile-fact words, pawns, doors and Time Tunnels, the packed draw pile."""

from __future__ import annotations

import numpy as np

from ...core.jit import njit
from .content import CENTRE, GRID, NUM_COLOURS, NUM_TILES, T_NUM_PLAYERS, T_SEAT_SIDE
from .layout import (
    CARD_BITS,
    CARD_MASK,
    CARDS_PER_WORD,
    COLOUR_TILES,
    DECK,
    DECK_SIZE,
    DECK_WORDS,
    DIRECTIONS,
    DOORS_OPEN,
    JAM_COOKIES,
    KIND_DALEK,
    KIND_TILES,
    KINDS_REVEALED,
    MAX_CARDS,
    NUM_CORNERS,
    NUM_KINDS,
    PAWN,
    TIME_BARRIERS,
    TUNNELS,
)


# --- geometry ---------------------------------------------------------------
def _frame_tables():
    """The four frames as lookup tables (the kernels read them per tile, so a table
    beats the arithmetic and its branch on the side): ``REL_TO_ABS[side, t]``,
    ``ABS_TO_REL[side, t]`` and ``ABS_DIRECTION[side, d] = (d_row, d_col)``.

    Frame tile (r, c) is board tile (r, c) for the south, (6 - c, r) for the west,
    (6 - r, 6 - c) for the north and (c, 6 - r) for the east; a frame direction
    (dr, dc) turns with the frame: (-dc, dr) west, (-dr, -dc) north, (dc, -dr) east.
    """
    rel_to_abs = np.zeros((4, NUM_TILES), dtype=np.int64)
    abs_to_rel = np.zeros((4, NUM_TILES), dtype=np.int64)
    direction = np.zeros((4, 8, 2), dtype=np.int64)
    for side in range(4):
        for tile in range(NUM_TILES):
            r, c = divmod(tile, GRID)
            row, col = ((r, c), (GRID - 1 - c, r), (GRID - 1 - r, GRID - 1 - c), (c, GRID - 1 - r))[side]
            rel_to_abs[side, tile] = row * GRID + col
            abs_to_rel[side, row * GRID + col] = tile
        for d in range(8):
            dr, dc = DIRECTIONS[d]
            direction[side, d] = ((dr, dc), (-dc, dr), (-dr, -dc), (dc, -dr))[side]
    return rel_to_abs, abs_to_rel, direction


REL_TO_ABS, ABS_TO_REL, ABS_DIRECTION = _frame_tables()


@njit
def rel_to_abs(side, tile):
    """Absolute tile of ``tile`` given in the frame of board side ``side``."""
    return REL_TO_ABS[side, tile]


@njit
def abs_to_rel(side, tile):
    return ABS_TO_REL[side, tile]


@njit
def abs_direction(side, d):
    """(d_row, d_col) on the board of frame direction ``d`` of side ``side``."""
    return ABS_DIRECTION[side, d, 0], ABS_DIRECTION[side, d, 1]


@njit
def neighbour(tile, dr, dc):
    r = tile // GRID + dr
    c = tile % GRID + dc
    if r < 0 or r >= GRID or c < 0 or c >= GRID:
        return -1
    return r * GRID + c


@njit
def corner_of(a, b):
    """(corner, orientation 1 or 2) of the diagonal between tiles a and b."""
    ra, ca, rb, cb = a // GRID, a % GRID, b // GRID, b % GRID
    corner = min(ra, rb) * (GRID - 1) + min(ca, cb)
    if (rb - ra) == (cb - ca):
        return corner, 1
    return corner, 2


@njit
def seat_side(tables, seat):
    return tables[T_SEAT_SIDE + seat]


# --- the board's facts: sets of tiles, one word each ---------------------------------
ALL_TILES = (1 << NUM_TILES) - 1


@njit
def tile_bit(tile):
    """The word with only tile ``tile``'s bit set."""
    return np.int64(1) << np.int64(tile)


@njit
def on_tile(state, facts, tile):
    """1 if tile ``tile`` is in the set ``state[facts]`` (``DOORS_OPEN``, ``KIND_TILES + k``, ...), else 0."""
    return (state[facts] >> np.int64(tile)) & 1


@njit
def set_on_tile(state, facts, tile, value):
    """Put tile ``tile`` into the set ``state[facts]`` (``value`` 1) or take it out (0)."""
    bit = tile_bit(tile)
    state[facts] = (state[facts] & ~bit) | (np.int64(value != 0) * bit)


@njit
def tile_colour(state, tile):
    """The door colour of ``tile`` (0..3), -1 for the Control Tile."""
    colour = -1
    for c in range(NUM_COLOURS):
        colour += (c + 1) * on_tile(state, COLOUR_TILES + c, tile)
    return colour


@njit
def tile_kind(state, tile):
    """The kind of ``tile`` (``KIND_*``)."""
    kind = 0
    for k in range(1, NUM_KINDS):
        kind += k * on_tile(state, KIND_TILES + k, tile)
    return kind


@njit
def set_tile_kind(state, tile, kind):
    for k in range(NUM_KINDS):
        set_on_tile(state, KIND_TILES + k, tile, k == kind)


@njit
def set_tile_colour(state, tile, colour):
    """``colour`` -1: no colour (the Control Tile)."""
    for c in range(NUM_COLOURS):
        set_on_tile(state, COLOUR_TILES + c, tile, c == colour)


@njit
def tunnel_at(state, corner):
    """The orientation of the Time Tunnel at grid corner ``corner``: 0 none, 1 or 2."""
    k = np.int64(corner)
    return ((state[TUNNELS] >> k) & 1) + 2 * ((state[TUNNELS + 1] >> k) & 1)


@njit
def set_tunnel(state, corner, orientation):
    """A Time Tunnel of ``orientation`` (1 or 2) at grid corner ``corner``; 0 none."""
    bit = np.int64(1) << np.int64(corner)
    state[TUNNELS] &= ~bit
    state[TUNNELS + 1] &= ~bit
    if orientation > 0:
        state[TUNNELS + orientation - 1] |= bit


def tunnel_orientations(states: np.ndarray) -> np.ndarray:
    """``[..., NUM_CORNERS]`` the orientation at every grid corner (Python side)."""
    corners = np.arange(NUM_CORNERS)
    return ((states[..., TUNNELS, None] >> corners) & 1) + 2 * ((states[..., TUNNELS + 1, None] >> corners) & 1)


def tile_facts(states: np.ndarray, facts: int | np.ndarray) -> np.ndarray:
    """``[..., NUM_TILES]`` array of 0/1: tile ``t`` in the set ``states[..., facts]``
    (Python side: ``describe``, position building, tests; ``states`` one state or a batch;
    ``facts`` one index, or an array of them for a leading axis of sets)."""
    return (states[..., facts, None] >> np.arange(NUM_TILES)) & 1


def tile_colours(states: np.ndarray) -> np.ndarray:
    """``[..., NUM_TILES]`` door colours, -1 on the Control Tile (:func:`tile_colour` for arrays)."""
    colours = np.full(states.shape[:-1] + (NUM_TILES,), -1, dtype=np.int64)
    for c in range(NUM_COLOURS):
        colours += (c + 1) * tile_facts(states, COLOUR_TILES + c)
    return colours


@njit
def all_if(condition):
    """Every bit set when ``condition`` holds, none otherwise: ``set & all_if(c)``
    keeps a set of tiles or empties it without a branch."""
    return -np.int64(condition)


@njit
def write_frame_plane(out, start, tiles, side):
    """``out[start + t]`` = 1 where frame tile ``t`` of board side ``side`` is in the
    set ``tiles``, else 0: a plane of the observation or a block of actions, whole."""
    for t in range(NUM_TILES):
        out[start + t] = (tiles >> REL_TO_ABS[side, t]) & 1


def tile_kinds(states: np.ndarray) -> np.ndarray:
    """``[..., NUM_TILES]`` tile kinds (:func:`tile_kind` for arrays)."""
    kinds = np.zeros(states.shape[:-1] + (NUM_TILES,), dtype=np.int64)
    for k in range(1, NUM_KINDS):
        kinds += k * tile_facts(states, KIND_TILES + k)
    return kinds


@njit
def pawn_on(state, tables, tile):
    for s in range(tables[T_NUM_PLAYERS]):
        if state[PAWN + s] == tile:
            return s
    return -1


@njit
def pawn_tiles(state, tables):
    """The tiles under a pawn, as bits of one word (bit ``tile``)."""
    occupied = np.int64(0)
    for s in range(tables[T_NUM_PLAYERS]):
        if state[PAWN + s] >= 0:
            occupied |= np.int64(1) << state[PAWN + s]
    return occupied


@njit
def standable(state, tables, tile):
    """A pawn may stop here: an open door, not an uncookied Dalek door, no
    barrier, no other pawn, never the Control Tile (reached only by teleport)."""
    if tile < 0 or tile == CENTRE:
        return False
    if on_tile(state, DOORS_OPEN, tile) == 0 or on_tile(state, TIME_BARRIERS, tile) == 1:
        return False
    if on_tile(state, KIND_TILES + KIND_DALEK, tile) == 1 and on_tile(state, JAM_COOKIES, tile) == 0:
        return False
    return pawn_on(state, tables, tile) < 0


@njit
def step_target(state, tables, tile, dr, dc):
    """Tile reached from ``tile`` by one step (dr, dc), if a pawn may go there.

    Orthogonal steps need only a standable target; diagonal steps need a Time
    Tunnel across that corner with both ends open.
    """
    target = neighbour(tile, dr, dc)
    if target < 0:
        return -1
    if dr != 0 and dc != 0:
        corner, orientation = corner_of(tile, target)
        if tunnel_at(state, corner) != orientation:
            return -1
        if on_tile(state, DOORS_OPEN, tile) == 0 or on_tile(state, DOORS_OPEN, target) == 0:
            return -1
    if not standable(state, tables, target):
        return -1
    return target


@njit
def can_toggle(state, tables, tile):
    """A door may be opened or closed: not the Control Tile, no barrier;
    closing also needs no pawn on it and no Jam Cookie."""
    return ((toggleable_doors(state, pawn_tiles(state, tables)) >> np.int64(tile)) & 1) == 1


@njit
def toggleable_doors(state, occupied):
    """The tiles whose door may be toggled (:func:`can_toggle`) as one set, with the
    pawns' tiles given as a set (:func:`pawn_tiles`): not the Control Tile, no
    barrier, and closed, or open with no Jam Cookie and no pawn on it."""
    closable = ~state[JAM_COOKIES] & ~occupied
    return ~tile_bit(CENTRE) & ~state[TIME_BARRIERS] & (~state[DOORS_OPEN] | closable) & ALL_TILES


@njit
def toggle(state, tile):
    """Open a closed door (revealing its kind) or close an open one."""
    bit = tile_bit(tile)
    if state[DOORS_OPEN] & bit:
        state[DOORS_OPEN] &= ~bit
    else:
        state[DOORS_OPEN] |= bit
        state[KINDS_REVEALED] |= bit


@njit
def on_goal_row(tables, seat, tile):
    return tile >= 0 and tile != CENTRE and abs_to_rel(seat_side(tables, seat), tile) // GRID == GRID - 1


@njit
def tunnel_tiles(side, k, o):
    """Absolute end tiles of frame corner ``k`` with orientation ``o`` (0 or 1)."""
    r = k // (GRID - 1)
    c = k % (GRID - 1)
    if o == 0:
        return rel_to_abs(side, r * GRID + c), rel_to_abs(side, (r + 1) * GRID + c + 1)
    return rel_to_abs(side, r * GRID + c + 1), rel_to_abs(side, (r + 1) * GRID + c)


@njit
def target_seat(tables, mover, j):
    """Seat of opponent ``j`` (0-based, in turn order after the mover), or -1."""
    n = tables[T_NUM_PLAYERS]
    if j + 1 >= n:
        return -1
    return (mover + j + 1) % n


# --- the draw pile: 16 cards a word ---------------------------------------------------
@njit
def deck_card(state, i):
    """Card ``i`` of the draw pile (0 the bottom)."""
    shift = np.int64(CARD_BITS * (i % CARDS_PER_WORD))
    return (state[DECK + i // CARDS_PER_WORD] >> shift) & CARD_MASK


@njit
def set_deck_card(state, i, card):
    """Card ``i`` of the draw pile becomes ``card`` (0 also leaves a slot past the pile empty)."""
    shift = np.int64(CARD_BITS * (i % CARDS_PER_WORD))
    word = DECK + i // CARDS_PER_WORD
    state[word] = (state[word] & ~(np.int64(CARD_MASK) << shift)) | (np.int64(card) << shift)


@njit
def lay_deck(state, cards, size):
    """The draw pile becomes ``cards[:size]`` (bottom first), the slots past it empty (0)."""
    for w in range(DECK_WORDS):
        state[DECK + w] = 0
    for i in range(size):
        state[DECK + i // CARDS_PER_WORD] |= np.int64(cards[i]) << np.int64(CARD_BITS * (i % CARDS_PER_WORD))
    state[DECK_SIZE] = size


def deck_cards(states: np.ndarray) -> np.ndarray:
    """``[..., MAX_CARDS]`` every slot of the draw pile (Python side; the pile is the first
    ``DECK_SIZE``, the rest 0)."""
    words = states[..., DECK : DECK + DECK_WORDS, None]
    cards = (words >> (CARD_BITS * np.arange(CARDS_PER_WORD))) & CARD_MASK
    return cards.reshape(states.shape[:-1] + (MAX_CARDS,))


def set_deck_cards(state: np.ndarray, cards) -> None:
    """The draw pile of ``state`` becomes ``cards`` (bottom first; Python side of :func:`lay_deck`)."""
    cards = np.asarray(cards, dtype=np.int64).reshape(-1)
    lay_deck(state, cards, cards.size)
