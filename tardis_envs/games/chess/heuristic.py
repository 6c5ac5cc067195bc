"""Dr. Who Chess heuristic: alpha-beta search over the game's own kernels.

Negamax with alpha-beta to ``depth`` plies (default 2) plus a capture-only
quiescence search, over *every* legal action of the game: chess moves, Dr.
Who's steps, TARDIS moves, time travels, eviction squares and the follow-up
choice. So the search is TARDIS-aware by construction: it hides a threatened
queen in the TARDIS when that saves it, kicks a piece out when it gains, and
travels back in time when the restored position is worth more (undoing a
blunder brings the lost piece back). Decisions inside one turn (eviction,
follow-up) are searched without spending depth.

Evaluation, from the side to move: material (the piece inside the TARDIS
counts: it is safe), mobility (pseudo-legal chess moves of each side, so
the piece inside the TARDIS and pieces boxed in by it count for what they
can do), small piece-square terms (central knights and bishops, advanced
pawns), and, when ahead by more than a minor piece, a mating drive
(enemy king toward the edge, own king toward it) so that won games finish.
Mates score ``MATE - plies``; draws 0. Ties between equal actions are broken
by a hash of the game's seed and ply, so games differ but replay exactly.

The preset ``greedy`` (``make_agent("heuristic:greedy", game)``) is the
1-ply greedy capturer the issue compares against: depth 1, no quiescence,
material only. The preset ``quick`` is depth 1 plus a 4-ply capture search,
without mobility: it sees exchanges and hanging pieces but no quiet threats,
wins 39 of 40 games against ``greedy`` and costs a fraction of a millisecond
a decision, so it is the Dr. Who Chess baseline's behaviour-cloning teacher.
The preset ``depth3`` is the default one ply deeper: the yardstick of what
beats the default (a search that sees every reply to every reply). The preset
``material3`` is ``depth3`` judging by material alone (and the mating drive):
no mobility, no piece-square terms, what a search one ply deeper than the
default needs its leaves to know.

The same search scores its leaves by a learned table where one is given
(:func:`choose_learned`; the ``az`` agent's ``search=alphabeta``, fitted by
:mod:`agents.training.leaf_table`): a number of points for each piece kind on each square,
the mover's own pieces and the opponent's apart, seen from the side to move (Black's squares
mirrored top to bottom; the passenger inside the TARDIS on a square of its own). The table
takes the place of the material; the weights keep the search's depth, capture plies and
mating drive (which reads the lead in material). :func:`leaf_samples` gives what a table is
fitted on: each position's piece counts (:func:`leaf_features`) and whether it is quiet.

:func:`search_value` is the negamax value the search gives a position, which
``benchmarks/leaf_values.py`` hands the guided search as its leaves' values.

Weights (``DEFAULT_WEIGHTS``, index: meaning): 0-4 pawn, knight, bishop,
rook and queen values; 5 piece-square scale; 6 mating-drive scale; 7 search
depth; 8 quiescence plies; 9 mobility (points per pseudo-legal move).
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit, njit_alloc, njit_parallel, prange
from ...core.rng import hash_words
from ...core.state import CURRENT_PLAYER, RNG_KEY, RUNNING, STATUS, TERMINATED, copy_state
from .board import (
    chess_move_legal_given,
    encode_move,
    gen_chess_moves,
    legality_context,
)
from .layout import (
    A_DOCTOR,
    BOARD,
    DOCTOR,
    EMPTY,
    EP_SQUARE,
    EP_SQUARE_FAR,
    KING,
    KING_SQ,
    MAX_MOVES,
    NUM_ACTIONS,
    NUM_CHESS_ACTIONS,
    PASSENGER,
    PAWN,
    PHASE,
    PHASE_MOVE,
    PLY,
    STATE_SIZE,
    TARDIS_SQ,
    WINNER,
    blocker_square,
    move_from,
    move_promotion,
    move_to,
)
from .rules import action_squares, legal_mask, step
from .tardis import (
    doctor_move_legal,
)

# weights: index -> meaning
W_PAWN, W_KNIGHT, W_BISHOP, W_ROOK, W_QUEEN = 0, 1, 2, 3, 4
W_POSITIONAL = 5  # scale of the piece-square terms
W_MATING_DRIVE = 6  # scale of the king-to-edge drive when ahead
W_DEPTH = 7  # search depth in plies
W_QUIESCENCE = 8  # capture-only plies after the depth (0: none)
W_MOBILITY = 9  # points per pseudo-legal chess move of the side, minus the opponent's
DEFAULT_WEIGHTS = np.array([100.0, 320.0, 330.0, 500.0, 900.0, 1.0, 1.0, 2.0, 4.0, 4.0])
PRESETS = {
    "greedy": np.array([100.0, 320.0, 330.0, 500.0, 900.0, 0.0, 0.0, 1.0, 0.0, 0.0]),
    "quick": np.array([100.0, 320.0, 330.0, 500.0, 900.0, 1.0, 1.0, 1.0, 4.0, 0.0]),
    "depth3": np.array([100.0, 320.0, 330.0, 500.0, 900.0, 1.0, 1.0, 3.0, 4.0, 4.0]),
    "material3": np.array([100.0, 320.0, 330.0, 500.0, 900.0, 0.0, 1.0, 3.0, 4.0, 0.0]),
}

MATE = 1_000_000.0
INF = 1e12


@njit
def _centre_bonus(sq):
    f = sq & 7
    r = sq >> 3
    return 3.5 - max(abs(f - 3.5), abs(r - 3.5))  # 0.5 at the edge .. 3.5 in the centre


@njit
def mobility(state, moves):
    """Pseudo-legal chess moves of the side to move minus the opponent's
    (``moves``: a scratch buffer of ``MAX_MOVES``)."""
    me = state[CURRENT_PLAYER]
    own = gen_chess_moves(state, moves)
    # the opponent's count is taken as if it were its turn; the state is restored
    state[CURRENT_PLAYER] = 1 - me
    saved_ep = state[EP_SQUARE]
    saved_ep_far = state[EP_SQUARE_FAR]
    state[EP_SQUARE] = -1  # en-passant targets belong to the side to move only
    state[EP_SQUARE_FAR] = -1
    theirs = gen_chess_moves(state, moves)
    state[EP_SQUARE] = saved_ep
    state[EP_SQUARE_FAR] = saved_ep_far
    state[CURRENT_PLAYER] = me
    return own - theirs


# A learned leaf value (the az agent's ``search=alphabeta``) is a table of points, one entry a
# (side, kind, square) seen from the side to move: ``side`` 0 its own pieces, 1 the opponent's;
# ``kind`` pawn .. king; the square mirrored top to bottom for Black, so that a table serves both
# colours; square 64 is the passenger inside the TARDIS.
LEAF_FEATURES = 2 * 6 * 65
LEARNED_SEARCH = "alphabeta"  # the az agents' search over LEAF_FEATURES (agents.alphazero.LeafSearch)


@njit
def leaf_index(theirs, kind, sq, me):
    """The table entry of a ``kind`` (pawn 1 .. king 6) on ``sq`` (-1: inside the TARDIS),
    the mover's own piece or (``theirs``) the opponent's, with ``me`` to move."""
    relative = 64 if sq < 0 else (sq if me == 0 else sq ^ 56)
    return (int(theirs) * 6 + kind - 1) * 65 + relative


@njit
def leaf_features(state, out):
    """The position's learned-leaf features for its side to move into ``out``
    (``LEAF_FEATURES`` entries): the count of pieces on each entry, so that a table's score
    is ``out @ table``."""
    out[:] = 0
    me = state[CURRENT_PLAYER]
    for i in range(65):
        code = state[PASSENGER] if i == 64 else state[BOARD + i]
        if code == EMPTY or code == DOCTOR:
            continue
        out[leaf_index((code >> 3) != me, code & 7, -1 if i == 64 else i, me)] += 1


def material_table(weights):
    """The learned-leaf table that scores what ``weights`` values as material: each own piece
    its value, each of the opponent's the negative (kings 0), wherever it stands."""
    table = np.zeros(LEAF_FEATURES)
    for kind in range(1, 6):
        for theirs in (0, 1):
            start = (theirs * 6 + kind - 1) * 65
            table[start : start + 65] = weights[kind - 1] * (-1.0 if theirs else 1.0)
    return table


