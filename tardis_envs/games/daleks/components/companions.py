"""Time of the Daleks: Companions in the Doctors' TARDISes and in the Companion decks.
Kernels only; offsets in :mod:`.layout`."""

from __future__ import annotations

from ....core.jit import njit
from ....core.rng import rng_below
from ....core.state import RNG_KEY
from ..content import COMPANION_DECK, COMPANION_FIELDS, NUM_COMPANIONS, T_COMPANIONS
from ..layout import COMPANION, COMPANION_PLACE, COMPANION_SPACES, PART_TIME, PLACE_DECK


@njit
def companion_count(state, seat):
    n = 0
    for k in range(COMPANION_SPACES):
        if state[COMPANION + seat * COMPANION_SPACES + k] >= 0:
            n += 1
    return n


@njit
def free_space(state, seat):
    for k in range(COMPANION_SPACES):
        if state[COMPANION + seat * COMPANION_SPACES + k] < 0:
            return k
    return -1


@njit
def add_companion(state, seat, companion, part_time):
    k = free_space(state, seat)
    state[COMPANION + seat * COMPANION_SPACES + k] = companion
    state[PART_TIME + seat * COMPANION_SPACES + k] = part_time
    state[COMPANION_PLACE + companion] = seat


@njit
def remove_companion(state, seat, companion, to_place):
    """Off the console: ``PLACE_DECK`` dismisses (back into its deck), ``PLACE_DISCARD`` discards."""
    for k in range(COMPANION_SPACES):
        if state[COMPANION + seat * COMPANION_SPACES + k] == companion:
            state[COMPANION + seat * COMPANION_SPACES + k] = -1
            state[PART_TIME + seat * COMPANION_SPACES + k] = 0
    state[COMPANION_PLACE + companion] = to_place


@njit
def companion_deck(tables, companion):
    return tables[T_COMPANIONS + companion * COMPANION_FIELDS + COMPANION_DECK]


@njit
def draw_companion(state, tables, deck):
    """A uniformly random Companion of ``deck`` (0 Earth, 1 Alien), or -1: Companion
    decks are never refilled (rulebook)."""
    n = 0
    for k in range(NUM_COMPANIONS):
        if state[COMPANION_PLACE + k] == PLACE_DECK and companion_deck(tables, k) == deck:
            n += 1
    if n == 0:
        return -1
    pick = rng_below(state, RNG_KEY, n)
    for k in range(NUM_COMPANIONS):
        if state[COMPANION_PLACE + k] == PLACE_DECK and companion_deck(tables, k) == deck:
            if pick == 0:
                return k
            pick -= 1
    return -1


@njit
def deck_has_companion(state, tables, deck):
    for k in range(NUM_COMPANIONS):
        if state[COMPANION_PLACE + k] == PLACE_DECK and companion_deck(tables, k) == deck:
            return True
    return False
