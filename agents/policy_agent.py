"""A learned MaskablePPO policy behind the common agent interface."""

from __future__ import annotations

import numpy as np

from .base import Agent
from .checkpoint import load_model


class PolicyAgent(Agent):
    """Acts with a MaskablePPO policy on the mover's observation and legal mask.

    Build it from a checkpoint file (``PolicyAgent.from_checkpoint``) or from a
    live policy (``PolicyAgent(game, policy=model.policy)``, used for frozen
    self-play snapshots). ``deterministic=False`` samples from the policy.
    """

    name = "ppo"

    def __init__(self, game, seed: int | None = None, policy=None, deterministic: bool = True):
        super().__init__(game, seed)
        if policy is None:
            raise ValueError("PolicyAgent needs a policy; use PolicyAgent.from_checkpoint(path, game)")
        self.policy = policy
        self.deterministic = deterministic

    @classmethod
    def from_checkpoint(cls, path, game, seed: int | None = None, deterministic: bool = True) -> "PolicyAgent":
        model, meta = load_model(path, game)
        agent = cls(game, seed=seed, policy=model.policy, deterministic=deterministic)
        agent.meta = meta
        return agent

    def act_batch(self, states: np.ndarray, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        import torch

        with torch.no_grad():
            actions, _ = self.policy.predict(
                np.asarray(observations, dtype=np.float32), deterministic=self.deterministic, action_masks=masks.astype(bool)
            )
        return np.asarray(actions, dtype=np.int64).reshape(-1)
