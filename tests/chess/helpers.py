"""Building and playing Dr. Who Chess positions in tests."""

from __future__ import annotations

import numpy as np

from tardis_envs import timelord_chess_v1
from tardis_envs.core.state import STATUS
from tardis_envs.games.chess import layout, rules

VARIANT = timelord_chess_v1.Game(doctor=True)
CLASSIC = timelord_chess_v1.Game(doctor=False)


def legal(game, state) -> set[str]:
    """Legal actions of the side to move, in the game's notation."""
    return {game.action_to_string(state, int(a)) for a in game.legal_actions(state)}


def play(game, state, *moves: str) -> np.ndarray:
    """Play the moves (notation) one by one, asserting each is legal; returns the state.

    A pending optional follow-up (after any chess move while Dr. Who and a piece
    of the mover are in the TARDIS) is declined with ``end`` when the next move
    is not one of its actions."""
    for move in moves:
        if state[layout.PHASE] == layout.PHASE_FOLLOW_UP and move not in legal(game, state):
            rules.step(state, game.tables, layout.A_END_TURN)
        action = game.string_to_action(state, move)
        assert action in game.legal_actions(state), f"{move} is not legal; legal: {sorted(legal(game, state))}"
        rules.step(state, game.tables, action)
    return state


def position(fen: str, game=VARIANT) -> np.ndarray:
    """A running game from ``fen`` (a test about a live position must not pass
    because the game is already over, e.g. by insufficient material)."""
    state = game.from_fen(fen)
    assert state[STATUS] == 0, f"{fen} is already decided"
    return state


def status(state) -> int:
    return int(state[STATUS])
