"""Time of the Daleks, step 1 of a Doctor turn: the turn's start and the Prepare step.

At the start of the Prepare step the Doctor gains two Sonic Charge tokens (up to five),
before any card is used. The Doctor's and Companions' own Prepare effects that cost
nothing are then applied at once (ruling: they only gain, so a player would always use
them). Then, in any order, as often as allowed: install an Equipment card from hand into
a free Equipment slot paying its Sonic cost (the Eleventh Doctor one less), uninstall
(discard) an installed Equipment card, dismiss a Companion (shuffled back into its
deck), play a Prepare / Anytime Event or Transfer card, use an installed Equipment
card's Prepare ability, The Doctor's Library Card's trade and TARDIS Tune-Up's switch;
then end the step.
"""

from __future__ import annotations

from ....core.jit import njit
from ....core.rng import rng_below
from ....core.state import RNG_KEY
from ..components.cards import discard_card, equipment_slot_of, hand_size
from ..components.companions import remove_companion
from ..components.players import add_sonic, clear_adventure
from ..content import (
    ABILITY_COST,
    ABILITY_EFFECT,
    ABILITY_GROUP,
    ABILITY_OWNER,
    ABILITY_OWNER_KIND,
    ABILITY_TIMING,
    CARD_COST,
    CARD_TYPE,
    CT_EQUIPMENT,
    DOCTOR_DISCOUNT,
    DOCTOR_FIELDS,
    E_SWAP_RANDOM_CARD,
    E_TRADE_EQUIPMENT,
    MAX_ABILITIES,
    NUM_CARDS,
    NUM_COMPANIONS,
    OWN_CARD,
    T_DOCTORS,
    T_NUM_ABILITIES,
    T_NUM_PLAYERS,
    TM_ANYTIME,
    TM_PREPARE,
)
from ..layout import (
    A_ABILITY,
    A_DISMISS,
    A_DONE,
    A_INSTALL,
    A_SEAT,
    A_TRADE,
    A_UNINSTALL,
    ACTIVE,
    CARD_PLACE,
    COMPANION_PLACE,
    DOCTOR,
    DRAWN,
    EQUIPMENT,
    EQUIPMENT_SLOTS,
    GIVE_CARD,
    LAST_TARDIS_DIE,
    PLACE_DECK,
    PLACE_INSTALLED,
    S_PREPARE,
    S_TRAVEL,
    SONIC,
    STAGE,
    USED,
)
from .abilities import CTX_PREPARE, ability_field, activate, card_field, holds, sonic_cost, usable


@njit
def find_row(tables, effect):
    for r in range(tables[T_NUM_ABILITIES]):
        if ability_field(tables, r, ABILITY_EFFECT) == effect:
            return r
    return -1


@njit
def turn_start(state, tables):
    seat = state[ACTIVE]
    for r in range(MAX_ABILITIES):
        state[USED + r] = 0
    clear_adventure(state)
    state[GIVE_CARD] = -1
    state[DRAWN] = -1
    state[DRAWN + 1] = -1
    state[LAST_TARDIS_DIE] = -1
    add_sonic(state, seat, 2)
    for r in range(tables[T_NUM_ABILITIES]):
        if ability_field(tables, r, ABILITY_OWNER_KIND) == OWN_CARD or ability_field(tables, r, ABILITY_COST) != 0:
            continue
        if usable(state, tables, seat, r, CTX_PREPARE, -1):
            activate(state, tables, seat, r, -1, S_PREPARE)
    state[STAGE] = S_PREPARE


@njit
def install_cost(state, tables, seat, c):
    cost = card_field(tables, c, CARD_COST) - tables[T_DOCTORS + state[DOCTOR + seat] * DOCTOR_FIELDS + DOCTOR_DISCOUNT]
    return max(cost, 0)


@njit
def free_equipment_slot(state, seat):
    return equipment_slot_of(state, seat, -1)


@njit
def special_ready(state, tables, seat, effect, installed):
    """Row of the trade / switch card if ``seat`` may use it now, else -1."""
    r = find_row(tables, effect)
    if r < 0 or not holds(state, tables, seat, r) or state[USED + ability_field(tables, r, ABILITY_GROUP)]:
        return -1
    timing = ability_field(tables, r, ABILITY_TIMING)
    if timing != TM_PREPARE and timing != TM_ANYTIME:
        return -1
    if state[SONIC + seat] < sonic_cost(tables, r):
        return -1
    return r


