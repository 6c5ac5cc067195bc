"""The reward words of the state header (:mod:`tardis_envs.core.state`), written
the same way by every game: cleared at the start of each step, and on a win
+1 to the winner and -1 to every other seat (zero-sum for two players; draws
and truncation leave them at 0)."""

from __future__ import annotations

from .jit import njit
from .state import MAX_PLAYERS, REWARDS


@njit
def clear_rewards(state):
    for p in range(MAX_PLAYERS):
        state[REWARDS + p] = 0


@njit
def reward_win(state, winner, num_players):
    """+1 for ``winner``, -1 for the other seats; nothing for ``winner < 0`` (a draw)."""
    if winner < 0:
        return
    for p in range(num_players):
        state[REWARDS + p] = 1 if p == winner else -1
