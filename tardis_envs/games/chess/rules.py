"""Dr. Who Chess rules as numba kernels over one flat ``int64`` state.

Notation
--------
Squares are ``0 = a1 .. 7 = h1, 8 = a2 .. 63 = h8`` (``file = sq & 7``,
``rank = sq >> 3``). A piece code is ``type | colour << 3`` with types
``PAWN=1 .. KING=6`` and colours ``WHITE=0``, ``BLACK=1``; Dr. Who standing
on the board is ``DOCTOR=7`` (no colour). The TARDIS is not a board code: it
is the square ``TARDIS_SQ`` (the board word there is always 0; whoever is
inside is held in ``PASSENGER``/``DOCTOR_SQ``). Actions and observations are
in the *mover's frame*: ranks are mirrored for Black (``sq ^ 56``), so every
player pushes pawns "up" (AlphaZero's convention).

State layout (after the shared header; ``CURRENT_PLAYER`` is the side to move)
------------------------------------------------------------------------------
=========================  =================================================
``BOARD`` + sq             piece code on each square (0 empty)
``PIECE_ID`` + sq          identity of the piece there (1..32 chess pieces,
                           ``DOCTOR_ID``; kept through promotion) - what
                           backward time travel uses to find the
                           traveller's earlier self
``CASTLING``               bits: 1 white O-O, 2 white O-O-O, 4 black O-O,
                           8 black O-O-O
``EP_SQUARE``              en-passant target square or -1
``HALFMOVE``/``FULLMOVE``  FEN clocks (restored by backward time travel)
``PLY``                    real turns played (never rewound; cool-downs,
                           travel bans and ``max_plies`` count it)
``PHASE``                  ``PHASE_MOVE``, ``PHASE_EVICT`` (choose where
                           the evicted piece goes), ``PHASE_FOLLOW_UP``
                           (optional TARDIS move/time travel after a chess
                           move), ``PHASE_OVER``
``KING_SQ`` + c            each king's square
``TARDIS_SQ``              the TARDIS square, -1 in classic chess
``TARDIS_ABSENT``          1 while it travels forward in time
``TARDIS_RETURN_PLY``      ``PLY`` from which it reappears
``TARDIS_PREV_SQ``         the square it last left (it may not jump back)
``DOCTOR_SQ``              Dr. Who's square, -1 while inside the TARDIS
``PASSENGER``              code of the chess piece inside (0 none)
``PASSENGER_ID``           its identity
``PASSENGER_ENTRY_PLY``    ``PLY`` of the turn it entered
``COOLDOWN_UNTIL``         first ``PLY`` at which Dr. Who/the TARDIS may move
``LAST_TRAVEL_PLY``        ``PLY`` of the last time travel (-100 none)
``BACKWARD_TRAVELS`` + c   backward time travels used by each colour
``EVICTED``/``EVICTED_ID`` the piece waiting for an eviction square
``ZEROING``                1 if this turn resets the fifty-move clock
``WINNER``, ``REASON``     result (``REASON_*``)
``LAST_*``                 the last turn (for describe and rendering)
``REP_COUNT``, ``REP_RING``  position hashes since the last pawn move or
                           capture, in real time (threefold repetition)
``HIST_TOP``/``HIST_COUNT``/``HIST``  ring of the last ``HISTORY`` positions
                           in game time (observation history and backward
                           time travel); each entry ``SNAP_SIZE`` words
=========================  =================================================

Actions (``NUM_CHESS_ACTIONS = 4672``, variant ``NUM_ACTIONS = 4773``)
----------------------------------------------------------------------
``from * 73 + plane`` with ``from`` in the mover's frame: planes 0..55 are
queen-like moves ``direction * 7 + distance - 1`` (directions N, NE, E, SE,
S, SW, W, NW in the mover's frame; pawn moves to the last rank promote to a
queen), 56..63 knight jumps, 64..72 under-promotions ``3 * (df + 1) + p``
(``df`` = file step -1/0/+1, ``p`` = knight, bishop, rook). Castling is the
king's two-square move. Entering the TARDIS is a move *to* its square,
leaving it a move *from* its square. Then (variant only):
``A_DOCTOR + d`` Dr. Who one step in frame direction ``d`` (from the TARDIS
square while inside); ``A_TARDIS + sq`` the TARDIS to frame square ``sq``;
``A_TRAVEL + k - 1`` backward ``k`` plies, ``A_TRAVEL + 10 + k - 1`` forward
``k`` plies; ``A_EVICT + d`` the evicted piece to the square next to the
TARDIS in frame direction ``d``; ``A_END_TURN`` end the turn without the
optional follow-up.
"""
from __future__ import annotations

import numpy as np

