"""TARDIS Run rules as numba kernels over one flat ``int64`` state: ``init``, ``step``,
``legal_mask`` and the helpers they share; the state words, actions and observation planes
are described in :mod:`.layout`, the observation in :mod:`.observe`.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit, stack_empty
from ...core.rewards import clear_rewards, reward_win
from ...core.rng import rng_bit
from ...core.state import (
    CURRENT_PLAYER,
    RNG_KEY,
    RUNNING,
    STATUS,
    TERMINATED,
    TRUNCATED,
    copy_state,
)
from .content import T_MAX_TURNS, T_SHORTCUT, T_TELEPORT, T_TRACK_LENGTH
from .layout import (
    BLACK_PADDLE_OWNER,
    DECLINE_EXTRA,
    DOCTORS,
    EXTRA_CANCELLED,
    EXTRA_DECLINED,
    EXTRA_NONE,
    EXTRA_PENDING,
    EXTRA_TAKEN,
    LAST_CAPTURES,
    LAST_EXTRA,
    LAST_EXTRA_CAPTURES,
    LAST_EXTRA_TO,
    LAST_FACES,
    LAST_FROM,
    LAST_OUTCOME,
    LAST_PLAYER,
    LAST_RANK,
    LAST_SEALS,
    LAST_TO,
    LAST_USED_BLACK,
    MONSTERS,
    NUM_ACTIONS,
    NUM_PADDLES,
    NUM_PIECES,
    NUM_SEATS,
    OUT_CANCELLED,
    OUT_CLAIMED,
    OUT_ESCAPED,
    OUT_MOVED,
    OUT_NONE,
    OUT_ROLLED_ONLY,
    OUT_SENT_HOME,
    OUT_STOLE,
    PENDING_PROGRESS,
    PHASE,
    PHASE_CHOOSE,
    PHASE_EXTRA_MOVE,
    PHASE_OVER,
    PROGRESS,
    ROLL,
    TAKE_EXTRA,
    TURN,
    WHITE_SEALS,
    WINNER,
)

# Ways (out of 16) the four white paddles show w seals, w = 0..6 (their seals are 1, 1, 2, 2):
# the exact odds of a roll, for the kernels that look ahead over every outcome.
WHITE_WAYS = np.array([1, 2, 3, 4, 3, 2, 1], dtype=np.int64)
# A position's afterstate slots at most (:func:`afterstates`): 8 choices x (7 white counts x 2 black faces).
AFTERSTATE_SLOTS = 2 * NUM_PIECES * 7 * 2


@njit
def square_of(seat, progress, track_length):
    """Track square of a piece at ``progress`` (1..L); also maps squares back."""
    if seat == DOCTORS:
        return progress
    return track_length + 1 - progress


@njit
def _order(state, high, low):
    """Compare-exchange: the larger of two progress words first (no branch)."""
    a = state[high]
    b = state[low]
    state[high] = max(a, b)
    state[low] = min(a, b)


@njit
def sort_pieces(state, seat):
    """Keep a side's pieces sorted by progress, most advanced first: a sorting
    network of five compare-exchanges, with no branch for a random roll to make
    the processor mispredict, as an insertion sort's loop exits did."""
    base = PROGRESS + NUM_PIECES * seat
    _order(state, base, base + 1)
    _order(state, base + 2, base + 3)
    _order(state, base, base + 2)
    _order(state, base + 1, base + 3)
    _order(state, base + 1, base + 2)


@njit
def all_escaped(state, seat, track_length):
    for r in range(NUM_PIECES):
        if state[PROGRESS + NUM_PIECES * seat + r] != track_length + 1:
            return False
    return True


