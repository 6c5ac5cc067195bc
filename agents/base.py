"""One agent interface for every agent kind (random, heuristic, learned, search).

An agent decides for many games at once from the arrays the batched API
(:mod:`tardis_envs.vector`) exposes; deciding for a single AEC env goes through
the same method with a batch of one, so every agent works in both worlds.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np


class Agent(ABC):
    """Base class. Subclasses implement :meth:`act_batch`.

    Args:
        game: the env's ``Game`` (rules bound to options; ``env.unwrapped.game``).
        seed: seed of the agent's own randomness, if it has any.
    """

    name = "agent"
    needs_observations = True  # False: acts from states and masks alone (faster batched play)

    def __init__(self, game, seed: int | None = None):
        self.game = game
        self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act_batch(self, states: np.ndarray, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions (``int64[n]``) for ``n`` games whose player to move is this agent.

        ``states`` is ``int64[n, state_size]`` (full states: an agent that must
        not peek at hidden information reads only what its observation shows),
        ``observations`` the mover's ``float32[n, *obs_shape]`` views and
        ``masks`` the ``int8[n, num_actions]`` legal actions.
        """

    def act(self, env) -> int:
        """The action for the agent to move in a PettingZoo AEC env of this game."""
        raw = env.unwrapped
        seen = raw.observe(raw.agent_selection)
        actions = self.act_batch(raw.get_state()[None], seen["observation"][None], seen["action_mask"][None])
        return int(actions[0])

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.game.spec.env_id})"


def uniform_legal(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of ``masks``."""
    scores = rng.random(masks.shape) * (masks > 0)
    return np.argmax(scores, axis=1).astype(np.int64)