@njit_alloc
def evaluate(state, weights, moves, table=None):
    """Score of the position for the side to move (``moves``: scratch buffer). With a learned
    leaf ``table`` (:func:`leaf_features`' weights, in points) the table's score takes the place
    of the material; the weights still give the positional, mobility and mating-drive terms."""
    me = state[CURRENT_PLAYER]
    material = np.zeros(2)
    positional = np.zeros(2)
    learned = 0.0
    for i in range(65):
        if i == 64:
            code = state[PASSENGER]
            sq = -1
        else:
            code = state[BOARD + i]
            sq = i
        if code == EMPTY or code == DOCTOR:
            continue
        kind = code & 7
        colour = code >> 3
        if table is not None:
            learned += table[leaf_index(colour != me, kind, sq, me)]
        if kind == KING:
            continue
        material[colour] += weights[kind - 1]
        if sq >= 0:
            if kind == PAWN:
                advance = max((sq >> 3) - 1 if colour == 0 else 6 - (sq >> 3), 0)  # 0 on the first two ranks
                positional[colour] += 4.0 * advance * advance
            elif kind <= 3:
                positional[colour] += 6.0 * _centre_bonus(sq)
    lead = material[me] - material[1 - me]
    score = lead if table is None else learned
    score += weights[W_POSITIONAL] * (positional[me] - positional[1 - me])
    if weights[W_MOBILITY] != 0.0:
        score += weights[W_MOBILITY] * mobility(state, moves)
    if weights[W_MATING_DRIVE] > 0 and abs(lead) > 350:
        winner = me if lead > 0 else 1 - me
        loser_king = state[KING_SQ + 1 - winner]
        winner_king = state[KING_SQ + winner]
        distance = max(abs((loser_king & 7) - (winner_king & 7)), abs((loser_king >> 3) - (winner_king >> 3)))
        drive = 20.0 * (3.5 - _centre_bonus(loser_king)) + 8.0 * (7 - distance)
        score += weights[W_MATING_DRIVE] * (drive if winner == me else -drive)
    return score


