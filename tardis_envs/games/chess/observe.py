"""Dr. Who Chess observation: ``NUM_PLANES`` planes of 8 x 8 in the observer's frame
(the plane table is in ``tardis_envs/timelord_chess_v1.py``).

Options change the layout: ``history_planes`` keeps that many earlier positions
(the planes after the history move up), ``threat_planes`` appends eight planes of
attackers, pieces en prise and the moves that mate at once (``mating_moves``: they need
the rules' ``step``).

The planes are written with :func:`~tardis_envs.core.observation.mark`, ``fill`` and
``put_one``, so the same kernel compiled for an ``int64`` output writes the packed
observation (``obs_dtype="packed"``: one word a plane; ``TimelordChess._packed_plane_kinds``
says how each is read). The threat planes hold a value per square and have no packed form."""

from __future__ import annotations

import numpy as np
from numba.extending import overload

from ...core.jit import njit, njit_alloc
from ...core.observation import fill, mark, mark_bits, put, put_one
from ...core.sampling import bmi2_or, extract_bits, reversed_bytes
from ...core.state import CURRENT_PLAYER, RUNNING, STATUS, TERMINATED, copy_state
from .board import (
    ATTACKER_VALUE,
    attackers,
    repetitions,
)
from .layout import (
    A_END_TURN,
    BACKWARD_TRAVELS,
    BLACK,
    BOARD,
    CASTLING,
    COOLDOWN_PLIES,
    COOLDOWN_UNTIL,
    DOCTOR,
    DOCTOR_SQ,
    EMPTY,
    EP_SQUARE,
    EVICTED,
    HALFMOVE,
    HIST_COUNT,
    KICK_OUT_PLIES,
    KING,
    LAST_TRAVEL_PLY,
    MAX_BACKWARD_TRAVELS,
    MAX_TRAVEL,
    NUM_ACTIONS,
    NUM_CHESS_ACTIONS,
    NUM_PIECE_PLANES,
    NUM_PLANES,
    P_BACKWARD_TRAVELS,
    P_CASTLING,
    P_COLOUR,
    P_COOLDOWN,
    P_DOCTOR,
    P_DOCTOR_INSIDE,
    P_EN_PASSANT,
    P_EVICTED,
    P_HALFMOVE,
    P_HISTORY,
    P_HISTORY_DEPTH,
    P_PASSENGER,
    P_PASSENGER_TURNS,
    P_PHASE_EVICT,
    P_PHASE_FOLLOW_UP,
    P_PLY,
    P_REPETITION,
    P_TARDIS,
    P_TARDIS_AWAY,
    P_TARDIS_PREV,
    P_TRAVEL_BAN,
    PASSENGER,
    PASSENGER_ENTRY_PLY,
    PHASE,
    PHASE_EVICT,
    PHASE_FOLLOW_UP,
    PHASE_MOVE,
    PLY,
    SNAP_CODES,
    STATE_SIZE,
    T_HISTORY_PLANES,
    T_MAX_PLIES,
    T_THREAT_PLANES,
    TARDIS_ABSENT,
    TARDIS_PREV_SQ,
    TARDIS_RETURN_PLY,
    TARDIS_SQ,
    TRAVEL_BAN_PLIES,
    WINNER,
    frame,
    planes_left_out,
)
from .rules import action_squares, legal_mask, step
from .tardis import (
    history_slot,
)


@njit
def _piece_plane(code, observer):
    """History-plane index of a chess piece code for ``observer`` (-1 none)."""
    if code == EMPTY or code == DOCTOR:
        return -1
    t = (code & 7) - 1
    return t if (code >> 3) == observer else 6 + t


_NIBBLE_LOW_BITS = np.uint64(0x1111111111111111)


@njit
def gather_nibble_bits(word):
    """Bit ``4 j`` of ``word`` moved to bit ``j`` (j = 0..15), the other bits dropped."""
    word &= _NIBBLE_LOW_BITS
    word = (word | (word >> np.uint64(3))) & np.uint64(0x0303030303030303)
    word = (word | (word >> np.uint64(6))) & np.uint64(0x000F000F000F000F)
    word = (word | (word >> np.uint64(12))) & np.uint64(0x000000FF000000FF)
    return (word | (word >> np.uint64(24))) & np.uint64(0xFFFF)


def nibble_bits(word, bit):  # pragma: no cover - replaced in numba by the overload below
    """Bit ``bit`` of each of the sixteen 4-bit codes of ``word``, as sixteen bits."""
    raise NotImplementedError("nibble_bits runs inside numba only")


def _nibble_bits_by_pext(word, bit):
    # one pext instead of nine shifts and masks: the observation's eleven positions take 16
    # of these each (one core, in cache: 303 -> 195 ns an observation)
    return extract_bits(word, _NIBBLE_LOW_BITS << np.uint64(bit))


