"""Ghosts of Gallifrey duel heuristic: the issue's rules of thumb, from public information.

* Attack with the stronger active Aspect and defend with the stronger passive
  one (effective levels, modifiers included); in contest mode only the role's
  Aspect counts.
* Fight for the most severe defeat condition the Threat Level allows.
* Draw a Time Card when behind: when the opponent's expected margin is larger
  than its own (contest: the opponent's score beats or ties its own; dramatic:
  totals; climactic: the hit each side can land, and who is nearer defeat).
* Save the Acquired card for a decisive exchange (contest and dramatic: every
  exchange decides; climactic: when either side is one expected hit from
  defeat) and play it the better way up; it also stands in for a draw the GM
  insists on when the moment is decisive.
* Declare an Edge whenever one is left (it is spent only when it breaks a tie).

It reads only what a player may know: Aspects, modifiers, injuries, Edges,
its own Acquired cards; never the deck order or the opponent's hidden choice.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit, njit_parallel, prange
from ...core.state import CURRENT_PLAYER
from .content import C_ACQUIRED, C_NUM_ACQUIRED, DYNAMISM, FORESIGHT, MEMORY, STASIS, T_MODE, T_THREAT
from .layout import (
    CARD_DRAW,
    CARD_NONE,
    F_ACQUIRED_USED,
    F_CHARACTER,
    F_EDGES_LEFT,
    F_FORCED,
    F_INJURIES,
    MODE_CONTEST,
    MODE_DRAMATIC,
    character_base,
    make_action,
    side,
)
from .rules import base_aspect, card_levels, contest_attacker, effective_aspect

W_BEHIND = 0  # draw when the opponent's expected margin exceeds ours by more than this
W_ACQUIRED_MIN = 1  # play the Acquired card only if it is worth at least this many levels
DEFAULT_WEIGHTS = np.array([0.0, 1.0])


@njit
def _best(state, tables, seat, first, second):
    """(index 0/1, level) of the stronger of two Aspects."""
    a = effective_aspect(state, tables, seat, first)
    b = effective_aspect(state, tables, seat, second)
    return (0, a) if a >= b else (1, b)


@njit
def _best_acquired(state, tables, me):
    """(card choice, levels) of the Acquired card played the better way up, (-1, 0) if none."""
    if state[side(me, F_ACQUIRED_USED)] == 1:
        return -1, 0
    c = character_base(tables, state[side(me, F_CHARACTER)])
    best_choice = -1
    best_levels = -99
    for i in range(tables[c + C_NUM_ACQUIRED]):
        card = tables[c + C_ACQUIRED + i]
        for r in range(2):
            levels = card_levels(state, tables, me, card, r == 1)
            if levels > best_levels:
                best_levels = levels
                best_choice = 2 + 2 * i + r
    if best_choice < 0:
        return -1, 0
    return best_choice, best_levels


@njit
def choose(state, tables, weights):
    me = state[CURRENT_PLAYER]
    them = 1 - me
    mode = tables[T_MODE]
    att_i, att = _best(state, tables, me, DYNAMISM, MEMORY)
    def_i, dfn = _best(state, tables, me, STASIS, FORESIGHT)
    _, their_att = _best(state, tables, them, DYNAMISM, MEMORY)
    _, their_def = _best(state, tables, them, STASIS, FORESIGHT)
    condition = tables[T_THREAT] + 1
    decisive = True
    if mode == MODE_CONTEST:
        if contest_attacker(state) == me:
            def_i = 0
            my_edge = att - their_def
        else:
            att_i = 0
            my_edge = dfn - their_att
        behind = my_edge <= weights[W_BEHIND]
    elif mode == MODE_DRAMATIC:
        behind = (att + dfn) - (their_att + their_def) <= weights[W_BEHIND]
    else:
        my_hit = max(att - their_def, 0)
        their_hit = max(their_att - dfn, 0)
        my_left = base_aspect(state, tables, me, STASIS) - state[side(me, F_INJURIES)]
        their_left = base_aspect(state, tables, them, STASIS) - state[side(them, F_INJURIES)]
        behind = their_hit - my_hit > weights[W_BEHIND] or (their_hit > 0 and my_left <= their_left and my_hit <= their_hit)
        # one expected hit (or a lucky card) from the end, either way
        decisive = my_left <= their_hit + 2 or their_left <= my_hit + 2
    card = CARD_DRAW if behind else CARD_NONE
    acquired, levels = _best_acquired(state, tables, me)
    if acquired >= 0 and decisive and levels >= weights[W_ACQUIRED_MIN] and (behind or state[side(me, F_FORCED)] == 1):
        card = acquired
    if card == CARD_NONE and state[side(me, F_FORCED)] == 1:
        card = CARD_DRAW
    edge = 1 if state[side(me, F_EDGES_LEFT)] > 0 else 0
    return make_action(att_i, def_i, condition, card, edge)


@njit_parallel
def choose_batch(states, tables, weights, out):
    for i in prange(states.shape[0]):
        out[i] = choose(states[i], tables, weights)