@njit
def capture_order(state, action, weights):
    """Ordering key of an action: victim value x 16 - attacker value for a
    capture (en passant included), 0 otherwise; read off the board without
    playing the action."""
    frm, to = action_squares(state, action)
    if to < 0 or to == blocker_square(state):
        return 0.0
    them = 1 - state[CURRENT_PLAYER]
    victim = state[BOARD + to]
    attacker = state[PASSENGER] if frm == blocker_square(state) else state[BOARD + frm]
    if victim == EMPTY and (attacker & 7) == PAWN and (to == state[EP_SQUARE] or to == state[EP_SQUARE_FAR]) and (frm & 7) != (to & 7):
        victim = PAWN | (them << 3)
    if victim == EMPTY or victim == DOCTOR or (victim >> 3) != them or (victim & 7) == KING:
        return 0.0
    attacker_value = 0.0 if attacker == DOCTOR or (attacker & 7) == KING else weights[(attacker & 7) - 1]
    return 16.0 * weights[(victim & 7) - 1] - attacker_value


@njit_alloc
def _sort_by_key(actions, keys, n):
    """Order the first ``n`` actions by ascending key (stable); returns ``n``."""
    order = np.argsort(keys[:n], kind="mergesort")
    sorted_actions = actions[:n][order]
    actions[:n] = sorted_actions
    return n


@njit
def _ordered_actions(state, mask, weights, actions, keys):
    """Legal actions, captures first (most valuable victim first); returns the count."""
    n = 0
    for action in range(mask.shape[0]):
        if mask[action] == 0:
            continue
        actions[n] = action
        keys[n] = -capture_order(state, action, weights) if action < NUM_CHESS_ACTIONS + 8 else 0.0
        n += 1
    return _sort_by_key(actions, keys, n)