def _nibble_bits_by_shifts(word, bit):
    return gather_nibble_bits(word >> np.uint64(bit))


@overload(nibble_bits)
def _nibble_bits(word, bit):
    return bmi2_or(_nibble_bits_by_pext, _nibble_bits_by_shifts)


@njit
def _code_bit_squares(state, at, bit):
    """The squares whose piece code (history entry at ``at``) has bit ``bit`` set."""
    squares = np.uint64(0)
    for word in range(4):  # 16 squares' 4-bit codes a word
        codes = np.uint64(state[at + SNAP_CODES + word])
        squares |= nibble_bits(codes, bit) << np.uint64(16 * word)
    return squares


@njit
def _position_planes(state, at, player, out, base):
    """The 12 piece planes of the history entry at ``at`` from plane ``base``: ``player``'s
    pawns .. king, then the opponent's, in ``player``'s frame. Worked out a set of squares
    at a time from the codes' four bits (colour << 3 | type; Dr. Who's 7 is no piece
    here), with no branch on what stands where."""
    type_1 = _code_bit_squares(state, at, 0)
    type_2 = _code_bit_squares(state, at, 1)
    type_4 = _code_bit_squares(state, at, 2)
    black = _code_bit_squares(state, at, 3)
    if player == BLACK:  # Black's frame: ranks mirrored, a set of squares' bytes reversed
        type_1, type_2, type_4, black = reversed_bytes(type_1), reversed_bytes(type_2), reversed_bytes(type_4), reversed_bytes(black)
    not_1, not_2, not_4 = ~type_1, ~type_2, ~type_4
    own = black if player == BLACK else ~black
    for t in range(6):  # pawn 1, knight 2, bishop 3, rook 4, queen 5, king 6
        if t == 0:
            kind = type_1 & not_2 & not_4
        elif t == 1:
            kind = not_1 & type_2 & not_4
        elif t == 2:
            kind = type_1 & type_2 & not_4
        elif t == 3:
            kind = not_1 & not_2 & type_4
        elif t == 4:
            kind = type_1 & not_2 & type_4
        else:
            kind = not_1 & type_2 & type_4
        mark_bits(out, base + t, kind & own)
        mark_bits(out, base + 6 + t, kind & ~own)


@njit
def threat_planes_at(tables):
    """Offset in the flat observation of the first threat plane."""
    return (NUM_PLANES - planes_left_out(tables[T_HISTORY_PLANES])) * 64


@njit
def observe_planes(state, tables, player, out):
    """Every plane but the mating moves (``observe`` adds those)."""
    out[:] = 0.0
    count = state[HIST_COUNT]
    positions = 1 + tables[T_HISTORY_PLANES]
    shift = planes_left_out(tables[T_HISTORY_PLANES])  # the planes after the history move up
    for h in range(min(count, positions)):
        _position_planes(state, history_slot(state, h), player, out, P_HISTORY + h * NUM_PIECE_PLANES)
    if player == BLACK:
        fill(out, -shift + P_COLOUR, 1, 1)
    fill(out, -shift + P_PLY, state[PLY], max(tables[T_MAX_PLIES], 1))
    castling = state[CASTLING]
    own = (castling >> (2 * player)) & 3
    opp = (castling >> (2 * (1 - player))) & 3
    if own & 1:
        fill(out, -shift + P_CASTLING, 1, 1)
    if own & 2:
        fill(out, -shift + P_CASTLING + 1, 1, 1)
    if opp & 1:
        fill(out, -shift + P_CASTLING + 2, 1, 1)
    if opp & 2:
        fill(out, -shift + P_CASTLING + 3, 1, 1)
    fill(out, -shift + P_HALFMOVE, min(state[HALFMOVE], 100), 100)
    fill(out, -shift + P_REPETITION, min(max(repetitions(state) - 1, 0), 2), 2)
    for which in range(2):
        if state[EP_SQUARE + which] >= 0:
            mark(out, P_EN_PASSANT - shift, frame(state[EP_SQUARE + which], player))
    tsq = state[TARDIS_SQ]
    if tsq >= 0:
        ftsq = frame(tsq, player)
        if state[TARDIS_ABSENT] == 1:
            put_one(out, P_TARDIS_AWAY - shift, ftsq, min(max(state[TARDIS_RETURN_PLY] - state[PLY], 0), MAX_TRAVEL), MAX_TRAVEL)
        else:
            mark(out, P_TARDIS - shift, ftsq)
        if state[TARDIS_PREV_SQ] >= 0:
            mark(out, P_TARDIS_PREV - shift, frame(state[TARDIS_PREV_SQ], player))
        if state[DOCTOR_SQ] >= 0:
            mark(out, P_DOCTOR - shift, frame(state[DOCTOR_SQ], player))
        else:
            mark(out, P_DOCTOR - shift, ftsq)
            fill(out, -shift + P_DOCTOR_INSIDE, 1, 1)
        plane = _piece_plane(state[PASSENGER], player)
        if plane >= 0:
            mark(out, P_PASSENGER - shift + plane, ftsq)
            fill(out, -shift + P_PASSENGER_TURNS, min(state[PLY] - state[PASSENGER_ENTRY_PLY], KICK_OUT_PLIES), KICK_OUT_PLIES)
        fill(out, -shift + P_COOLDOWN, min(max(state[COOLDOWN_UNTIL] - state[PLY], 0), COOLDOWN_PLIES), COOLDOWN_PLIES)
        ban = TRAVEL_BAN_PLIES + 1 - (state[PLY] - state[LAST_TRAVEL_PLY])
        fill(out, -shift + P_TRAVEL_BAN, min(max(ban, 0), TRAVEL_BAN_PLIES), TRAVEL_BAN_PLIES)
        fill(out, -shift + P_BACKWARD_TRAVELS, state[BACKWARD_TRAVELS + player], MAX_BACKWARD_TRAVELS)
        fill(out, -shift + P_BACKWARD_TRAVELS + 1, state[BACKWARD_TRAVELS + 1 - player], MAX_BACKWARD_TRAVELS)
        fill(out, -shift + P_HISTORY_DEPTH, min(state[HIST_COUNT] - 1, MAX_TRAVEL), MAX_TRAVEL)
        if state[PHASE] == PHASE_EVICT:
            fill(out, -shift + P_PHASE_EVICT, 1, 1)
            e = state[EVICTED]
            fill(out, -shift + P_EVICTED, (e & 7) if (e >> 3) == player else -(e & 7), 6)
        elif state[PHASE] == PHASE_FOLLOW_UP:
            fill(out, -shift + P_PHASE_FOLLOW_UP, 1, 1)
    if tables[T_THREAT_PLANES]:
        _threats(state, player, out, threat_planes_at(tables))


