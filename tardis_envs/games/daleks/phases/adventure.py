"""Time of the Daleks, step 3 of a Doctor turn, before the roll: recruiting, calling for
help and building the dice pool.

A. Recruit: with an empty Companion space, discard a Sonic Charge token or a
   Timey-Wimey card to draw a Companion (Earth deck on Earth, Alien deck elsewhere,
   either on a Time Anomaly) as a Part-Time Companion, or search the deck for a
   Linked one: Links on the Doctor and its Companions (an Earth Companion only on
   Earth, an Alien one only off Earth; a group Link takes any member) or on the
   Location / Dilemma (either deck). Empty Companion decks are not refilled.
B. The Challenge: the zone's symbols plus its Dilemma's (set on arrival).
C. Calling for help (ruling: asked once, before the pool is built): discard a Sonic
   token or a card and name another Doctor, who chooses to help from afar (pools of
   7 / 1 dice, 6 / 1 with a Time Breach) or to come (pools 5 / 3, 4 / 3; it pays a
   Sonic token or a card unless already at the Location, where it can only help at the
   Location; the Dalek Ship moves two spaces unless the Location is a Time Anomaly). Each Doctor then builds its own
   pool: the dice on its Doctor, Companions and Equipment (limited by the dice on the
   table: 8 Black and 3 of each colour, less imprisoned dice and the other pool's),
   Focus icons (a Black die exchanged for a die of the icon's colour), dice added by
   cards, then discards down to its limit (8, 7 with a Time Breach). Exterminate: the
   Doctor being helped removes one die (from either pool) per Dalek marker at the
   Location (on Earth: in the Doctor's Time Zone).
"""

from __future__ import annotations

import numpy as np

from ....core.jit import njit
from ..components.cards import can_pay_one
from ..components.challenge import conditions_here, supply_left
from ..components.companions import add_companion, companion_deck, draw_companion, free_space
from ..components.dalek_markers import daleks_fighting
from ..components.locations import arrive
from ..content import (
    CARD_DICE,
    CARD_FIELDS,
    COMPANION_DICE,
    COMPANION_FIELDS,
    COMPANION_LINKS,
    DILEMMA_FIELDS,
    DL_LINKS,
    DOCTOR_DICE,
    DOCTOR_FIELDS,
    DOCTOR_LINKED,
    NUM_CARDS,
    NUM_COLOURS,
    NUM_COMPANIONS,
    T_CARDS,
    T_COMPANIONS,
    T_DILEMMAS,
    T_DOCTORS,
    T_LOCATION_LINKS,
    T_NUM_ABILITIES,
    T_NUM_PLAYERS,
)
from ..layout import (
    A_ABILITY,
    A_DISCARD_DIE,
    A_DONE,
    A_EXTERMINATE,
    A_HELP_AFAR,
    A_HELP_COME,
    A_RECRUIT_DECK,
    A_RECRUIT_LINK,
    A_SEAT,
    ACTIVE,
    ADV_CONDITIONS,
    ADV_SLOT,
    ADV_ZONE,
    AT_SLOT,
    BUILDER,
    CARD_PLACE,
    COMPANION_PLACE,
    DOCTOR,
    HELP_AFAR,
    HELP_COME,
    HELP_MODE,
    HELPER,
    OB_PAY,
    PLACE_DECK,
    PLACE_INSTALLED,
    POOL,
    RECRUIT_ALIEN,
    RECRUIT_EARTH,
    RECRUIT_PENDING,
    S_CALL_HELP,
    S_EXTERMINATE,
    S_GATHER,
    S_HELP_ANSWER,
    S_POOL,
    S_POOL_DISCARD,
    S_RECRUIT_DRAW,
    S_ROLL,
    SEL_LEFT,
    SLOT_ANOMALY,
    SLOT_EARTH,
    SLOT_ID,
    SLOT_KIND,
    STAGE,
    ZONE_DILEMMA,
    ZONES_PER_SLOT,
)
from .abilities import CTX_POOL, activate, usable
from .anomalies import move_ship
from .obligations import push_obligation

COND_TIME_BREACH = 4