from ...core.jit import njit
from ...core.rewards import clear_rewards, reward_win
from ...core.state import CURRENT_PLAYER, HEADER_SIZE, RUNNING, STATUS, TERMINATED, TRUNCATED

# --- pieces ---------------------------------------------------------------
EMPTY = 0
PAWN = 1
KNIGHT = 2
BISHOP = 3
ROOK = 4
QUEEN = 5
KING = 6
DOCTOR = 7
WHITE = 0
BLACK = 1
DOCTOR_ID = 33

CASTLE_WK = 1
CASTLE_WQ = 2
CASTLE_BK = 4
CASTLE_BQ = 8

# --- rules constants ---------------------------------------------------------
HISTORY = 11  # current position + the 10 plies a backward time travel may reach
MAX_TRAVEL = 10
MAX_BACKWARD_TRAVELS = 2
COOLDOWN_PLIES = 5  # moved on ply t -> may move again from ply t + 5
TRAVEL_BAN_PLIES = 2  # travel on ply t -> none on t + 1, t + 2
KICK_OUT_PLIES = 7  # entered on ply e -> evictable from ply e + 7 (3 own turns done)
REP_RING_SIZE = 128

# --- state layout -------------------------------------------------------------
BOARD = HEADER_SIZE
PIECE_ID = BOARD + 64
CASTLING = PIECE_ID + 64
EP_SQUARE = CASTLING + 1
HALFMOVE = EP_SQUARE + 1
FULLMOVE = HALFMOVE + 1
PLY = FULLMOVE + 1
PHASE = PLY + 1
KING_SQ = PHASE + 1  # 2 words
TARDIS_SQ = KING_SQ + 2
TARDIS_ABSENT = TARDIS_SQ + 1
TARDIS_RETURN_PLY = TARDIS_ABSENT + 1
TARDIS_PREV_SQ = TARDIS_RETURN_PLY + 1
DOCTOR_SQ = TARDIS_PREV_SQ + 1
PASSENGER = DOCTOR_SQ + 1
PASSENGER_ID = PASSENGER + 1
PASSENGER_ENTRY_PLY = PASSENGER_ID + 1
COOLDOWN_UNTIL = PASSENGER_ENTRY_PLY + 1
LAST_TRAVEL_PLY = COOLDOWN_UNTIL + 1
BACKWARD_TRAVELS = LAST_TRAVEL_PLY + 1  # 2 words
EVICTED = BACKWARD_TRAVELS + 2
EVICTED_ID = EVICTED + 1
ZEROING = EVICTED_ID + 1
WINNER = ZEROING + 1
REASON = WINNER + 1
LAST_KIND = REASON + 1  # KIND_* of the last turn's first action
LAST_FROM = LAST_KIND + 1
LAST_TO = LAST_FROM + 1
LAST_PIECE = LAST_TO + 1
LAST_CAPTURED = LAST_PIECE + 1
LAST_PROMOTION = LAST_CAPTURED + 1
LAST_FOLLOW_KIND = LAST_PROMOTION + 1
LAST_FOLLOW_ARG = LAST_FOLLOW_KIND + 1
LAST_EVICT_SQ = LAST_FOLLOW_ARG + 1
REP_COUNT = LAST_EVICT_SQ + 1
CORE_SIZE = REP_COUNT + 1  # everything a search or perft copy needs
REP_RING = CORE_SIZE
HIST_TOP = REP_RING + REP_RING_SIZE
HIST_COUNT = HIST_TOP + 1
HIST = HIST_COUNT + 1
# one history entry: 64 squares packed as code | id << 4, then these words
SNAP_CASTLING = 64
SNAP_EP = 65
SNAP_HALFMOVE = 66
SNAP_FULLMOVE = 67
SNAP_PASSENGER = 68
SNAP_PASSENGER_ID = 69
SNAP_SIZE = 70
STATE_SIZE = HIST + HISTORY * SNAP_SIZE

PHASE_MOVE = 0
PHASE_EVICT = 1
PHASE_FOLLOW_UP = 2
PHASE_OVER = 3

REASON_NONE = 0
REASON_CHECKMATE = 1
REASON_STALEMATE = 2
REASON_INSUFFICIENT = 3
REASON_FIFTY_MOVES = 4
REASON_THREEFOLD = 5
REASON_MAX_PLIES = 6

KIND_NONE = 0
KIND_CHESS = 1
KIND_DOCTOR = 2
KIND_TARDIS = 3
KIND_BACKWARD = 4
KIND_FORWARD = 5

# --- actions -------------------------------------------------------------------
NUM_CHESS_ACTIONS = 64 * 73
A_DOCTOR = NUM_CHESS_ACTIONS
A_TARDIS = A_DOCTOR + 8
A_TRAVEL = A_TARDIS + 64
A_EVICT = A_TRAVEL + 2 * MAX_TRAVEL
A_END_TURN = A_EVICT + 8
NUM_ACTIONS = A_END_TURN + 1

