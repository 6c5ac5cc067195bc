"""The FIDE core of Dr. Who Chess: attacks, pseudo-legal move generation, legality
(pins, checks, en passant, castling), making a move, the position key for
repetition, insufficient material and perft.

This is plain chess with two hooks for the variant, both read from the state:
the TARDIS square (``blocker_square``: it blocks lines like a piece and is a
move's destination when a piece enters) and the piece inside it (``PASSENGER``:
it moves *from* the TARDIS square and attacks nothing). In classic mode
(``doctor=False``) there is no TARDIS, both hooks are idle and this module is
FIDE chess exactly (perft-checked in ``tests/chess/test_perft.py``). Dr. Who's
steps, TARDIS moves and time travel live in :mod:`.tardis`; turns in
:mod:`.rules`.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from ...core.jit import njit, njit_alloc, njit_inline, stack_empty
from ...core.sampling import popcount
from ...core.state import CURRENT_PLAYER, copy_state
from .layout import (
    BISHOP,
    BLACK,
    BOARD,
    CASTLE_BK,
    CASTLE_BQ,
    CASTLE_WK,
    CASTLE_WQ,
    CASTLING,
    CORE_SIZE,
    DOCTOR,
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
    KICK_OUT_PLIES,
    KING,
    KING_BITS,
    KING_SQ,
    KNIGHT,
    KNIGHT_BITS,
    KNIGHT_TARGET,
    MAX_MOVES,
    MOVE_ACTION,
    NEIGHBOUR,
    PASSENGER,
    PASSENGER_ENTRY_PLY,
    PASSENGER_ID,
    PAWN,
    PAWN_ATTACKER_BITS,
    PIECE_ID,
    PLY,
    QUEEN,
    RAY_ASCENDS,
    RAY_BITS,
    REP_COUNT,
    REP_RING,
    REP_RING_SIZE,
    ROOK,
    TARDIS_ABSENT,
    TARDIS_SQ,
    WHITE,
    Z_CASTLING,
    Z_DOCTOR_INSIDE,
    Z_EP,
    Z_EP_FAR,
    Z_PASSENGER,
    Z_SIDE,
    Z_TARDIS,
    ZEROING,
    ZOBRIST,
    blocker_square,
    frame,
    make_move,
    move_flag,
    move_from,
    move_promotion,
    move_to,
    queen_if_last_rank,
)


# ============================================================================
# Attacks
# ============================================================================
@njit
def square_attacked(state, sq, by):
    """Is ``sq`` attacked by a chess piece of colour ``by``? Dr. Who and the
    passenger inside the TARDIS attack nothing; the TARDIS and Dr. Who block."""
    block = blocker_square(state)
    f = sq & 7
    # pawns: a pawn of ``by`` attacks diagonally forward
    pawn = PAWN | (by << 3)
    if by == WHITE:
        if f > 0 and sq >= 9 and state[BOARD + sq - 9] == pawn:
            return True
        if f < 7 and sq >= 7 and state[BOARD + sq - 7] == pawn:
            return True
    else:
        if f > 0 and sq + 7 < 64 and state[BOARD + sq + 7] == pawn:
            return True
        if f < 7 and sq + 9 < 64 and state[BOARD + sq + 9] == pawn:
            return True
    knight = KNIGHT | (by << 3)
    king = KING | (by << 3)
    for k in range(8):
        t = KNIGHT_TARGET[sq, k]
        if t >= 0 and state[BOARD + t] == knight:
            return True
        t = NEIGHBOUR[sq, k]
        if t >= 0 and state[BOARD + t] == king:
            return True
    rook = ROOK | (by << 3)
    bishop = BISHOP | (by << 3)
    queen = QUEEN | (by << 3)
    for d in range(8):
        diagonal = d & 1
        t = NEIGHBOUR[sq, d]
        while t >= 0:
            if t == block:
                break
            code = state[BOARD + t]
            if code != EMPTY:
                if code == queen or (diagonal == 1 and code == bishop) or (diagonal == 0 and code == rook):
                    return True
                break
            t = NEIGHBOUR[t, d]
    return False


# exchange values of the piece kinds (index: kind 1..6), used by ``attackers``;
# the king counts as the most valuable attacker (it may only take undefended pieces)
ATTACKER_VALUE = np.array([0, 1, 3, 3, 5, 9, 10], dtype=np.int64)


@njit
def attackers(state, sq, by):
    """(number of chess pieces of colour ``by`` attacking ``sq``, exchange value of the
    least valuable of them or 0). Same geometry as ``square_attacked`` (the TARDIS
    and Dr. Who block; the passenger and Dr. Who attack nothing); a piece behind
    another on the same line (an x-ray) is not counted. ``square_attacked`` stays the
    separate early-exit form: legality asks it millions of times a second."""
    block = blocker_square(state)
    f = sq & 7
    count = 0
    least = 0
    pawn = PAWN | (by << 3)
    for side in range(2):
        if (side == 0 and f == 0) or (side == 1 and f == 7):
            continue
        t = (sq - 9 + 2 * side) if by == WHITE else (sq + 7 + 2 * side)
        if 0 <= t < 64 and state[BOARD + t] == pawn:
            count += 1
            least = 1
    knight = KNIGHT | (by << 3)
    king = KING | (by << 3)
    for k in range(8):
        t = KNIGHT_TARGET[sq, k]
        if t >= 0 and state[BOARD + t] == knight:
            count += 1
            if least == 0 or least > 3:
                least = 3
    rook = ROOK | (by << 3)
    bishop = BISHOP | (by << 3)
    queen = QUEEN | (by << 3)
    for d in range(8):
        diagonal = d & 1
        t = NEIGHBOUR[sq, d]
        if t >= 0 and state[BOARD + t] == king:
            count += 1
            if least == 0:
                least = ATTACKER_VALUE[KING]
        while t >= 0:
            if t == block:
                break
            code = state[BOARD + t]
            if code != EMPTY:
                if code == queen or (diagonal == 1 and code == bishop) or (diagonal == 0 and code == rook):
                    count += 1
                    value = ATTACKER_VALUE[code & 7]
                    if least == 0 or value < least:
                        least = value
                break
            t = NEIGHBOUR[t, d]
    return count, least


@njit
def board_sets(state):
    """The board as sets of squares (bitboards, bit = square): ``(pieces, white, black,
    pawns, knights, bishops, rooks, queens, kings, doctor)``, ``pieces`` every occupied
    square, Dr. Who's included (he has no colour). Worked out from the four bits of the
    squares' codes (colour << 3 | type) in one pass over the board with no branch, which
    the compiler turns into vector instructions: every legality test of a position
    reads these sets instead of the board."""
    type_1 = np.int64(0)
    type_2 = np.int64(0)
    type_4 = np.int64(0)
    black = np.int64(0)
    for sq in range(64):
        code = state[BOARD + sq]
        type_1 |= (code & 1) << sq
        type_2 |= ((code >> 1) & 1) << sq
        type_4 |= ((code >> 2) & 1) << sq
        black |= (code >> 3) << sq
    pieces = type_1 | type_2 | type_4
    doctor = type_1 & type_2 & type_4
    pawns = type_1 & ~type_2 & ~type_4
    knights = ~type_1 & type_2 & ~type_4
    bishops = type_1 & type_2 & ~type_4
    rooks = ~type_1 & ~type_2 & type_4
    queens = type_1 & ~type_2 & type_4
    kings = ~type_1 & type_2 & type_4
    white = pieces & ~black & ~doctor
    return pieces, white, black, pawns, knights, bishops, rooks, queens, kings, doctor


@njit
def attacker_bits_of(sets, by, block):
    """:func:`attacker_bits` from the position's :func:`board_sets` and TARDIS square."""
    pieces, white, black, pawns, knights, bishops, rooks, queens, kings, doctor = sets
    colour = black if by == BLACK else white
    block_bit = np.int64(0) if block < 0 else np.int64(1) << block
    lines = colour & ~block_bit
    return (
        pieces | block_bit,
        pawns & colour,
        knights & colour,
        kings & colour,
        (rooks | queens) & lines,
        (bishops | queens) & lines,
    )


