"""Keys to the TARDIS: ``check_state``, every word of a state from outside against its
range and the game's invariants (the contract in :mod:`tardis_envs.core.state`)."""

from __future__ import annotations

import numpy as np

from ...core.game import EarlierLayout
from ...core.jit import njit, stack_empty
from ...core.state import HEADER_SIZE, MAX_PLAYERS, RUNNING, STATUS, VALID, first_outside, first_set_bit_outside
from . import board, content, layout
from .board import deck_card, on_tile, tile_kind
from .content import CENTRE, NUM_CARD_TYPES, NUM_COLOURS, NUM_TILES, T_CARD_COUNT, T_NUM_PLAYERS, T_PANDORICA_TURNS, T_TILE_COUNT
from .layout import (
    BONUS_USED,
    CARD_BARRIER,
    CARD_COOKIE,
    CARD_PANDORICA,
    CARD_TUNNEL,
    CARDS_PER_WORD,
    COLOUR_TILES,
    DECK,
    DECK_SIZE,
    DISCARD,
    DOORS_OPEN,
    EXTRA_TURN_PENDING,
    HAND,
    JAM_COOKIES,
    KIND_CONTROL,
    KIND_DALEK,
    KIND_TILES,
    LAST_ACTION,
    LAST_SEAT,
    LAST_TELEPORTED,
    LAST_TILE,
    LAST_TILE2,
    MAX_CARDS,
    NUM_ACTIONS,
    NUM_CORNERS,
    NUM_KINDS,
    PANDORICA,
    PAWN,
    PHASE,
    PHASE_OVER,
    STATE_SIZE,
    TIME_BARRIERS,
    TUNNELS,
    TURN,
    WINNER,
)

(
    BAD_TILE_SET,
    BAD_KINDS,
    BAD_COLOURS,
    BAD_CONTROL_TILE,
    BAD_TILE_COUNT,
    BAD_TUNNELS,
    BAD_PAWN,
    PAWNS_SHARE,
    PAWN_CANNOT_STAND,
    BAD_PANDORICA,
    BAD_EMPTY_SEAT,
    BAD_COUNT,
    BAD_DECK_SIZE,
    BAD_DECK_CARD,
    BAD_DECK_SLOT,
    CARDS_NOT_CONSERVED,
    BAD_PHASE,
    PHASE_VS_STATUS,
    BAD_TURN,
    BAD_FLAG,
    BAD_SEAT,
    BAD_LAST_ACTION,
    BAD_LAST_TILE,
) = range(1, 24)

PROBLEMS = (
    ("valid", "-"),
    ("set of tiles", f"bits of the {NUM_TILES} tiles only"),
    ("tile kinds", "exactly one kind on every tile"),
    ("door colours", "exactly one colour on every door, none on the Control Tile"),
    ("Control Tile", "the centre tile, of kind control, open"),
    ("doors of a colour and kind", "the component counts of every colour and kind"),
    ("Time Tunnels", f"bits of the {NUM_CORNERS} grid corners only, one orientation a corner"),
    ("pawn", f"-1 (off the grid) or a tile 0..{NUM_TILES - 1}"),
    ("pawn", "at most one pawn on a tile"),
    ("pawn", "a tile a pawn may stand on (open, no Time Barrier, no Dalek door without a Jam Cookie)"),
    ("Pandorica turns", "0 .. the option's pandorica turns"),
    ("word of a seat not in the game", "-1 for its pawn, 0 for its other words"),
    ("card count", "a count >= 0"),
    ("deck size", f"0..{MAX_CARDS}"),
    ("draw pile", f"card types 0..{NUM_CARD_TYPES - 1} in its first deck-size slots"),
    ("draw pile", "empty (0) slots past the deck size"),
    ("cards", "every card of the game exactly once across deck, hands, discard pile and board"),
    ("phase", f"0 (play) .. {PHASE_OVER} (over)"),
    ("phase", f"{PHASE_OVER} (over) exactly when the status is not running"),
    ("turn", "a count >= 0"),
    ("flag (extra turn pending, teleported)", "0 or 1"),
    ("winner or last seat", "-1 (none) or a seat of the game"),
    ("last action", f"-1 (none) or 0..{NUM_ACTIONS - 1}"),
    ("last tile", f"-1 (none) or a tile 0..{NUM_TILES - 1}"),
)


@njit
def _bits(word):
    count = 0
    while word:
        word &= word - 1
        count += 1
    return count


