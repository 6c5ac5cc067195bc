"""The baseline: one PettingZoo AEC game seen as a single-agent Gymnasium env.

This is what a user without the batched core would write: wrap the AEC env,
let the opponent move inside ``step``, and stack copies in SB3's
``DummyVecEnv``. It serves as the throughput baseline of training and as the
reference the batched :class:`~agents.training.selfplay.SelfPlayVecEnv` is
tested against (same seeds and actions give the same trajectories).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from tardis_envs import env_module


class AECSingleAgentEnv(gym.Env):
    """The learner holds ``learner_seat`` (or a random seat per game); ``opponent``
    (an :class:`agents.base.Agent`) plays every other seat."""

    metadata = {"render_modes": []}

    def __init__(self, env_id: str, opponent_factory, learner_seat: int | None = None, options: dict | None = None):
        self.aec = env_module(env_id).raw_env(**(options or {}))
        game = self.aec.game
        self.opponent = opponent_factory(game)
        self.fixed_seat = learner_seat
        self.learner = self.aec.possible_agents[0]
        self.observation_space = spaces.Box(game.observation_low, game.observation_high, game.observation_shape, np.float32)
        self.action_space = spaces.Discrete(game.num_actions)
        self._rng = np.random.default_rng()

    def _finished(self) -> bool:
        return any(self.aec.terminations.values()) or any(self.aec.truncations.values())

    def _opponents(self) -> None:
        while not self._finished() and self.aec.agent_selection != self.learner:
            self.aec.step(self.opponent.act(self.aec))

    def reset(self, seed: int | None = None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed + 7919)
        self.aec.reset(seed=seed)
        seat = self.fixed_seat if self.fixed_seat is not None else int(self._rng.integers(self.aec.game.num_players))
        self.learner = self.aec.possible_agents[seat]
        self._opponents()
        return self.aec.observe(self.learner)["observation"], {}

    def step(self, action):
        self.aec.step(int(action))
        self._opponents()
        reward = float(self.aec.rewards.get(self.learner, 0.0)) if self._finished() else 0.0
        terminated = any(self.aec.terminations.values())
        truncated = any(self.aec.truncations.values()) and not terminated
        return self.aec.observe(self.learner)["observation"], reward, terminated, truncated, {}

    def action_masks(self) -> np.ndarray:
        return self.aec.observe(self.learner)["action_mask"].astype(bool)