@njit
def land(state, seat, rank, square, track_length):
    """Move a piece onto ``square`` with the stacking rules.

    Returns -1 if the move is cancelled (two pieces there already), else the
    number of opponent pieces captured (0 or 1). Re-sorts both sides.
    """
    other = 1 - seat
    mine_base = PROGRESS + NUM_PIECES * seat
    theirs_base = PROGRESS + NUM_PIECES * other
    # the progress each side has on ``square`` (1..L: only a piece on the track matches)
    mine_there = square_of(seat, square, track_length)
    theirs_there = square_of(other, square, track_length)
    mine = 0
    theirs = 0
    for r in range(NUM_PIECES):
        mine += state[mine_base + r] == mine_there
        theirs += state[theirs_base + r] == theirs_there
    if mine + theirs >= 2:
        return -1
    captures = 0
    if theirs == 1:
        for r in range(NUM_PIECES):
            if state[theirs_base + r] == theirs_there:
                state[theirs_base + r] = 0
        sort_pieces(state, other)
        captures = 1
    state[mine_base + rank] = mine_there
    sort_pieces(state, seat)
    return captures


@njit
def win(state, seat):
    state[STATUS] = TERMINATED
    state[PHASE] = PHASE_OVER
    state[WINNER] = seat
    reward_win(state, seat, NUM_SEATS)


@njit
def end_turn(state, tables):
    state[TURN] += 1
    state[PENDING_PROGRESS] = -1
    if state[TURN] >= tables[T_MAX_TURNS]:
        state[STATUS] = TRUNCATED
        state[PHASE] = PHASE_OVER
        return
    state[PHASE] = PHASE_CHOOSE
    state[CURRENT_PLAYER] = 1 - state[CURRENT_PLAYER]


@njit
def extra_target(tables, square):
    """Target of the arrow or teleport on ``square``, 0 if it has neither."""
    target = tables[T_SHORTCUT + square]
    if target == 0:
        target = tables[T_TELEPORT + square]
    return target


@njit
def roll_paddles(state, use_black):
    """Drop the paddles one by one and count the seals (the paddle ruling of ``tardis_run_v0``).

    White paddles show their seals or a blank side with probability 1/2 each.
    The black paddle shows one seal (+1) or "2x" (doubles the white seals and
    adds none itself).
    """
    white = 0
    for i in range(4):
        face = rng_bit(state, RNG_KEY)
        state[LAST_FACES + i] = face
        white += face * WHITE_SEALS[i]
    if use_black == 0:
        state[LAST_FACES + 4] = -1
        return white
    face = rng_bit(state, RNG_KEY)
    state[LAST_FACES + 4] = face
    if face == 1:
        return white + 1
    return 2 * white


@njit
def resolve_roll(state, tables, seat, rank, seals):
    """Apply a roll of ``seals`` for the chosen piece (``rank = -1``: roll only).

    This is the deterministic half of a turn; agents call it on copies of the
    state to look ahead over every paddle outcome.
    """
    track_length = tables[T_TRACK_LENGTH]
    escaped = track_length + 1
    state[LAST_SEALS] = seals
    start = 0
    if rank >= 0:
        start = state[PROGRESS + NUM_PIECES * seat + rank]
        state[LAST_FROM] = 0 if start == 0 else square_of(seat, start, track_length)
    if seals == 0:
        owner = state[BLACK_PADDLE_OWNER]
        if owner != seat:
            state[LAST_OUTCOME] = OUT_STOLE if owner == 1 - seat else OUT_CLAIMED
            state[BLACK_PADDLE_OWNER] = seat
            if all_escaped(state, seat, track_length):
                win(state, seat)
                return
        else:
            state[LAST_OUTCOME] = OUT_SENT_HOME
            if rank >= 0:
                state[PROGRESS + NUM_PIECES * seat + rank] = 0
                sort_pieces(state, seat)
                state[LAST_TO] = 0
        end_turn(state, tables)
        return
    if rank < 0:
        state[LAST_OUTCOME] = OUT_ROLLED_ONLY
        end_turn(state, tables)
        return
    new = start + seals
    if new >= escaped:  # no exact roll needed
        state[PROGRESS + NUM_PIECES * seat + rank] = escaped
        sort_pieces(state, seat)
        state[LAST_OUTCOME] = OUT_ESCAPED
        if state[BLACK_PADDLE_OWNER] == seat and all_escaped(state, seat, track_length):
            win(state, seat)
            return
        end_turn(state, tables)
        return
    square = square_of(seat, new, track_length)
    state[LAST_TO] = square
    captures = land(state, seat, rank, square, track_length)
    if captures < 0:
        state[LAST_OUTCOME] = OUT_CANCELLED
        end_turn(state, tables)
        return
    state[LAST_OUTCOME] = OUT_MOVED
    state[LAST_CAPTURES] = captures
    if extra_target(tables, square) != 0:
        state[PHASE] = PHASE_EXTRA_MOVE
        state[PENDING_PROGRESS] = new
        state[LAST_EXTRA] = EXTRA_PENDING
        return
    end_turn(state, tables)


