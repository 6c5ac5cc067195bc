"""The ``heuristic`` agent: each game's hand-written heuristic behind the agent interface.

The heuristic itself lives with its game (``tardis_envs/games/<game>/heuristic.py``,
``game.heuristic``): ``choose(state, tables, weights) -> action`` for one game,
``choose_batch(states, tables, weights, out)`` over many, its tuned
``DEFAULT_WEIGHTS`` and optionally named ``PRESETS`` of weights
(``make_agent("heuristic:<preset>", game)``). Kernels keep the batched
self-play loop in compiled code (no per-game Python).
"""

from __future__ import annotations

import numpy as np

from ..base import Agent


class HeuristicAgent(Agent):
    name = "heuristic"
    needs_observations = False

    def __init__(self, game, seed: int | None = None, weights: np.ndarray | None = None, preset: str | None = None):
        super().__init__(game, seed)
        env_id = game.spec.env_id
        self.kernels = game.heuristic
        defaults = self.kernels.DEFAULT_WEIGHTS
        if preset is not None:
            presets = getattr(self.kernels, "PRESETS", {})
            if preset not in presets:
                raise ValueError(f"no heuristic preset {preset!r} for {env_id}; presets: {', '.join(presets) or '(none)'}")
            weights = presets[preset] if weights is None else weights
            self.name = f"heuristic:{preset}"
        self.weights = np.array(defaults if weights is None else weights, dtype=np.float64)
        if self.weights.shape != defaults.shape:
            raise ValueError(f"heuristic weights for {env_id} must have shape {defaults.shape}, got {self.weights.shape}")

    def act_batch(self, states: np.ndarray, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        out = np.empty(states.shape[0], dtype=np.int64)
        self.kernels.choose_batch(np.ascontiguousarray(states), self.game.tables, self.weights, out)
        return out