# --- tables (built by content.py from the options) ------------------------------
T_DOCTOR = 0
T_MAX_PLIES = 1
T_START_SIDE = 2
T_START_CASTLING = 3
T_START_EP = 4
T_START_HALFMOVE = 5
T_START_FULLMOVE = 6
T_START_TARDIS = 7
T_START_DOCTOR_SQ = 8
T_START_PASSENGER = 9
T_START_BOARD = 16
T_SIZE = T_START_BOARD + 64

# move words: from | to << 6 | promotion << 12 | flag << 16
FLAG_NORMAL = 0
FLAG_DOUBLE = 1
FLAG_EN_PASSANT = 2
FLAG_CASTLE = 3
FLAG_KICK = 4
MAX_MOVES = 320

# directions (file step, rank step): N, NE, E, SE, S, SW, W, NW
DIR_DF = np.array([0, 1, 1, 1, 0, -1, -1, -1], dtype=np.int64)
DIR_DR = np.array([1, 1, 0, -1, -1, -1, 0, 1], dtype=np.int64)
KNIGHT_DF = np.array([1, 2, 2, 1, -1, -2, -2, -1], dtype=np.int64)
KNIGHT_DR = np.array([2, 1, -1, -2, -2, -1, 1, 2], dtype=np.int64)
PROMOTION_PIECES = np.array([KNIGHT, BISHOP, ROOK], dtype=np.int64)  # under-promotion order


def _step_table(dfs, drs):
    table = np.full((64, 8), -1, dtype=np.int64)
    for sq in range(64):
        for d in range(8):
            f, r = (sq & 7) + dfs[d], (sq >> 3) + drs[d]
            if 0 <= f < 8 and 0 <= r < 8:
                table[sq, d] = r * 8 + f
    return table


NEIGHBOUR = _step_table(DIR_DF, DIR_DR)  # square one step in direction d, or -1
KNIGHT_TARGET = _step_table(KNIGHT_DF, KNIGHT_DR)


def _zobrist():
    rng = np.random.Generator(np.random.PCG64(20061030))  # fixed: hashes are part of saved states
    return rng.integers(1, 2**62, size=16 * 64 + 1 + 16 + 8 + 65 + 2 + 16, dtype=np.int64)


ZOBRIST = _zobrist()
Z_SIDE = 16 * 64
Z_CASTLING = Z_SIDE + 1
Z_EP = Z_CASTLING + 16
Z_TARDIS = Z_EP + 8  # 65: square or absent
Z_DOCTOR_INSIDE = Z_TARDIS + 65  # 2
Z_PASSENGER = Z_DOCTOR_INSIDE + 2  # 16 codes


# ============================================================================
# Small helpers
# ============================================================================
@njit
def make_move(frm, to, promotion, flag):
    return frm | (to << 6) | (promotion << 12) | (flag << 16)


@njit
def move_from(move):
    return move & 63


@njit
def move_to(move):
    return (move >> 6) & 63


@njit
def move_promotion(move):
    return (move >> 12) & 15


@njit
def move_flag(move):
    return move >> 16


@njit
def blocker_square(state):
    """The square the TARDIS blocks, -1 when there is none on the board."""
    if state[TARDIS_SQ] < 0 or state[TARDIS_ABSENT] == 1:
        return -1
    return state[TARDIS_SQ]


@njit
def frame(sq, colour):
    """Absolute square <-> the colour's frame (mirror ranks for Black)."""
    return sq ^ (56 * colour)


@njit
def encode_move(frm, to, promotion, colour):
    """The AlphaZero action index of a chess move played by ``colour``."""
    f = frame(frm, colour)
    t = frame(to, colour)
    df = (t & 7) - (f & 7)
    dr = (t >> 3) - (f >> 3)
    if promotion == KNIGHT or promotion == BISHOP or promotion == ROOK:
        p = 0 if promotion == KNIGHT else (1 if promotion == BISHOP else 2)
        return f * 73 + 64 + 3 * (df + 1) + p
    adf = abs(df)
    adr = abs(dr)
    if (adf == 1 and adr == 2) or (adf == 2 and adr == 1):
        for k in range(8):
            if KNIGHT_DF[k] == df and KNIGHT_DR[k] == dr:
                return f * 73 + 56 + k
    sdf = (df > 0) - (df < 0)
    sdr = (dr > 0) - (dr < 0)
    dist = max(adf, adr)
    for d in range(8):
        if DIR_DF[d] == sdf and DIR_DR[d] == sdr:
            return f * 73 + d * 7 + dist - 1
    return -1


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


