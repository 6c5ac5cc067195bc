"""The duel's observation kernel: what one combatant sees (its own hand of Acquired cards, both
combatants' public records, the Time Deck still to draw, the last exchange once revealed), as the
entries described in :mod:`.layout`; seat 0's pending choice never reaches seat 1."""

from __future__ import annotations

import numpy as np

from ...core.jit import njit
from ...core.masks import ENTRIES_OF_BYTE, store_entries
from ...core.observation import put, put_entries
from . import layout
from .content import (
    C_ACQUIRED,
    C_ASPECT,
    C_FAULT,
    C_NUM_ACQUIRED,
    C_WAR,
    DECK_SIZE,
    MAX_SCENES,
    S_MODIFIER,
    SCENE_FIELDS,
    STASIS,
    T_ASPECT_ENTRIES,
    T_CARD_ESCALATION,
    T_CARD_MODIFIER,
    T_MAX_EXCHANGES,
    T_MODE,
    T_NUM_CHARACTERS,
    T_NUM_SCENES,
    T_SCENES,
    T_THREAT,
)
from .rules import aspect_level, attacker_in_exchange, killed_at, out_of_action_at


@njit
def fill_aspect_entries(tables):
    """Write into ``tables`` the observation's eight Aspect entries (``O_OWN_ASPECTS`` ..
    ``O_OWN_EFFECTIVE + 3``, numerators over 10) of every character in every scene, as the
    bytes of a word at ``T_ASPECT_ENTRIES + character * MAX_SCENES + scene``: they depend on
    the content only, and ``observe`` stores a seat's eight with one word store instead of
    working out and storing each (one game's observation in a numba loop: 28 ns, against 40 ns)."""
    for character in range(tables[T_NUM_CHARACTERS]):
        c = layout.character_base(tables, character)
        for scene in range(tables[T_NUM_SCENES]):
            scene_modifiers = T_SCENES + scene * SCENE_FIELDS + S_MODIFIER
            word = np.uint64(0)
            for a in range(4):
                word |= np.uint64(tables[c + C_ASPECT + a]) << np.uint64(8 * a)
                word |= np.uint64(_within(aspect_level(tables, c, scene_modifiers, a), 10)) << np.uint64(8 * (4 + a))
            tables[T_ASPECT_ENTRIES + character * MAX_SCENES + scene] = np.int64(word)


@njit
def _within(x, scale):
    """Clip a numerator into ``-scale..scale``, so that ``x / scale`` stays in the observation box [-1, 1]."""
    return min(max(x, -scale), scale)