@njit
def check_state(state, tables):
    """``(0, -1)`` for a valid Keys to the TARDIS state, else ``(code, index)`` (``PROBLEMS``)."""
    n = tables[T_NUM_PLAYERS]
    i = first_set_bit_outside(state, DOORS_OPEN, TUNNELS - DOORS_OPEN, NUM_TILES)
    if i >= 0:
        return BAD_TILE_SET, i
    i = first_set_bit_outside(state, BONUS_USED, MAX_PLAYERS, NUM_TILES)
    if i >= 0:
        return BAD_TILE_SET, i
    for t in range(NUM_TILES):
        kinds = 0
        for k in range(NUM_KINDS):
            kinds += on_tile(state, KIND_TILES + k, t)
        if kinds != 1:
            return BAD_KINDS, KIND_TILES
        colours = 0
        for c in range(NUM_COLOURS):
            colours += on_tile(state, COLOUR_TILES + c, t)
        if colours != (0 if t == CENTRE else 1):
            return BAD_COLOURS, COLOUR_TILES
    if tile_kind(state, CENTRE) != KIND_CONTROL or not on_tile(state, DOORS_OPEN, CENTRE):
        return BAD_CONTROL_TILE, KIND_TILES + KIND_CONTROL
    for c in range(NUM_COLOURS):
        for k in range(KIND_CONTROL):
            if _bits(state[COLOUR_TILES + c] & state[KIND_TILES + k]) != tables[T_TILE_COUNT + k]:
                return BAD_TILE_COUNT, KIND_TILES + k
    i = first_set_bit_outside(state, TUNNELS, 2, NUM_CORNERS)
    if i >= 0:
        return BAD_TUNNELS, i
    if state[TUNNELS] & state[TUNNELS + 1]:
        return BAD_TUNNELS, TUNNELS
    for s in range(MAX_PLAYERS):
        p = state[PAWN + s]
        if s >= n:
            if p != -1:
                return BAD_EMPTY_SEAT, PAWN + s
            for at in (PANDORICA + s, BONUS_USED + s):
                if state[at] != 0:
                    return BAD_EMPTY_SEAT, at
            i = first_outside(state, HAND + NUM_CARD_TYPES * s, NUM_CARD_TYPES, 0, 0)
            if i >= 0:
                return BAD_EMPTY_SEAT, i
            continue
        if not -1 <= p < NUM_TILES:
            return BAD_PAWN, PAWN + s
        if p >= 0:
            for other in range(s):
                if state[PAWN + other] == p:
                    return PAWNS_SHARE, PAWN + s
            dalek = tile_kind(state, p) == KIND_DALEK and not on_tile(state, JAM_COOKIES, p)
            if p != CENTRE and (not on_tile(state, DOORS_OPEN, p) or on_tile(state, TIME_BARRIERS, p) or dalek):
                return PAWN_CANNOT_STAND, PAWN + s
        if not 0 <= state[PANDORICA + s] <= tables[T_PANDORICA_TURNS]:
            return BAD_PANDORICA, PANDORICA + s
    i = first_outside(state, HAND, MAX_PLAYERS * NUM_CARD_TYPES, 0, MAX_CARDS)
    if i >= 0:
        return BAD_COUNT, i
    i = first_outside(state, DISCARD, NUM_CARD_TYPES, 0, MAX_CARDS)
    if i >= 0:
        return BAD_COUNT, i
    size = state[DECK_SIZE]
    if not 0 <= size <= MAX_CARDS:
        return BAD_DECK_SIZE, DECK_SIZE
    totals = stack_empty(NUM_CARD_TYPES, np.int64)
    for c in range(NUM_CARD_TYPES):
        totals[c] = 0
    for slot in range(MAX_CARDS):
        card = deck_card(state, slot)
        if slot < size:
            if card >= NUM_CARD_TYPES:
                return BAD_DECK_CARD, DECK + slot // CARDS_PER_WORD
            totals[card] += 1
        elif card != 0:
            return BAD_DECK_SLOT, DECK + slot // CARDS_PER_WORD
    for c in range(NUM_CARD_TYPES):
        totals[c] += state[DISCARD + c]
        for s in range(n):
            totals[c] += state[HAND + NUM_CARD_TYPES * s + c]
    totals[CARD_BARRIER] += _bits(state[TIME_BARRIERS])
    totals[CARD_COOKIE] += _bits(state[JAM_COOKIES])
    totals[CARD_TUNNEL] += _bits(state[TUNNELS]) + _bits(state[TUNNELS + 1])
    for s in range(n):
        totals[CARD_PANDORICA] += state[PANDORICA + s] > 0
    for c in range(NUM_CARD_TYPES):
        if totals[c] != tables[T_CARD_COUNT + c]:
            return CARDS_NOT_CONSERVED, -1
    if not 0 <= state[PHASE] <= PHASE_OVER:
        return BAD_PHASE, PHASE
    if (state[PHASE] == PHASE_OVER) != (state[STATUS] != RUNNING):
        return PHASE_VS_STATUS, PHASE
    if state[TURN] < 0:
        return BAD_TURN, TURN
    for at in (EXTRA_TURN_PENDING, LAST_TELEPORTED):
        if not 0 <= state[at] <= 1:
            return BAD_FLAG, at
    for at in (WINNER, LAST_SEAT):
        if not -1 <= state[at] < n:
            return BAD_SEAT, at
    if not -1 <= state[LAST_ACTION] < NUM_ACTIONS:
        return BAD_LAST_ACTION, LAST_ACTION
    for at in (LAST_TILE, LAST_TILE2):
        if not -1 <= state[at] < NUM_TILES:
            return BAD_LAST_TILE, at
    return VALID, -1