@njit
def attacker_bits(state, by):
    """What ``square_attacked`` reads, as bitboards (bit = square), for many tests in one
    position: (every blocking square: pieces, Dr. Who and the TARDIS; ``by``'s pawns,
    knights and king; its rooks and queens; its bishops and queens). A piece on the
    TARDIS square attacks along no line (the TARDIS stops lines there), as in
    ``square_attacked``."""
    return attacker_bits_of(board_sets(state), by, blocker_square(state))


@njit
def nearest_on_ray(occupied, sq, d):
    """The first square of bitboard ``occupied`` from ``sq`` in direction ``d``, -1 if none."""
    hits = RAY_BITS[sq, d] & occupied
    if hits == 0:
        return -1
    return trailing_zeros(hits) if RAY_ASCENDS[d] else 63 - leading_zeros(hits)


@njit
def king_attacked(bits, by, frm, to):
    """``square_attacked(to, by)`` once the king of the side not ``by`` has stepped from
    ``frm`` to ``to`` (capturing whatever stood there; ``frm == to``: the king stays), from
    ``attacker_bits(state, by)`` of the position before the step: no need to make the move
    on the board."""
    to_bit = np.int64(1) << to
    # what stood on ``to`` attacks nothing there: no need to take it off the attackers
    return attacked_after(bits, by, to, np.int64(1) << frm, to_bit, np.int64(0))


@njit
def attacked_after(bits, by, sq, vacated, filled, captured):
    """``square_attacked(sq, by)`` once the squares ``vacated`` are empty, ``filled`` taken
    and ``by``'s pieces on ``captured`` gone (sets of squares), from ``attacker_bits(state,
    by)`` of the position before: a move tested without making it on the board."""
    occupied, pawns, knights, king, rook_lines, bishop_lines = bits
    kept = ~captured
    if (PAWN_ATTACKER_BITS[by, sq] & pawns & kept) | (KNIGHT_BITS[sq] & knights & kept) | (KING_BITS[sq] & king):
        return True
    occupied = (occupied & ~vacated) | filled
    for d in range(8):
        nearest = nearest_on_ray(occupied, sq, d)
        if nearest >= 0 and ((rook_lines if d % 2 == 0 else bishop_lines) & kept) >> nearest & 1:
            return True
    return False


