"""Time of the Daleks, the end of an adventure and steps 4 of a Doctor turn: resolve, Finish.

Success: the Dilemma is discarded; the Doctor gains its Time Zone's reward; one Dalek
marker leaves the Location (on Earth: from the Doctor's Time Zone); Part-Time Companions
become Full-Time. A helper who came gains the reward too and removes another Dalek; a
helper from afar draws a Timey-Wimey card. A Time Anomaly Location is discarded instead
(its reward as above) and every Doctor there returns to its console. Task anomalies
whose trigger the Challenge had (a symbol, or being on Earth) advance a step.

Failure: Part-Time Companions are dismissed (back into their decks); a Dalek marker is
placed at the Location (on Earth in the Doctor's Time Zone; never on a Time Anomaly),
one more if the helper came; the Dilemma's Fail cost is paid by the Doctor (a choice of
two: only an option the Doctor can pay in full, unless none is) and by a helper who
came; a helper from afar discards a Sonic token or a card.

Finish: the adventure is over (nothing of it stays in the observation or ``describe``);
Locations other than Earth with neither a Doctor nor a Dalek marker are
discarded (Time Anomaly Locations stay until completed); empty Earth zones get a
face-down Dilemma; the Doctor discards down to four Timey-Wimey cards; the next Doctor
plays, or the Daleks after the last.
"""

from __future__ import annotations

from ....core.jit import njit
from ....core.state import RUNNING, STATUS
from ..components.cards import draw_card, hand_size
from ..components.challenge import challenge_met, doctor_at
from ..components.companions import companion_count, remove_companion
from ..components.dalek_markers import daleks_at_location, place_dalek, remove_dalek_at
from ..components.locations import clear_slot, fill_zone, zone_record
from ..components.players import clear_adventure
from ..content import (
    AN_FAIL,
    AN_REWARD,
    AN_TRIGGER_EARTH,
    AN_TRIGGER_SYMBOLS,
    ANOMALY_FIELDS,
    DILEMMA_FIELDS,
    DL_NUM_OPTIONS,
    DL_OPTIONS,
    E_DISCARD_CARDS,
    E_DISCARD_COMPANION,
    E_DISMISS_COMPANION,
    E_LOSE_SONIC,
    MAX_EFFECTS,
    NUM_ANOMALIES,
    NUM_SYMBOLS,
    T_ANOMALIES,
    T_DILEMMAS,
    T_NUM_PLAYERS,
    T_ZONES,
    Z_REWARD,
    ZONE_FIELDS,
)
from ..layout import (
    A_FAIL_OPTION,
    A_SEAT,
    ACTIVE,
    ADV_SLOT,
    ADV_ZONE,
    ANOMALY_STATE,
    AS_DISCARD,
    AS_TASK,
    AT_SLOT,
    CARD_PLACE,
    CHALLENGE,
    COMPANION,
    COMPANION_SPACES,
    DILEMMA_PLACE,
    FAIL_DILEMMA,
    FAIL_SEAT,
    GIVE_CARD,
    HAND_LIMIT,
    HELP_AFAR,
    HELP_COME,
    HELP_MODE,
    HELPER,
    LAST_RESULT,
    LAST_RESULT_SEAT,
    MAX_SLOTS,
    OB_HAND_LIMIT,
    OB_PAY,
    PART_TIME,
    PLACE_DECK,
    PLACE_DISCARD,
    RETURN_STAGE,
    S_DALEK_TURN,
    S_END_TURN,
    S_FAIL_CHOICE,
    S_FINISH,
    S_TURN_START,
    SEL_SEAT,
    SLOT_ANOMALY,
    SLOT_EARTH,
    SLOT_ID,
    SLOT_KIND,
    SONIC,
    STAGE,
    ZONE_DILEMMA,
    ZONES_PER_SLOT,
)
from .anomalies import advance_task, apply_outcomes
from .obligations import push_obligation


@njit
def reward(state, tables, seat, slot, z):
    if state[SLOT_KIND + slot] == SLOT_ANOMALY:
        base = T_ANOMALIES + state[SLOT_ID + slot] * ANOMALY_FIELDS + AN_REWARD
    else:
        base = T_ZONES + zone_record(state, slot, z) * ZONE_FIELDS + Z_REWARD
    apply_outcomes(state, tables, seat, base, slot, z)


@njit
def option_base(d, k):
    return T_DILEMMAS + d * DILEMMA_FIELDS + DL_OPTIONS + k * MAX_EFFECTS * 2


@njit
def affordable(state, tables, seat, base):
    """The seat holds everything the option asks it to discard."""
    for j in range(MAX_EFFECTS):
        effect = tables[base + 2 * j]
        count = tables[base + 2 * j + 1]
        if effect == E_LOSE_SONIC and state[SONIC + seat] < count:
            return False
        if effect == E_DISCARD_CARDS and hand_size(state, seat) < count:
            return False
        if (effect == E_DISCARD_COMPANION or effect == E_DISMISS_COMPANION) and companion_count(state, seat) < count:
            return False
    return True


@njit
def advance_tasks(state, tables, on_earth):
    symbols = 0
    for s in range(NUM_SYMBOLS):
        if state[CHALLENGE + s] > 0:
            symbols |= 1 << s
    for a in range(NUM_ANOMALIES):
        if state[ANOMALY_STATE + a] != AS_TASK:
            continue
        base = T_ANOMALIES + a * ANOMALY_FIELDS
        if (tables[base + AN_TRIGGER_SYMBOLS] & symbols) or (on_earth and tables[base + AN_TRIGGER_EARTH]):
            advance_task(state, tables, a, 1)


