"""Dr. Who Chess: ``check_state``, every word of a state from outside against its range
and the game's invariants (the contract in :mod:`tardis_envs.core.state`).

A position from any FEN is a state (``from_fen``), so the checks are those of a board
any FEN can give (one king a side, codes the game uses) plus the variant's: the TARDIS
on a square no piece stands on, Dr. Who either on the board where ``DOCTOR_SQ`` says or
inside, a non-king passenger, and the plies the TARDIS rules count from.
"""

from __future__ import annotations

import numpy as np

from ...core.game import EarlierLayout
from ...core.jit import njit
from ...core.state import RUNNING, STATUS, VALID, first_outside
from . import layout
from .layout import (
    BACKWARD_TRAVELS,
    BOARD,
    CASTLING,
    COOLDOWN_PLIES,
    COOLDOWN_UNTIL,
    DOCTOR,
    DOCTOR_ID,
    DOCTOR_SQ,
    EMPTY,
    EP_SQUARE,
    EP_SQUARE_FAR,
    EVICTED,
    EVICTED_ID,
    FULLMOVE,
    HALFMOVE,
    HIST,
    HIST_COUNT,
    HIST_TOP,
    HISTORY,
    KIND_CHESS,
    KIND_DOCTOR,
    KIND_FORWARD,
    KIND_NONE,
    KIND_TARDIS,
    KING,
    KING_SQ,
    KNIGHT,
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
    MAX_BACKWARD_TRAVELS,
    MAX_TRAVEL,
    PASSENGER,
    PASSENGER_ENTRY_PLY,
    PASSENGER_ID,
    PHASE,
    PHASE_EVICT,
    PHASE_MOVE,
    PHASE_OVER,
    PIECE_ID,
    PLY,
    QUEEN,
    REASON,
    REASON_MAX_PLIES,
    REP_COUNT,
    SNAP_CASTLING,
    SNAP_CODES,
    SNAP_EP,
    SNAP_EP_FAR,
    SNAP_FULLMOVE,
    SNAP_HALFMOVE,
    SNAP_OCCUPIED,
    SNAP_PASSENGER,
    SNAP_PASSENGER_ID,
    SNAP_SIZE,
    T_DOCTOR,
    TARDIS_ABSENT,
    TARDIS_PREV_SQ,
    TARDIS_RETURN_PLY,
    TARDIS_SQ,
    WINNER,
    ZEROING,
)
from .tardis import write_snapshot_squares

NO_TRAVEL = -100  # LAST_TRAVEL_PLY before any time travel

(
    BAD_CODE,
    BAD_KINGS,
    BAD_KING_SQ,
    BAD_PIECE_ID,
    BAD_CASTLING,
    BAD_EP,
    BAD_EP_FAR,
    BAD_CLOCK,
    BAD_PHASE,
    PHASE_VS_STATUS,
    BAD_HISTORY_POINTER,
    BAD_HISTORY_CODE,
    BAD_HISTORY_OCCUPIED,
    BAD_HISTORY_FIELD,
    BAD_REP_COUNT,
    CLASSIC_HAS_TARDIS,
    BAD_TARDIS_SQ,
    TARDIS_SQ_TAKEN,
    BAD_FLAG,
    BAD_TARDIS_PLY,
    BAD_DOCTOR_SQ,
    BAD_PASSENGER,
    BAD_BACKWARD_TRAVELS,
    BAD_EVICTED,
    BAD_WINNER,
    BAD_REASON,
    BAD_LAST_KIND,
    BAD_LAST_SQUARE,
    BAD_LAST_PIECE,
    BAD_TARDIS_PREV,
    BAD_LAST_TRAVEL,
) = range(1, 32)