@njit
def _threats(state, player, out, at):
    """The threat planes (option ``threat_planes``) from offset ``at``: per square,
    the observer's and the opponent's attackers / 8, the exchange value of the
    least valuable attacker of each / 10, then the value / 10 of every piece
    that is en prise (attacked, and undefended or attacked by a cheaper piece),
    the observer's then the opponent's. Kings are never en prise here (an
    attacked king is check, which the mask already handles)."""
    for sq in range(64):
        at_sq = frame(sq, player)
        own_count, own_least = attackers(state, sq, player)
        opp_count, opp_least = attackers(state, sq, 1 - player)
        put(out, at + at_sq, min(own_count, 8), 8)
        put(out, at + 64 + at_sq, min(opp_count, 8), 8)
        put(out, at + 128 + at_sq, own_least, 10)
        put(out, at + 192 + at_sq, opp_least, 10)
        code = state[BOARD + sq]
        if code == EMPTY or code == DOCTOR or (code & 7) == KING:
            continue
        value = ATTACKER_VALUE[code & 7]
        if (code >> 3) == player:
            if opp_count > 0 and (own_count == 0 or opp_least < value):
                put(out, at + 256 + at_sq, value, 10)
        elif own_count > 0 and (opp_count == 0 or own_least < value):
            put(out, at + 320 + at_sq, value, 10)


@njit
def observe(state, tables, player, out):
    """The observation (``observe_planes``), and with ``threat_planes`` the mating moves of the
    side to move when it is the observer's turn to move."""
    observe_planes(state, tables, player, out)
    if tables[T_THREAT_PLANES] and player == state[CURRENT_PLAYER] and state[STATUS] == RUNNING and state[PHASE] == PHASE_MOVE:
        mating_moves(state, tables, out, threat_planes_at(tables) + 6 * 64)


@njit_alloc
def mating_moves(state, tables, out, at):
    """Mark the from square (``out[at + sq]``) and the to square (``out[at + 64 + sq]``), in the
    mover's frame, of every legal chess move that checkmates at once (after declining the
    optional follow-up when one is offered)."""
    mover = state[CURRENT_PLAYER]
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    legal_mask(state, tables, mask)
    child = np.empty(STATE_SIZE, dtype=np.int64)
    for action in range(NUM_CHESS_ACTIONS):
        if mask[action] == 0:
            continue
        copy_state(child, state)
        step(child, tables, action)
        if child[STATUS] == RUNNING and child[CURRENT_PLAYER] == mover and child[PHASE] == PHASE_FOLLOW_UP:
            step(child, tables, A_END_TURN)
        if child[STATUS] == TERMINATED and child[WINNER] == mover:
            frm, to = action_squares(state, action)
            out[at + frame(frm, mover)] = 1.0
            out[at + 64 + frame(to, mover)] = 1.0