@njit
def check_answers(bits, by, king_sq):
    """Squares on which a move of another piece than the king answers a check by ``by`` to
    the king on ``king_sq`` (from ``attacker_bits(state, by)``): the checking piece's
    square and, for a line piece, the squares between it and the king; 0 in double
    check (only the king may move); -1 (every square) when the king is not attacked."""
    occupied, pawns, knights, king, rook_lines, bishop_lines = bits
    answers = (PAWN_ATTACKER_BITS[by, king_sq] & pawns) | (KNIGHT_BITS[king_sq] & knights) | (KING_BITS[king_sq] & king)
    checkers = 0 if answers == 0 else (1 if answers & (answers - 1) == 0 else 2)
    for d in range(8):
        nearest = nearest_on_ray(occupied, king_sq, d)
        if nearest >= 0 and ((rook_lines if d % 2 == 0 else bishop_lines) >> nearest) & 1:
            checkers += 1
            # the squares from the king to the checking piece, that one included
            answers |= RAY_BITS[king_sq, d] & ~RAY_BITS[nearest, d]
    if checkers == 0:
        return np.int64(-1)
    return answers if checkers == 1 else np.int64(0)


@njit
def in_check(state, colour):
    return square_attacked(state, state[KING_SQ + colour], 1 - colour)


# ============================================================================
# Chess move generation (pseudo-legal) and legality
# ============================================================================
@njit
def passenger_evictable(state, mover):
    """Can ``mover`` kick out the piece inside (an opponent piece that has been
    in the TARDIS for more than two of its owner's turns)?"""
    p = state[PASSENGER]
    return p != EMPTY and (p >> 3) != mover and state[PLY] - state[PASSENGER_ENTRY_PLY] >= KICK_OUT_PLIES


@njit
def _target_kind(state, mover, t, code, block):
    """0: blocked, 1: empty square, 2: capture, 3: enter the TARDIS, 4: kick out."""
    if t == block:
        if (code & 7) == KING:
            return 0
        if state[PASSENGER] == EMPTY:
            return 3
        if passenger_evictable(state, mover):
            return 4
        return 0
    other = state[BOARD + t]
    if other == EMPTY:
        return 1
    if other == DOCTOR or (other >> 3) == mover or (other & 7) == KING:
        # a king is never captured: in chess it never stands attacked on the
        # opponent's move, but the piece inside the TARDIS attacks nothing, so a
        # king may stand where that piece could step out onto it
        return 0
    return 2


@njit
def _push_target(moves, n, frm, t, kind):
    moves[n] = make_move(frm, t, 0, FLAG_KICK if kind == 4 else FLAG_NORMAL)
    return n + 1


@njit
def gen_piece_moves(state, mover, frm, code, moves, n, block):
    ptype = code & 7
    if ptype == PAWN:
        up = 8 if mover == WHITE else -8
        first_rank = 0 if mover == WHITE else 7
        start_rank = 1 if mover == WHITE else 6
        last_rank = 7 if mover == WHITE else 0
        t = frm + up
        if 0 <= t < 64:
            kind = _target_kind(state, mover, t, code, block)
            if kind == 1 or kind == 3 or kind == 4:
                flag = FLAG_KICK if kind == 4 else FLAG_NORMAL
                if (t >> 3) == last_rank:
                    for promo in range(QUEEN, KNIGHT - 1, -1):
                        moves[n] = make_move(frm, t, promo, flag)
                        n += 1
                else:
                    moves[n] = make_move(frm, t, 0, flag)
                    n += 1
                # two squares from the second rank (FIDE); two or three from the
                # own first rank, where only the TARDIS puts a pawn (variant)
                rank = frm >> 3
                reach = 2 if rank == start_rank else (3 if rank == first_rank else 1)
                steps = 2
                while kind == 1 and steps <= reach:
                    t += up
                    kind = _target_kind(state, mover, t, code, block)
                    if kind == 1:
                        moves[n] = make_move(frm, t, 0, FLAG_DOUBLE if steps == 2 else FLAG_TRIPLE)
                        n += 1
                    elif kind == 3 or kind == 4:
                        moves[n] = make_move(frm, t, 0, FLAG_KICK if kind == 4 else FLAG_NORMAL)
                        n += 1
                    steps += 1
            f = frm & 7
            for df in (-1, 1):
                if 0 <= f + df < 8:
                    t = frm + up + df
                    if t == block:
                        continue  # a pawn enters the TARDIS only by a straight move
                    other = state[BOARD + t]
                    if other != EMPTY and other != DOCTOR and (other >> 3) != mover and (other & 7) != KING:
                        if (t >> 3) == last_rank:
                            for promo in range(QUEEN, KNIGHT - 1, -1):
                                moves[n] = make_move(frm, t, promo, FLAG_NORMAL)
                                n += 1
                        else:
                            moves[n] = make_move(frm, t, 0, FLAG_NORMAL)
                            n += 1
                    elif other == EMPTY and (t == state[EP_SQUARE] or t == state[EP_SQUARE_FAR]):
                        moves[n] = make_move(frm, t, 0, FLAG_EN_PASSANT)
                        n += 1
    elif ptype == KNIGHT:
        for k in range(8):
            t = KNIGHT_TARGET[frm, k]
            if t >= 0:
                kind = _target_kind(state, mover, t, code, block)
                if kind != 0:
                    n = _push_target(moves, n, frm, t, kind)
    elif ptype == KING:
        for k in range(8):
            t = NEIGHBOUR[frm, k]
            if t >= 0:
                kind = _target_kind(state, mover, t, code, block)
                if kind != 0:
                    n = _push_target(moves, n, frm, t, kind)
    else:
        for d in range(8):
            diagonal = d & 1
            if (ptype == BISHOP and diagonal == 0) or (ptype == ROOK and diagonal == 1):
                continue
            t = NEIGHBOUR[frm, d]
            while t >= 0:
                kind = _target_kind(state, mover, t, code, block)
                if kind != 0:
                    n = _push_target(moves, n, frm, t, kind)
                if kind != 1:
                    break
                t = NEIGHBOUR[t, d]
    return n