@njit
def resolve(state, tables):
    seat = state[ACTIVE]
    helper = state[HELPER]
    mode = state[HELP_MODE]
    slot = state[ADV_SLOT]
    z = state[ADV_ZONE]
    kind = state[SLOT_KIND + slot]
    state[LAST_RESULT_SEAT] = seat
    state[STAGE] = S_FINISH
    if challenge_met(state):
        state[LAST_RESULT] = 1
        if kind == SLOT_ANOMALY:
            reward(state, tables, seat, slot, z)
            if mode == HELP_COME:
                reward(state, tables, helper, slot, z)
            state[ANOMALY_STATE + state[SLOT_ID + slot]] = AS_DISCARD
            for p in range(tables[T_NUM_PLAYERS]):
                if state[AT_SLOT + p] == slot:
                    state[AT_SLOT + p] = -1
            clear_slot(state, slot)
        else:
            zone = slot * ZONES_PER_SLOT + z
            d = state[ZONE_DILEMMA + zone]
            if d >= 0:
                state[DILEMMA_PLACE + d] = PLACE_DISCARD
                state[ZONE_DILEMMA + zone] = -1
            reward(state, tables, seat, slot, z)
            remove_dalek_at(state, slot, z)
            if mode == HELP_COME:
                reward(state, tables, helper, slot, z)
                remove_dalek_at(state, slot, z)
        if mode == HELP_AFAR:
            draw_card(state, tables, helper)
        for k in range(COMPANION_SPACES):
            state[PART_TIME + seat * COMPANION_SPACES + k] = 0
        advance_tasks(state, tables, kind == SLOT_EARTH)
        return
    state[LAST_RESULT] = 2
    for k in range(COMPANION_SPACES):
        if state[PART_TIME + seat * COMPANION_SPACES + k]:
            remove_companion(state, seat, state[COMPANION + seat * COMPANION_SPACES + k], PLACE_DECK)
    if mode == HELP_AFAR:
        push_obligation(state, helper, OB_PAY, 1)
    if kind == SLOT_ANOMALY:
        base = T_ANOMALIES + state[SLOT_ID + slot] * ANOMALY_FIELDS + AN_FAIL
        apply_outcomes(state, tables, seat, base, slot, z)
        if mode == HELP_COME:
            apply_outcomes(state, tables, helper, base, slot, z)
        return
    zone = z if kind == SLOT_EARTH else slot * ZONES_PER_SLOT + z
    place_dalek(state, tables, zone)
    if mode == HELP_COME:
        place_dalek(state, tables, zone)
    if state[STATUS] != RUNNING:
        return
    d = state[ZONE_DILEMMA + slot * ZONES_PER_SLOT + z]
    if d < 0:
        return
    if tables[T_DILEMMAS + d * DILEMMA_FIELDS + DL_NUM_OPTIONS] > 1:
        state[FAIL_SEAT] = seat
        state[FAIL_DILEMMA] = d
        state[STAGE] = S_FAIL_CHOICE
        return
    apply_outcomes(state, tables, seat, option_base(d, 0), slot, z)
    if mode == HELP_COME and state[STATUS] == RUNNING:
        apply_outcomes(state, tables, helper, option_base(d, 0), slot, z)


@njit
def fail_mask(state, tables, out):
    seat = state[FAIL_SEAT]
    d = state[FAIL_DILEMMA]
    options = tables[T_DILEMMAS + d * DILEMMA_FIELDS + DL_NUM_OPTIONS]
    any_ok = False
    for k in range(options):
        if affordable(state, tables, seat, option_base(d, k)):
            out[A_FAIL_OPTION + k] = 1
            any_ok = True
    if not any_ok:
        for k in range(options):
            out[A_FAIL_OPTION + k] = 1


@njit
def fail_apply(state, tables, action):
    seat = state[FAIL_SEAT]
    d = state[FAIL_DILEMMA]
    state[STAGE] = S_FINISH
    apply_outcomes(state, tables, seat, option_base(d, action - A_FAIL_OPTION), state[ADV_SLOT], state[ADV_ZONE])
    if state[STATUS] == RUNNING and seat == state[ACTIVE] and state[HELP_MODE] == HELP_COME:
        state[FAIL_SEAT] = state[HELPER]
        state[STAGE] = S_FAIL_CHOICE


@njit
def finish(state, tables):
    seat = state[ACTIVE]
    clear_adventure(state)
    for slot in range(1, MAX_SLOTS):
        if state[SLOT_KIND + slot] == 2 and not doctor_at(state, tables, slot) and daleks_at_location(state, slot) == 0:
            clear_slot(state, slot)
    for z in range(3):
        if state[ZONE_DILEMMA + z] < 0:
            fill_zone(state, tables, z)
    for _ in range(hand_size(state, seat) - HAND_LIMIT):
        push_obligation(state, seat, OB_HAND_LIMIT, 1)
    state[STAGE] = S_END_TURN


@njit
def end_turn(state, tables):
    if state[ACTIVE] + 1 >= tables[T_NUM_PLAYERS]:
        state[STAGE] = S_DALEK_TURN
    else:
        state[ACTIVE] += 1
        state[STAGE] = S_TURN_START


@njit
def give_mask(state, tables, out):
    for j in range(tables[T_NUM_PLAYERS] - 1):
        out[A_SEAT + j] = 1


@njit
def give_apply(state, tables, action):
    n = tables[T_NUM_PLAYERS]
    to = (state[SEL_SEAT] + action - A_SEAT + 1) % n
    state[CARD_PLACE + state[GIVE_CARD]] = to
    state[GIVE_CARD] = -1
    state[STAGE] = state[RETURN_STAGE]
