"""The uniform-random legal agent: every legal action equally likely."""

from __future__ import annotations

import numpy as np

from .base import Agent, uniform_legal


class RandomAgent(Agent):
    name = "random"
    needs_observations = False

    def act_batch(self, states: np.ndarray, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return uniform_legal(self.rng, masks)