@njit
def gen_castling(state, mover, moves, n, block):
    rights = state[CASTLING] >> (2 * mover)
    if rights & 3 == 0:
        return n
    base = 56 * mover
    king_sq = base + 4
    if state[KING_SQ + mover] != king_sq:
        return n
    opponent = 1 - mover
    rook = ROOK | (mover << 3)
    if rights & 1:
        if (
            state[BOARD + base + 5] == EMPTY
            and state[BOARD + base + 6] == EMPTY
            and block != base + 5
            and block != base + 6
            and state[BOARD + base + 7] == rook
            and not square_attacked(state, king_sq, opponent)
            and not square_attacked(state, base + 5, opponent)
            and not square_attacked(state, base + 6, opponent)
        ):
            moves[n] = make_move(king_sq, base + 6, 0, FLAG_CASTLE)
            n += 1
    if rights & 2:
        if (
            state[BOARD + base + 3] == EMPTY
            and state[BOARD + base + 2] == EMPTY
            and state[BOARD + base + 1] == EMPTY
            and block != base + 3
            and block != base + 2
            and block != base + 1
            and state[BOARD + base] == rook
            and not square_attacked(state, king_sq, opponent)
            and not square_attacked(state, base + 3, opponent)
            and not square_attacked(state, base + 2, opponent)
        ):
            moves[n] = make_move(king_sq, base + 2, 0, FLAG_CASTLE)
            n += 1
    return n


@njit
def gen_chess_moves(state, moves):
    """Pseudo-legal chess moves of the side to move (castling fully checked)."""
    mover = state[CURRENT_PLAYER]
    block = blocker_square(state)
    n = 0
    for sq in range(64):
        code = state[BOARD + sq]
        if code != EMPTY and code != DOCTOR and (code >> 3) == mover:
            n = gen_piece_moves(state, mover, sq, code, moves, n, block)
    p = state[PASSENGER]
    if block >= 0 and p != EMPTY and (p >> 3) == mover:
        n = gen_piece_moves(state, mover, block, p, moves, n, block)
    n = gen_castling(state, mover, moves, n, block)
    return n


@njit
def _king_safe_after(state, mover, frm, to, flag, evict_sq, evicted):
    """Make the board part of a chess move in place, test the mover's king, undo.
    ``frm < 0`` skips the move (the eviction phase: it was already played);
    ``evict_sq >= 0`` places ``evicted`` there (a kick-out)."""
    block = blocker_square(state)
    moving = frm >= 0
    from_inside = moving and frm == block
    code = EMPTY
    saved_to = EMPTY
    if moving:
        code = state[PASSENGER] if from_inside else state[BOARD + frm]
        saved_to = state[BOARD + to]
        if not from_inside:
            state[BOARD + frm] = EMPTY
        if to != block:
            state[BOARD + to] = code
    cap_sq = -1
    saved_cap = EMPTY
    if flag == FLAG_EN_PASSANT:
        cap_sq = en_passant_victim(state, mover)
        saved_cap = state[BOARD + cap_sq]
        state[BOARD + cap_sq] = EMPTY
    if evict_sq >= 0:
        state[BOARD + evict_sq] = evicted
    king_sq = to if moving and (code & 7) == KING else state[KING_SQ + mover]
    safe = not square_attacked(state, king_sq, 1 - mover)
    # undo in reverse order (the eviction square may be the square just left)
    if evict_sq >= 0:
        state[BOARD + evict_sq] = EMPTY
    if cap_sq >= 0:
        state[BOARD + cap_sq] = saved_cap
    if moving:
        state[BOARD + to] = saved_to
        if not from_inside:
            state[BOARD + frm] = code
    return safe


@njit
def eviction_square_ok(state, mover, frm, to, flag, evict_sq, evicted):
    """May the evicted piece go to ``evict_sq``: on the board, empty once the
    move is made, the mover's king safe (a pawn put on its last rank counts as
    the queen it becomes)?
    ``frm``/``to``/``flag`` describe the kick-out move (``frm < 0``: played)."""
    if evict_sq < 0:
        return False
    if state[BOARD + evict_sq] != EMPTY and not (evict_sq == frm and frm != blocker_square(state)):
        return False
    return _king_safe_after(state, mover, frm, to, flag, evict_sq, queen_if_last_rank(evicted, evict_sq))


@njit
def chess_move_legal(state, move):
    """Does the chess move leave the mover's king safe (for a kick-out: with
    at least one square for the evicted piece)?"""
    mover = state[CURRENT_PLAYER]
    frm = move_from(move)
    to = move_to(move)
    flag = move_flag(move)
    if flag == FLAG_KICK:
        for d in range(8):
            if eviction_square_ok(state, mover, frm, to, flag, NEIGHBOUR[to, d], state[PASSENGER]):
                return True
        return False
    return _king_safe_after(state, mover, frm, to, flag, -1, EMPTY)


