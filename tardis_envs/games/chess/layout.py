"""Dr. Who Chess: the words of the flat ``int64`` state, the action numbers and the
constants every kernel module shares (no rules here).

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
``EP_SQUARE``              en-passant target square or -1 (the square just
                           behind the pawn that advanced two or three)
``EP_SQUARE_FAR``          the other square a three-square advance passed
                           (-1 none): a second en-passant target
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
                           time travel); each entry ``SNAP_SIZE`` words:
                           the occupied squares as bits, the piece codes
                           4 bits a square, the piece ids 8 bits a square
                           (``snapshot_code``/``snapshot_id``), then the
                           clocks, castling and en-passant fields
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
from ...core.state import HEADER_SIZE

# the version of this layout (``Game.layout_version``); a saved state of an earlier one is upgraded
# 2: the history ring packed (1: a word per square in each history entry; check.py upgrades a
# state saved so)
LAYOUT_VERSION = 2

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
TRAVEL_BAN_PLIES = 2  # travel on ply t -> none on t + 1, t + 2 (implied by the cool-down since v1)
KICK_OUT_PLIES = 7  # entered on ply e -> evictable from ply e + 7 (3 own turns done)
REP_RING_SIZE = 128

# --- state layout -------------------------------------------------------------
BOARD = HEADER_SIZE
PIECE_ID = BOARD + 64
CASTLING = PIECE_ID + 64
EP_SQUARE = CASTLING + 1
EP_SQUARE_FAR = EP_SQUARE + 1  # kernels read the two targets as EP_SQUARE + 0 and + 1
HALFMOVE = EP_SQUARE_FAR + 1
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
LAST_AUTO_PROMOTION = LAST_EVICT_SQ + 1  # square where a carried or evicted pawn became a queen
REP_COUNT = LAST_AUTO_PROMOTION + 1
CORE_SIZE = REP_COUNT + 1  # everything a search or perft copy needs
REP_RING = CORE_SIZE
HIST_TOP = REP_RING + REP_RING_SIZE
HIST_COUNT = HIST_TOP + 1
HIST = HIST_COUNT + 1
# One history entry, ``SNAP_SIZE`` words: the board packed, then the fields backward time
# travel restores. Packed because the observation reads every entry each step (eleven
# positions of 64 words were 5.6 KB, most of a batch's memory traffic); the occupied
# squares come first so the observation visits pieces, not squares.
SNAP_OCCUPIED = 0  # bit sq set where a piece or Dr. Who stands
SNAP_CODES = 1  # 4 words: square sq's piece code in bits 4 * (sq % 16) of word sq // 16
SNAP_IDS = SNAP_CODES + 4  # 8 words: square sq's piece id in bits 8 * (sq % 8) of word sq // 8
SNAP_CASTLING = SNAP_IDS + 8
SNAP_EP = SNAP_CASTLING + 1
SNAP_EP_FAR = SNAP_EP + 1
SNAP_HALFMOVE = SNAP_EP_FAR + 1
SNAP_FULLMOVE = SNAP_HALFMOVE + 1
SNAP_PASSENGER = SNAP_FULLMOVE + 1
SNAP_PASSENGER_ID = SNAP_PASSENGER + 1
SNAP_SIZE = SNAP_PASSENGER_ID + 1
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
T_START_EP_FAR = 10
T_HISTORY_PLANES = 11  # option history_planes: earlier positions in the observation (0..10)
T_THREAT_PLANES = 12  # option threat_planes: 1 adds the NUM_THREAT_PLANES threat planes
T_START_BOARD = 16
T_SIZE = T_START_BOARD + 64

# move words: from | to << 6 | promotion << 12 | flag << 16
FLAG_NORMAL = 0
FLAG_DOUBLE = 1
FLAG_EN_PASSANT = 2
FLAG_CASTLE = 3
FLAG_KICK = 4
FLAG_TRIPLE = 5  # a pawn's three-square advance from its own first rank (variant)
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


def _move_action_table():
    """``[from, to]`` in the mover's frame -> AlphaZero action of a queen-line move
    (``from * 73 + direction * 7 + distance - 1``) or a knight move (``from * 73 + 56 +
    k``); -1 for a pair that is neither. Encoding a move is then one lookup, which the
    mask does for every legal move of every step."""
    table = np.full((64, 64), -1, dtype=np.int64)
    for frm in range(64):
        for d in range(8):
            for dist in range(1, 8):
                f, r = (frm & 7) + DIR_DF[d] * dist, (frm >> 3) + DIR_DR[d] * dist
                if 0 <= f < 8 and 0 <= r < 8:
                    table[frm, r * 8 + f] = frm * 73 + d * 7 + dist - 1
        for k in range(8):
            to = KNIGHT_TARGET[frm, k]
            if to >= 0:
                table[frm, to] = frm * 73 + 56 + k
    return table


MOVE_ACTION = _move_action_table()


def _bits(squares) -> np.int64:
    """Bitboard of ``squares`` (bit ``sq`` set for each) as an int64, bit 63 included."""
    word = 0
    for sq in squares:
        word |= 1 << int(sq)
    return np.array(word, dtype=np.uint64).view(np.int64)[()]


def _ray(sq, d):
    """Squares from ``sq`` (excluded) in direction ``d`` to the edge of the board."""
    out = []
    t = NEIGHBOUR[sq, d]
    while t >= 0:
        out.append(t)
        t = NEIGHBOUR[t, d]
    return out


# Bitboards (bit = square) for attack tests over many moves of one position
# (``board.attacker_bits``): the squares of direction d from a square to the edge;
# a knight's and a king's targets; the squares from which a pawn of colour c attacks
# a square (a white pawn attacks one rank up, a black pawn one rank down).
RAY_BITS = np.array([[_bits(_ray(sq, d)) for d in range(8)] for sq in range(64)], dtype=np.int64)
# directions whose squares come in increasing order (N, NE, E, NW): the nearest
# occupied square on such a ray is the lowest set bit, on the others the highest
RAY_ASCENDS = np.array([DIR_DR[d] > 0 or (DIR_DR[d] == 0 and DIR_DF[d] > 0) for d in range(8)], dtype=np.bool_)
KNIGHT_BITS = np.array([_bits(t for t in KNIGHT_TARGET[sq] if t >= 0) for sq in range(64)], dtype=np.int64)
KING_BITS = np.array([_bits(t for t in NEIGHBOUR[sq] if t >= 0) for sq in range(64)], dtype=np.int64)
PAWN_ATTACKER_BITS = np.array(
    [
        [_bits(s for s, df in ((sq - 9, -1), (sq - 7, 1)) if 0 <= (sq & 7) + df < 8 and s >= 0) for sq in range(64)],
        [_bits(s for s, df in ((sq + 7, -1), (sq + 9, 1)) if 0 <= (sq & 7) + df < 8 and s < 64) for sq in range(64)],
    ],
    dtype=np.int64,
)


def _zobrist():
    rng = np.random.Generator(np.random.PCG64(20061030))  # fixed: hashes are part of saved states
    return rng.integers(1, 2**62, size=16 * 64 + 1 + 16 + 8 + 65 + 2 + 16 + 8, dtype=np.int64)


ZOBRIST = _zobrist()
Z_SIDE = 16 * 64
Z_CASTLING = Z_SIDE + 1
Z_EP = Z_CASTLING + 16
Z_TARDIS = Z_EP + 8  # 65: square or absent
Z_DOCTOR_INSIDE = Z_TARDIS + 65  # 2
Z_PASSENGER = Z_DOCTOR_INSIDE + 2  # 16 codes
Z_EP_FAR = Z_PASSENGER + 16  # 8 files: the far target of a three-square advance

# --- observation planes (written by observe.py) ------------------------------
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
NUM_PLANES = P_EVICTED + 1  # with every earlier position and no threat planes (the defaults)
NUM_THREAT_PLANES = 8


@njit
def planes_left_out(history_planes):
    """Planes the option ``history_planes`` drops (12 per earlier position not shown); the
    planes after the history move up by this many."""
    return (HISTORY - 1 - history_planes) * NUM_PIECE_PLANES


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
def queen_if_last_rank(code, sq):
    """A pawn put on its last rank by the TARDIS (carried, or evicted) becomes a
    queen: the action that puts it there names no piece. Other codes unchanged."""
    if (code & 7) == PAWN and (sq >> 3) == (7 if (code >> 3) == WHITE else 0):
        return QUEEN | (code & 8)
    return code


@njit
def is_variant(tables):
    return tables[T_DOCTOR] == 1
