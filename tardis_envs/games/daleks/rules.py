"""Time of the Daleks rules: the kernel contract (``init``, ``step``, ``legal_mask``,
``step_and_mask``) over the modules of :mod:`.phases` (the observation is in observe.py).

Flow: ``state[STAGE]`` says where a Doctor turn stands (:mod:`.layout`). A stage is
either automatic (the turn's start, drawing a recruit, gathering dice, rolling,
resolving, Finish, the Dalek turn) or a decision of one seat. ``step`` applies the
decision (or answers the first queued obligation), then :func:`advance` runs automatic
stages and skips every decision that has a single legal action (applying it) until a
seat has a real choice or the game ends.

Who decides next never depends on hidden information (ruling): a decision with a single
legal action is still asked when a hidden hand could have given it more, i.e. when the
deciding Doctor holds a Timey-Wimey card and a card the table cannot place (in the deck
or in some hand) would give it an option there (:func:`hidden_options`). An Any
Adventure window is offered to every Doctor holding a card, who may pass.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit, njit_alloc, stack_empty
from ...core.rewards import clear_rewards
from ...core.rng import rng_shuffle
from ...core.state import CURRENT_PLAYER, MAX_PLAYERS, RNG_KEY, RUNNING, STATUS
from .components.cards import draw_card, hand_size
from .components.companions import add_companion
from .components.locations import fill_zone
from .components.players import clear_adventure, truncate
from .content import (
    ABILITY_EFFECT,
    ABILITY_GROUP,
    ABILITY_OWNER,
    ABILITY_TIMING,
    AN_ADVANCED,
    ANOMALY_FIELDS,
    CARD_TYPE,
    CT_EQUIPMENT,
    DILEMMA_FIELDS,
    DL_ADVANCED,
    DOCTOR_FIELDS,
    DOCTOR_LINKED,
    E_SWAP_RANDOM_CARD,
    E_TRADE_EQUIPMENT,
    MAX_ABILITIES,
    NUM_ANOMALIES,
    NUM_CARDS,
    NUM_COMPANIONS,
    NUM_DILEMMAS,
    NUM_DOCTORS,
    NUM_LOCATIONS,
    T_ANOMALIES,
    T_DILEMMAS,
    T_DOCTORS,
    T_EARTH_SPACE,
    T_FIRST_GAME,
    T_MARKERS,
    T_NUM_ABILITIES,
    T_NUM_PLAYERS,
    T_SEAT_DOCTOR,
    TM_ANYTIME,
    TM_PREPARE,
)
from .layout import (
    ACTIVE,
    ANOMALY_STATE,
    AS_DECK,
    AS_REMOVED,
    AT_SLOT,
    AT_ZONE,
    BUILDER,
    CARD_PLACE,
    COMPANION,
    COMPANION_PLACE,
    COMPANION_SPACES,
    DILEMMA_PLACE,
    DOCTOR,
    DRAWN,
    EQUIPMENT,
    EQUIPMENT_SLOTS,
    FAIL_SEAT,
    GIVE_CARD,
    HELPER,
    LAST_ANOMALY,
    LAST_RESULT,
    LAST_RESULT_SEAT,
    LAST_TARDIS_DIE,
    LOCATION_PLACE,
    MANIPULATOR,
    MARKER,
    MARKER_SLOTS,
    MAX_SLOTS,
    NUM_ACTIONS,
    OBL_COUNT,
    PART_TIME,
    PLACE_DECK,
    PLACE_INSTALLED,
    PLACE_REMOVED,
    RECRUIT_PENDING,
    ROUND,
    S_CALL_HELP,
    S_DALEK_CHECK,
    S_DALEK_TURN,
    S_END_TURN,
    S_EXTERMINATE,
    S_FAIL_CHOICE,
    S_FINISH,
    S_GATHER,
    S_GIVE,
    S_HELP_ANSWER,
    S_MANIPULATE,
    S_OVER,
    S_POOL,
    S_POOL_DISCARD,
    S_PREPARE,
    S_RECRUIT,
    S_RECRUIT_DRAW,
    S_RESOLVE,
    S_ROLL,
    S_SELECT,
    S_TRAVEL,
    S_TRAVEL_CHOOSE,
    S_TRAVEL_KEEP,
    S_TURN_START,
    S_WINDOW,
    SEL_SEAT,
    SHIP,
    SLOT_EARTH,
    SLOT_ID,
    SLOT_KIND,
    SONIC,
    STAGE,
    STALLED,
    TARDIS,
    USED,
    WINDOW_SEAT,
    WINNER,
    ZONE_DALEKS,
    ZONE_DILEMMA,
    ZONE_FACE_UP,
    ZONES_PER_SLOT,
)
from .phases.abilities import CTX_MANIP, CTX_POOL, CTX_PREPARE, ability_field, card_field, from_hand, sonic_cost, usable_if_held
from .phases.adventure import (
    answer_apply,
    answer_mask,
    call_apply,
    call_mask,
    discard_apply,
    discard_mask,
    exterminate_apply,
    exterminate_mask,
    gather,
    pool_apply,
    pool_mask,
    recruit_apply,
    recruit_draw,
    recruit_mask,
)
from .phases.daleks import dalek_check, dalek_turn
from .phases.dice import manipulate_apply, manipulate_mask, roll, select_apply, select_mask, window_apply, window_mask
from .phases.obligations import obligation_apply, obligation_mask, obligation_seat, pop_obligation
from .phases.prepare import free_equipment_slot, install_cost, prepare_apply, prepare_mask, turn_start
from .phases.resolve import end_turn, fail_apply, fail_mask, finish, give_apply, give_mask, resolve
from .phases.travel import choose_apply, choose_mask, keep_apply, keep_mask, travel_apply, travel_mask

MAX_AUTOMATIC_STEPS = 10_000


@njit
def decider(state):
    stage = state[STAGE]
    if stage == S_HELP_ANSWER:
        return state[HELPER]
    if stage == S_POOL or stage == S_POOL_DISCARD:
        return state[ACTIVE] if state[BUILDER] == 0 else state[HELPER]
    if stage == S_MANIPULATE:
        return state[ACTIVE] if state[MANIPULATOR] == 0 else state[HELPER]
    if stage == S_SELECT or stage == S_GIVE:
        return state[SEL_SEAT]
    if stage == S_WINDOW:
        return state[WINDOW_SEAT]
    if stage == S_FAIL_CHOICE:
        return state[FAIL_SEAT]
    return state[ACTIVE]


@njit
def unplaced(state, c):
    """Timey-Wimey card ``c`` is where the table cannot see it: in the deck or in a hand."""
    place = state[CARD_PLACE + c]
    return place == PLACE_DECK or 0 <= place < MAX_PLAYERS


@njit
def hidden_options(state, tables, seat):
    """Whether some deal of the hidden cards consistent with what every seat sees gives
    ``seat`` an option from its hand at the current decision (then the decision is asked
    even when the real hand gives it one option). Reads only public facts: ``seat``'s
    hand size, the set of unplaced cards, consoles, Sonic and the adventure."""
    if hand_size(state, seat) == 0:
        return False
    stage = state[STAGE]
    if stage == S_WINDOW:
        return True  # ruling: every Doctor holding a card is offered the window
    if stage == S_PREPARE:
        ctx, pool = CTX_PREPARE, -1
        if free_equipment_slot(state, seat) >= 0:
            for c in range(NUM_CARDS):
                if (
                    unplaced(state, c)
                    and card_field(tables, c, CARD_TYPE) == CT_EQUIPMENT
                    and state[SONIC + seat] >= install_cost(state, tables, seat, c)
                ):
                    return True
    elif stage == S_POOL:
        ctx, pool = CTX_POOL, state[BUILDER]
    elif stage == S_MANIPULATE:
        ctx, pool = CTX_MANIP, state[MANIPULATOR]
    else:
        return False
    n = tables[T_NUM_PLAYERS]
    for r in range(tables[T_NUM_ABILITIES]):
        if not from_hand(tables, r) or not unplaced(state, ability_field(tables, r, ABILITY_OWNER)):
            continue
        effect = ability_field(tables, r, ABILITY_EFFECT)
        if effect == E_TRADE_EQUIPMENT or effect == E_SWAP_RANDOM_CARD:  # Prepare only: its target must exist
            timing = ability_field(tables, r, ABILITY_TIMING)
            if ctx != CTX_PREPARE or (timing != TM_PREPARE and timing != TM_ANYTIME):
                continue
            if state[USED + ability_field(tables, r, ABILITY_GROUP)] or state[SONIC + seat] < sonic_cost(tables, r):
                continue
            for other in range(n):
                if other == seat:
                    continue
                if effect == E_SWAP_RANDOM_CARD and hand_size(state, other) > 0:
                    return True
                if effect == E_TRADE_EQUIPMENT:
                    for c in range(NUM_CARDS):
                        if state[CARD_PLACE + c] == PLACE_INSTALLED + other:
                            return True
        elif usable_if_held(state, tables, seat, r, ctx, pool):
            return True
    return False


@njit
def stage_mask(state, tables, out):
    stage = state[STAGE]
    if stage == S_PREPARE:
        prepare_mask(state, tables, out)
    elif stage == S_TRAVEL:
        travel_mask(state, tables, out)
    elif stage == S_TRAVEL_CHOOSE:
        choose_mask(state, tables, out)
    elif stage == S_TRAVEL_KEEP:
        keep_mask(state, tables, out)
    elif stage == S_RECRUIT:
        recruit_mask(state, tables, out)
    elif stage == S_CALL_HELP:
        call_mask(state, tables, out)
    elif stage == S_HELP_ANSWER:
        answer_mask(state, tables, out)
    elif stage == S_POOL:
        pool_mask(state, tables, out)
    elif stage == S_POOL_DISCARD:
        discard_mask(state, tables, out)
    elif stage == S_EXTERMINATE:
        exterminate_mask(state, tables, out)
    elif stage == S_MANIPULATE:
        manipulate_mask(state, tables, out)
    elif stage == S_SELECT:
        select_mask(state, tables, out)
    elif stage == S_WINDOW:
        window_mask(state, tables, out)
    elif stage == S_FAIL_CHOICE:
        fail_mask(state, tables, out)
    elif stage == S_GIVE:
        give_mask(state, tables, out)


@njit
def apply(state, tables, action):
    if state[OBL_COUNT] > 0:
        obligation_apply(state, tables, action)
        return
    stage = state[STAGE]
    if stage == S_PREPARE:
        prepare_apply(state, tables, action)
    elif stage == S_TRAVEL:
        travel_apply(state, tables, action)
    elif stage == S_TRAVEL_CHOOSE:
        choose_apply(state, tables, action)
    elif stage == S_TRAVEL_KEEP:
        keep_apply(state, tables, action)
    elif stage == S_RECRUIT:
        recruit_apply(state, tables, action)
    elif stage == S_CALL_HELP:
        call_apply(state, tables, action)
    elif stage == S_HELP_ANSWER:
        answer_apply(state, tables, action)
    elif stage == S_POOL:
        pool_apply(state, tables, action)
    elif stage == S_POOL_DISCARD:
        discard_apply(state, tables, action)
    elif stage == S_EXTERMINATE:
        exterminate_apply(state, tables, action)
    elif stage == S_MANIPULATE:
        manipulate_apply(state, tables, action)
    elif stage == S_SELECT:
        select_apply(state, tables, action)
    elif stage == S_WINDOW:
        window_apply(state, tables, action)
    elif stage == S_FAIL_CHOICE:
        fail_apply(state, tables, action)
    elif stage == S_GIVE:
        give_apply(state, tables, action)


@njit
def automatic(state, tables):
    """Run one automatic stage; False if the stage is a decision."""
    stage = state[STAGE]
    if stage == S_TURN_START:
        turn_start(state, tables)
    elif stage == S_RECRUIT_DRAW:
        recruit_draw(state, tables)
    elif stage == S_GATHER:
        gather(state, tables)
    elif stage == S_ROLL:
        roll(state, tables)
    elif stage == S_RESOLVE:
        resolve(state, tables)
    elif stage == S_FINISH:
        finish(state, tables)
    elif stage == S_END_TURN:
        end_turn(state, tables)
    elif stage == S_DALEK_TURN:
        dalek_turn(state, tables)
    elif stage == S_DALEK_CHECK:
        dalek_check(state, tables)
    else:
        return False
    return True


@njit
def decision_mask(state, tables, out):
    out[:] = 0
    if state[OBL_COUNT] > 0:
        obligation_mask(state, tables, out)
    else:
        stage_mask(state, tables, out)


@njit
def advance(state, tables, scratch):
    """Run the game on to the next real decision (see the module docstring)."""
    for _ in range(MAX_AUTOMATIC_STEPS):
        if state[STATUS] != RUNNING:
            # an effect may end the game in the middle of a stage (a seventh Dalek marker)
            state[STAGE] = S_OVER
            state[OBL_COUNT] = 0
            return
        if state[OBL_COUNT] == 0 and automatic(state, tables):
            continue
        decision_mask(state, tables, scratch)
        count = 0
        only = -1
        for a in range(NUM_ACTIONS):
            if scratch[a]:
                count += 1
                only = a
                if count > 1:
                    break
        if state[OBL_COUNT] > 0:
            if count == 0:  # nothing to pay with: the obligation lapses
                pop_obligation(state)
                continue
            state[CURRENT_PLAYER] = obligation_seat(state)
        else:
            state[CURRENT_PLAYER] = decider(state)
            if count == 0:
                state[STALLED] = 1
                truncate(state)
                return
        if count > 1 or (count == 1 and state[OBL_COUNT] == 0 and hidden_options(state, tables, state[CURRENT_PLAYER])):
            return
        apply(state, tables, only)
    state[STALLED] = 1
    truncate(state)


@njit_alloc
def init(state, tables):
    n = tables[T_NUM_PLAYERS]
    first = tables[T_FIRST_GAME]
    state[CURRENT_PLAYER] = 0
    state[STATUS] = RUNNING
    state[STAGE] = S_TURN_START
    state[ACTIVE] = 0
    state[ROUND] = 0
    state[WINNER] = 0
    state[SHIP] = 0
    for j in range(MARKER_SLOTS):
        state[MARKER + j] = tables[T_MARKERS + j]
    for p in range(MAX_PLAYERS):
        state[DOCTOR + p] = tables[T_SEAT_DOCTOR + p] if p < n else -1
        state[TARDIS + p] = tables[T_EARTH_SPACE] if p < n else 0
        state[SONIC + p] = 2 if p < n else 0
        state[AT_SLOT + p] = -1
        state[AT_ZONE + p] = 0
        for k in range(COMPANION_SPACES):
            state[COMPANION + p * COMPANION_SPACES + k] = -1
            state[PART_TIME + p * COMPANION_SPACES + k] = 0
        for e in range(EQUIPMENT_SLOTS):
            state[EQUIPMENT + p * EQUIPMENT_SLOTS + e] = -1
    if n > 0 and tables[T_SEAT_DOCTOR] < 0:  # doctors="random": n of the four, seated in regeneration order
        pool = np.arange(NUM_DOCTORS)
        rng_shuffle(state, RNG_KEY, pool, NUM_DOCTORS)
        chosen = np.sort(pool[:n])
        for p in range(n):
            state[DOCTOR + p] = chosen[p]
    for c in range(NUM_CARDS):
        state[CARD_PLACE + c] = PLACE_DECK
    for k in range(NUM_COMPANIONS):
        state[COMPANION_PLACE + k] = PLACE_DECK
    for t in range(NUM_LOCATIONS):
        state[LOCATION_PLACE + t] = PLACE_DECK
    for d in range(NUM_DILEMMAS):
        advanced = tables[T_DILEMMAS + d * DILEMMA_FIELDS + DL_ADVANCED]
        state[DILEMMA_PLACE + d] = PLACE_REMOVED if first and advanced else PLACE_DECK
    for a in range(NUM_ANOMALIES):
        advanced = tables[T_ANOMALIES + a * ANOMALY_FIELDS + AN_ADVANCED]
        state[ANOMALY_STATE + a] = AS_REMOVED if first and advanced else AS_DECK
    for slot in range(MAX_SLOTS):
        state[SLOT_KIND + slot] = 0
        state[SLOT_ID + slot] = -1
        for z in range(ZONES_PER_SLOT):
            state[ZONE_DILEMMA + slot * ZONES_PER_SLOT + z] = -1
            state[ZONE_FACE_UP + slot * ZONES_PER_SLOT + z] = 0
            state[ZONE_DALEKS + slot * ZONES_PER_SLOT + z] = 0
    state[SLOT_KIND + 0] = SLOT_EARTH
    for r in range(MAX_ABILITIES):
        state[USED + r] = 0
    for p in range(n):  # each Doctor's Linked Companion starts on its console
        linked = tables[T_DOCTORS + state[DOCTOR + p] * DOCTOR_FIELDS + DOCTOR_LINKED]
        add_companion(state, p, linked, 0)
    for z in range(3):
        fill_zone(state, tables, z)
    for _ in range(2):
        for p in range(n):
            draw_card(state, tables, p)
    clear_adventure(state)
    state[GIVE_CARD] = -1
    state[DRAWN] = -1
    state[DRAWN + 1] = -1
    state[RECRUIT_PENDING] = 0
    state[OBL_COUNT] = 0
    state[LAST_TARDIS_DIE] = -1
    state[LAST_ANOMALY] = -1
    state[LAST_RESULT] = 0
    state[LAST_RESULT_SEAT] = -1
    state[STALLED] = 0
    scratch = np.zeros(NUM_ACTIONS, dtype=np.int8)
    advance(state, tables, scratch)


@njit
def step(state, tables, action):
    # the mask advance works out is thrown away: a buffer in the stack frame, not an
    # allocation a step (decision_mask writes every entry before it is read)
    step_and_mask(state, tables, action, stack_empty(NUM_ACTIONS, np.int8))


@njit
def legal_mask(state, tables, out):
    out[:] = 0
    if state[STATUS] != RUNNING:
        return
    decision_mask(state, tables, out)


@njit
def step_and_mask(state, tables, action, mask):
    """``step`` with the legal mask of the position it reaches left in ``mask``:
    ``advance`` works the decision mask out to see whether a real decision follows
    (it stops at the first position with two or more choices, whose mask is then in
    ``mask``: the mask reads no ``CURRENT_PLAYER``, which advance sets after it), so
    the batched API does not compute it a second time."""
    clear_rewards(state)
    apply(state, tables, action)
    advance(state, tables, mask)
    if state[STATUS] != RUNNING:
        mask[:] = 0
