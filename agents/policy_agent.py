"""A learned MaskablePPO policy behind the common agent interface."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tardis_envs.core.state import CURRENT_PLAYER

from .base import Agent
from .checkpoint import CheckpointError, load_model, observation_view, read_meta


class PolicyAgent(Agent):
    """Acts with a MaskablePPO policy on the mover's observation and legal mask.

    Build it from a checkpoint file (``PolicyAgent.from_checkpoint``) or from a
    live policy (``PolicyAgent(game, policy=model.policy)``, used for frozen
    self-play snapshots). ``deterministic=False`` samples from the policy.

    A checkpoint trained under other observation-only options (Dr. Who Chess's
    ``threat_planes``, ``history_planes``) plays any game of the same rules: it
    observes each state through a game of its own options (``self.view``).
    """

    name = "ppo"

    def __init__(self, game, seed: int | None = None, policy=None, deterministic: bool = True):
        super().__init__(game, seed)
        if policy is None:
            raise ValueError("PolicyAgent needs a policy; use PolicyAgent.from_checkpoint(path, game)")
        self.policy = policy
        self.deterministic = deterministic
        self.view = None  # a game of the policy's own observation options, when they differ

    @classmethod
    def from_checkpoint(cls, path, game, seed: int | None = None, deterministic: bool = True) -> "PolicyAgent":
        try:
            model, meta = load_model(path, game)
        except CheckpointError as exc:
            from .baselines import folder as baselines_folder

            if Path(path).resolve().parent != baselines_folder().resolve():
                raise
            # a shipped baseline: name it as the user did (ppo:baseline), with the rules it needs
            trained = read_meta(path).get("options") or {}
            needs = "; ".join(
                f"{k}={v!r}: {option.doc}"
                for k, v in trained.items()
                if (option := game.spec.options.get(k)) is not None and not option.observation_only and game.options.get(k) != v
            )
            reason = str(exc).replace(f"checkpoint {str(path)!r}", "it")
            raise CheckpointError(
                f"ppo:baseline of {game.spec.env_id} cannot play this game ({reason})" + (f"; it needs {needs}" if needs else "")
            ) from None
        agent = cls(game, seed=seed, policy=model.policy, deterministic=deterministic)
        agent.meta = meta
        view = observation_view(meta, game)
        if view is not game:
            agent.view = view
            agent.needs_observations = False  # it observes for itself
        return agent

    def act_batch(self, states: np.ndarray, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        import torch

        if self.view is not None:
            observations = np.stack([self.view.observation(state, int(state[CURRENT_PLAYER])) for state in states])
        with torch.no_grad():
            actions, _ = self.policy.predict(
                np.asarray(observations, dtype=np.float32), deterministic=self.deterministic, action_masks=masks.astype(bool)
            )
        return np.asarray(actions, dtype=np.int64).reshape(-1)


class PolicyEvaluator:
    """A PPO policy as the guided search's evaluator (``mcts:200:prior=ppo:baseline``):
    priors from its masked action distribution, values from its critic.

    The critic estimates the mover's discounted return, clipped here to the search's
    range [-1, 1]; the other seats get that value too in a cooperative game (the team
    shares the outcome) and an even share of its opposite otherwise (a zero-sum table)."""

    def __init__(self, policy, num_players: int, cooperative: bool):
        self.policy = policy
        self.num_players = num_players
        self.cooperative = cooperative
        self.shape = tuple(policy.observation_space.shape)

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        import torch

        n = obs.shape[0]
        with torch.inference_mode():
            seen = torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32).reshape((n,) + self.shape))
            priors = self.policy.get_distribution(seen, action_masks=masks.astype(bool)).distribution.probs
            mover = self.policy.predict_values(seen).clamp(-1.0, 1.0).reshape(n)
        values = np.empty((n, self.num_players), dtype=np.float32)
        values[:, 0] = mover.numpy()
        if self.num_players > 1:
            values[:, 1:] = values[:, :1] if self.cooperative else -values[:, :1] / (self.num_players - 1)
        return priors.numpy(), values