@njit
def resolve_extra(state, tables, seat, take):
    """Take or decline the pending shortcut/teleport move, then end the turn."""
    track_length = tables[T_TRACK_LENGTH]
    pending = state[PENDING_PROGRESS]
    if take:
        rank = 0
        while state[PROGRESS + NUM_PIECES * seat + rank] != pending:
            rank += 1
        target = extra_target(tables, square_of(seat, pending, track_length))
        state[LAST_EXTRA_TO] = target
        captures = land(state, seat, rank, target, track_length)
        if captures < 0:
            state[LAST_EXTRA] = EXTRA_CANCELLED
        else:
            state[LAST_EXTRA] = EXTRA_TAKEN
            state[LAST_EXTRA_CAPTURES] = captures
    else:
        state[LAST_EXTRA] = EXTRA_DECLINED
    end_turn(state, tables)


@njit
def clear_last(state, seat, rank, use_black):
    state[LAST_PLAYER] = seat
    state[LAST_RANK] = rank
    state[LAST_USED_BLACK] = use_black
    for i in range(NUM_PADDLES):
        state[LAST_FACES + i] = -1
    state[LAST_SEALS] = -1
    state[LAST_OUTCOME] = OUT_NONE
    state[LAST_FROM] = -1
    state[LAST_TO] = -1
    state[LAST_CAPTURES] = 0
    state[LAST_EXTRA] = EXTRA_NONE
    state[LAST_EXTRA_TO] = -1
    state[LAST_EXTRA_CAPTURES] = 0


# --- the kernel contract (tardis_envs.core.game) --------------------------------------
@njit
def init(state, tables):
    state[CURRENT_PLAYER] = MONSTERS  # Monsters go first
    state[STATUS] = RUNNING
    for i in range(NUM_SEATS * NUM_PIECES):
        state[PROGRESS + i] = 0
    state[BLACK_PADDLE_OWNER] = -1
    state[PHASE] = PHASE_CHOOSE
    state[PENDING_PROGRESS] = -1
    state[TURN] = 0
    state[WINNER] = -1
    clear_last(state, -1, -1, 0)


@njit
def step(state, tables, action):
    clear_rewards(state)
    seat = state[CURRENT_PLAYER]
    if state[PHASE] == PHASE_EXTRA_MOVE:
        resolve_extra(state, tables, seat, action == TAKE_EXTRA)
        return
    if action == ROLL:
        rank = -1
        use_black = 0
    else:
        rank = action // 2
        use_black = action % 2
    clear_last(state, seat, rank, use_black)
    seals = roll_paddles(state, use_black)
    resolve_roll(state, tables, seat, rank, seals)