@njit
def pinned_pieces(state, mover):
    """Bit set (bit = square) of the mover's pieces pinned to their king: the
    only piece on a line between the king and an opponent rook, bishop or
    queen. The TARDIS and Dr. Who block lines as in ``square_attacked``, so a
    line through them pins nothing."""
    sets = board_sets(state)
    bits = attacker_bits_of(sets, 1 - mover, blocker_square(state))
    return pinned_of(bits, sets[2] if mover == BLACK else sets[1], state[KING_SQ + mover])


@njit
def pinned_of(bits, own, king_sq):
    """:func:`pinned_pieces` from the opponent's ``attacker_bits`` and the mover's pieces
    ``own``: on each line from the king, the first square taken is one of ``own`` and the
    next a line piece of the opponent moving along that line (the TARDIS square and Dr.
    Who are neither)."""
    occupied, pawns, knights, king, rook_lines, bishop_lines = bits
    pinned = np.int64(0)
    for d in range(8):
        first = nearest_on_ray(occupied, king_sq, d)
        if first < 0 or (own >> first) & 1 == 0:
            continue
        second = nearest_on_ray(occupied, first, d)
        if second >= 0 and ((rook_lines if d % 2 == 0 else bishop_lines) >> second) & 1:
            pinned |= np.int64(1) << first
    return pinned


@njit
def legality_context(state):
    """(king square, in check, pinned pieces, ``attacker_bits`` of the opponent,
    ``check_answers``) of the side to move, the facts ``chess_move_legal_given`` needs,
    worked out once per position."""
    return legality_context_of(state, board_sets(state))


@njit
def legality_context_of(state, sets):
    """:func:`legality_context` from the position's :func:`board_sets`."""
    mover = state[CURRENT_PLAYER]
    king_sq = state[KING_SQ + mover]
    bits = attacker_bits_of(sets, 1 - mover, blocker_square(state))
    answers = check_answers(bits, 1 - mover, king_sq)
    pinned = pinned_of(bits, sets[2] if mover == BLACK else sets[1], king_sq)
    return king_sq, answers != -1, pinned, bits, answers


@njit_inline
def chess_move_legal_given(state, move, context):
    """``chess_move_legal`` with the ``context`` of the position worked out once
    (``legality_context``). A king's step (not castling) is tested on the opponent's
    attack bitboards. Another piece's move that is not pinned, not en passant and not a
    kick-out cannot expose the king (it opens no line to it; a piece stepping out of the
    TARDIS leaves the TARDIS blocking behind it), so it is legal out of check, and in
    check when it lands on one of the ``check_answers`` squares (captures the checking
    piece or blocks its line). Everything else is made and tested."""
    king_sq, checked, pinned, bits, answers = context
    frm = move_from(move)
    flag = move_flag(move)
    if frm == king_sq:
        if flag == FLAG_NORMAL:
            return not king_attacked(bits, 1 - state[CURRENT_PLAYER], frm, move_to(move))
        return chess_move_legal(state, move)
    if flag == FLAG_EN_PASSANT or flag == FLAG_KICK:
        return chess_move_legal(state, move)
    if (pinned >> frm) & 1 and frm != blocker_square(state):
        return chess_move_legal(state, move)
    return (answers >> move_to(move)) & 1 == 1


@njit
def encode_move(frm, to, promotion, colour):
    """The AlphaZero action index of a chess move played by ``colour`` (-1 for a pair of
    squares no piece moves between)."""
    f = frame(frm, colour)
    t = frame(to, colour)
    if promotion == KNIGHT or promotion == BISHOP or promotion == ROOK:
        p = 0 if promotion == KNIGHT else (1 if promotion == BISHOP else 2)
        return f * 73 + 64 + 3 * ((t & 7) - (f & 7) + 1) + p
    return MOVE_ACTION[f, t]


@njit
def slider_attacks(sq, occupied, kind):
    """Squares a ``kind`` (bishop, rook or queen) on ``sq`` reaches over the blocking
    squares ``occupied``: each line up to and including its first blocking square."""
    first = 1 if kind == BISHOP else 0
    step = 1 if kind == QUEEN else 2
    reached = np.int64(0)
    for d in range(first, 8, step):
        ray = RAY_BITS[sq, d]
        nearest = nearest_on_ray(occupied, sq, d)
        if nearest >= 0:
            ray &= ~RAY_BITS[nearest, d]
        reached |= ray
    return reached


@njit
def _mark_targets(mask, write, frm, targets, mover):
    """Mark the actions of the moves from ``frm`` to each of ``targets`` (no promotion);
    returns how many."""
    if write:
        f = frame(frm, mover)
        flip = 56 * mover
        rest = targets
        while rest != 0:
            mask[MOVE_ACTION[f, trailing_zeros(rest) ^ flip]] = 1
            rest &= rest - 1
    return np.int64(popcount(np.uint64(targets)))


@njit
def _mark_pawn_move(mask, write, frm, to, mover, last_rank):
    """Mark a pawn's move to ``to`` (its four promotions on ``last_rank``); returns how many."""
    if (to >> 3) != last_rank:
        if write:
            mask[MOVE_ACTION[frame(frm, mover), frame(to, mover)]] = 1
        return 1
    if write:
        for promotion in range(KNIGHT, QUEEN + 1):
            mask[encode_move(frm, to, promotion, mover)] = 1
    return 4