@njit
def is_variant(tables):
    return tables[T_DOCTOR] == 1


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
def _gen_piece(state, mover, frm, code, moves, n, block):
    ptype = code & 7
    if ptype == PAWN:
        up = 8 if mover == WHITE else -8
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
                if kind == 1 and (frm >> 3) == start_rank:
                    t2 = t + up
                    kind2 = _target_kind(state, mover, t2, code, block)
                    if kind2 == 1:
                        moves[n] = make_move(frm, t2, 0, FLAG_DOUBLE)
                        n += 1
                    elif kind2 == 3 or kind2 == 4:
                        moves[n] = make_move(frm, t2, 0, FLAG_KICK if kind2 == 4 else FLAG_NORMAL)
                        n += 1
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
                    elif other == EMPTY and t == state[EP_SQUARE]:
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
def _gen_castling(state, mover, moves, n, block):
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
            state[BOARD + base + 5] == EMPTY and state[BOARD + base + 6] == EMPTY
            and block != base + 5 and block != base + 6 and state[BOARD + base + 7] == rook
            and not square_attacked(state, king_sq, opponent)
            and not square_attacked(state, base + 5, opponent)
            and not square_attacked(state, base + 6, opponent)
        ):
            moves[n] = make_move(king_sq, base + 6, 0, FLAG_CASTLE)
            n += 1
    if rights & 2:
        if (
            state[BOARD + base + 3] == EMPTY and state[BOARD + base + 2] == EMPTY and state[BOARD + base + 1] == EMPTY
            and block != base + 3 and block != base + 2 and block != base + 1 and state[BOARD + base] == rook
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
            n = _gen_piece(state, mover, sq, code, moves, n, block)
    p = state[PASSENGER]
    if block >= 0 and p != EMPTY and (p >> 3) == mover:
        n = _gen_piece(state, mover, block, p, moves, n, block)
    n = _gen_castling(state, mover, moves, n, block)
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
        cap_sq = to - 8 if mover == WHITE else to + 8
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
    move is made, not a first/last rank for a pawn, the mover's king safe?
    ``frm``/``to``/``flag`` describe the kick-out move (``frm < 0``: played)."""
    if evict_sq < 0:
        return False
    if state[BOARD + evict_sq] != EMPTY and not (evict_sq == frm and frm != blocker_square(state)):
        return False
    if (evicted & 7) == PAWN and ((evict_sq >> 3) == 0 or (evict_sq >> 3) == 7):
        return False
    return _king_safe_after(state, mover, frm, to, flag, evict_sq, evicted)


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
    king_sq = state[KING_SQ + mover]
    block = blocker_square(state)
    them = 1 - mover
    rook = ROOK | (them << 3)
    bishop = BISHOP | (them << 3)
    queen = QUEEN | (them << 3)
    pinned = np.int64(0)
    for d in range(8):
        diagonal = d & 1
        candidate = -1
        t = NEIGHBOUR[king_sq, d]
        while t >= 0:
            if t == block:
                break
            code = state[BOARD + t]
            if code != EMPTY:
                if candidate < 0:
                    if code == DOCTOR or (code >> 3) != mover:
                        break
                    candidate = t
                else:
                    if code == queen or (diagonal == 1 and code == bishop) or (diagonal == 0 and code == rook):
                        pinned |= np.int64(1) << candidate
                    break
            t = NEIGHBOUR[t, d]
    return pinned


@njit
def legality_context(state):
    """(king square, in check, pinned pieces) of the side to move, the facts
    ``chess_move_legal_given`` needs, worked out once per position."""
    mover = state[CURRENT_PLAYER]
    king_sq = state[KING_SQ + mover]
    return king_sq, square_attacked(state, king_sq, 1 - mover), pinned_pieces(state, mover)


@njit
def chess_move_legal_given(state, move, king_sq, checked, pinned):
    """``chess_move_legal`` with the king's square, check and pins of the
    position worked out once. Out of check, a move of a piece that is not
    pinned (and not the king, not en passant, not a kick-out) cannot expose
    the king: it opens no line to it; a piece stepping out of the TARDIS
    leaves the TARDIS blocking behind it. Everything else is made and tested."""
    frm = move_from(move)
    flag = move_flag(move)
    if checked or frm == king_sq or flag == FLAG_EN_PASSANT or flag == FLAG_KICK:
        return chess_move_legal(state, move)
    if frm == blocker_square(state):
        return True
    if (pinned >> frm) & 1:
        return chess_move_legal(state, move)
    return True


# ============================================================================
# Applying a chess move (board part)
# ============================================================================
@njit
def _clear_castling_for(state, sq):
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
        cap_sq = to - 8 if mover == WHITE else to + 8
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
        _clear_castling_for(state, frm)
        _clear_castling_for(state, to)
    if flag == FLAG_DOUBLE:
        state[EP_SQUARE] = (frm + to) >> 1
    else:
        state[EP_SQUARE] = -1
    if (code & 7) == PAWN or promotion != 0 or captured != EMPTY:
        state[ZEROING] = 1
    return captured


# ============================================================================
# Perft (classic positions): the proof that move generation is exact
# ============================================================================
@njit
def _perft(state, depth, buffers, scratch):
    moves = buffers[depth]
    n = gen_chess_moves(state, moves)
    king_sq, checked, pinned = legality_context(state)
    total = 0
    if depth == 1:
        for i in range(n):
            if chess_move_legal_given(state, moves[i], king_sq, checked, pinned):
                total += 1
        return total
    child = scratch[depth]
    for i in range(n):
        if chess_move_legal_given(state, moves[i], king_sq, checked, pinned):
            child[:CORE_SIZE] = state[:CORE_SIZE]
            apply_chess_move(child, moves[i])
            child[CURRENT_PLAYER] = 1 - child[CURRENT_PLAYER]
            total += _perft(child, depth - 1, buffers, scratch)
    return total


@njit
def perft(state, depth):
    """Number of legal move sequences of ``depth`` plies (chess moves only)."""
    if depth <= 0:
        return 1
    buffers = np.zeros((depth + 1, MAX_MOVES), dtype=np.int64)
    scratch = np.zeros((depth + 1, state.shape[0]), dtype=np.int64)
    return _perft(state, depth, buffers, scratch)


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
def doctor_move_legal(state, d):
    if not doctor_ready(state):
        return False
    mover = state[CURRENT_PLAYER]
    t = doctor_target(state, d)
    if t < 0:
        return False
    block = blocker_square(state)
    inside = state[DOCTOR_SQ] < 0
    other = state[BOARD + t]
    if inside:
        if other != EMPTY:
            return False  # leaves only to an empty square
    elif t != block:
        if other != EMPTY and ((other >> 3) == mover or (other & 7) == KING):
            return False  # captures an opponent piece of the mover only, never a king
    # make, test, undo
    origin = state[DOCTOR_SQ]
    if origin >= 0:
        state[BOARD + origin] = EMPTY
    if t != block:
        state[BOARD + t] = DOCTOR
    safe = not in_check(state, mover)
    if t != block:
        state[BOARD + t] = other
    if origin >= 0:
        state[BOARD + origin] = DOCTOR
    return safe


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
        _clear_castling_for(state, t)
    state[COOLDOWN_UNTIL] = state[PLY] + COOLDOWN_PLIES
    return captured


@njit
def tardis_can_fly(state):
    """Dr. Who and a piece of the mover's colour inside, on the board, cooled down."""
    mover = state[CURRENT_PLAYER]
    p = state[PASSENGER]
    return (
        blocker_square(state) >= 0 and state[DOCTOR_SQ] < 0 and p != EMPTY and (p >> 3) == mover
        and doctor_ready(state)
    )


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
    state[TARDIS_PREV_SQ] = state[TARDIS_SQ]
    state[TARDIS_SQ] = sq
    state[COOLDOWN_UNTIL] = state[PLY] + COOLDOWN_PLIES


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
def _hist_slot(state, back):
    """Offset of the history entry ``back`` plies before the newest."""
    index = (state[HIST_TOP] - back) % HISTORY
    return HIST + index * SNAP_SIZE


@njit
def push_history(state):
    top = (state[HIST_TOP] + 1) % HISTORY
    state[HIST_TOP] = top
    if state[HIST_COUNT] < HISTORY:
        state[HIST_COUNT] += 1
    at = HIST + top * SNAP_SIZE
    for sq in range(64):
        state[at + sq] = state[BOARD + sq] | (state[PIECE_ID + sq] << 4)
    state[at + SNAP_CASTLING] = state[CASTLING]
    state[at + SNAP_EP] = state[EP_SQUARE]
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
    if k >= state[HIST_COUNT]:
        return False
    at = _hist_slot(state, k)
    traveller = state[PASSENGER_ID]
    then_passenger = state[at + SNAP_PASSENGER_ID]
    if then_passenger != 0 and then_passenger != traveller:
        return False
    block = blocker_square(state)
    for sq in range(64):
        word = state[at + sq]
        code = word & 15
        ident = word >> 4
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
    castling = state[at + SNAP_CASTLING]
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
    ep = state[at + SNAP_EP]
    # the side to move after the travel is the traveller's opponent: keep an
    # en-passant square only if it is that side's capture
    opponent = 1 - state[CURRENT_PLAYER]
    if ep >= 0 and ((ep >> 3) == 5) != (opponent == WHITE):
        ep = -1
    state[EP_SQUARE] = ep
    state[HALFMOVE] = state[at + SNAP_HALFMOVE]
    state[FULLMOVE] = state[at + SNAP_FULLMOVE]
    return True


@njit
def backward_travel_legal(state, k, scratch):
    mover = state[CURRENT_PLAYER]
    if state[BACKWARD_TRAVELS + mover] >= MAX_BACKWARD_TRAVELS or k >= state[HIST_COUNT]:
        return False
    scratch[:] = state[:]
    if not restore_backward(scratch, k):
        return False
    return not in_check(scratch, mover)


# ============================================================================
# Position hash, repetition, material
# ============================================================================
@njit
def has_legal_en_passant(state):
    ep = state[EP_SQUARE]
    if ep < 0 or ep == blocker_square(state):
        return False
    mover = state[CURRENT_PLAYER]
    pawn = PAWN | (mover << 3)
    from_rank_sq = ep - 8 if mover == WHITE else ep + 8
    f = ep & 7
    for df in (-1, 1):
        if 0 <= f + df < 8:
            frm = from_rank_sq + df
            if state[BOARD + frm] == pawn and _king_safe_after(state, mover, frm, ep, FLAG_EN_PASSANT, -1, 0):
                return True
    return False


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
    if has_legal_en_passant(state):
        h ^= ZOBRIST[Z_EP + (state[EP_SQUARE] & 7)]
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
# Legal actions
# ============================================================================
@njit
def _follow_up_actions(state, mask, write, scratch):
    """TARDIS moves and time travels open to the mover now; counts them."""
    count = 0
    if not tardis_can_fly(state):
        return 0
    mover = state[CURRENT_PLAYER]
    for sq in range(64):
        if tardis_move_legal(state, sq):
            count += 1
            if write:
                mask[A_TARDIS + frame(sq, mover)] = 1
    if travel_allowed(state):
        for k in range(1, MAX_TRAVEL + 1):
            if backward_travel_legal(state, k, scratch):
                count += 1
                if write:
                    mask[A_TRAVEL + k - 1] = 1
        if forward_travel_legal(state):
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
    scratch = np.empty(state.shape[0], dtype=np.int64)
    if phase == PHASE_FOLLOW_UP:
        count = _follow_up_actions(state, mask, write, scratch) + 1
        if write:
            mask[A_END_TURN] = 1
        return count
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    n = gen_chess_moves(state, moves)
    king_sq, checked, pinned = legality_context(state)
    for i in range(n):
        m = moves[i]
        if chess_move_legal_given(state, m, king_sq, checked, pinned):
            count += 1
            if stop_at_first:
                return count
            if write:
                mask[encode_move(move_from(m), move_to(m), move_promotion(m), mover)] = 1
    if tables[T_DOCTOR] == 0:
        return count
    for d in range(8):
        if doctor_move_legal(state, d):
            count += 1
            if stop_at_first:
                return count
            if write:
                mask[A_DOCTOR + (d if mover == WHITE else _mirror_direction(d))] = 1
    count += _follow_up_actions(state, mask, write, scratch)
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
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    n = gen_chess_moves(state, moves)
    king_sq, checked, pinned = legality_context(state)
    k = 0
    for i in range(n):
        if chess_move_legal_given(state, moves[i], king_sq, checked, pinned):
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
    state[HIST_TOP] = HISTORY - 1
    state[HIST_COUNT] = 0
    push_history(state)
    state[REP_COUNT] = 1
    state[REP_RING] = position_hash(state)
    _check_result(state, tables)


@njit
def _finish(state, winner, reason, status):
    state[STATUS] = status
    state[PHASE] = PHASE_OVER
    state[WINNER] = winner
    state[REASON] = reason
    reward_win(state, winner, 2)


@njit
def _check_result(state, tables):
    """Decide the game at the start of a turn: mate, stalemate, draws, max plies."""
    mover = state[CURRENT_PLAYER]
    dummy = np.empty(0, dtype=np.int8)
    if _legal_actions(state, tables, dummy, False, True) == 0:
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


@njit
def _end_turn(state, tables, keep_clocks):
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
    _check_result(state, tables)


@njit
def _after_chess_move(state, tables):
    """Offer the optional follow-up (TARDIS move / time travel) or end the turn."""
    scratch = np.empty(state.shape[0], dtype=np.int64)
    dummy = np.empty(0, dtype=np.int8)
    if tables[T_DOCTOR] == 1 and _follow_up_actions(state, dummy, False, scratch) > 0:
        state[PHASE] = PHASE_FOLLOW_UP
    else:
        _end_turn(state, tables, False)


@njit
def _tardis_action(state, tables, action):
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
            state[EP_SQUARE] = -1  # a whole turn without a double push
    _end_turn(state, tables, keep_clocks)


@njit
def _begin_turn_record(state):
    state[LAST_FOLLOW_KIND] = KIND_NONE
    state[LAST_FOLLOW_ARG] = -1
    state[LAST_EVICT_SQ] = -1


@njit
def step(state, tables, action):
    clear_rewards(state)
    mover = state[CURRENT_PLAYER]
    phase = state[PHASE]
    if phase == PHASE_EVICT:
        d = action - A_EVICT
        if mover == BLACK:
            d = _mirror_direction(d)
        e = NEIGHBOUR[blocker_square(state), d]
        state[BOARD + e] = state[EVICTED]
        state[PIECE_ID + e] = state[EVICTED_ID]
        if (state[EVICTED] & 7) == KING:  # never: kings do not enter
            state[KING_SQ + (state[EVICTED] >> 3)] = e
        state[EVICTED] = EMPTY
        state[EVICTED_ID] = 0
        state[LAST_EVICT_SQ] = e
        _after_chess_move(state, tables)
        return
    if phase == PHASE_FOLLOW_UP:
        if action == A_END_TURN:
            _end_turn(state, tables, False)
        else:
            _tardis_action(state, tables, action)
        return
    _begin_turn_record(state)
    if action < NUM_CHESS_ACTIONS:
        # only the moves of the piece on the action's from-square can match
        moves = np.empty(MAX_MOVES, dtype=np.int64)
        origin, _ = action_squares(state, action)
        block = blocker_square(state)
        if origin < 0:
            return  # not reached for legal actions
        code = state[PASSENGER] if origin == block else state[BOARD + origin]
        if code == EMPTY or code == DOCTOR or (code >> 3) != mover:
            return  # not reached for legal actions
        n = _gen_piece(state, mover, origin, code, moves, 0, block)
        if (code & 7) == KING:
            n = _gen_castling(state, mover, moves, n, block)
        for i in range(n):
            m = moves[i]
            if encode_move(move_from(m), move_to(m), move_promotion(m), mover) == action:
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
                else:
                    _after_chess_move(state, tables)
                return
        return  # not reached for legal actions
    if action < A_TARDIS:
        d = action - A_DOCTOR
        if mover == BLACK:
            d = _mirror_direction(d)
        origin = state[DOCTOR_SQ]
        captured = apply_doctor_move(state, d)
        state[EP_SQUARE] = -1
        state[LAST_KIND] = KIND_DOCTOR
        state[LAST_FROM] = origin if origin >= 0 else state[TARDIS_SQ]
        state[LAST_TO] = state[DOCTOR_SQ] if state[DOCTOR_SQ] >= 0 else state[TARDIS_SQ]
        state[LAST_PIECE] = DOCTOR
        state[LAST_CAPTURED] = captured
        state[LAST_PROMOTION] = EMPTY
        _end_turn(state, tables, False)
        return
    _tardis_action(state, tables, action)


# ============================================================================
# Observation
# ============================================================================
NUM_PIECE_PLANES = 12
P_HISTORY = 0  # HISTORY x 12: own P N B R Q K, opponent P N B R Q K (h = 0 current)
P_COLOUR = HISTORY * NUM_PIECE_PLANES  # all ones when the observer plays Black
P_PLY = P_COLOUR + 1  # real plies / max_plies
P_CASTLING = P_PLY + 1  # 4: own O-O, own O-O-O, opponent O-O, opponent O-O-O
P_HALFMOVE = P_CASTLING + 4  # fifty-move clock / 100
P_REPETITION = P_HALFMOVE + 1  # (times the current position occurred - 1) / 2
P_EN_PASSANT = P_REPETITION + 1  # 1 on the en-passant target square
P_TARDIS = P_EN_PASSANT + 1  # 1 on the TARDIS square (when on the board)
P_TARDIS_AWAY = P_TARDIS + 1  # on its square while away: plies until due / 10
P_TARDIS_PREV = P_TARDIS_AWAY + 1  # 1 on the square it may not jump back to
P_DOCTOR = P_TARDIS_PREV + 1  # 1 on Dr. Who's square (the TARDIS square while inside)
P_DOCTOR_INSIDE = P_DOCTOR + 1  # all ones while Dr. Who is inside
P_PASSENGER = P_DOCTOR_INSIDE + 1  # 12: the piece inside, one-hot like the history planes, on the TARDIS square
P_PASSENGER_TURNS = P_PASSENGER + 12  # plies inside / KICK_OUT_PLIES (capped at 1)
P_COOLDOWN = P_PASSENGER_TURNS + 1  # plies until Dr. Who/the TARDIS may move / 5
P_TRAVEL_BAN = P_COOLDOWN + 1  # plies until a time travel is allowed / 2
P_BACKWARD_TRAVELS = P_TRAVEL_BAN + 1  # 2: own, opponent backward travels used / 2
P_HISTORY_DEPTH = P_BACKWARD_TRAVELS + 2  # plies of history a backward travel may reach / 10
P_PHASE_EVICT = P_HISTORY_DEPTH + 1  # all ones while choosing an eviction square
P_PHASE_FOLLOW_UP = P_PHASE_EVICT + 1  # all ones while offered the follow-up
P_EVICTED = P_PHASE_FOLLOW_UP + 1  # the piece waiting for its square: type / 6, + for own
NUM_PLANES = P_EVICTED + 1


@njit
def _piece_plane(code, observer):
    """History-plane index of a chess piece code for ``observer`` (-1 none)."""
    if code == EMPTY or code == DOCTOR:
        return -1
    t = (code & 7) - 1
    return t if (code >> 3) == observer else 6 + t


@njit
def _fill(out, plane, value):
    out[plane * 64 : (plane + 1) * 64] = value


@njit
def observe(state, tables, player, out):
    out[:] = 0.0
    count = state[HIST_COUNT]
    for h in range(min(count, HISTORY)):
        at = _hist_slot(state, h)
        base = P_HISTORY + h * NUM_PIECE_PLANES
        for sq in range(64):
            plane = _piece_plane(state[at + sq] & 15, player)
            if plane >= 0:
                out[(base + plane) * 64 + frame(sq, player)] = 1.0
    if player == BLACK:
        _fill(out, P_COLOUR, 1.0)
    _fill(out, P_PLY, state[PLY] / max(tables[T_MAX_PLIES], 1))
    castling = state[CASTLING]
    own = (castling >> (2 * player)) & 3
    opp = (castling >> (2 * (1 - player))) & 3
    if own & 1:
        _fill(out, P_CASTLING, 1.0)
    if own & 2:
        _fill(out, P_CASTLING + 1, 1.0)
    if opp & 1:
        _fill(out, P_CASTLING + 2, 1.0)
    if opp & 2:
        _fill(out, P_CASTLING + 3, 1.0)
    _fill(out, P_HALFMOVE, min(state[HALFMOVE], 100) / 100.0)
    _fill(out, P_REPETITION, min(max(repetitions(state) - 1, 0), 2) / 2.0)
    if state[EP_SQUARE] >= 0:
        out[P_EN_PASSANT * 64 + frame(state[EP_SQUARE], player)] = 1.0
    tsq = state[TARDIS_SQ]
    if tsq >= 0:
        ftsq = frame(tsq, player)
        if state[TARDIS_ABSENT] == 1:
            out[P_TARDIS_AWAY * 64 + ftsq] = min(max(state[TARDIS_RETURN_PLY] - state[PLY], 0), MAX_TRAVEL) / MAX_TRAVEL
        else:
            out[P_TARDIS * 64 + ftsq] = 1.0
        if state[TARDIS_PREV_SQ] >= 0:
            out[P_TARDIS_PREV * 64 + frame(state[TARDIS_PREV_SQ], player)] = 1.0
        if state[DOCTOR_SQ] >= 0:
            out[P_DOCTOR * 64 + frame(state[DOCTOR_SQ], player)] = 1.0
        else:
            out[P_DOCTOR * 64 + ftsq] = 1.0
            _fill(out, P_DOCTOR_INSIDE, 1.0)
        plane = _piece_plane(state[PASSENGER], player)
        if plane >= 0:
            out[(P_PASSENGER + plane) * 64 + ftsq] = 1.0
            _fill(out, P_PASSENGER_TURNS, min(state[PLY] - state[PASSENGER_ENTRY_PLY], KICK_OUT_PLIES) / KICK_OUT_PLIES)
        _fill(out, P_COOLDOWN, min(max(state[COOLDOWN_UNTIL] - state[PLY], 0), COOLDOWN_PLIES) / COOLDOWN_PLIES)
        ban = TRAVEL_BAN_PLIES + 1 - (state[PLY] - state[LAST_TRAVEL_PLY])
        _fill(out, P_TRAVEL_BAN, min(max(ban, 0), TRAVEL_BAN_PLIES) / TRAVEL_BAN_PLIES)
        _fill(out, P_BACKWARD_TRAVELS, state[BACKWARD_TRAVELS + player] / MAX_BACKWARD_TRAVELS)
        _fill(out, P_BACKWARD_TRAVELS + 1, state[BACKWARD_TRAVELS + 1 - player] / MAX_BACKWARD_TRAVELS)
        _fill(out, P_HISTORY_DEPTH, min(state[HIST_COUNT] - 1, MAX_TRAVEL) / MAX_TRAVEL)
        if state[PHASE] == PHASE_EVICT:
            _fill(out, P_PHASE_EVICT, 1.0)
            e = state[EVICTED]
            _fill(out, P_EVICTED, ((e & 7) / 6.0) * (1.0 if (e >> 3) == player else -1.0))
        elif state[PHASE] == PHASE_FOLLOW_UP:
            _fill(out, P_PHASE_FOLLOW_UP, 1.0)
