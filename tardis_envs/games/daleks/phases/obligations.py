"""Time of the Daleks: obligations, the choices a rule forces on one Doctor before the game
goes on (what to pay for recruiting, calling or coming to help and the Into the Dalek
tax; which cards and Companions a fail cost or an anomaly takes; the hand limit). They
queue in the state and are answered first, in order; one the Doctor cannot meet at all
lapses (nothing to pay with: nothing is paid)."""

from __future__ import annotations

from ....core.jit import njit
from ..components.cards import discard_card, hand_size
from ..components.companions import remove_companion
from ..components.players import add_sonic
from ..content import NUM_CARDS, NUM_COMPANIONS
from ..layout import (
    A_DISCARD_CARD,
    A_LOSE_COMPANION,
    A_PAY_SONIC,
    CARD_PLACE,
    COMPANION_PLACE,
    HAND_LIMIT,
    MAX_OBLIGATIONS,
    OB_DISCARD_COMPANION,
    OB_DISMISS_COMPANION,
    OB_HAND_LIMIT,
    OB_PAY,
    OB_TAX,
    OBL_COUNT,
    OBLIGATIONS,
    PLACE_DECK,
    PLACE_DISCARD,
    SONIC,
)


@njit
def obligation_seat(state):
    return state[OBLIGATIONS]


@njit
def obligation_mask(state, tables, out):
    seat = state[OBLIGATIONS]
    kind = state[OBLIGATIONS + 1]
    if kind == OB_DISCARD_COMPANION or kind == OB_DISMISS_COMPANION:
        for k in range(NUM_COMPANIONS):
            if state[COMPANION_PLACE + k] == seat:
                out[A_LOSE_COMPANION + k] = 1
        return
    if kind == OB_HAND_LIMIT and hand_size(state, seat) <= HAND_LIMIT:
        return
    if kind == OB_PAY and state[SONIC + seat] >= 1:
        out[A_PAY_SONIC] = 1
    if kind == OB_TAX and state[SONIC + seat] >= 2:
        out[A_PAY_SONIC] = 1
    for c in range(NUM_CARDS):
        if state[CARD_PLACE + c] == seat:
            out[A_DISCARD_CARD + c] = 1


@njit
def obligation_apply(state, tables, action):
    seat = state[OBLIGATIONS]
    kind = state[OBLIGATIONS + 1]
    if action == A_PAY_SONIC:
        add_sonic(state, seat, -2 if kind == OB_TAX else -1)
    elif action < A_LOSE_COMPANION:
        discard_card(state, action - A_DISCARD_CARD)
    else:
        to = PLACE_DISCARD if kind == OB_DISCARD_COMPANION else PLACE_DECK
        remove_companion(state, seat, action - A_LOSE_COMPANION, to)
    pop_obligation(state)


# --- the obligation stack -------------------------------------------------------
@njit
def push_obligation(state, seat, kind, amount):
    n = state[OBL_COUNT]
    if n >= MAX_OBLIGATIONS:
        return
    state[OBLIGATIONS + 3 * n] = seat
    state[OBLIGATIONS + 3 * n + 1] = kind
    state[OBLIGATIONS + 3 * n + 2] = amount
    state[OBL_COUNT] = n + 1


@njit
def pop_obligation(state):
    n = state[OBL_COUNT]
    for i in range(3, 3 * n):
        state[OBLIGATIONS + i - 3] = state[OBLIGATIONS + i]
    state[OBL_COUNT] = n - 1