@njit
def _mark_if_legal(state, mask, write, move, mover, context):
    """Mark ``move``'s action when ``chess_move_legal_given``; returns 1 or 0."""
    if not chess_move_legal_given(state, move, context):
        return 0
    if write:
        mask[encode_move(move_from(move), move_to(move), move_promotion(move), mover)] = 1
    return 1


@njit
def _mark_piece_moves(state, mask, write, stop_at_first, frm, code, mover, block, context):
    """The moves of one piece by the mailbox generator (``gen_piece_moves``), each tested with
    ``chess_move_legal_given``: for the rare pieces the sets do not cover (a pinned piece,
    the piece inside the TARDIS); returns how many are legal."""
    moves = stack_empty(32, np.int64)  # a queen reaches 27 squares; a pawn makes 12 moves at most
    n = gen_piece_moves(state, mover, frm, code, moves, 0, block)
    count = 0
    for i in range(n):
        count += _mark_if_legal(state, mask, write, moves[i], mover, context)
        if stop_at_first and count > 0:
            return count
    return count


@njit
def legal_chess_actions(state, sets, mask, write, stop_at_first):
    """The legal chess moves of the side to move (``sets``: the position's ``board_sets``) (the moves of ``gen_chess_moves`` that
    ``chess_move_legal_given`` keeps), counted and, with ``write``, marked in ``mask`` as
    their actions; with ``stop_at_first`` it returns as soon as one is found.

    Worked out on sets of squares (:func:`board_sets`): a knight's or line piece's
    legal destinations are its reach (empty squares, opponent pieces other than the king,
    the TARDIS when it can be entered) that answers a check (``check_answers``: every
    square when there is none), a pawn's likewise square by square, a king's steps those
    ``king_attacked`` leaves safe. What the sets do not decide goes through the same tests
    as the mailbox generator: a kick-out (an eviction square must be found), en passant,
    castling, a pinned piece's moves and the moves of the piece inside the TARDIS.
    ``tests/chess/test_attacks.py`` compares the two on positions of random games."""
    mover = state[CURRENT_PLAYER]
    them = 1 - mover
    block = blocker_square(state)
    pieces, white, black, pawns, knights, bishops, rooks, queens, kings, doctor = sets
    context = legality_context_of(state, sets)
    king_sq, checked, pinned, bits, answers = context
    occupied = bits[0]
    own = black if mover == BLACK else white
    empty = ~occupied
    capturable = (white if mover == BLACK else black) & ~kings
    # the TARDIS square as a destination of any piece but the king: entered when nobody
    # is inside, a kick-out when the piece inside may be evicted
    enter = np.int64(0)
    kick = np.int64(0)
    if block >= 0:
        if state[PASSENGER] == EMPTY:
            enter = np.int64(1) << block
        elif passenger_evictable(state, mover):
            kick = np.int64(1) << block
    reach = (empty | capturable | enter) & answers
    count = 0
    # knights and line pieces that are not pinned
    rest = own & ~pinned & ~pawns & ~kings
    while rest != 0:
        frm = trailing_zeros(rest)
        rest &= rest - 1
        kind = state[BOARD + frm] & 7
        reached = KNIGHT_BITS[frm] if kind == KNIGHT else slider_attacks(frm, occupied, kind)
        count += _mark_targets(mask, write, frm, reached & reach, mover)
        if reached & kick:
            count += _mark_if_legal(state, mask, write, make_move(frm, block, 0, FLAG_KICK), mover, context)
        if stop_at_first and count > 0:
            return count
    # pawns that are not pinned
    up = 8 if mover == WHITE else -8
    first_rank = 0 if mover == WHITE else 7
    start_rank = 1 if mover == WHITE else 6
    last_rank = 7 if mover == WHITE else 0
    ep = state[EP_SQUARE]
    ep_far = state[EP_SQUARE_FAR]
    rest = own & pawns & ~pinned
    while rest != 0:
        frm = trailing_zeros(rest)
        rest &= rest - 1
        t = frm + up
        bit = np.int64(1) << t
        if bit & empty:
            if (answers >> t) & 1:
                count += _mark_pawn_move(mask, write, frm, t, mover, last_rank)
            # two squares from the second rank (FIDE); two or three from the own first
            # rank, where only the TARDIS puts a pawn (variant)
            rank = frm >> 3
            advance = 2 if rank == start_rank else (3 if rank == first_rank else 1)
            for _ in range(2, advance + 1):
                t += up
                bit = np.int64(1) << t
                if bit & (empty | enter):
                    if (answers >> t) & 1:
                        count += _mark_pawn_move(mask, write, frm, t, mover, last_rank)
                elif bit & kick:
                    count += _mark_if_legal(state, mask, write, make_move(frm, t, 0, FLAG_KICK), mover, context)
                if bit & empty == 0:
                    break
        elif bit & enter:
            if (answers >> t) & 1:
                count += _mark_pawn_move(mask, write, frm, t, mover, last_rank)
        elif bit & kick:
            if (t >> 3) == last_rank:
                for promotion in range(KNIGHT, QUEEN + 1):
                    count += _mark_if_legal(state, mask, write, make_move(frm, t, promotion, FLAG_KICK), mover, context)
            else:
                count += _mark_if_legal(state, mask, write, make_move(frm, t, 0, FLAG_KICK), mover, context)
        f = frm & 7
        for df in (-1, 1):
            if 0 <= f + df < 8:
                t = frm + up + df
                bit = np.int64(1) << t
                if bit & capturable:
                    if (answers >> t) & 1:
                        count += _mark_pawn_move(mask, write, frm, t, mover, last_rank)
                elif bit & empty and (t == ep or t == ep_far):
                    count += _mark_if_legal(state, mask, write, make_move(frm, t, 0, FLAG_EN_PASSANT), mover, context)
        if stop_at_first and count > 0:
            return count
    # the king's steps, then castling
    steps = KING_BITS[king_sq] & (empty | capturable)
    while steps != 0:
        to = trailing_zeros(steps)
        steps &= steps - 1
        if not king_attacked(bits, them, king_sq, to):
            count += 1
            if write:
                mask[MOVE_ACTION[frame(king_sq, mover), frame(to, mover)]] = 1
    if stop_at_first and count > 0:
        return count
    moves = stack_empty(2, np.int64)
    for i in range(gen_castling(state, mover, moves, 0, block)):
        count += _mark_if_legal(state, mask, write, moves[i], mover, context)
    # the rare pieces: pinned ones, and the mover's piece inside the TARDIS
    rest = own & pinned
    while rest != 0:
        frm = trailing_zeros(rest)
        rest &= rest - 1
        count += _mark_piece_moves(state, mask, write, stop_at_first, frm, state[BOARD + frm], mover, block, context)
    passenger = state[PASSENGER]
    if block >= 0 and passenger != EMPTY and (passenger >> 3) == mover:
        count += _mark_piece_moves(state, mask, write, stop_at_first, block, passenger, mover, block, context)
    return count