@njit
def observe(state, tables, player, out):
    # Each word of the state and the tables is read into a local before the stores that
    # use it: numba gives the compiler no aliasing facts, so a word read again after a
    # store into ``out`` is loaded again. With that and the deck's entries stored eight
    # at a time, one game in a numba loop: 55 -> 36 ns; with each seat's Aspects one word
    # from the tables (fill_aspect_entries), 28 ns.
    out[:] = 0.0
    me = player
    them = 1 - player
    scene = state[layout.SCENE]
    for k in range(2):
        s = me if k == 0 else them
        character = state[layout.side(s, layout.F_CHARACTER)]
        injuries = state[layout.side(s, layout.F_INJURIES)]
        edges_left = state[layout.side(s, layout.F_EDGES_LEFT)]
        acquired_used = state[layout.side(s, layout.F_ACQUIRED_USED)]
        stasis = tables[layout.character_base(tables, character) + C_ASPECT + STASIS]
        aspects = np.uint64(tables[T_ASPECT_ENTRIES + character * MAX_SCENES + scene])  # see fill_aspect_entries
        put_entries(out, layout.O_OWN_ASPECTS + 8 * k, aspects, 10)  # base Aspects, then effective (O_OWN_EFFECTIVE)
        put(out, layout.O_INJURIES + k, _within(injuries, 16), 16)
        put(out, layout.O_OUT_AT + k, out_of_action_at(stasis), 16)
        put(out, layout.O_KILLED_AT + k, killed_at(stasis), 16)
        put(out, layout.O_EDGES + k, edges_left, 3)
        out[layout.O_ACQUIRED_USED + k] = acquired_used
    c = layout.character_base(tables, state[layout.side(me, layout.F_CHARACTER)])
    for i in range(tables[c + C_NUM_ACQUIRED]):
        card = tables[c + C_ACQUIRED + i]
        modifier = tables[T_CARD_MODIFIER + card]
        escalation = tables[T_CARD_ESCALATION + card]
        out[layout.O_ACQUIRED + 3 * i] = 1.0
        put(out, layout.O_ACQUIRED + 3 * i + 1, modifier, 2)
        put(out, layout.O_ACQUIRED + 3 * i + 2, escalation, 2)
    forced, flux, war, fault = state[layout.side(me, layout.F_FORCED)], state[layout.FLUX], tables[c + C_WAR], tables[c + C_FAULT]
    out[layout.O_FORCED] = forced
    out[layout.O_FLUX + flux] = 1.0
    out[layout.O_WAR + war] = 1.0
    out[layout.O_FAULT + fault] = 1.0
    # every card of the Time Deck: 1 while it is still to be drawn (a fixed loop: the
    # number left is as random as the game), gathered as a word of bits and stored eight
    # entries at a time; the last store also zeroes the four entries after the deck's,
    # which are written below
    deck_pos = state[layout.DECK_POS]
    in_deck = np.uint64(0)
    for i in range(DECK_SIZE):
        in_deck |= np.uint64(i >= deck_pos) << np.uint64(state[layout.DECK + i])
    for w in range((DECK_SIZE + 7) // 8):
        store_entries(out, layout.O_DECK + 8 * w, ENTRIES_OF_BYTE[(in_deck >> np.uint64(8 * w)) & np.uint64(0xFF)])
    mode, threat, exchange, max_exchanges = tables[T_MODE], tables[T_THREAT], state[layout.EXCHANGE], tables[T_MAX_EXCHANGES]
    put(out, layout.O_DECK_SIZE, DECK_SIZE - deck_pos, DECK_SIZE)
    out[layout.O_MODE + mode] = 1.0
    out[layout.O_THREAT + threat] = 1.0
    put(out, layout.O_EXCHANGE, exchange, max(max_exchanges, 1))
    out[layout.O_SEAT] = me
    if mode == layout.MODE_CONTEST and attacker_in_exchange(exchange) == me:
        out[layout.O_ATTACKER] = 1.0
    if state[layout.last(0, layout.L_ACTION)] >= 0:
        outcome, last_winner = state[layout.LAST_OUTCOME], state[layout.LAST_WINNER]
        for k in range(2):
            s = me if k == 0 else them
            a, condition, source = (
                state[layout.last(s, layout.L_ACTION)],
                state[layout.last(s, layout.L_CONDITION)],
                state[layout.last(s, layout.L_SOURCE)],
            )
            card, levels = state[layout.last(s, layout.L_CARD)], state[layout.last(s, layout.L_LEVELS)]
            attack, defence, injuries = (
                state[layout.last(s, layout.L_ATTACK)],
                state[layout.last(s, layout.L_DEFENCE)],
                state[layout.last(s, layout.L_INJURIES)],
            )
            edge, forced = state[layout.last(s, layout.L_EDGE)], state[layout.last(s, layout.L_FORCED)]
            base = layout.O_LAST + k * layout.LAST_BLOCK
            out[base + layout.LB_ATTACK + layout.action_attack(a)] = 1.0
            out[base + layout.LB_DEFENCE + layout.action_defence(a)] = 1.0
            out[base + layout.LB_CONDITION + condition] = 1.0
            out[base + layout.LB_SOURCE + source] = 1.0
            put(out, base + layout.LB_LEVELS, _within(levels, 3), 3)
            put(out, base + layout.LB_ATTACK_VALUE, _within(attack, 16), 16)
            put(out, base + layout.LB_DEFENCE_VALUE, _within(defence, 16), 16)
            put(out, base + layout.LB_INJURIES, _within(injuries, 16), 16)
            out[base + layout.LB_EDGE] = edge
            out[base + layout.LB_FORCED] = forced
            if card >= 0:
                out[base + layout.LB_CARD + card] = 1.0
        out[layout.O_OUTCOME + outcome] = 1.0
        if last_winner >= 0:
            out[layout.O_LAST_WINNER + (0 if last_winner == me else 1)] = 1.0
