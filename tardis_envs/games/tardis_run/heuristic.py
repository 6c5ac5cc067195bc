"""TARDIS Run heuristic: expected value of each choice over the exact paddle odds.

For every legal choice (piece x black paddle) the agent enumerates the
paddle faces (16 without the black paddle, 32 with it), groups them by the
seals they show, resolves each total with the game's own ``resolve_roll`` on
a copy of the state, takes the better of an offered extra move, and scores
the result with :func:`evaluate`. The choice with the highest expected score
wins. ``evaluate`` prizes progress and escapes, holding the black paddle (the
more so as pieces escape: without it nobody wins), stacks (a pair cannot be
landed on), and penalises pieces an opponent can hit with one exact roll.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit, njit_alloc, njit_parallel, prange
from ...core.state import CURRENT_PLAYER, STATUS, TERMINATED, copy_state
from .content import T_TRACK_LENGTH
from .layout import BLACK_PADDLE_OWNER, DECLINE_EXTRA, NUM_ACTIONS, NUM_PIECES, PHASE, PHASE_EXTRA_MOVE, PROGRESS, ROLL, TAKE_EXTRA, WINNER
from .rules import WHITE_WAYS, legal_mask, resolve_extra, resolve_roll, roll_outcome, square_of

WIN_SCORE = 1000.0

# Weights of the evaluation (an argument of the kernels, so they can be tuned
# without recompiling): index -> meaning.
W_ESCAPE_BONUS = 0  # extra value of an escaped piece beyond its progress
W_PADDLE = 1  # value of holding the black paddle
W_PADDLE_PER_ESCAPE = 2  # ... plus this per own escaped piece
W_STACK = 3  # a pair on one square cannot be landed on
W_THREAT = 4  # fraction of a piece's progress lost per unit of hit chance
DEFAULT_WEIGHTS = np.array([4.0, 5.0, 4.0, 1.5, 0.8])


@njit
def _side_score(state, track_length, seat, weights):
    """Progress, escapes, stacks and exposure of one side's pieces."""
    other = 1 - seat
    escaped = track_length + 1
    score = 0.0
    for r in range(NUM_PIECES):
        p = state[PROGRESS + NUM_PIECES * seat + r]
        if p == escaped:
            score += escaped + weights[W_ESCAPE_BONUS]
            continue
        score += p
        if p == 0:
            continue
        square = square_of(seat, p, track_length)
        stacked = False
        for k in range(NUM_PIECES):
            if k != r and state[PROGRESS + NUM_PIECES * seat + k] == p:
                stacked = True
        if stacked:
            score += weights[W_STACK]
            continue
        # Opponent pieces that reach this square with one exact roll of 1..6.
        target = square_of(other, square, track_length)  # square in the opponent's progress
        hit = 0.0
        for k in range(NUM_PIECES):
            q = state[PROGRESS + NUM_PIECES * other + k]
            distance = target - q
            if q < escaped and 1 <= distance <= 6:
                hit += WHITE_WAYS[distance] / 16.0
        if hit > 1.0:
            hit = 1.0
        score -= weights[W_THREAT] * hit * p
    return score


@njit
def evaluate(state, tables, seat, weights):
    """Score of a position for ``seat`` (higher is better)."""
    if state[STATUS] == TERMINATED:
        return WIN_SCORE if state[WINNER] == seat else -WIN_SCORE
    track_length = tables[T_TRACK_LENGTH]
    escaped = track_length + 1
    score = _side_score(state, track_length, seat, weights) - _side_score(state, track_length, 1 - seat, weights)
    owner = state[BLACK_PADDLE_OWNER]
    if owner >= 0:
        out = 0
        for r in range(NUM_PIECES):
            if state[PROGRESS + NUM_PIECES * owner + r] == escaped:
                out += 1
        value = weights[W_PADDLE] + weights[W_PADDLE_PER_ESCAPE] * out
        score += value if owner == seat else -value
    return score


@njit
def _after_roll(state, tables, seat, rank, seals, scratch, spare, weights):
    copy_state(scratch, state)
    resolve_roll(scratch, tables, seat, rank, seals)
    if scratch[PHASE] == PHASE_EXTRA_MOVE and scratch[CURRENT_PLAYER] == seat:
        return _best_extra(scratch, tables, seat, spare, weights)[1]
    return evaluate(scratch, tables, seat, weights)


@njit
def _best_extra(state, tables, seat, scratch, weights):
    """(action, score) of the better extra-move decision."""
    copy_state(scratch, state)
    resolve_extra(scratch, tables, seat, True)
    take = evaluate(scratch, tables, seat, weights)
    copy_state(scratch, state)
    resolve_extra(scratch, tables, seat, False)
    decline = evaluate(scratch, tables, seat, weights)
    if take > decline:
        return TAKE_EXTRA, take
    return DECLINE_EXTRA, decline


@njit_alloc
def choose(state, tables, weights):
    """The heuristic's action for the player to move."""
    seat = state[CURRENT_PLAYER]
    scratch = state.copy()
    spare = state.copy()
    if state[PHASE] == PHASE_EXTRA_MOVE:
        return _best_extra(state, tables, seat, scratch, weights)[0]
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    legal_mask(state, tables, mask)
    if mask[ROLL]:
        return ROLL
    best_action = -1
    best_value = -np.inf
    for action in range(2 * NUM_PIECES):
        if mask[action] == 0:
            continue
        rank = action // 2
        use_black = action % 2
        value = 0.0
        for white in range(7):
            for face in range(1 + use_black):  # the black paddle: +1 seal or "2x", each with probability 1/2
                seals, p = roll_outcome(white, face, use_black)
                value += p * _after_roll(state, tables, seat, rank, seals, scratch, spare, weights)
        if value > best_value:
            best_value = value
            best_action = action
    return best_action


@njit_parallel
def choose_batch(states, tables, weights, out):
    for i in prange(states.shape[0]):
        out[i] = choose(states[i], tables, weights)
