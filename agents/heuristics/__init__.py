"""Hand-written heuristics, one per game, as numba kernels over the state.

Each module exposes ``choose(state, tables) -> action`` for one game and
``choose_batch(states, tables, out)`` over many; :class:`HeuristicAgent`
wraps them behind the common agent interface. Kernels keep the batched
self-play loop in compiled code (no per-game Python).
"""
from __future__ import annotations

import importlib

import numpy as np

from ..base import Agent

HEURISTIC_MODULES = {
    "tardis_run_v0": "agents.heuristics.tardis_run",
}


class HeuristicAgent(Agent):
    name = "heuristic"

    def __init__(self, game, seed: int | None = None):
        super().__init__(game, seed)
        env_id = game.spec.env_id
        if env_id not in HEURISTIC_MODULES:
            raise ValueError(f"no heuristic agent for {env_id!r}; available for: {', '.join(HEURISTIC_MODULES)}")
        self.kernels = importlib.import_module(HEURISTIC_MODULES[env_id])

    def act_batch(self, states: np.ndarray, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        out = np.empty(states.shape[0], dtype=np.int64)
        self.kernels.choose_batch(np.ascontiguousarray(states), self.game.tables, out)
        return out
