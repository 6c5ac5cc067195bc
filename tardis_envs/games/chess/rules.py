"""Dr. Who Chess rules: the kernel contract (``init``, ``step``, ``legal_mask``,
``observe``) over :mod:`.layout` (the state's words), :mod:`.board` (FIDE
chess), :mod:`.tardis` (Dr. Who, the TARDIS, time travel) and :mod:`.observe`.

A turn: ``PHASE_MOVE`` (a chess move, a Dr. Who step, a TARDIS move or a time
travel), then, after a kick-out, ``PHASE_EVICT`` (the evicted piece's square),
then, after a chess move with a TARDIS move or time travel open,
``PHASE_FOLLOW_UP`` (one of those, or ``end turn``). The game is decided at the
start of each turn (``_check_result``).
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ...core.jit import njit, stack_empty
from ...core.rewards import clear_rewards, reward_win
from ...core.state import CURRENT_PLAYER, RUNNING, STATUS, TERMINATED, TRUNCATED
from .board import (
    apply_chess_move,
    attacker_bits_of,
    board_sets,
    chess_move_legal_given,
    encode_move,
    eviction_square_ok,
    gen_chess_moves,
    in_check,
    insufficient_material,
    legal_chess_actions,
    legality_context,
    perft,
    position_hash,
    repetitions,
)
from .layout import (
    A_DOCTOR,
    A_END_TURN,
    A_EVICT,
    A_TARDIS,
    A_TRAVEL,
    BACKWARD_TRAVELS,
    BLACK,
    BOARD,
    CASTLING,
    COOLDOWN_PLIES,
    COOLDOWN_UNTIL,
    CORE_SIZE,
    DIR_DF,
    DIR_DR,
    DOCTOR,
    DOCTOR_ID,
    DOCTOR_SQ,
    EMPTY,
    EP_SQUARE,
    EP_SQUARE_FAR,
    EVICTED,
    EVICTED_ID,
    FLAG_CASTLE,
    FLAG_DOUBLE,
    FLAG_EN_PASSANT,
    FLAG_KICK,
    FLAG_NORMAL,
    FLAG_TRIPLE,
    FULLMOVE,
    HALFMOVE,
    HIST_COUNT,
    HIST_TOP,
    HISTORY,
    KIND_BACKWARD,
    KIND_CHESS,
    KIND_DOCTOR,
    KIND_FORWARD,
    KIND_NONE,
    KIND_TARDIS,
    KING,
    KING_SQ,
    KNIGHT_DF,
    KNIGHT_DR,
    LAST_AUTO_PROMOTION,
    LAST_CAPTURED,
    LAST_EVICT_SQ,
    LAST_FOLLOW_ARG,
    LAST_FOLLOW_KIND,
    LAST_FROM,
    LAST_KIND,
    LAST_PIECE,
    LAST_PROMOTION,
    LAST_TO,
    LAST_TRAVEL_PLY,
    MAX_MOVES,
    MAX_TRAVEL,
    NEIGHBOUR,
    NUM_CHESS_ACTIONS,
    PASSENGER,
    PASSENGER_ENTRY_PLY,
    PASSENGER_ID,
    PAWN,
    PHASE,
    PHASE_EVICT,
    PHASE_FOLLOW_UP,
    PHASE_MOVE,
    PHASE_OVER,
    PIECE_ID,
    PLY,
    PROMOTION_PIECES,
    QUEEN,
    REASON,
    REASON_CHECKMATE,
    REASON_FIFTY_MOVES,
    REASON_INSUFFICIENT,
    REASON_MAX_PLIES,
    REASON_NONE,
    REASON_STALEMATE,
    REASON_THREEFOLD,
    REP_COUNT,
    REP_RING,
    REP_RING_SIZE,
    T_DOCTOR,
    T_MAX_PLIES,
    T_START_BOARD,
    T_START_CASTLING,
    T_START_DOCTOR_SQ,
    T_START_EP,
    T_START_EP_FAR,
    T_START_FULLMOVE,
    T_START_HALFMOVE,
    T_START_PASSENGER,
    T_START_SIDE,
    T_START_TARDIS,
    TARDIS_ABSENT,
    TARDIS_PREV_SQ,
    TARDIS_RETURN_PLY,
    TARDIS_SQ,
    WHITE,
    WINNER,
    ZEROING,
    blocker_square,
    frame,
    make_move,
    move_flag,
    move_from,
    move_promotion,
    move_to,
    queen_if_last_rank,
)
from .tardis import (
    apply_doctor_move,
    apply_tardis_move,
    backward_travel_legal,
    doctor_ready,
    doctor_step_legal_given,
    king_safe_without_doctor,
    push_history,
    restore_backward,
    tardis_can_fly,
    tardis_landings,
    travel_allowed,
)

# The kernel contract, plus what game.py, agents and tests call through ``rules``.
__all__ = [
    "init",
    "step",
    "legal_mask",
    "legal_chess_moves",
    "action_squares",
    "perft",
    "in_check",
    "repetitions",
    "encode_move",
]


@njit
def action_squares(state, action):
    """Absolute (from, to) of a move-plane or Dr. Who action of the side to
    move, (-1, -1) for other actions or planes that leave the board."""
    mover = state[CURRENT_PLAYER]
    if action < NUM_CHESS_ACTIONS:
        f = action // 73
        plane = action % 73
        if plane < 56:
            d = plane // 7
            dist = plane % 7 + 1
            df = DIR_DF[d] * dist
            dr = DIR_DR[d] * dist
        elif plane < 64:
            df = KNIGHT_DF[plane - 56]
            dr = KNIGHT_DR[plane - 56]
        else:
            df = (plane - 64) // 3 - 1
            dr = 1
        tf = (f & 7) + df
        tr = (f >> 3) + dr
        if tf < 0 or tf > 7 or tr < 0 or tr > 7:
            return -1, -1
        return frame(f, mover), frame(tr * 8 + tf, mover)
    if action < A_TARDIS:
        d = action - A_DOCTOR
        if mover == BLACK:
            d = (4 - d) % 8
        origin = state[DOCTOR_SQ]
        if origin < 0:
            origin = blocker_square(state)
        if origin < 0:
            return -1, -1
        return origin, NEIGHBOUR[origin, d]
    return -1, -1


# ============================================================================
# Legal actions
# ============================================================================
@njit
def _follow_up_actions(state, sets, mask, write):
    """TARDIS moves and time travels open to the mover now (``sets``: the position's
    ``board_sets``); counts them."""
    count = 0
    if not tardis_can_fly(state):
        return 0
    mover = state[CURRENT_PLAYER]
    landings, forward_legal = tardis_landings(state, sets)
    rest = landings
    while rest != 0:
        sq = trailing_zeros(rest)
        rest &= rest - 1
        count += 1
        if write:
            mask[A_TARDIS + frame(sq, mover)] = 1
    if travel_allowed(state):
        scratch = stack_empty(CORE_SIZE, np.int64)  # a copy of the position to rewind in
        for k in range(1, MAX_TRAVEL + 1):
            if backward_travel_legal(state, k, scratch):
                count += 1
                if write:
                    mask[A_TRAVEL + k - 1] = 1
        if forward_legal:
            count += MAX_TRAVEL
            if write:
                for k in range(MAX_TRAVEL):
                    mask[A_TRAVEL + MAX_TRAVEL + k] = 1
    return count


@njit
def _legal_actions(state, tables, mask, write, stop_at_first):
    """Counts (and with ``write`` marks) the legal actions of the player to move."""
    if state[STATUS] != RUNNING:
        return 0
    mover = state[CURRENT_PLAYER]
    phase = state[PHASE]
    count = 0
    if phase == PHASE_EVICT:
        block = blocker_square(state)
        for d in range(8):
            e = NEIGHBOUR[block, d]
            if eviction_square_ok(state, mover, -1, block, FLAG_NORMAL, e, state[EVICTED]):
                count += 1
                if write:
                    mask[A_EVICT + (d if mover == WHITE else _mirror_direction(d))] = 1
        return count
    sets = board_sets(state)
    if phase == PHASE_FOLLOW_UP:
        count = _follow_up_actions(state, sets, mask, write) + 1
        if write:
            mask[A_END_TURN] = 1
        return count
    count = legal_chess_actions(state, sets, mask, write, stop_at_first)
    if stop_at_first and count > 0:
        return count
    if tables[T_DOCTOR] == 0:
        return count
    if doctor_ready(state):
        bits = attacker_bits_of(sets, 1 - mover, blocker_square(state))
        safe_without_him = king_safe_without_doctor(state, bits)
        for d in range(8):
            if doctor_step_legal_given(state, d, bits, safe_without_him):
                count += 1
                if stop_at_first:
                    return count
                if write:
                    mask[A_DOCTOR + (d if mover == WHITE else _mirror_direction(d))] = 1
    count += _follow_up_actions(state, sets, mask, write)
    return count


@njit
def _mirror_direction(d):
    """Direction index seen with ranks mirrored (N <-> S, NE <-> SE, E and W stay)."""
    return (4 - d) % 8


@njit
def legal_mask(state, tables, out):
    out[:] = 0
    _legal_actions(state, tables, out, True, False)


@njit
def legal_chess_moves(state, out):
    """Legal chess moves of the side to move as move words; returns the count."""
    moves = stack_empty(MAX_MOVES, np.int64)
    n = gen_chess_moves(state, moves)
    context = legality_context(state)
    k = 0
    for i in range(n):
        if chess_move_legal_given(state, moves[i], context):
            out[k] = moves[i]
            k += 1
    return k


# ============================================================================
# Turns
# ============================================================================
@njit
def init(state, tables):
    state[CURRENT_PLAYER] = tables[T_START_SIDE]
    state[STATUS] = RUNNING
    next_id = 1
    for sq in range(64):
        code = tables[T_START_BOARD + sq]
        state[BOARD + sq] = code
        if code == DOCTOR:
            state[PIECE_ID + sq] = DOCTOR_ID
        elif code != EMPTY:
            state[PIECE_ID + sq] = next_id
            next_id += 1
            if (code & 7) == KING:
                state[KING_SQ + (code >> 3)] = sq
    state[CASTLING] = tables[T_START_CASTLING]
    state[EP_SQUARE] = tables[T_START_EP]
    state[EP_SQUARE_FAR] = tables[T_START_EP_FAR]
    state[HALFMOVE] = tables[T_START_HALFMOVE]
    state[FULLMOVE] = tables[T_START_FULLMOVE]
    state[PLY] = 0
    state[PHASE] = PHASE_MOVE
    state[TARDIS_SQ] = tables[T_START_TARDIS]
    state[TARDIS_ABSENT] = 0
    state[TARDIS_RETURN_PLY] = 0
    state[TARDIS_PREV_SQ] = -1
    state[DOCTOR_SQ] = tables[T_START_DOCTOR_SQ]
    state[PASSENGER] = tables[T_START_PASSENGER]
    state[PASSENGER_ID] = next_id if tables[T_START_PASSENGER] != EMPTY else 0
    state[PASSENGER_ENTRY_PLY] = 0
    state[COOLDOWN_UNTIL] = 0
    state[LAST_TRAVEL_PLY] = -100
    state[BACKWARD_TRAVELS] = 0
    state[BACKWARD_TRAVELS + 1] = 0
    state[EVICTED] = EMPTY
    state[EVICTED_ID] = 0
    state[ZEROING] = 0
    state[WINNER] = -1
    state[REASON] = REASON_NONE
    state[LAST_KIND] = KIND_NONE
    state[LAST_FROM] = -1
    state[LAST_TO] = -1
    state[LAST_PIECE] = EMPTY
    state[LAST_CAPTURED] = EMPTY
    state[LAST_PROMOTION] = EMPTY
    state[LAST_FOLLOW_KIND] = KIND_NONE
    state[LAST_FOLLOW_ARG] = -1
    state[LAST_EVICT_SQ] = -1
    state[LAST_AUTO_PROMOTION] = -1
    state[HIST_TOP] = HISTORY - 1
    state[HIST_COUNT] = 0
    push_history(state)
    state[REP_COUNT] = 1
    state[REP_RING] = position_hash(state)
    _check_result(state, tables, stack_empty(0, np.int8))


@njit
def _finish(state, winner, reason, status):
    state[STATUS] = status
    state[PHASE] = PHASE_OVER
    state[WINNER] = winner
    state[REASON] = reason
    reward_win(state, winner, 2)


@njit
def _check_result(state, tables, mask):
    """Decide the game at the start of a turn: mate, stalemate, draws, max plies.

    Mate and stalemate need to know whether the mover has a legal action: with an
    empty ``mask`` it stops at the first one found; with a full-size ``mask``
    (``step_and_mask``) it writes the mover's whole legal mask there, all zero if
    the game ends, so that the batch does not generate the moves a second time.
    Returns whether ``mask`` was written."""
    mover = state[CURRENT_PLAYER]
    write = mask.shape[0] > 0
    if write:
        mask[:] = 0
    if _legal_actions(state, tables, mask, write, not write) == 0:
        if in_check(state, mover):
            _finish(state, 1 - mover, REASON_CHECKMATE, TERMINATED)
        else:
            _finish(state, -1, REASON_STALEMATE, TERMINATED)
    elif insufficient_material(state):
        _finish(state, -1, REASON_INSUFFICIENT, TERMINATED)
    elif state[HALFMOVE] >= 100:
        _finish(state, -1, REASON_FIFTY_MOVES, TERMINATED)
    elif repetitions(state) >= 3:
        _finish(state, -1, REASON_THREEFOLD, TERMINATED)
    elif state[PLY] >= tables[T_MAX_PLIES]:
        _finish(state, -1, REASON_MAX_PLIES, TRUNCATED)
    if write and state[STATUS] != RUNNING:
        mask[:] = 0
    return write


@njit
def _end_turn(state, tables, keep_clocks, mask):
    """Hand the turn over and decide the game (:func:`_check_result`, whose return it passes on)."""
    mover = state[CURRENT_PLAYER]
    if not keep_clocks:
        if state[ZEROING] == 1:
            state[HALFMOVE] = 0
        else:
            state[HALFMOVE] += 1
        if mover == BLACK:
            state[FULLMOVE] += 1
    state[CURRENT_PLAYER] = 1 - mover
    state[PLY] += 1
    state[PHASE] = PHASE_MOVE
    # a TARDIS travelling forward reappears at the start of a turn once due
    # and its square is empty
    if state[TARDIS_ABSENT] == 1 and state[PLY] >= state[TARDIS_RETURN_PLY]:
        if state[BOARD + state[TARDIS_SQ]] == EMPTY:
            state[TARDIS_ABSENT] = 0
    push_history(state)
    if state[ZEROING] == 1:
        state[REP_COUNT] = 0
    state[REP_RING + state[REP_COUNT] % REP_RING_SIZE] = position_hash(state)
    state[REP_COUNT] += 1
    state[ZEROING] = 0
    return _check_result(state, tables, mask)


@njit
def _after_chess_move(state, tables, mask):
    """Offer the optional follow-up (TARDIS move / time travel) or end the turn."""
    # (the board's sets only when the TARDIS can fly: most chess moves need none)
    if tables[T_DOCTOR] == 1 and tardis_can_fly(state) and _follow_up_actions(state, board_sets(state), mask[:0], False) > 0:
        state[PHASE] = PHASE_FOLLOW_UP
        return False
    return _end_turn(state, tables, False, mask)


@njit
def _tardis_action(state, tables, action, mask):
    """A TARDIS move or a time travel (a whole turn, or the follow-up of one)."""
    mover = state[CURRENT_PLAYER]
    follow_up = state[PHASE] == PHASE_FOLLOW_UP
    keep_clocks = False
    if action < A_TRAVEL:
        arg = frame(action - A_TARDIS, mover)
        apply_tardis_move(state, arg)
        kind = KIND_TARDIS
    else:
        j = action - A_TRAVEL
        state[LAST_TRAVEL_PLY] = state[PLY]
        # a time travel is a TARDIS move: it starts the cool-down too
        state[COOLDOWN_UNTIL] = state[PLY] + COOLDOWN_PLIES
        if j < MAX_TRAVEL:
            arg = j + 1
            restore_backward(state, arg)
            state[BACKWARD_TRAVELS + mover] += 1
            # the timeline rewinds: the modified past replaces the entries after it
            state[HIST_TOP] = (state[HIST_TOP] - arg - 1) % HISTORY
            state[HIST_COUNT] -= arg + 1
            kind = KIND_BACKWARD
            keep_clocks = True  # the clocks of the restored moment
        else:
            arg = j - MAX_TRAVEL + 1
            state[TARDIS_ABSENT] = 1
            state[TARDIS_RETURN_PLY] = state[PLY] + arg
            kind = KIND_FORWARD
    if follow_up:
        state[LAST_FOLLOW_KIND] = kind
        state[LAST_FOLLOW_ARG] = arg
    else:
        state[LAST_KIND] = kind
        state[LAST_FROM] = -1
        state[LAST_TO] = arg
        state[LAST_PIECE] = state[PASSENGER]
        state[LAST_CAPTURED] = EMPTY
        state[LAST_PROMOTION] = EMPTY
        if kind != KIND_BACKWARD:
            state[EP_SQUARE] = -1  # a whole turn without a pawn advance
            state[EP_SQUARE_FAR] = -1
    return _end_turn(state, tables, keep_clocks, mask)


@njit
def _begin_turn_record(state):
    state[LAST_FOLLOW_KIND] = KIND_NONE
    state[LAST_FOLLOW_ARG] = -1
    state[LAST_EVICT_SQ] = -1
    state[LAST_AUTO_PROMOTION] = -1


@njit
def step(state, tables, action):
    _play(state, tables, action, stack_empty(0, np.int8))


@njit
def step_and_mask(state, tables, action, mask):
    """``step``, then ``legal_mask`` into ``mask`` (the batched API's kernel): a step that
    ends the turn has generated the next mover's moves to look for mate and stalemate,
    and writes the mask from them."""
    if not _play(state, tables, action, mask):
        legal_mask(state, tables, mask)


@njit
def chess_move_of(state, mover, action):
    """The move word (``make_move``) of a legal chess action of ``mover``, as
    ``gen_chess_moves`` makes it, read off the action and the board: its promotion (an
    under-promotion plane, or a queen for a pawn reaching its last rank), and its flag (a
    king moving two files castles; a move onto the TARDIS square enters it, kicking out the
    piece inside if there is one; a pawn moving diagonally onto an empty square captures
    en passant, one moving two or three ranks is a double or triple advance). -1 when no
    piece of ``mover`` stands on the from-square."""
    origin, target = action_squares(state, action)
    if origin < 0:
        return -1
    block = blocker_square(state)
    code = state[PASSENGER] if origin == block else state[BOARD + origin]
    if code == EMPTY or code == DOCTOR or (code >> 3) != mover:
        return -1
    kind = code & 7
    plane = action % 73
    promotion = 0
    if plane >= 64:
        promotion = PROMOTION_PIECES[(plane - 64) % 3]
    elif kind == PAWN and (target >> 3) == (7 if mover == WHITE else 0):
        promotion = QUEEN
    flag = FLAG_NORMAL
    if target == block:
        if state[PASSENGER] != EMPTY:
            flag = FLAG_KICK
    elif kind == KING:
        if abs(target - origin) == 2:
            flag = FLAG_CASTLE
    elif kind == PAWN:
        if (target & 7) != (origin & 7):
            if state[BOARD + target] == EMPTY:
                flag = FLAG_EN_PASSANT
        elif abs(target - origin) == 16:
            flag = FLAG_DOUBLE
        elif abs(target - origin) == 24:
            flag = FLAG_TRIPLE
    return make_move(origin, target, promotion, flag)


@njit
def _play(state, tables, action, mask):
    """Play ``action``; returns whether ``mask`` (when not empty) holds the legal mask of
    the position reached (see :func:`_check_result`)."""
    clear_rewards(state)
    mover = state[CURRENT_PLAYER]
    phase = state[PHASE]
    if phase == PHASE_EVICT:
        d = action - A_EVICT
        if mover == BLACK:
            d = _mirror_direction(d)
        e = NEIGHBOUR[blocker_square(state), d]
        placed = queen_if_last_rank(state[EVICTED], e)
        if placed != state[EVICTED]:
            state[LAST_AUTO_PROMOTION] = e
            state[ZEROING] = 1
        state[BOARD + e] = placed
        state[PIECE_ID + e] = state[EVICTED_ID]
        if (state[EVICTED] & 7) == KING:  # never: kings do not enter
            state[KING_SQ + (state[EVICTED] >> 3)] = e
        state[EVICTED] = EMPTY
        state[EVICTED_ID] = 0
        state[LAST_EVICT_SQ] = e
        return _after_chess_move(state, tables, mask)
    if phase == PHASE_FOLLOW_UP:
        if action == A_END_TURN:
            return _end_turn(state, tables, False, mask)
        return _tardis_action(state, tables, action, mask)
    _begin_turn_record(state)
    if action < NUM_CHESS_ACTIONS:
        m = chess_move_of(state, mover, action)
        if m < 0:
            return False  # not reached for legal actions
        frm = move_from(m)
        piece = state[PASSENGER] if frm == blocker_square(state) else state[BOARD + frm]
        captured = apply_chess_move(state, m)
        state[LAST_KIND] = KIND_CHESS
        state[LAST_FROM] = frm
        state[LAST_TO] = move_to(m)
        state[LAST_PIECE] = piece
        state[LAST_CAPTURED] = captured
        state[LAST_PROMOTION] = move_promotion(m)
        if move_flag(m) == FLAG_KICK:
            state[PHASE] = PHASE_EVICT
            return False
        return _after_chess_move(state, tables, mask)
    if action < A_TARDIS:
        d = action - A_DOCTOR
        if mover == BLACK:
            d = _mirror_direction(d)
        origin = state[DOCTOR_SQ]
        captured = apply_doctor_move(state, d)
        state[EP_SQUARE] = -1
        state[EP_SQUARE_FAR] = -1
        state[LAST_KIND] = KIND_DOCTOR
        state[LAST_FROM] = origin if origin >= 0 else state[TARDIS_SQ]
        state[LAST_TO] = state[DOCTOR_SQ] if state[DOCTOR_SQ] >= 0 else state[TARDIS_SQ]
        state[LAST_PIECE] = DOCTOR
        state[LAST_CAPTURED] = captured
        state[LAST_PROMOTION] = EMPTY
        return _end_turn(state, tables, False, mask)
    return _tardis_action(state, tables, action, mask)
