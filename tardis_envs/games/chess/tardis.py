"""The Dr. Who / TARDIS layer of Dr. Who Chess: Dr. Who's steps, TARDIS moves,
cool-downs, and time travel (the history ring it rewinds). The chess moves
themselves, entering and leaving the TARDIS included, are in :mod:`.board`.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit
from ...core.state import CURRENT_PLAYER, copy_state
from .board import (
    attacked_after,
    attacker_bits_of,
    check_answers,
    clear_castling_for,
    in_check,
)
from .layout import (
    BACKWARD_TRAVELS,
    BOARD,
    CASTLE_BK,
    CASTLE_BQ,
    CASTLE_WK,
    CASTLE_WQ,
    CASTLING,
    COOLDOWN_PLIES,
    COOLDOWN_UNTIL,
    DOCTOR,
    DOCTOR_ID,
    DOCTOR_SQ,
    EMPTY,
    EP_SQUARE,
    EP_SQUARE_FAR,
    FULLMOVE,
    HALFMOVE,
    HIST,
    HIST_COUNT,
    HIST_TOP,
    HISTORY,
    KING,
    KING_SQ,
    LAST_AUTO_PROMOTION,
    LAST_TRAVEL_PLY,
    MAX_BACKWARD_TRAVELS,
    NEIGHBOUR,
    PASSENGER,
    PASSENGER_ID,
    PIECE_ID,
    PLY,
    ROOK,
    SNAP_CASTLING,
    SNAP_CODES,
    SNAP_EP,
    SNAP_EP_FAR,
    SNAP_FULLMOVE,
    SNAP_HALFMOVE,
    SNAP_IDS,
    SNAP_OCCUPIED,
    SNAP_PASSENGER,
    SNAP_PASSENGER_ID,
    SNAP_SIZE,
    TARDIS_ABSENT,
    TARDIS_PREV_SQ,
    TARDIS_SQ,
    TRAVEL_BAN_PLIES,
    WHITE,
    ZEROING,
    blocker_square,
    queen_if_last_rank,
)


# ============================================================================
# Dr. Who and the TARDIS
# ============================================================================
@njit
def doctor_ready(state):
    return state[PLY] >= state[COOLDOWN_UNTIL]


@njit
def doctor_target(state, d):
    """Square Dr. Who would step to in absolute direction ``d`` (or -1)."""
    origin = state[DOCTOR_SQ]
    if origin < 0:
        origin = blocker_square(state)
        if origin < 0:
            return -1
    return NEIGHBOUR[origin, d]


@njit
def doctor_step_square(state, d):
    """The square Dr. Who's step in absolute direction ``d`` lands on, or -1 when he may not
    step there whatever the king's safety: not cooled down, off the board, out of the
    TARDIS only onto an empty square, elsewhere onto an empty square, the TARDIS or an
    opponent piece of the mover's other than a king."""
    if not doctor_ready(state):
        return -1
    t = doctor_target(state, d)
    if t < 0:
        return -1
    other = state[BOARD + t]
    if state[DOCTOR_SQ] < 0:
        if other != EMPTY:
            return -1  # leaves only to an empty square
    elif t != blocker_square(state):
        if other != EMPTY and ((other >> 3) == state[CURRENT_PLAYER] or (other & 7) == KING):
            return -1  # captures an opponent piece of the mover only, never a king
    return t


@njit
def doctor_move_legal(state, d):
    t = doctor_step_square(state, d)
    if t < 0:
        return False
    block = blocker_square(state)
    other = state[BOARD + t]
    # make, test, undo
    origin = state[DOCTOR_SQ]
    if origin >= 0:
        state[BOARD + origin] = EMPTY
    if t != block:
        state[BOARD + t] = DOCTOR
    safe = not in_check(state, state[CURRENT_PLAYER])
    if t != block:
        state[BOARD + t] = other
    if origin >= 0:
        state[BOARD + origin] = DOCTOR
    return safe


@njit
def king_safe_without_doctor(state, bits):
    """Is the mover's king safe with Dr. Who off the board (``bits``: the opponent's
    ``attacker_bits``)? Then every step of his is safe: the square he steps on can only
    block a line, and a piece he takes attacks no more."""
    origin = state[DOCTOR_SQ]
    vacated = np.int64(0) if origin < 0 else np.int64(1) << origin
    mover = state[CURRENT_PLAYER]
    return not attacked_after(bits, 1 - mover, state[KING_SQ + mover], vacated, np.int64(0), np.int64(0))


@njit
def doctor_step_legal_given(state, d, bits, safe_without_him):
    """``doctor_move_legal`` from the opponent's ``attacker_bits`` of the position, worked
    out once for all eight steps, and ``king_safe_without_doctor``: the step is tested on
    them (his square left, the one he steps on taken, an opponent piece there gone) instead
    of being made on the board, and not at all when the king is safe without him."""
    t = doctor_step_square(state, d)
    if t < 0:
        return False
    if safe_without_him:
        return True
    mover = state[CURRENT_PLAYER]
    origin = state[DOCTOR_SQ]
    other = state[BOARD + t]
    # entering the TARDIS (t is its square) he blocks nothing the TARDIS does not already
    target = np.int64(1) << t
    vacated = np.int64(0) if origin < 0 else np.int64(1) << origin
    captured = target if other != EMPTY else np.int64(0)
    return not attacked_after(bits, 1 - mover, state[KING_SQ + mover], vacated, target, captured)


