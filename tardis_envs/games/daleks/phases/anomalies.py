"""Time of the Daleks: the Dalek Ship on the Web of Time, Time Anomaly cards, and the
outcome effects (rewards, fail costs, instant anomalies, cards' instant effects)."""

from __future__ import annotations

from ....core.jit import njit
from ....core.rng import rng_below
from ....core.state import RNG_KEY, RUNNING, STATUS
from ..components.cards import draw_card
from ..components.challenge import imprisoned
from ..components.dalek_markers import place_dalek, remove_dalek_at
from ..components.locations import free_slot
from ..components.players import add_sonic, move_tardis
from ..content import (
    AK_LOCATION,
    AK_TASK,
    AN_EACH_DOCTOR,
    AN_EFFECTS,
    AN_IMPRISON_COLOUR,
    AN_IMPRISON_COUNT,
    AN_KIND,
    AN_PROGRESS_NEEDED,
    AN_REPLACE,
    AN_TRAVEL_TAX,
    ANOMALY_FIELDS,
    DICE_SUPPLY,
    E_DISCARD_CARDS,
    E_DISCARD_COMPANION,
    E_DISMISS_COMPANION,
    E_DRAW,
    E_FREE_DIE,
    E_GAIN_SONIC,
    E_LOSE_SONIC,
    E_MOVE_SHIP,
    E_MOVE_TARDIS,
    E_NONE,
    E_PLACE_DALEK,
    E_PROGRESS,
    E_REGENERATE,
    E_REMOVE_DALEK,
    MAX_EFFECTS,
    NUM_ANOMALIES,
    NUM_DOCTORS,
    T_ANOMALIES,
    T_NUM_PLAYERS,
    T_TRACK,
)
from ..layout import (
    ANOMALY_SLOT,
    ANOMALY_STATE,
    AS_DECK,
    AS_DISCARD,
    AS_LOCATION,
    AS_TASK,
    DOCTOR,
    LAST_ANOMALY,
    MARKER,
    MARKER_SLOTS,
    OB_DISCARD_CARD,
    OB_DISCARD_COMPANION,
    OB_DISMISS_COMPANION,
    SHIP,
    SLOT_ANOMALY,
    SLOT_EARTH,
    SLOT_ID,
    SLOT_KIND,
    TASK_IMPRISONED,
    TASK_PROGRESS,
    ZONE_DALEKS,
    ZONE_DILEMMA,
    ZONE_FACE_UP,
    ZONES_PER_SLOT,
)
from .obligations import push_obligation


@njit
def regenerate(state, tables):
    """Every Doctor takes the next Doctor card in regeneration order (the last becomes
    the First): a rotation, so no two seats ever hold the same Doctor."""
    for p in range(tables[T_NUM_PLAYERS]):
        state[DOCTOR + p] = (state[DOCTOR + p] + 1) % NUM_DOCTORS


@njit
def advance_task(state, tables, a, n):
    """``n`` steps of a Task anomaly: dice freed or Progress markers placed; discarded when done."""
    base = T_ANOMALIES + a * ANOMALY_FIELDS
    if tables[base + AN_IMPRISON_COUNT] > 0:
        n = min(n, state[TASK_IMPRISONED + a])
        state[TASK_IMPRISONED + a] -= n
    state[TASK_PROGRESS + a] += n
    if state[TASK_PROGRESS + a] >= tables[base + AN_PROGRESS_NEEDED] or (
        tables[base + AN_IMPRISON_COUNT] > 0 and state[TASK_IMPRISONED + a] == 0
    ):
        state[ANOMALY_STATE + a] = AS_DISCARD
        state[TASK_IMPRISONED + a] = 0


@njit
def first_task(state, tables, imprisoning):
    """The first Task anomaly in play that imprisons dice (or that counts progress)."""
    for a in range(NUM_ANOMALIES):
        if state[ANOMALY_STATE + a] != AS_TASK:
            continue
        if (tables[T_ANOMALIES + a * ANOMALY_FIELDS + AN_IMPRISON_COUNT] > 0) == imprisoning:
            return a
    return -1


@njit
def earth_zone_fewest(state):
    best = 0
    for z in range(1, 3):
        if state[ZONE_DALEKS + z] < state[ZONE_DALEKS + best]:
            best = z
    return best


@njit
def apply_outcome(state, tables, seat, effect, count, slot, z):
    """One outcome effect for ``seat`` at zone (slot, z) (slot -1: at no Location).
    A Ship move is :func:`apply_effect`'s (instant anomalies never move the Ship, so
    drawing an anomaly never recurses into another Ship move)."""
    if effect == E_NONE:
        return
    if effect == E_GAIN_SONIC:
        add_sonic(state, seat, count)
    elif effect == E_LOSE_SONIC:
        add_sonic(state, seat, -count)
    elif effect == E_DRAW:
        for _ in range(count):
            draw_card(state, tables, seat)
    elif effect == E_MOVE_TARDIS:
        move_tardis(state, tables, seat, count)
    elif effect == E_REMOVE_DALEK:
        if slot >= 0:
            for _ in range(count):
                remove_dalek_at(state, slot, z)
    elif effect == E_PLACE_DALEK:
        if count == 1:  # on Earth: the Time Zone with the fewest markers
            place_dalek(state, tables, earth_zone_fewest(state))
        elif slot >= 0 and state[SLOT_KIND + slot] != SLOT_ANOMALY:
            zone = z if state[SLOT_KIND + slot] == SLOT_EARTH else slot * ZONES_PER_SLOT + z
            place_dalek(state, tables, zone)
    elif effect == E_DISCARD_CARDS:
        for _ in range(count):
            push_obligation(state, seat, OB_DISCARD_CARD, 1)
    elif effect == E_DISCARD_COMPANION:
        for _ in range(count):
            push_obligation(state, seat, OB_DISCARD_COMPANION, 1)
    elif effect == E_DISMISS_COMPANION:
        for _ in range(count):
            push_obligation(state, seat, OB_DISMISS_COMPANION, 1)
    elif effect == E_FREE_DIE:
        a = first_task(state, tables, True)
        if a >= 0:
            advance_task(state, tables, a, count)
    elif effect == E_PROGRESS:
        a = first_task(state, tables, False)
        if a >= 0:
            advance_task(state, tables, a, count)
    elif effect == E_REGENERATE:
        regenerate(state, tables)