# ============================================================================
# Applying a chess move (board part)
# ============================================================================
@njit
def clear_castling_for(state, sq):
    if sq == 0:
        state[CASTLING] &= ~CASTLE_WQ
    elif sq == 7:
        state[CASTLING] &= ~CASTLE_WK
    elif sq == 56:
        state[CASTLING] &= ~CASTLE_BQ
    elif sq == 63:
        state[CASTLING] &= ~CASTLE_BK
    elif sq == 4:
        state[CASTLING] &= ~(CASTLE_WK | CASTLE_WQ)
    elif sq == 60:
        state[CASTLING] &= ~(CASTLE_BK | CASTLE_BQ)


@njit
def apply_chess_move(state, move):
    """Play a pseudo-legal chess move on the board: pieces, identities,
    castling rights, en-passant square, king squares, the TARDIS passenger.
    A kick-out leaves the evicted piece in ``EVICTED`` for the next decision.
    Returns the captured piece code (0 none)."""
    mover = state[CURRENT_PLAYER]
    frm = move_from(move)
    to = move_to(move)
    promotion = move_promotion(move)
    flag = move_flag(move)
    block = blocker_square(state)
    if frm == block:
        code = state[PASSENGER]
        ident = state[PASSENGER_ID]
        state[PASSENGER] = EMPTY
        state[PASSENGER_ID] = 0
    else:
        code = state[BOARD + frm]
        ident = state[PIECE_ID + frm]
        state[BOARD + frm] = EMPTY
        state[PIECE_ID + frm] = 0
    captured = EMPTY
    if flag == FLAG_EN_PASSANT:
        cap_sq = en_passant_victim(state, mover)
        captured = state[BOARD + cap_sq]
        state[BOARD + cap_sq] = EMPTY
        state[PIECE_ID + cap_sq] = 0
    elif to != block:
        captured = state[BOARD + to]
    if promotion != 0:
        code = promotion | (mover << 3)
    if to == block:
        if flag == FLAG_KICK:
            state[EVICTED] = state[PASSENGER]
            state[EVICTED_ID] = state[PASSENGER_ID]
        state[PASSENGER] = code
        state[PASSENGER_ID] = ident
        state[PASSENGER_ENTRY_PLY] = state[PLY]
    else:
        state[BOARD + to] = code
        state[PIECE_ID + to] = ident
    if (code & 7) == KING:
        state[KING_SQ + mover] = to
    if flag == FLAG_CASTLE:
        base = 56 * mover
        if to == base + 6:
            rook_from, rook_to = base + 7, base + 5
        else:
            rook_from, rook_to = base, base + 3
        state[BOARD + rook_to] = state[BOARD + rook_from]
        state[PIECE_ID + rook_to] = state[PIECE_ID + rook_from]
        state[BOARD + rook_from] = EMPTY
        state[PIECE_ID + rook_from] = 0
    if state[CASTLING] != 0:
        clear_castling_for(state, frm)
        clear_castling_for(state, to)
    state[EP_SQUARE_FAR] = -1
    if flag == FLAG_DOUBLE:
        state[EP_SQUARE] = (frm + to) >> 1
    elif flag == FLAG_TRIPLE:
        # both passed squares are en-passant targets; EP_SQUARE is the one
        # just behind the pawn, as for a two-square advance
        up = (to - frm) // 3
        state[EP_SQUARE] = to - up
        state[EP_SQUARE_FAR] = frm + up
    else:
        state[EP_SQUARE] = -1
    if (code & 7) == PAWN or promotion != 0 or captured != EMPTY:
        state[ZEROING] = 1
    return captured


