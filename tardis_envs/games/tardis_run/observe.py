"""TARDIS Run's observation kernel: what one seat sees, as the planes described in
:mod:`.layout` (the whole board: TARDIS Run hides nothing)."""

from __future__ import annotations

from ...core.jit import njit
from ...core.observation import put
from ...core.state import CURRENT_PLAYER
from .content import BOARD_VIEW_SIZE, T_BOARD_VIEW, T_TRACK_LENGTH
from .layout import (
    BLACK_PADDLE_OWNER,
    NUM_PIECES,
    OBS_ARROW,
    OBS_ARROW_SHIFT,
    OBS_EXTRA_PENDING,
    OBS_HOLD_BLACK,
    OBS_OPPONENT_HOLDS_BLACK,
    OBS_OPPONENT_PIECE,
    OBS_OWN_PIECE,
    OBS_PENDING_PIECE,
    OBS_TELEPORT,
    OBS_TELEPORT_SHIFT,
    PENDING_PROGRESS,
    PHASE,
    PHASE_EXTRA_MOVE,
    PROGRESS,
)


@njit
def observe(state, tables, player, out):
    """Planes of ``L + 2`` columns, column = progress from ``player``'s home.

    Opponent pieces are drawn at the column of their square in the observer's
    progress (``L + 1 - q``): their home sits past the observer's exit (column
    ``L + 1``) and their escaped pieces at the observer's home (column 0).
    """
    out[:] = 0.0
    track_length = tables[T_TRACK_LENGTH]
    width = track_length + 2
    other = 1 - player
    for r in range(NUM_PIECES):
        p = state[PROGRESS + NUM_PIECES * player + r]
        out[(OBS_OWN_PIECE + r) * width + p] = 1.0
        q = state[PROGRESS + NUM_PIECES * other + r]
        out[(OBS_OPPONENT_PIECE + r) * width + track_length + 1 - q] = 1.0
    view = T_BOARD_VIEW + player * BOARD_VIEW_SIZE
    for e in range(tables[view]):
        kind, col, shift = tables[view + 1 + 3 * e], tables[view + 2 + 3 * e], tables[view + 3 + 3 * e]
        if kind == 0:
            out[OBS_ARROW * width + col] = 1.0
            put(out, OBS_ARROW_SHIFT * width + col, shift, track_length)
        else:
            out[OBS_TELEPORT * width + col] = 1.0
            put(out, OBS_TELEPORT_SHIFT * width + col, shift, track_length)
    owner = state[BLACK_PADDLE_OWNER]
    if owner == player:
        out[OBS_HOLD_BLACK * width : (OBS_HOLD_BLACK + 1) * width] = 1.0
    elif owner == other:
        out[OBS_OPPONENT_HOLDS_BLACK * width : (OBS_OPPONENT_HOLDS_BLACK + 1) * width] = 1.0
    if state[PHASE] == PHASE_EXTRA_MOVE and state[CURRENT_PLAYER] == player:
        out[OBS_EXTRA_PENDING * width : (OBS_EXTRA_PENDING + 1) * width] = 1.0
        out[OBS_PENDING_PIECE * width + state[PENDING_PROGRESS]] = 1.0