@njit
def apply_outcomes(state, tables, seat, base, slot, z):
    """The ``MAX_EFFECTS`` (effect, count) pairs at ``tables[base:]`` for ``seat``."""
    for j in range(MAX_EFFECTS):
        if state[STATUS] != RUNNING:
            return
        apply_effect(state, tables, seat, tables[base + 2 * j], tables[base + 2 * j + 1], slot, z)


@njit
def travel_tax_active(state, tables):
    for a in range(NUM_ANOMALIES):
        if state[ANOMALY_STATE + a] == AS_LOCATION and tables[T_ANOMALIES + a * ANOMALY_FIELDS + AN_TRAVEL_TAX]:
            return True
    return False


@njit
def resolve_anomaly(state, tables, a):
    """Put a drawn anomaly into play; returns how many more anomalies to draw."""
    base = T_ANOMALIES + a * ANOMALY_FIELDS
    kind = tables[base + AN_KIND]
    state[LAST_ANOMALY] = a
    if kind == AK_LOCATION:
        slot = free_slot(state)
        state[SLOT_KIND + slot] = SLOT_ANOMALY
        state[SLOT_ID + slot] = a
        for zz in range(ZONES_PER_SLOT):
            state[ZONE_DILEMMA + slot * ZONES_PER_SLOT + zz] = -1
            state[ZONE_FACE_UP + slot * ZONES_PER_SLOT + zz] = 0
            state[ZONE_DALEKS + slot * ZONES_PER_SLOT + zz] = 0
        state[ANOMALY_STATE + a] = AS_LOCATION
        state[ANOMALY_SLOT + a] = slot
        return 0
    if kind == AK_TASK:
        state[ANOMALY_STATE + a] = AS_TASK
        state[TASK_PROGRESS + a] = 0
        colour = tables[base + AN_IMPRISON_COLOUR]
        if colour >= 0:
            free = DICE_SUPPLY[colour] - imprisoned(state, tables, colour)
            state[TASK_IMPRISONED + a] = min(tables[base + AN_IMPRISON_COUNT], free)
        return 0
    # instant: each effect acts once or for each Doctor, as its card says (AN_EACH_DOCTOR); then
    # the card is discarded
    state[ANOMALY_STATE + a] = AS_DISCARD
    for j in range(MAX_EFFECTS):
        effect = tables[base + AN_EFFECTS + 2 * j]
        count = tables[base + AN_EFFECTS + 2 * j + 1]
        doctors = tables[T_NUM_PLAYERS] if (tables[base + AN_EACH_DOCTOR] >> j) & 1 else 1
        for p in range(doctors):
            if state[STATUS] != RUNNING:
                return 0
            apply_outcome(state, tables, p, effect, count, -1, 0)
    return tables[base + AN_REPLACE]


@njit
def draw_anomalies(state, tables, n):
    """Draw and resolve ``n`` Time Anomaly cards (an empty deck draws nothing)."""
    while n > 0 and state[STATUS] == RUNNING:
        n -= 1
        count = 0
        for a in range(NUM_ANOMALIES):
            if state[ANOMALY_STATE + a] == AS_DECK:
                count += 1
        if count == 0:
            return
        pick = rng_below(state, RNG_KEY, count)
        for a in range(NUM_ANOMALIES):
            if state[ANOMALY_STATE + a] == AS_DECK:
                if pick == 0:
                    n += resolve_anomaly(state, tables, a)
                    break
                pick -= 1


@njit
def move_ship(state, tables, n):
    """Move the Dalek Ship ``n`` spaces (it stops on Gallifrey and on Skaro). Moving
    forward onto or through a Time Anomaly marker removes it and draws a card."""
    if n < 0:
        state[SHIP] = max(0, state[SHIP] + n)
        return
    drawn = 0
    for _ in range(n):
        if state[SHIP] >= tables[T_TRACK]:
            break
        state[SHIP] += 1
        for j in range(MARKER_SLOTS):
            if state[MARKER + j] == state[SHIP]:
                state[MARKER + j] = -1
                drawn += 1
    draw_anomalies(state, tables, drawn)


@njit
def apply_effect(state, tables, seat, effect, count, slot, z):
    """Any outcome effect, the Dalek Ship's moves included."""
    if effect == E_MOVE_SHIP:
        move_ship(state, tables, count)
    else:
        apply_outcome(state, tables, seat, effect, count, slot, z)