# --- states saved under an earlier layout ----------------------------------------
# The state's layout up to tardis_envs commit 4abd339 (541 words), where it differs from
# now: after the header, a word per tile for each of colour, kind, open, revealed, barrier
# and cookie (EARLIER_BOARD_WORDS); a word per grid corner for the tunnels (0 none, else the
# orientation); the pawns, Pandorica turns, bonuses and hands as now; a word per card of
# the draw pile (-1 past its size); from DECK_SIZE on as now.
EARLIER_BOARD_WORDS = 6 * NUM_TILES
EARLIER_TUNNEL = HEADER_SIZE + EARLIER_BOARD_WORDS
EARLIER_PAWN = EARLIER_TUNNEL + NUM_CORNERS
EARLIER_DECK = EARLIER_PAWN + (layout.DECK - layout.PAWN)
EARLIER_DECK_SIZE = EARLIER_DECK + layout.MAX_CARDS
EARLIER_STATE_SIZE = EARLIER_DECK_SIZE + (STATE_SIZE - DECK_SIZE)


def upgrade_from_layout_1(game, state: np.ndarray) -> np.ndarray:
    """A state of the layout before the board's facts became sets of tiles and the draw
    pile was packed (up to tardis_envs commit 4abd339, ``EARLIER_STATE_SIZE`` words: one
    word per tile for each of colour, kind, open, revealed, barrier and cookie, and one
    per card of the draw pile), rewritten in layout 2."""
    fields = state[HEADER_SIZE : HEADER_SIZE + EARLIER_BOARD_WORDS].astype(np.int64).reshape(6, NUM_TILES)
    colours, kinds, flags = fields[0], fields[1], fields[2:]
    if ((colours < -1) | (colours >= content.NUM_COLOURS)).any() or ((kinds < 0) | (kinds >= layout.NUM_KINDS)).any():
        raise ValueError(f"{game.spec.env_id}: corrupt state (earlier layout): tile colours or kinds out of range")
    if not np.isin(flags, (0, 1)).all():
        raise ValueError(f"{game.spec.env_id}: corrupt state (earlier layout): tile flags must be 0 or 1")
    bits = np.int64(1) << np.arange(NUM_TILES, dtype=np.int64)
    current = np.zeros(STATE_SIZE, dtype=np.int64)
    current[:HEADER_SIZE] = state[:HEADER_SIZE]
    for facts, flag in zip((layout.DOORS_OPEN, layout.KINDS_REVEALED, layout.TIME_BARRIERS, layout.JAM_COOKIES), flags):
        current[facts] = int(bits[flag == 1].sum())
    for c in range(content.NUM_COLOURS):
        current[layout.COLOUR_TILES + c] = int(bits[colours == c].sum())
    for k in range(layout.NUM_KINDS):
        current[layout.KIND_TILES + k] = int(bits[kinds == k].sum())
    orientations = state[EARLIER_TUNNEL:EARLIER_PAWN].astype(np.int64)
    if not np.isin(orientations, (0, 1, 2)).all():
        raise ValueError(f"{game.spec.env_id}: corrupt state (earlier layout): tunnel orientation must be 0, 1 or 2")
    for corner in np.flatnonzero(orientations):
        board.set_tunnel(current, int(corner), int(orientations[corner]))
    current[layout.PAWN : layout.DECK] = state[EARLIER_PAWN:EARLIER_DECK]
    size = int(state[EARLIER_DECK_SIZE])
    deck = state[EARLIER_DECK : EARLIER_DECK + max(min(size, layout.MAX_CARDS), 0)].astype(np.int64)
    if not 0 <= size <= layout.MAX_CARDS or ((deck < 0) | (deck >= NUM_CARD_TYPES)).any():
        raise ValueError(f"{game.spec.env_id}: corrupt state (earlier layout): deck")
    board.set_deck_cards(current, deck)
    current[DECK_SIZE:] = state[EARLIER_DECK_SIZE:]
    return current


EARLIER_LAYOUTS = (EarlierLayout(version=1, state_size=EARLIER_STATE_SIZE, upgrade=upgrade_from_layout_1),)