@njit
def legal_mask(state, tables, out):
    out[:] = 0
    if state[STATUS] != RUNNING:
        return
    if state[PHASE] == PHASE_EXTRA_MOVE:
        out[TAKE_EXTRA] = 1
        out[DECLINE_EXTRA] = 1
        return
    seat = state[CURRENT_PLAYER]
    escaped = tables[T_TRACK_LENGTH] + 1
    holds_black = state[BLACK_PADDLE_OWNER] == seat
    base = PROGRESS + NUM_PIECES * seat
    any_piece = False
    for rank in range(NUM_PIECES):
        p = state[base + rank]
        if p == escaped or (rank > 0 and p == state[base + rank - 1]):
            continue
        out[2 * rank] = 1
        if holds_black:
            out[2 * rank + 1] = 1
        any_piece = True
    if not any_piece:
        out[ROLL] = 1


@njit
def step_and_mask(state, tables, action, mask):
    """``step``, then ``legal_mask`` into ``mask`` (the batched API's kernel)."""
    step(state, tables, action)
    legal_mask(state, tables, mask)


# --- exact look-ahead (tardis_envs.core.expectation) -------------------------------------
@njit
def roll_outcome(white, face, use_black):
    """``(seals, probability)`` of a roll whose white paddles show ``white`` seals (0..6) and,
    with the black paddle (``use_black``), its face ``face``: 0 its seal (+1), 1 its "2x"
    (doubles the white seals); without it ``face`` is 0. The odds every look-ahead over the
    paddles (the heuristic's, :func:`afterstates`) sums over."""
    ways = WHITE_WAYS[white] / 16.0
    if use_black == 0:
        return white, ways
    if face == 0:
        return white + 1, 0.5 * ways
    return 2 * white, 0.5 * ways


@njit
def afterstates(state, tables, leaves, leaf_used, slot_prob, slot_action):
    """Every outcome of every legal action of ``state``, with its exact probability: the
    one-ply expansion :mod:`tardis_envs.core.expectation` values. Slot ``k`` is one action
    (``slot_action[k]``) and one count of seals (``slot_prob[k]``: its probability given the
    action); its position is ``leaves[k, 0]``, or where the roll offers the mover an extra move,
    ``leaves[k, 0]`` taken and ``leaves[k, 1]`` declined (``leaf_used[k, j]``), of which the
    mover has the better. An extra-move decision's slots are its two options. Returns the
    number of slots. The paddles' faces (``LAST_FACES``) stay unset: many faces give one count."""
    seat = state[CURRENT_PLAYER]
    k = 0
    if state[PHASE] == PHASE_EXTRA_MOVE:
        for take in range(2):
            slot_prob[k] = 1.0
            slot_action[k] = TAKE_EXTRA if take == 1 else DECLINE_EXTRA
            leaf = leaves[k, 0]
            copy_state(leaf, state)
            clear_rewards(leaf)
            resolve_extra(leaf, tables, seat, take == 1)
            leaf_used[k, 0] = 1
            leaf_used[k, 1] = 0
            k += 1
        return k
    mask = stack_empty(NUM_ACTIONS, np.int8)
    legal_mask(state, tables, mask)
    for action in range(ROLL + 1):
        if mask[action] == 0:
            continue
        rank = -1 if action == ROLL else action // 2
        use_black = 0 if action == ROLL else action % 2
        for white in range(7):
            for face in range(1 + use_black):
                seals, slot_prob[k] = roll_outcome(white, face, use_black)
                slot_action[k] = action
                leaf = leaves[k, 0]
                copy_state(leaf, state)
                clear_rewards(leaf)
                clear_last(leaf, seat, rank, use_black)
                resolve_roll(leaf, tables, seat, rank, seals)
                leaf_used[k, 0] = 1
                leaf_used[k, 1] = 0
                if leaf[STATUS] == RUNNING and leaf[PHASE] == PHASE_EXTRA_MOVE:
                    declined = leaves[k, 1]
                    copy_state(declined, leaf)
                    resolve_extra(leaf, tables, seat, True)
                    resolve_extra(declined, tables, seat, False)
                    leaf_used[k, 1] = 1
                k += 1
    return k