PROBLEMS = (
    ("valid", "-"),
    ("square", "a piece code the game uses (0 empty, 1..6 white, 9..14 black, 7 Dr. Who in the variant)"),
    ("kings", "exactly one king of each side on the board"),
    ("king square", "the square of that side's king on the board"),
    ("piece id", f"0 on an empty square, {DOCTOR_ID} under Dr. Who, a distinct 1..255 under each chess piece"),
    ("castling rights", "bits 0..15"),
    ("en-passant square", "-1 or a square on rank 3/6 (2/7 too after an advance from the first rank in the variant)"),
    ("far en-passant square", "-1, or the square a three-square advance passed beyond the en-passant square"),
    ("clock (halfmove, fullmove, ply)", "halfmove >= 0, fullmove >= 1, ply >= 0"),
    ("phase", f"0 (move) .. {PHASE_OVER} (over); classic chess has no eviction or follow-up"),
    ("phase", f"{PHASE_OVER} (over) exactly when the status is not running"),
    ("history pointer", f"top 0..{HISTORY - 1}, count 1..{HISTORY}"),
    ("history entry", "piece codes the game uses"),
    ("history entry's occupied squares", "the squares its pieces stand on"),
    ("history entry's field", "castling 0..15, en-passant -1..63, halfmove >= 0, fullmove >= 1, a non-king passenger"),
    ("repetition count", "a count >= 1"),
    ("TARDIS fields of classic chess", "no TARDIS (-1), no Dr. Who, no passenger"),
    ("TARDIS square", "a square 0..63"),
    ("TARDIS square", "no piece on the board on the TARDIS's square while it is there"),
    ("flag (TARDIS absent, zeroing)", "0 or 1"),
    ("TARDIS ply", "return ply 0..ply+10, entry ply 0..ply, cool-down 0..ply+5, last travel -100..ply"),
    ("Dr. Who's square", "-1 (inside the TARDIS) or the one square of the board holding Dr. Who"),
    ("passenger", "0 (none) or a non-king chess piece, with an id exactly when there is one"),
    ("backward time travels", f"0..{MAX_BACKWARD_TRAVELS}"),
    ("evicted piece", "0 (none) or a non-king chess piece, one exactly in the eviction phase (kept by a game over)"),
    ("winner", "-1 (none or a draw), 0 or 1"),
    ("result reason", f"0 .. {REASON_MAX_PLIES}"),
    ("last turn's kind", f"0 (none) .. {KIND_FORWARD}; a follow-up is none, a TARDIS move or a time travel"),
    ("last turn's square", "-1 (none) or 0..63; a square wherever the turn's kind has one"),
    ("last turn's piece", "0 or a piece code (the one that moved: Dr. Who's for his move); a promotion 0 or 2..5"),
    ("TARDIS's previous square", "-1 (none) or a square 0..63"),
    ("last turn's time travel", f"1..{MAX_TRAVEL} plies"),
)


@njit
def _chess_piece(code):
    """One side's pawn .. king (``type | colour << 3``)."""
    return 0 <= code <= 14 and 1 <= (code & 7) <= KING


@njit
def _board_code(code, doctor):
    """A code a square may hold: empty, each side's six pieces, Dr. Who in the variant."""
    if code == DOCTOR:
        return doctor
    return code == EMPTY or _chess_piece(code)


@njit
def _passenger_code(code):
    """No piece, or a chess piece that is not a king."""
    return code == EMPTY or (_chess_piece(code) and (code & 7) != KING)


@njit
def _ep_square(ep, doctor):
    rank = ep >> 3
    return ep == -1 or (0 <= ep < 64 and (rank == 2 or rank == 5 or (doctor and (rank == 1 or rank == 6))))


@njit
def _ep_far(ep, far, doctor):
    if far == -1:
        return True
    rank = ep >> 3
    return doctor and 0 <= ep < 64 and ((rank == 2 and far == ep - 8) or (rank == 5 and far == ep + 8))