@njit
def tardis_landings(state, sets):
    """The TARDIS's flight from the position's ``board_sets``: (the squares a TARDIS move may
    land on, whether a forward travel is legal), as ``tardis_move_legal`` and
    ``forward_travel_legal`` decide them square by square. With the TARDIS lifted off its
    square, ``check_answers`` of the mover's king says where it may land: anywhere empty
    when the king is then safe (a forward travel too), on the line of the one line piece
    that then checks it, nowhere otherwise (a square it lands on blocks one line at most)."""
    mover = state[CURRENT_PLAYER]
    lifted = check_answers(attacker_bits_of(sets, 1 - mover, -1), 1 - mover, state[KING_SQ + mover])
    landings = ~sets[0] & lifted & ~(np.int64(1) << blocker_square(state))
    previous = state[TARDIS_PREV_SQ]
    if previous >= 0:
        landings &= ~(np.int64(1) << previous)
    return landings, lifted == -1


@njit
def apply_doctor_move(state, d):
    t = doctor_target(state, d)
    block = blocker_square(state)
    origin = state[DOCTOR_SQ]
    if origin >= 0:
        state[BOARD + origin] = EMPTY
        state[PIECE_ID + origin] = 0
    captured = EMPTY
    if t == block:
        state[DOCTOR_SQ] = -1
    else:
        captured = state[BOARD + t]
        state[BOARD + t] = DOCTOR
        state[PIECE_ID + t] = DOCTOR_ID
        state[DOCTOR_SQ] = t
    if captured != EMPTY:
        state[ZEROING] = 1
        clear_castling_for(state, t)
    state[COOLDOWN_UNTIL] = state[PLY] + COOLDOWN_PLIES
    return captured


@njit
def tardis_can_fly(state):
    """Dr. Who and a piece of the mover's colour inside, on the board, cooled down."""
    mover = state[CURRENT_PLAYER]
    p = state[PASSENGER]
    return blocker_square(state) >= 0 and state[DOCTOR_SQ] < 0 and p != EMPTY and (p >> 3) == mover and doctor_ready(state)


@njit
def tardis_move_legal(state, sq):
    block = blocker_square(state)
    if sq == block or sq == state[TARDIS_PREV_SQ] or state[BOARD + sq] != EMPTY:
        return False
    state[TARDIS_SQ] = sq
    safe = not in_check(state, state[CURRENT_PLAYER])
    state[TARDIS_SQ] = block
    return safe


@njit
def apply_tardis_move(state, sq):
    """Fly the TARDIS to ``sq``; a pawn inside carried onto its last rank
    becomes a queen (recorded in ``LAST_AUTO_PROMOTION``)."""
    state[TARDIS_PREV_SQ] = state[TARDIS_SQ]
    state[TARDIS_SQ] = sq
    state[COOLDOWN_UNTIL] = state[PLY] + COOLDOWN_PLIES
    promoted = queen_if_last_rank(state[PASSENGER], sq)
    if promoted != state[PASSENGER]:
        state[PASSENGER] = promoted
        state[LAST_AUTO_PROMOTION] = sq
        state[ZEROING] = 1  # a promotion cannot be undone: repetition restarts


@njit
def travel_allowed(state):
    return tardis_can_fly(state) and state[PLY] - state[LAST_TRAVEL_PLY] > TRAVEL_BAN_PLIES


@njit
def forward_travel_legal(state):
    state[TARDIS_ABSENT] = 1
    safe = not in_check(state, state[CURRENT_PLAYER])
    state[TARDIS_ABSENT] = 0
    return safe


@njit
def history_slot(state, back):
    """Offset of the history entry ``back`` plies before the newest."""
    index = (state[HIST_TOP] - back) % HISTORY
    return HIST + index * SNAP_SIZE


@njit
def snapshot_code(state, at, sq):
    """Piece code on square ``sq`` in the history entry at offset ``at``."""
    return (state[at + SNAP_CODES + (sq >> 4)] >> (4 * (sq & 15))) & 15


@njit
def snapshot_id(state, at, sq):
    """Piece id on square ``sq`` in the history entry at offset ``at``."""
    return (state[at + SNAP_IDS + (sq >> 3)] >> (8 * (sq & 7))) & 255


