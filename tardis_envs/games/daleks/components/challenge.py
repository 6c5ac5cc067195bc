"""Time of the Daleks: the adventure at hand: the conditions on a zone (Fixed Point, Time Locked,
Time Breach), the Challenge to meet, and the dice supply to meet it with. Kernels only; offsets
in :mod:`.layout`."""

from __future__ import annotations

from ....core.jit import njit
from ....core.rng import rng_below
from ....core.state import RNG_KEY
from ..content import (
    AN_CONDITIONS,
    AN_IMPRISON_COLOUR,
    AN_ONGOING,
    ANOMALY_FIELDS,
    DICE_SUPPLY,
    DIE_FACES,
    DILEMMA_FIELDS,
    DL_CONDITIONS,
    NUM_ANOMALIES,
    NUM_COLOURS,
    NUM_SYMBOLS,
    T_ANOMALIES,
    T_DILEMMAS,
    T_FIRST_GAME,
    T_NUM_PLAYERS,
    T_ZONES,
    ZONE_FIELDS,
)
from ..layout import (
    ADV_CONDITIONS,
    ANOMALY_STATE,
    AS_TASK,
    AT_SLOT,
    CHALLENGE,
    DIE_COLOUR,
    DIE_FACE,
    MAX_DICE,
    POOL,
    SLOT_ANOMALY,
    SLOT_ID,
    SLOT_KIND,
    TASK_IMPRISONED,
    ZONE_DILEMMA,
    ZONES_PER_SLOT,
)
from .locations import zone_record

COND_FIXED_POINT = 1
COND_TIME_LOCKED = 2
COND_TIME_BREACH = 4
ONGOING_EXTRA_SHIP = 1
ONGOING_BREACH = 2
ONGOING_FIXED = 3
ONGOING_LOCKED = 4


@njit
def task_ongoing(state, tables, effect):
    for a in range(NUM_ANOMALIES):
        if state[ANOMALY_STATE + a] == AS_TASK and tables[T_ANOMALIES + a * ANOMALY_FIELDS + AN_ONGOING] == effect:
            return True
    return False


@njit
def conditions_here(state, tables, slot, z):
    """Fixed Point / Time Locked / Time Breach bits in force for an adventure at this
    zone (its Dilemma or Location anomaly, and Task anomalies in play); none in the first game."""
    if tables[T_FIRST_GAME]:
        return 0
    bits = 0
    if state[SLOT_KIND + slot] == SLOT_ANOMALY:
        a = state[SLOT_ID + slot]
        bits |= tables[T_ANOMALIES + a * ANOMALY_FIELDS + AN_CONDITIONS]
    else:
        d = state[ZONE_DILEMMA + slot * ZONES_PER_SLOT + z]
        if d >= 0:
            bits |= tables[T_DILEMMAS + d * DILEMMA_FIELDS + DL_CONDITIONS]
    if task_ongoing(state, tables, ONGOING_BREACH):
        bits |= COND_TIME_BREACH
    if task_ongoing(state, tables, ONGOING_FIXED):
        bits |= COND_FIXED_POINT
    if task_ongoing(state, tables, ONGOING_LOCKED):
        bits |= COND_TIME_LOCKED
    return bits


@njit
def set_challenge(state, tables, slot, z):
    """The Challenge: the zone's symbols plus its Dilemma's (a Location anomaly: its own)."""
    for s in range(NUM_SYMBOLS):
        state[CHALLENGE + s] = 0
    if state[SLOT_KIND + slot] == SLOT_ANOMALY:
        a = state[SLOT_ID + slot]
        for s in range(NUM_SYMBOLS):
            state[CHALLENGE + s] = tables[T_ANOMALIES + a * ANOMALY_FIELDS + 3 + s]
    else:
        rec = zone_record(state, slot, z)
        for s in range(NUM_SYMBOLS):
            state[CHALLENGE + s] = tables[T_ZONES + rec * ZONE_FIELDS + s]
        d = state[ZONE_DILEMMA + slot * ZONES_PER_SLOT + z]
        if d >= 0:
            for s in range(NUM_SYMBOLS):
                state[CHALLENGE + s] += tables[T_DILEMMAS + d * DILEMMA_FIELDS + s]
    state[ADV_CONDITIONS] = conditions_here(state, tables, slot, z)


@njit
def challenge_met(state):
    """Every symbol of the Challenge is shown by a different die (both pools together)."""
    for s in range(NUM_SYMBOLS):
        need = state[CHALLENGE + s]
        if need == 0:
            continue
        have = 0
        for d in range(MAX_DICE):
            if state[DIE_COLOUR + d] >= 0 and state[DIE_FACE + d] == s:
                have += 1
        if have < need:
            return False
    return True


@njit
def imprisoned(state, tables, colour):
    n = 0
    for a in range(NUM_ANOMALIES):
        if state[ANOMALY_STATE + a] == AS_TASK and tables[T_ANOMALIES + a * ANOMALY_FIELDS + AN_IMPRISON_COLOUR] == colour:
            n += state[TASK_IMPRISONED + a]
    return n


@njit
def supply_left(state, tables, colour, pool):
    """Dice of ``colour`` still on the table for ``pool`` to take: the physical dice
    less those imprisoned and those already in either pool."""
    return DICE_SUPPLY[colour] - imprisoned(state, tables, colour) - state[POOL + colour] - state[POOL + NUM_COLOURS + colour] + 0 * pool


@njit
def roll_die(state, colour):
    return DIE_FACES[colour, rng_below(state, RNG_KEY, 6)]


@njit
def doctor_at(state, tables, slot):
    """1 if any Doctor marker is on this slot."""
    for p in range(tables[T_NUM_PLAYERS]):
        if state[AT_SLOT + p] == slot:
            return True
    return False
