"""TARDIS Run: ``check_state``, every word of a state from outside against its range and
the game's invariants (the contract in :mod:`tardis_envs.core.state`)."""

from __future__ import annotations

from ...core.game import EarlierLayout
from ...core.jit import njit
from ...core.state import CURRENT_PLAYER, RUNNING, STATUS, VALID, first_outside
from .content import T_TRACK_LENGTH
from .layout import (
    BLACK_PADDLE_OWNER,
    EXTRA_CANCELLED,
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
    NUM_PADDLES,
    NUM_PIECES,
    NUM_SEATS,
    OUT_ROLLED_ONLY,
    PENDING_PROGRESS,
    PHASE,
    PHASE_EXTRA_MOVE,
    PHASE_OVER,
    PROGRESS,
    TURN,
    WINNER,
)
from .rules import extra_target, square_of

MAX_SEALS = 12  # four white paddles' six seals, doubled by the black paddle's "2x"

(
    BAD_PROGRESS,
    UNSORTED,
    CROWDED,
    BAD_OWNER,
    BAD_PHASE,
    PHASE_VS_STATUS,
    BAD_PENDING,
    NO_EXTRA_MOVE,
    BAD_TURN,
    BAD_WINNER,
    BAD_LAST_PLAYER,
    BAD_LAST_RANK,
    BAD_LAST_FLAG,
    BAD_LAST_FACE,
    BAD_LAST_SEALS,
    BAD_LAST_OUTCOME,
    BAD_LAST_SQUARE,
    BAD_LAST_CAPTURES,
    BAD_LAST_EXTRA,
) = range(1, 20)

PROBLEMS = (
    ("valid", "-"),
    ("piece progress", "0 (home) .. track length + 1 (escaped)"),
    ("piece progress", "each side's pieces sorted, most advanced first"),
    ("piece progress", "at most two pieces on a square, both of one side"),
    ("black paddle owner", "-1 (unclaimed), 0 or 1"),
    ("phase", "0 (choose piece), 1 (extra move) or 2 (game over)"),
    ("phase", "2 (game over) exactly when the status is not running"),
    ("pending progress", "-1 or a progress 0 .. track length + 1"),
    ("pending progress", "in the extra-move phase, a piece of the mover on an arrow or teleport square"),
    ("turn", "a count >= 0"),
    ("winner", "-1 (none), 0 or 1"),
    ("last roll's player", "-1 (no roll yet), 0 or 1"),
    ("last roll's piece rank", "-1 (none) .. 3"),
    ("last roll's black-paddle flag", "0 or 1"),
    ("last roll's paddle face", "-1 (not rolled), 0 or 1"),
    ("last roll's seals", f"-1 (none) .. {MAX_SEALS}"),
    ("last roll's outcome", f"0 .. {OUT_ROLLED_ONLY}"),
    ("last roll's square", "-1 (none) .. track length"),
    ("last roll's captures", "0 or 1"),
    ("last roll's extra move", f"0 .. {EXTRA_CANCELLED}"),
)


@njit
def check_state(state, tables):
    """``(0, -1)`` for a valid TARDIS Run state, else ``(code, index)`` (``PROBLEMS``)."""
    track_length = tables[T_TRACK_LENGTH]
    i = first_outside(state, PROGRESS, NUM_SEATS * NUM_PIECES, 0, track_length + 1)
    if i >= 0:
        return BAD_PROGRESS, i
    for seat in range(NUM_SEATS):
        base = PROGRESS + NUM_PIECES * seat
        for r in range(1, NUM_PIECES):
            if state[base + r] > state[base + r - 1]:
                return UNSORTED, base + r
    # at most two pieces a square, never of both sides (a landing captures a lone opponent)
    for seat in range(NUM_SEATS):
        for r in range(NUM_PIECES):
            at = PROGRESS + NUM_PIECES * seat + r
            p = state[at]
            if p == 0 or p == track_length + 1:
                continue
            square = square_of(seat, p, track_length)
            mine = 0
            theirs = 0
            for other in range(NUM_PIECES):
                mine += state[PROGRESS + NUM_PIECES * seat + other] == p
                theirs += state[PROGRESS + NUM_PIECES * (1 - seat) + other] == square_of(1 - seat, square, track_length)
            if mine > 2 or theirs > 0:
                return CROWDED, at
    if not -1 <= state[BLACK_PADDLE_OWNER] <= 1:
        return BAD_OWNER, BLACK_PADDLE_OWNER
    if not 0 <= state[PHASE] <= PHASE_OVER:
        return BAD_PHASE, PHASE
    if (state[PHASE] == PHASE_OVER) != (state[STATUS] != RUNNING):
        return PHASE_VS_STATUS, PHASE
    pending = state[PENDING_PROGRESS]
    if not -1 <= pending <= track_length + 1:
        return BAD_PENDING, PENDING_PROGRESS
    if state[PHASE] == PHASE_EXTRA_MOVE:
        seat = state[CURRENT_PLAYER]
        held = False
        for r in range(NUM_PIECES):
            held = held or state[PROGRESS + NUM_PIECES * seat + r] == pending
        if not held or not 1 <= pending <= track_length or extra_target(tables, square_of(seat, pending, track_length)) == 0:
            return NO_EXTRA_MOVE, PENDING_PROGRESS
    if state[TURN] < 0:
        return BAD_TURN, TURN
    if not -1 <= state[WINNER] <= 1:
        return BAD_WINNER, WINNER
    if not -1 <= state[LAST_PLAYER] <= 1:
        return BAD_LAST_PLAYER, LAST_PLAYER
    if not -1 <= state[LAST_RANK] < NUM_PIECES:
        return BAD_LAST_RANK, LAST_RANK
    if not 0 <= state[LAST_USED_BLACK] <= 1:
        return BAD_LAST_FLAG, LAST_USED_BLACK
    i = first_outside(state, LAST_FACES, NUM_PADDLES, -1, 1)
    if i >= 0:
        return BAD_LAST_FACE, i
    if not -1 <= state[LAST_SEALS] <= MAX_SEALS:
        return BAD_LAST_SEALS, LAST_SEALS
    if not 0 <= state[LAST_OUTCOME] <= OUT_ROLLED_ONLY:
        return BAD_LAST_OUTCOME, LAST_OUTCOME
    for at in (LAST_FROM, LAST_TO, LAST_EXTRA_TO):
        if not -1 <= state[at] <= track_length:
            return BAD_LAST_SQUARE, at
    for at in (LAST_CAPTURES, LAST_EXTRA_CAPTURES):
        if not 0 <= state[at] <= 1:
            return BAD_LAST_CAPTURES, at
    if not 0 <= state[LAST_EXTRA] <= EXTRA_CANCELLED:
        return BAD_LAST_EXTRA, LAST_EXTRA
    return VALID, -1


# no state was ever stored in another layout of this game
EARLIER_LAYOUTS: tuple[EarlierLayout, ...] = ()