@njit
def check_state(state, tables):
    """``(0, -1)`` for a valid Dr. Who Chess state, else ``(code, index)`` (``PROBLEMS``)."""
    doctor = tables[T_DOCTOR] != 0
    for sq in range(64):
        if not _board_code(state[BOARD + sq], doctor):
            return BAD_CODE, BOARD + sq
    for colour in range(2):
        kings = 0
        for sq in range(64):
            kings += state[BOARD + sq] == (KING | colour << 3)
        if kings != 1:
            return BAD_KINGS, -1
        at = state[KING_SQ + colour]
        if not 0 <= at < 64 or state[BOARD + at] != (KING | colour << 3):
            return BAD_KING_SQ, KING_SQ + colour
    # piece ids: 0 on empty squares, Dr. Who's own, the others distinct (backward travel finds a piece by it)
    seen0 = 0
    seen1 = 0
    seen2 = 0
    seen3 = 0
    for i in range(65):
        if i < 64:
            code = state[BOARD + i]
            ident = state[PIECE_ID + i]
            at = PIECE_ID + i
        else:
            code = state[PASSENGER]
            ident = state[PASSENGER_ID]
            at = PASSENGER_ID
        if code == EMPTY or code == DOCTOR:
            if ident != (DOCTOR_ID if code == DOCTOR else 0):
                return BAD_PIECE_ID, at
            continue
        if not 1 <= ident <= 255 or ident == DOCTOR_ID:
            return BAD_PIECE_ID, at
        word = ident >> 6
        bit = 1 << (ident & 63)
        held = seen0 if word == 0 else seen1 if word == 1 else seen2 if word == 2 else seen3
        if held & bit:
            return BAD_PIECE_ID, at
        if word == 0:
            seen0 |= bit
        elif word == 1:
            seen1 |= bit
        elif word == 2:
            seen2 |= bit
        else:
            seen3 |= bit
    if not 0 <= state[CASTLING] <= 15:
        return BAD_CASTLING, CASTLING
    if not _ep_square(state[EP_SQUARE], doctor):
        return BAD_EP, EP_SQUARE
    if not _ep_far(state[EP_SQUARE], state[EP_SQUARE_FAR], doctor):
        return BAD_EP_FAR, EP_SQUARE_FAR
    if state[HALFMOVE] < 0:
        return BAD_CLOCK, HALFMOVE
    if state[FULLMOVE] < 1:
        return BAD_CLOCK, FULLMOVE
    if state[PLY] < 0:
        return BAD_CLOCK, PLY
    phase = state[PHASE]
    if not PHASE_MOVE <= phase <= PHASE_OVER or (not doctor and phase != PHASE_MOVE and phase != PHASE_OVER):
        return BAD_PHASE, PHASE
    if (phase == PHASE_OVER) != (state[STATUS] != RUNNING):
        return PHASE_VS_STATUS, PHASE
    code, index = _check_history(state, doctor)
    if code != VALID:
        return code, index
    if state[REP_COUNT] < 1:
        return BAD_REP_COUNT, REP_COUNT
    code, index = _check_tardis(state, doctor)
    if code != VALID:
        return code, index
    if not -1 <= state[WINNER] <= 1:
        return BAD_WINNER, WINNER
    if not 0 <= state[REASON] <= REASON_MAX_PLIES:
        return BAD_REASON, REASON
    return _check_last_turn(state)


@njit
def _check_last_turn(state):
    """The record of the last turn (``describe`` and the drawing read it): its kind, then
    squares for a move, plies for a time travel, the piece that moved."""
    kind = state[LAST_KIND]
    if not KIND_NONE <= kind <= KIND_FORWARD:
        return BAD_LAST_KIND, LAST_KIND
    for at in (LAST_FROM, LAST_TO, LAST_FOLLOW_ARG, LAST_EVICT_SQ, LAST_AUTO_PROMOTION):
        if not -1 <= state[at] < 64:
            return BAD_LAST_SQUARE, at
    if kind == KIND_CHESS or kind == KIND_DOCTOR:
        if state[LAST_FROM] < 0 or state[LAST_TO] < 0:
            return BAD_LAST_SQUARE, LAST_FROM if state[LAST_FROM] < 0 else LAST_TO
        if (kind == KIND_DOCTOR and state[LAST_PIECE] != DOCTOR) or (kind == KIND_CHESS and not _chess_piece(state[LAST_PIECE])):
            return BAD_LAST_PIECE, LAST_PIECE
    elif kind == KIND_TARDIS:
        if state[LAST_TO] < 0:
            return BAD_LAST_SQUARE, LAST_TO
    elif kind != KIND_NONE and not 1 <= state[LAST_TO] <= MAX_TRAVEL:
        return BAD_LAST_TRAVEL, LAST_TO
    if not (state[LAST_PIECE] == EMPTY or state[LAST_PIECE] == DOCTOR or _chess_piece(state[LAST_PIECE])):
        return BAD_LAST_PIECE, LAST_PIECE
    if not (state[LAST_CAPTURED] == EMPTY or _chess_piece(state[LAST_CAPTURED])):
        return BAD_LAST_PIECE, LAST_CAPTURED
    if not (state[LAST_PROMOTION] == EMPTY or KNIGHT <= state[LAST_PROMOTION] <= QUEEN):
        return BAD_LAST_PIECE, LAST_PROMOTION
    follow = state[LAST_FOLLOW_KIND]
    if not (follow == KIND_NONE or KIND_TARDIS <= follow <= KIND_FORWARD):
        return BAD_LAST_KIND, LAST_FOLLOW_KIND
    if follow == KIND_TARDIS and state[LAST_FOLLOW_ARG] < 0:
        return BAD_LAST_SQUARE, LAST_FOLLOW_ARG
    if follow > KIND_TARDIS and not 1 <= state[LAST_FOLLOW_ARG] <= MAX_TRAVEL:
        return BAD_LAST_TRAVEL, LAST_FOLLOW_ARG
    return VALID, -1