# ============================================================================
# Position hash, repetition, material
# ============================================================================
@njit
def en_passant_victim(state, mover):
    """Square of the pawn an en-passant capture by ``mover`` takes: just beyond
    ``EP_SQUARE`` (also when the capture lands on ``EP_SQUARE_FAR``)."""
    return state[EP_SQUARE] - 8 if mover == WHITE else state[EP_SQUARE] + 8


@njit
def legal_en_passant(state):
    """Bits of the en-passant targets the side to move can legally capture on:
    1 ``EP_SQUARE``, 2 ``EP_SQUARE_FAR``."""
    mover = state[CURRENT_PLAYER]
    pawn = PAWN | (mover << 3)
    block = blocker_square(state)
    bits = 0
    for which in range(2):
        ep = state[EP_SQUARE + which]
        if ep < 0 or ep == block:
            continue
        from_rank_sq = ep - 8 if mover == WHITE else ep + 8
        f = ep & 7
        for df in (-1, 1):
            if 0 <= f + df < 8:
                frm = from_rank_sq + df
                if state[BOARD + frm] == pawn and _king_safe_after(state, mover, frm, ep, FLAG_EN_PASSANT, -1, 0):
                    bits |= 1 << which
                    break
    return bits


@njit
def has_legal_en_passant(state):
    return legal_en_passant(state) != 0


@njit
def position_hash(state):
    h = 0
    for sq in range(64):
        code = state[BOARD + sq]
        if code != EMPTY:
            h ^= ZOBRIST[code * 64 + sq]
    if state[CURRENT_PLAYER] == BLACK:
        h ^= ZOBRIST[Z_SIDE]
    h ^= ZOBRIST[Z_CASTLING + state[CASTLING]]
    ep_bits = legal_en_passant(state)
    if ep_bits & 1:
        h ^= ZOBRIST[Z_EP + (state[EP_SQUARE] & 7)]
    if ep_bits & 2:
        h ^= ZOBRIST[Z_EP_FAR + (state[EP_SQUARE] & 7)]
    if state[TARDIS_SQ] >= 0:
        h ^= ZOBRIST[Z_TARDIS + (64 if state[TARDIS_ABSENT] == 1 else state[TARDIS_SQ])]
        h ^= ZOBRIST[Z_DOCTOR_INSIDE + (1 if state[DOCTOR_SQ] < 0 else 0)]
        h ^= ZOBRIST[Z_PASSENGER + state[PASSENGER]]
    return h


@njit
def repetitions(state):
    """How often the current position occurred since the last pawn move or capture."""
    n = state[REP_COUNT]
    if n == 0:
        return 0
    newest = state[REP_RING + (n - 1) % REP_RING_SIZE]
    count = 0
    for i in range(min(n, REP_RING_SIZE)):
        if state[REP_RING + i] == newest:
            count += 1
    return count


@njit
def insufficient_material(state):
    """Neither side can mate (the ``chess`` library's rule): no pawn, rook or
    queen, and at most one knight, or bishops all on one colour."""
    knights = 0
    light_bishops = 0
    dark_bishops = 0
    for i in range(65):
        if i == 64:
            code = state[PASSENGER]
            sq = 0
        else:
            code = state[BOARD + i]
            sq = i
        t = code & 7
        if code == EMPTY or t == KING or t == DOCTOR:
            continue
        if t == PAWN or t == ROOK or t == QUEEN:
            return False
        if t == KNIGHT:
            knights += 1
        elif ((sq & 7) + (sq >> 3)) & 1:
            light_bishops += 1
        else:
            dark_bishops += 1
    if state[PASSENGER] != EMPTY and (state[PASSENGER] & 7) == BISHOP:
        return False  # a bishop inside may leave onto either colour
    if knights + light_bishops + dark_bishops == 0:
        return True
    if knights == 1 and light_bishops + dark_bishops == 0:
        return True
    return knights == 0 and (light_bishops == 0 or dark_bishops == 0)


# ============================================================================
# Perft (classic positions): the proof that move generation is exact
# ============================================================================
@njit
def _perft(state, depth, buffers, scratch):
    if depth == 1:
        # the last ply counted by the legal mask's generator, so that the published
        # counts check it as well as the move list of the plies before
        return legal_chess_actions(state, board_sets(state), buffers[0, :0].view(np.int8), False, False)
    moves = buffers[depth]
    n = gen_chess_moves(state, moves)
    context = legality_context(state)
    total = 0
    child = scratch[depth]
    for i in range(n):
        if chess_move_legal_given(state, moves[i], context):
            copy_state(child[:CORE_SIZE], state)
            apply_chess_move(child, moves[i])
            child[CURRENT_PLAYER] = 1 - child[CURRENT_PLAYER]
            total += _perft(child, depth - 1, buffers, scratch)
    return total


@njit_alloc
def perft(state, depth):
    """Number of legal move sequences of ``depth`` plies (chess moves only)."""
    if depth <= 0:
        return 1
    buffers = np.zeros((depth + 1, MAX_MOVES), dtype=np.int64)
    scratch = np.zeros((depth + 1, state.shape[0]), dtype=np.int64)
    return _perft(state, depth, buffers, scratch)