@njit
def write_snapshot_squares(state, at, codes, ids):
    """Pack 64 squares' piece ``codes`` and ``ids`` (any indexable of 64) into the
    history entry at offset ``at``."""
    # no branch in these loops: the compiler turns them into vector instructions
    occupied = np.int64(0)
    for sq in range(64):
        occupied |= np.int64(codes[sq] != EMPTY) << sq
    for word in range(4):
        packed = np.int64(0)
        for j in range(16):
            packed |= np.int64(codes[16 * word + j]) << np.int64(4 * j)
        state[at + SNAP_CODES + word] = packed
    for word in range(8):
        packed = np.int64(0)
        for j in range(8):
            packed |= np.int64(ids[8 * word + j]) << np.int64(8 * j)
        state[at + SNAP_IDS + word] = packed
    state[at + SNAP_OCCUPIED] = occupied


@njit
def push_history(state):
    top = (state[HIST_TOP] + 1) % HISTORY
    state[HIST_TOP] = top
    if state[HIST_COUNT] < HISTORY:
        state[HIST_COUNT] += 1
    at = HIST + top * SNAP_SIZE
    write_snapshot_squares(state, at, state[BOARD : BOARD + 64], state[PIECE_ID : PIECE_ID + 64])
    state[at + SNAP_CASTLING] = state[CASTLING]
    state[at + SNAP_EP] = state[EP_SQUARE]
    state[at + SNAP_EP_FAR] = state[EP_SQUARE_FAR]
    state[at + SNAP_HALFMOVE] = state[HALFMOVE]
    state[at + SNAP_FULLMOVE] = state[FULLMOVE]
    state[at + SNAP_PASSENGER] = state[PASSENGER]
    state[at + SNAP_PASSENGER_ID] = state[PASSENGER_ID]


@njit
def restore_backward(state, k):
    """Rewrite ``state`` as the position ``k`` plies ago with the TARDIS, Dr. Who
    and the traveller where they are now. Returns False (state untouched
    except scratch) when the travel is impossible: the TARDIS square taken in
    the restored position, or another piece inside the TARDIS back then."""
    return restore_from_history(state, state, k)


@njit
def restore_from_history(state, history, k):
    """:func:`restore_backward` of ``state`` to ``history``'s position ``k`` plies ago:
    ``history`` is ``state`` itself, or the full state of which ``state`` holds a copy
    of the first ``CORE_SIZE`` words (what a legality test rewinds, without copying the
    history ring)."""
    if k >= history[HIST_COUNT]:
        return False
    at = history_slot(history, k)
    traveller = state[PASSENGER_ID]
    then_passenger = history[at + SNAP_PASSENGER_ID]
    if then_passenger != 0 and then_passenger != traveller:
        return False
    block = blocker_square(state)
    for sq in range(64):
        code = snapshot_code(history, at, sq)
        ident = snapshot_id(history, at, sq)
        if ident == traveller or code == DOCTOR:
            code = EMPTY
            ident = 0
        if sq == block and code != EMPTY:
            return False
        state[BOARD + sq] = code
        state[PIECE_ID + sq] = ident
    for sq in range(64):
        code = state[BOARD + sq]
        if (code & 7) == KING:
            state[KING_SQ + (code >> 3)] = sq
    state[DOCTOR_SQ] = -1
    castling = history[at + SNAP_CASTLING]
    # a right needs its king and rook at home (the traveller may have been that rook)
    if state[BOARD + 4] != KING or state[BOARD + 7] != ROOK:
        castling &= ~CASTLE_WK
    if state[BOARD + 4] != KING or state[BOARD + 0] != ROOK:
        castling &= ~CASTLE_WQ
    if state[BOARD + 60] != (KING | 8) or state[BOARD + 63] != (ROOK | 8):
        castling &= ~CASTLE_BK
    if state[BOARD + 60] != (KING | 8) or state[BOARD + 56] != (ROOK | 8):
        castling &= ~CASTLE_BQ
    state[CASTLING] = castling
    ep = history[at + SNAP_EP]
    ep_far = history[at + SNAP_EP_FAR]
    # the side to move after the travel is the traveller's opponent: keep the
    # en-passant targets only if they are that side's capture (White captures
    # on the upper half of the board)
    opponent = 1 - state[CURRENT_PLAYER]
    if ep >= 0 and ((ep >> 3) >= 4) != (opponent == WHITE):
        ep = -1
        ep_far = -1
    state[EP_SQUARE] = ep
    state[EP_SQUARE_FAR] = ep_far
    state[HALFMOVE] = history[at + SNAP_HALFMOVE]
    state[FULLMOVE] = history[at + SNAP_FULLMOVE]
    return True


@njit
def backward_travel_legal(state, k, scratch):
    """Whether the mover may travel ``k`` plies back: rewinds a copy of the position
    (``scratch``, ``CORE_SIZE`` words: the history ring is read from ``state``, never
    copied) and asks whether the mover's king would stand in check."""
    mover = state[CURRENT_PLAYER]
    if state[BACKWARD_TRAVELS + mover] >= MAX_BACKWARD_TRAVELS or k >= state[HIST_COUNT]:
        return False
    copy_state(scratch, state)  # its first CORE_SIZE words, the length of scratch
    if not restore_from_history(scratch, state, k):
        return False
    return not in_check(scratch, mover)