# --- A. recruit --------------------------------------------------------------------------
@njit
def recruit_options(state, tables):
    """(deck mask: bit 0 Earth, bit 1 Alien, character links, place links)."""
    seat = state[ACTIVE]
    slot = state[ADV_SLOT]
    kind = state[SLOT_KIND + slot]
    decks = 1 if kind == SLOT_EARTH else (3 if kind == SLOT_ANOMALY else 2)
    links = np.int64(1) << np.int64(tables[T_DOCTORS + state[DOCTOR + seat] * DOCTOR_FIELDS + DOCTOR_LINKED])
    for k in range(NUM_COMPANIONS):
        if state[COMPANION_PLACE + k] == seat:
            links |= tables[T_COMPANIONS + k * COMPANION_FIELDS + COMPANION_LINKS]
    place_links = 0
    if kind == 2:
        place_links |= tables[T_LOCATION_LINKS + state[SLOT_ID + slot]]
    if kind != SLOT_ANOMALY:
        d = state[ZONE_DILEMMA + slot * ZONES_PER_SLOT + state[ADV_ZONE]]
        if d >= 0:
            place_links |= tables[T_DILEMMAS + d * DILEMMA_FIELDS + DL_LINKS]
    return decks, links, place_links, kind == SLOT_EARTH


@njit
def recruit_mask(state, tables, out):
    seat = state[ACTIVE]
    out[A_DONE] = 1
    if free_space(state, seat) < 0 or not can_pay_one(state, seat):
        return
    decks, links, place_links, on_earth = recruit_options(state, tables)
    for k in range(NUM_COMPANIONS):
        if state[COMPANION_PLACE + k] != PLACE_DECK:
            continue
        deck = companion_deck(tables, k)
        if (decks >> deck) & 1:
            out[A_RECRUIT_DECK + deck] = 1
        bit = (place_links >> k) & 1
        if (links >> k) & 1 and (deck == 0) == on_earth:
            bit = 1
        if bit:
            out[A_RECRUIT_LINK + k] = 1


@njit
def recruit_apply(state, tables, action):
    seat = state[ACTIVE]
    if action == A_DONE:
        state[STAGE] = S_CALL_HELP
        return
    if action < A_RECRUIT_LINK:
        state[RECRUIT_PENDING] = RECRUIT_EARTH if action == A_RECRUIT_DECK else RECRUIT_ALIEN
    else:
        state[RECRUIT_PENDING] = action - A_RECRUIT_LINK
    push_obligation(state, seat, OB_PAY, 1)
    state[STAGE] = S_RECRUIT_DRAW


@njit
def recruit_draw(state, tables):
    """After the payment: the Companion joins as a Part-Time Companion."""
    seat = state[ACTIVE]
    pending = state[RECRUIT_PENDING]
    if pending >= 0:
        k = pending
    else:
        k = draw_companion(state, tables, 0 if pending == RECRUIT_EARTH else 1)
    if k >= 0 and state[COMPANION_PLACE + k] == PLACE_DECK and free_space(state, seat) >= 0:
        add_companion(state, seat, k, 1)
    state[STAGE] = S_CALL_HELP


# --- C. calling for help -------------------------------------------------------------------
@njit
def call_mask(state, tables, out):
    out[A_DONE] = 1
    n = tables[T_NUM_PLAYERS]
    if n > 1 and can_pay_one(state, state[ACTIVE]):
        for j in range(n - 1):
            out[A_SEAT + j] = 1


@njit
def call_apply(state, tables, action):
    seat = state[ACTIVE]
    if action == A_DONE:
        state[BUILDER] = 0
        state[STAGE] = S_GATHER
        return
    state[HELPER] = (seat + action - A_SEAT + 1) % tables[T_NUM_PLAYERS]
    push_obligation(state, seat, OB_PAY, 1)
    state[STAGE] = S_HELP_ANSWER


@njit
def answer_mask(state, tables, out):
    helper = state[HELPER]
    if state[AT_SLOT + helper] == state[ADV_SLOT]:
        out[A_HELP_COME] = 1  # already at the Location: it helps there (and the Ship moves)
        return
    out[A_HELP_AFAR] = 1
    if can_pay_one(state, helper):
        out[A_HELP_COME] = 1


@njit
def answer_apply(state, tables, action):
    helper = state[HELPER]
    slot = state[ADV_SLOT]
    if action == A_HELP_AFAR:
        state[HELP_MODE] = HELP_AFAR
    else:
        state[HELP_MODE] = HELP_COME
        if state[AT_SLOT + helper] != slot:
            push_obligation(state, helper, OB_PAY, 1)
        arrive(state, tables, helper, slot, state[ADV_ZONE])
        if state[SLOT_KIND + slot] != SLOT_ANOMALY:
            move_ship(state, tables, 2)
    state[BUILDER] = 0
    state[STAGE] = S_GATHER


