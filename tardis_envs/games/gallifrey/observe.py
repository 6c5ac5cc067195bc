"""The duel's observation kernel: what one combatant sees (its own hand of Acquired cards, both
combatants' public records, the Time Deck still to draw, the last exchange once revealed), as the
entries described in :mod:`.layout`; seat 0's pending choice never reaches seat 1."""

from __future__ import annotations

import numpy as np

from ...core.jit import njit
from ...core.masks import ENTRIES_OF_BYTE, store_entries
from ...core.observation import put, put_entries
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
from .layout import (
    DECK,
    DECK_POS,
    EXCHANGE,
    F_ACQUIRED_USED,
    F_CHARACTER,
    F_EDGES_LEFT,
    F_FORCED,
    F_INJURIES,
    FLUX,
    L_ACTION,
    L_ATTACK,
    L_CARD,
    L_CONDITION,
    L_DEFENCE,
    L_EDGE,
    L_FORCED,
    L_INJURIES,
    L_LEVELS,
    L_SOURCE,
    LAST_BLOCK,
    LAST_OUTCOME,
    LAST_WINNER,
    LB_ATTACK,
    LB_ATTACK_VALUE,
    LB_CARD,
    LB_CONDITION,
    LB_DEFENCE,
    LB_DEFENCE_VALUE,
    LB_EDGE,
    LB_FORCED,
    LB_INJURIES,
    LB_LEVELS,
    LB_SOURCE,
    MODE_CONTEST,
    O_ACQUIRED,
    O_ACQUIRED_USED,
    O_ATTACKER,
    O_DECK,
    O_DECK_SIZE,
    O_EDGES,
    O_EXCHANGE,
    O_FAULT,
    O_FLUX,
    O_FORCED,
    O_INJURIES,
    O_KILLED_AT,
    O_LAST,
    O_LAST_WINNER,
    O_MODE,
    O_OUT_AT,
    O_OUTCOME,
    O_OWN_ASPECTS,
    O_SEAT,
    O_THREAT,
    O_WAR,
    SCENE,
    action_attack,
    action_defence,
    character_base,
    last,
    side,
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
        c = character_base(tables, character)
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
    scene = state[SCENE]
    for k in range(2):
        s = me if k == 0 else them
        character = state[side(s, F_CHARACTER)]
        injuries = state[side(s, F_INJURIES)]
        edges_left = state[side(s, F_EDGES_LEFT)]
        acquired_used = state[side(s, F_ACQUIRED_USED)]
        stasis = tables[character_base(tables, character) + C_ASPECT + STASIS]
        aspects = np.uint64(tables[T_ASPECT_ENTRIES + character * MAX_SCENES + scene])  # see fill_aspect_entries
        put_entries(out, O_OWN_ASPECTS + 8 * k, aspects, 10)  # base Aspects, then effective (O_OWN_EFFECTIVE)
        put(out, O_INJURIES + k, _within(injuries, 16), 16)
        put(out, O_OUT_AT + k, out_of_action_at(stasis), 16)
        put(out, O_KILLED_AT + k, killed_at(stasis), 16)
        put(out, O_EDGES + k, edges_left, 3)
        out[O_ACQUIRED_USED + k] = acquired_used
    c = character_base(tables, state[side(me, F_CHARACTER)])
    for i in range(tables[c + C_NUM_ACQUIRED]):
        card = tables[c + C_ACQUIRED + i]
        modifier = tables[T_CARD_MODIFIER + card]
        escalation = tables[T_CARD_ESCALATION + card]
        out[O_ACQUIRED + 3 * i] = 1.0
        put(out, O_ACQUIRED + 3 * i + 1, modifier, 2)
        put(out, O_ACQUIRED + 3 * i + 2, escalation, 2)
    forced, flux, war, fault = state[side(me, F_FORCED)], state[FLUX], tables[c + C_WAR], tables[c + C_FAULT]
    out[O_FORCED] = forced
    out[O_FLUX + flux] = 1.0
    out[O_WAR + war] = 1.0
    out[O_FAULT + fault] = 1.0
    # every card of the Time Deck: 1 while it is still to be drawn (a fixed loop: the
    # number left is as random as the game), gathered as a word of bits and stored eight
    # entries at a time; the last store also zeroes the four entries after the deck's,
    # which are written below
    deck_pos = state[DECK_POS]
    in_deck = np.uint64(0)
    for i in range(DECK_SIZE):
        in_deck |= np.uint64(i >= deck_pos) << np.uint64(state[DECK + i])
    for w in range((DECK_SIZE + 7) // 8):
        store_entries(out, O_DECK + 8 * w, ENTRIES_OF_BYTE[(in_deck >> np.uint64(8 * w)) & np.uint64(0xFF)])
    mode, threat, exchange, max_exchanges = tables[T_MODE], tables[T_THREAT], state[EXCHANGE], tables[T_MAX_EXCHANGES]
    put(out, O_DECK_SIZE, DECK_SIZE - deck_pos, DECK_SIZE)
    out[O_MODE + mode] = 1.0
    out[O_THREAT + threat] = 1.0
    put(out, O_EXCHANGE, exchange, max(max_exchanges, 1))
    out[O_SEAT] = me
    if mode == MODE_CONTEST and attacker_in_exchange(exchange) == me:
        out[O_ATTACKER] = 1.0
    if state[last(0, L_ACTION)] >= 0:
        outcome, last_winner = state[LAST_OUTCOME], state[LAST_WINNER]
        for k in range(2):
            s = me if k == 0 else them
            a, condition, source = state[last(s, L_ACTION)], state[last(s, L_CONDITION)], state[last(s, L_SOURCE)]
            card, levels = state[last(s, L_CARD)], state[last(s, L_LEVELS)]
            attack, defence, injuries = state[last(s, L_ATTACK)], state[last(s, L_DEFENCE)], state[last(s, L_INJURIES)]
            edge, forced = state[last(s, L_EDGE)], state[last(s, L_FORCED)]
            base = O_LAST + k * LAST_BLOCK
            out[base + LB_ATTACK + action_attack(a)] = 1.0
            out[base + LB_DEFENCE + action_defence(a)] = 1.0
            out[base + LB_CONDITION + condition] = 1.0
            out[base + LB_SOURCE + source] = 1.0
            put(out, base + LB_LEVELS, _within(levels, 3), 3)
            put(out, base + LB_ATTACK_VALUE, _within(attack, 16), 16)
            put(out, base + LB_DEFENCE_VALUE, _within(defence, 16), 16)
            put(out, base + LB_INJURIES, _within(injuries, 16), 16)
            out[base + LB_EDGE] = edge
            out[base + LB_FORCED] = forced
            if card >= 0:
                out[base + LB_CARD + card] = 1.0
        out[O_OUTCOME + outcome] = 1.0
        if last_winner >= 0:
            out[O_LAST_WINNER + (0 if last_winner == me else 1)] = 1.0
