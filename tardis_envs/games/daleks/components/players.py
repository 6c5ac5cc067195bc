"""Time of the Daleks: the players' side of the state (their TARDIS on the time track, Sonic
counters, the adventure they leave) and the end of the game. Kernels only; offsets in :mod:`.layout`."""

from __future__ import annotations

from ....core.jit import njit
from ....core.state import MAX_PLAYERS, REWARDS, STATUS, TERMINATED, TRUNCATED
from ..content import NUM_COLOURS, NUM_SYMBOLS, T_NUM_PLAYERS, T_TRACK
from ..layout import (
    ADV_CONDITIONS,
    ADV_SLOT,
    ADV_ZONE,
    BUILDER,
    CHALLENGE,
    DIE_COLOUR,
    DIE_FACE,
    FACE_CHANGED,
    HELP_MODE,
    HELPER,
    MANIPULATOR,
    MAX_DICE,
    OBL_COUNT,
    POOL,
    S_OVER,
    SEL_ABILITY,
    SEL_LEFT,
    SEL_MASK,
    SONIC,
    SONIC_LIMIT,
    STAGE,
    TARDIS,
    WIN_DOCTORS,
    WINNER,
)


@njit
def clear_adventure(state):
    """No adventure in progress: no zone, Challenge, help, dice pools or dice (what the
    observation and ``describe()["adventure"]`` show of an adventure is its own, never a
    finished one's)."""
    state[ADV_SLOT] = -1
    state[ADV_ZONE] = 0
    for s in range(NUM_SYMBOLS):
        state[CHALLENGE + s] = 0
    state[ADV_CONDITIONS] = 0
    state[HELPER] = -1
    state[HELP_MODE] = 0
    for c in range(2 * NUM_COLOURS):
        state[POOL + c] = 0
    state[BUILDER] = 0
    for d in range(MAX_DICE):
        state[DIE_COLOUR + d] = -1
        state[DIE_FACE + d] = 0
    state[FACE_CHANGED] = 0
    state[MANIPULATOR] = 0
    state[SEL_ABILITY] = -1
    state[SEL_LEFT] = 0
    state[SEL_MASK] = 0


@njit
def num_players(tables):
    return tables[T_NUM_PLAYERS]


@njit
def add_sonic(state, seat, n):
    v = state[SONIC + seat] + n
    if v > SONIC_LIMIT:
        v = SONIC_LIMIT
    if v < 0:
        v = 0
    state[SONIC + seat] = v


@njit
def move_tardis(state, tables, seat, n):
    v = state[TARDIS + seat] + n
    if v > tables[T_TRACK]:
        v = tables[T_TRACK]  # Gallifrey is the goal: movement stops there
    if v < 0:
        v = 0
    state[TARDIS + seat] = v


@njit
def end_game(state, tables, winner_kind):
    """Finish the game: Dalek wins give every Doctor -1; a Doctors' win gives +1 to each
    Doctor on Gallifrey and 0 to the others (a solo Doctor: +1)."""
    state[STATUS] = TERMINATED
    state[STAGE] = S_OVER
    state[WINNER] = winner_kind
    n = tables[T_NUM_PLAYERS]
    for p in range(MAX_PLAYERS):
        state[REWARDS + p] = 0
    for p in range(n):
        if winner_kind == WIN_DOCTORS:
            state[REWARDS + p] = 1 if state[TARDIS + p] >= tables[T_TRACK] else 0
        else:
            state[REWARDS + p] = -1
    state[OBL_COUNT] = 0


@njit
def truncate(state):
    state[STATUS] = TRUNCATED
    state[STAGE] = S_OVER
    state[OBL_COUNT] = 0