# --- the dice pools ------------------------------------------------------------------------
@njit
def builder_seat(state):
    return state[ACTIVE] if state[BUILDER] == 0 else state[HELPER]


@njit
def pool_size(state, pool):
    n = 0
    for c in range(NUM_COLOURS):
        n += state[POOL + pool * NUM_COLOURS + c]
    return n


@njit
def pool_limit(state, pool):
    mode = state[HELP_MODE]
    if pool == 1:
        return 1 if mode == HELP_AFAR else 3
    limit = 8 if mode == 0 else (7 if mode == HELP_AFAR else 5)
    if state[ADV_CONDITIONS] & COND_TIME_BREACH:
        limit -= 1
    return limit


@njit
def gather(state, tables):
    """The builder's starting dice: Doctor, Companions (Part-Time included), Equipment."""
    b = state[BUILDER]
    seat = builder_seat(state)
    if b == 0:  # anomalies drawn since arrival may have changed what is in force
        state[ADV_CONDITIONS] = conditions_here(state, tables, state[ADV_SLOT], state[ADV_ZONE])
    for c in range(NUM_COLOURS):
        n = tables[T_DOCTORS + state[DOCTOR + seat] * DOCTOR_FIELDS + DOCTOR_DICE + c]
        for k in range(NUM_COMPANIONS):
            if state[COMPANION_PLACE + k] == seat:
                n += tables[T_COMPANIONS + k * COMPANION_FIELDS + COMPANION_DICE + c]
        for card in range(NUM_CARDS):
            if state[CARD_PLACE + card] == PLACE_INSTALLED + seat:
                n += tables[T_CARDS + card * CARD_FIELDS + CARD_DICE + c]
        state[POOL + b * NUM_COLOURS + c] = 0
        state[POOL + b * NUM_COLOURS + c] = min(n, supply_left(state, tables, c, b))
    state[STAGE] = S_POOL


@njit
def pool_mask(state, tables, out):
    out[A_DONE] = 1
    seat = builder_seat(state)
    b = state[BUILDER]
    for r in range(tables[T_NUM_ABILITIES]):
        if usable(state, tables, seat, r, CTX_POOL, b):
            out[A_ABILITY + r] = 1


@njit
def after_pool(state, tables):
    b = state[BUILDER]
    if pool_size(state, b) > pool_limit(state, b):
        state[STAGE] = S_POOL_DISCARD
    elif b == 0 and state[HELPER] >= 0:
        state[BUILDER] = 1
        state[STAGE] = S_GATHER
    else:
        state[SEL_LEFT] = daleks_fighting(state, state[ADV_SLOT], state[ADV_ZONE])
        if state[SLOT_KIND + state[ADV_SLOT]] == SLOT_ANOMALY:
            state[SEL_LEFT] = 0
        state[STAGE] = S_EXTERMINATE if state[SEL_LEFT] > 0 and pool_size(state, 0) + pool_size(state, 1) > 0 else S_ROLL


@njit
def pool_apply(state, tables, action):
    if action == A_DONE:
        after_pool(state, tables)
        return
    activate(state, tables, builder_seat(state), action - A_ABILITY, state[BUILDER], S_POOL)


@njit
def discard_mask(state, tables, out):
    b = state[BUILDER]
    for c in range(NUM_COLOURS):
        if state[POOL + b * NUM_COLOURS + c] > 0:
            out[A_DISCARD_DIE + c] = 1


@njit
def discard_apply(state, tables, action):
    state[POOL + state[BUILDER] * NUM_COLOURS + action - A_DISCARD_DIE] -= 1
    after_pool(state, tables)


@njit
def exterminate_mask(state, tables, out):
    pools = 2 if state[HELPER] >= 0 else 1
    for p in range(pools):
        for c in range(NUM_COLOURS):
            if state[POOL + p * NUM_COLOURS + c] > 0:
                out[A_EXTERMINATE + p * NUM_COLOURS + c] = 1


@njit
def exterminate_apply(state, tables, action):
    state[POOL + action - A_EXTERMINATE] -= 1
    state[SEL_LEFT] -= 1
    if state[SEL_LEFT] <= 0 or pool_size(state, 0) + pool_size(state, 1) == 0:
        state[STAGE] = S_ROLL
