"""Time of the Daleks: the Timey-Wimey cards in hands, equipment slots and the discard pile.
Kernels only; offsets in :mod:`.layout`."""

from __future__ import annotations

from ....core.jit import njit
from ..content import NUM_CARDS
from ..layout import CARD_PLACE, EQUIPMENT, EQUIPMENT_SLOTS, PLACE_DISCARD, PLACE_INSTALLED, SONIC
from .locations import draw_from


@njit
def hand_size(state, seat):
    n = 0
    for c in range(NUM_CARDS):
        if state[CARD_PLACE + c] == seat:
            n += 1
    return n


@njit
def can_pay_one(state, seat):
    """A Sonic Charge token or a Timey-Wimey card to discard."""
    return state[SONIC + seat] >= 1 or hand_size(state, seat) >= 1


@njit
def can_pay_tax(state, seat):
    return state[SONIC + seat] >= 2 or hand_size(state, seat) >= 1


@njit
def draw_card(state, tables, seat):
    """A uniformly random card of the deck to ``seat``'s hand; an empty deck is
    refilled from the discard pile first (ruling). Returns the card or -1."""
    c = draw_from(state, tables, CARD_PLACE, NUM_CARDS)
    if c >= 0:
        state[CARD_PLACE + c] = seat
    return c


@njit
def equipment_slot_of(state, seat, card):
    for e in range(EQUIPMENT_SLOTS):
        if state[EQUIPMENT + seat * EQUIPMENT_SLOTS + e] == card:
            return e
    return -1


@njit
def discard_card(state, card):
    """Any card (hand or console) to the discard pile."""
    place = state[CARD_PLACE + card]
    if place >= PLACE_INSTALLED:
        seat = place - PLACE_INSTALLED
        e = equipment_slot_of(state, seat, card)
        if e >= 0:
            state[EQUIPMENT + seat * EQUIPMENT_SLOTS + e] = -1
    state[CARD_PLACE + card] = PLACE_DISCARD