@njit
def prepare_mask(state, tables, out):
    seat = state[ACTIVE]
    n = tables[T_NUM_PLAYERS]
    out[A_DONE] = 1
    free = free_equipment_slot(state, seat) >= 0
    for c in range(NUM_CARDS):
        place = state[CARD_PLACE + c]
        if place == seat and free and card_field(tables, c, CARD_TYPE) == CT_EQUIPMENT:
            if state[SONIC + seat] >= install_cost(state, tables, seat, c):
                out[A_INSTALL + c] = 1
        elif place == PLACE_INSTALLED + seat:
            out[A_UNINSTALL + c] = 1
    for k in range(NUM_COMPANIONS):
        if state[COMPANION_PLACE + k] == seat:
            out[A_DISMISS + k] = 1
    for r in range(tables[T_NUM_ABILITIES]):
        if usable(state, tables, seat, r, CTX_PREPARE, -1):
            out[A_ABILITY + r] = 1
    if special_ready(state, tables, seat, E_TRADE_EQUIPMENT, True) >= 0:
        for c in range(NUM_CARDS):
            place = state[CARD_PLACE + c]
            if place >= PLACE_INSTALLED and place != PLACE_INSTALLED + seat:
                out[A_TRADE + c] = 1
    if special_ready(state, tables, seat, E_SWAP_RANDOM_CARD, False) >= 0:
        for j in range(n - 1):
            if hand_size(state, (seat + j + 1) % n) > 0:
                out[A_SEAT + j] = 1


@njit
def prepare_apply(state, tables, action):
    seat = state[ACTIVE]
    n = tables[T_NUM_PLAYERS]
    if action == A_DONE:
        state[STAGE] = S_TRAVEL
    elif action < A_UNINSTALL:
        c = action - A_INSTALL
        add_sonic(state, seat, -install_cost(state, tables, seat, c))
        e = free_equipment_slot(state, seat)
        state[EQUIPMENT + seat * EQUIPMENT_SLOTS + e] = c
        state[CARD_PLACE + c] = PLACE_INSTALLED + seat
    elif action < A_DISMISS:
        discard_card(state, action - A_UNINSTALL)
    elif action < A_ABILITY:
        remove_companion(state, seat, action - A_DISMISS, PLACE_DECK)
    elif action < A_TRADE:
        activate(state, tables, seat, action - A_ABILITY, -1, S_PREPARE)
    elif action < A_SEAT:
        # The Doctor's Library Card: trade it for an Equipment card on another console
        r = special_ready(state, tables, seat, E_TRADE_EQUIPMENT, True)
        library = ability_field(tables, r, ABILITY_OWNER)
        add_sonic(state, seat, -sonic_cost(tables, r))
        state[USED + ability_field(tables, r, ABILITY_GROUP)] = 1
        c = action - A_TRADE
        other = state[CARD_PLACE + c] - PLACE_INSTALLED
        mine = equipment_slot_of(state, seat, library)
        theirs = equipment_slot_of(state, other, c)
        state[EQUIPMENT + seat * EQUIPMENT_SLOTS + mine] = c
        state[EQUIPMENT + other * EQUIPMENT_SLOTS + theirs] = library
        state[CARD_PLACE + c] = PLACE_INSTALLED + seat
        state[CARD_PLACE + library] = PLACE_INSTALLED + other
    else:
        # TARDIS Tune-Up: switch it with a random card of another Doctor's hand
        r = special_ready(state, tables, seat, E_SWAP_RANDOM_CARD, False)
        tune_up = ability_field(tables, r, ABILITY_OWNER)
        add_sonic(state, seat, -sonic_cost(tables, r))
        state[USED + ability_field(tables, r, ABILITY_GROUP)] = 1
        target = (seat + action - A_SEAT + 1) % n
        pick = rng_below(state, RNG_KEY, hand_size(state, target))
        for c in range(NUM_CARDS):
            if state[CARD_PLACE + c] == target:
                if pick == 0:
                    state[CARD_PLACE + c] = seat
                    break
                pick -= 1
        state[CARD_PLACE + tune_up] = target