@njit
def _ordered_captures(state, weights, actions, keys, moves):
    """The legal captures (chess pieces and Dr. Who), most valuable victim
    first; returns the count. Quiescence needs only these, so it skips the
    full action mask."""
    mover = state[CURRENT_PLAYER]
    n_moves = gen_chess_moves(state, moves)
    context = legality_context(state)
    n = 0
    for i in range(n_moves):
        m = moves[i]
        action = encode_move(move_from(m), move_to(m), move_promotion(m), mover)
        key = capture_order(state, action, weights)
        if key <= 0.0 or not chess_move_legal_given(state, m, context):
            continue
        actions[n] = action
        keys[n] = -key
        n += 1
    if state[TARDIS_SQ] >= 0:
        for d in range(8):
            action = A_DOCTOR + d
            key = capture_order(state, action, weights)
            if key > 0.0 and doctor_move_legal(state, d if mover == 0 else (4 - d) % 8):
                actions[n] = action
                keys[n] = -key
                n += 1
    return _sort_by_key(actions, keys, n)


@njit
def _terminal_value(child, mover, depth_used):
    if child[STATUS] == TERMINATED and child[WINNER] >= 0:
        return MATE - depth_used if child[WINNER] == mover else -MATE + depth_used
    return 0.0


@njit
def _search(state, tables, weights, depth, quiescence, alpha, beta, height, buffers, masks, order_buffers, keys, table):
    """Negamax value of ``state`` for its side to move."""
    mover = state[CURRENT_PLAYER]
    capture_only = depth <= 0
    stand = 0.0
    # each row: the ordered actions, then a move-generation scratch area
    actions = order_buffers[height, :NUM_ACTIONS]
    moves = order_buffers[height, NUM_ACTIONS:]
    if capture_only:
        stand = evaluate(state, weights, moves, table)
        if quiescence <= 0 or state[PHASE] != PHASE_MOVE:
            return stand
        if stand >= beta:
            return stand
        if stand > alpha:
            alpha = stand
        n = _ordered_captures(state, weights, actions, keys, moves)
    else:
        mask = masks[height]
        legal_mask(state, tables, mask)
        n = _ordered_actions(state, mask, weights, actions, keys)
    child = buffers[height]
    best = stand if capture_only else -INF
    for i in range(n):
        action = actions[i]
        copy_state(child, state)
        step(child, tables, action)
        if child[STATUS] != RUNNING:
            value = _terminal_value(child, mover, height)
        elif child[CURRENT_PLAYER] == mover:
            value = _search(child, tables, weights, depth, quiescence, alpha, beta, height + 1, buffers, masks, order_buffers, keys, table)
        elif capture_only:
            value = -_search(
                child, tables, weights, depth - 1, quiescence - 1, -beta, -alpha, height + 1, buffers, masks, order_buffers, keys, table
            )
        else:
            value = -_search(
                child, tables, weights, depth - 1, quiescence, -beta, -alpha, height + 1, buffers, masks, order_buffers, keys, table
            )
        if value > best:
            best = value
        if value > alpha:
            alpha = value
        if alpha >= beta:
            break
    if best == -INF:
        return evaluate(state, weights, moves, table)
    return best


MAX_HEIGHT = 24


@njit_alloc
def _search_scratch():
    """What one search writes into: a state, a legal mask and an action list a ply (each with
    its move-generation area), and the ordering keys."""
    return (
        np.empty((MAX_HEIGHT, STATE_SIZE), dtype=np.int64),
        np.empty((MAX_HEIGHT, NUM_ACTIONS), dtype=np.int8),
        np.empty((MAX_HEIGHT, NUM_ACTIONS + MAX_MOVES), dtype=np.int64),
        np.empty(NUM_ACTIONS, dtype=np.float64),
    )