@njit
def _check_history(state, doctor):
    """The stored history entries (``HIST_COUNT`` back from ``HIST_TOP``): codes the game
    uses, the occupied-squares word the observation walks agreeing with them, and the
    fields a backward time travel restores."""
    top = state[HIST_TOP]
    count = state[HIST_COUNT]
    if not 0 <= top < HISTORY:
        return BAD_HISTORY_POINTER, HIST_TOP
    if not 1 <= count <= HISTORY:
        return BAD_HISTORY_POINTER, HIST_COUNT
    for back in range(count):
        at = HIST + ((top - back) % HISTORY) * SNAP_SIZE
        occupied = 0
        for sq in range(64):
            code = (state[at + SNAP_CODES + (sq >> 4)] >> (4 * (sq & 15))) & 15
            if not _board_code(code, doctor):
                return BAD_HISTORY_CODE, at + SNAP_CODES + (sq >> 4)
            if code != EMPTY:
                occupied |= 1 << sq
        if occupied != state[at + SNAP_OCCUPIED]:
            return BAD_HISTORY_OCCUPIED, at + SNAP_OCCUPIED
        if not 0 <= state[at + SNAP_CASTLING] <= 15:
            return BAD_HISTORY_FIELD, at + SNAP_CASTLING
        if not _ep_square(state[at + SNAP_EP], doctor):
            return BAD_HISTORY_FIELD, at + SNAP_EP
        if not _ep_far(state[at + SNAP_EP], state[at + SNAP_EP_FAR], doctor):
            return BAD_HISTORY_FIELD, at + SNAP_EP_FAR
        if state[at + SNAP_HALFMOVE] < 0:
            return BAD_HISTORY_FIELD, at + SNAP_HALFMOVE
        if state[at + SNAP_FULLMOVE] < 1:
            return BAD_HISTORY_FIELD, at + SNAP_FULLMOVE
        if not _passenger_code(state[at + SNAP_PASSENGER]) or (not doctor and state[at + SNAP_PASSENGER] != EMPTY):
            return BAD_HISTORY_FIELD, at + SNAP_PASSENGER
        if not 0 <= state[at + SNAP_PASSENGER_ID] <= 255:
            return BAD_HISTORY_FIELD, at + SNAP_PASSENGER_ID
    return VALID, -1


@njit
def _check_tardis(state, doctor):
    """The TARDIS, Dr. Who, the passenger, the evicted piece and the plies they count from."""
    ply = state[PLY]
    passenger = state[PASSENGER]
    if not _passenger_code(passenger) or (passenger == EMPTY) != (state[PASSENGER_ID] == 0):
        return BAD_PASSENGER, PASSENGER
    for at in (TARDIS_ABSENT, ZEROING):
        if not 0 <= state[at] <= 1:
            return BAD_FLAG, at
    if not doctor:
        for at in (TARDIS_SQ, DOCTOR_SQ):
            if state[at] != -1:
                return CLASSIC_HAS_TARDIS, at
        if passenger != EMPTY:
            return CLASSIC_HAS_TARDIS, PASSENGER
        if state[TARDIS_ABSENT] != 0:
            return CLASSIC_HAS_TARDIS, TARDIS_ABSENT
    else:
        tardis = state[TARDIS_SQ]
        if not 0 <= tardis < 64:
            return BAD_TARDIS_SQ, TARDIS_SQ
        if state[TARDIS_ABSENT] == 0 and state[BOARD + tardis] != EMPTY:
            return TARDIS_SQ_TAKEN, TARDIS_SQ
        doctor_sq = state[DOCTOR_SQ]
        on_board = 0
        for sq in range(64):
            on_board += state[BOARD + sq] == DOCTOR
        if doctor_sq == -1:
            if on_board != 0:
                return BAD_DOCTOR_SQ, DOCTOR_SQ
        elif not 0 <= doctor_sq < 64 or on_board != 1 or state[BOARD + doctor_sq] != DOCTOR:
            return BAD_DOCTOR_SQ, DOCTOR_SQ
    if not -1 <= state[TARDIS_PREV_SQ] < 64:
        return BAD_TARDIS_PREV, TARDIS_PREV_SQ
    if not 0 <= state[TARDIS_RETURN_PLY] <= ply + MAX_TRAVEL:
        return BAD_TARDIS_PLY, TARDIS_RETURN_PLY
    if not 0 <= state[PASSENGER_ENTRY_PLY] <= ply:
        return BAD_TARDIS_PLY, PASSENGER_ENTRY_PLY
    if not 0 <= state[COOLDOWN_UNTIL] <= ply + COOLDOWN_PLIES:
        return BAD_TARDIS_PLY, COOLDOWN_UNTIL
    if not NO_TRAVEL <= state[LAST_TRAVEL_PLY] <= ply:
        return BAD_TARDIS_PLY, LAST_TRAVEL_PLY
    i = first_outside(state, BACKWARD_TRAVELS, 2, 0, MAX_BACKWARD_TRAVELS)
    if i >= 0:
        return BAD_BACKWARD_TRAVELS, i
    evicted = state[EVICTED]
    # (a game ended by an illegal action in the eviction phase keeps its evicted piece)
    if not _passenger_code(evicted) or (state[PHASE] != PHASE_OVER and (evicted != EMPTY) != (state[PHASE] == PHASE_EVICT)):
        return BAD_EVICTED, EVICTED
    if not 0 <= state[EVICTED_ID] <= 255 or (evicted == EMPTY and state[EVICTED_ID] != 0):
        return BAD_EVICTED, EVICTED_ID
    return VALID, -1


# --- states saved under an earlier layout ----------------------------------------
# The state's layout before the history ring was packed (up to tardis_envs commit 519551a):
# each of the HISTORY entries was 64 words (square sq: piece code | piece id << 4) and the
# seven fields of the current entry, from SNAP_CASTLING on, in the same order.
EARLIER_SNAP_SIZE = 71
EARLIER_STATE_SIZE = layout.HIST + layout.HISTORY * EARLIER_SNAP_SIZE
_SNAP_FIELDS = layout.SNAP_SIZE - layout.SNAP_CASTLING


def upgrade_from_layout_1(game, state: np.ndarray) -> np.ndarray:
    """A state of the layout before the history ring was packed (``EARLIER_STATE_SIZE``
    words: a word per square in each history entry), rewritten in layout 2."""
    current = np.zeros(layout.STATE_SIZE, dtype=np.int64)
    current[: layout.HIST] = state[: layout.HIST]
    for entry in range(layout.HISTORY):
        earlier = state[layout.HIST + entry * EARLIER_SNAP_SIZE : layout.HIST + (entry + 1) * EARLIER_SNAP_SIZE].astype(np.int64)
        squares = earlier[:64]
        if ((squares < 0) | (squares >= 256 << 4)).any():
            raise ValueError(f"{game.spec.env_id}: corrupt state (earlier layout): history entry {entry} has a square word out of range")
        at = layout.HIST + entry * layout.SNAP_SIZE
        write_snapshot_squares(current, at, squares & 15, squares >> 4)
        current[at + layout.SNAP_CASTLING : at + layout.SNAP_SIZE] = earlier[64 : 64 + _SNAP_FIELDS]
    return current


EARLIER_LAYOUTS = (EarlierLayout(version=1, state_size=EARLIER_STATE_SIZE, upgrade=upgrade_from_layout_1),)