@njit_alloc
def _choose(state, tables, weights, table):
    depth = int(weights[W_DEPTH])
    quiescence = int(weights[W_QUIESCENCE])
    buffers, masks, order_buffers, keys = _search_scratch()
    root_mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    legal_mask(state, tables, root_mask)
    mover = state[CURRENT_PLAYER]
    child = np.empty(STATE_SIZE, dtype=np.int64)
    # typed (not literal) arguments: numba compiles one recursive _search only
    height = np.int64(1)
    best_action = -1
    best_value = -INF
    best_tie = 0
    for action in range(root_mask.shape[0]):
        if root_mask[action] == 0:
            continue
        copy_state(child, state)
        step(child, tables, action)
        if child[STATUS] != RUNNING:
            value = _terminal_value(child, mover, height - 1)
        else:
            # actions worse than the best by a point or more are cut early;
            # closer ones are searched exactly so ties are real ties
            floor = best_value - 1.0 if best_value > -INF else -INF
            if child[CURRENT_PLAYER] == mover:
                value = _search(child, tables, weights, depth, quiescence, floor, INF, height, buffers, masks, order_buffers, keys, table)
            else:
                value = -_search(
                    child, tables, weights, depth - 1, quiescence, -INF, -floor, height, buffers, masks, order_buffers, keys, table
                )
        # ties: a reproducible pseudo-random order from the game's seed and ply
        tie = hash_words(state[RNG_KEY] ^ action, state[PLY] * 7919 + state[PHASE])
        tie_key = np.int64(tie >> np.uint64(1))
        if value > best_value + 1e-9 or (abs(value - best_value) <= 1e-9 and tie_key > best_tie):
            best_value = value
            best_action = action
            best_tie = tie_key
    return best_action


@njit
def choose(state, tables, weights):
    return _choose(state, tables, weights, None)


@njit
def choose_learned(state, tables, weights, table):
    """:func:`choose` with the leaves scored by a learned ``table`` (:func:`leaf_features`'
    weights, in points) in place of the material: the search of ``weights`` (its depth, capture
    plies and mating drive) over a learned leaf value."""
    return _choose(state, tables, weights, table)


@njit_parallel
def choose_learned_batch(states, tables, weights, table, out):
    """:func:`choose_learned` of each of ``states`` into ``out``."""
    for i in prange(states.shape[0]):
        out[i] = _choose(states[i], tables, weights, table)


@njit_alloc
def search_value(state, tables, weights, depth):
    """The heuristic's negamax value of ``state`` for its side to move, in its points:
    ``depth`` plies of every action, then the capture search of ``weights`` (depth 0: the
    capture search alone); a mate scores ``MATE`` less the plies from ``state`` to it."""
    buffers, masks, order_buffers, keys = _search_scratch()
    quiescence = np.int64(weights[W_QUIESCENCE])
    return _search(state, tables, weights, np.int64(depth), quiescence, -INF, INF, np.int64(1), buffers, masks, order_buffers, keys, None)


@njit_parallel
def search_values(states, tables, weights, depth, out):
    """:func:`search_value` of each of ``states`` into ``out``."""
    for i in prange(states.shape[0]):
        out[i] = search_value(states[i], tables, weights, depth)


@njit_alloc
def leaf_sample(state, tables, weights, teacher):
    """``(quiet, judged)`` of :func:`leaf_samples` for one position."""
    buffers, masks, order_buffers, keys = _search_scratch()
    moves = order_buffers[0, NUM_ACTIONS:]
    stand = evaluate(state, weights, moves)
    quiescence = np.int64(weights[W_QUIESCENCE])
    searched = _search(state, tables, weights, np.int64(0), quiescence, -INF, INF, np.int64(1), buffers, masks, order_buffers, keys, None)
    return abs(searched - stand) < 1e-9, evaluate(state, teacher, moves)


@njit_parallel
def leaf_samples(states, tables, weights, teacher, features, quiet, judged):
    """What a learned leaf value is fitted on: each of ``states``' :func:`leaf_features` into the
    rows of ``features``; into ``quiet`` whether the position is quiet (its capture search under
    ``weights`` changes nothing: where captures are still to be played, the pieces on the board
    are not what the position is worth, and the search's capture plies resolve them before it
    scores a leaf); into ``judged`` the static evaluation by the ``teacher`` weights (points, for
    the side to move)."""
    for i in prange(states.shape[0]):
        leaf_features(states[i], features[i])
        quiet[i], judged[i] = leaf_sample(states[i], tables, weights, teacher)


@njit_parallel
def choose_batch(states, tables, weights, out):
    for i in prange(states.shape[0]):
        out[i] = choose(states[i], tables, weights)
