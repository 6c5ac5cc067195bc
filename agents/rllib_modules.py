"""The RLlib modules of the project's policies: PPO's torch module with masked logits, and
the random agent and the game's heuristic as fixed league members.

They live with the agents so that ``rllib:<folder>`` (:mod:`agents.rllib_agent`) loads a
checkpoint without the training backend (:mod:`agents.training.rllib_backend`, which
trains them); Ray is the ``distributed`` extra, and nothing in the core imports this module.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.torch import TorchRLModule

import tardis_envs
from tardis_envs.core.observation import ONE_ENTRY_SHIFT, PLANE_BITS, PLANE_CONSTANT, PLANE_ENTRIES

FLOAT_MIN = torch.finfo(torch.float32).min


def unpack_planes(words: Any, kinds: Any, denominators: Any) -> Any:
    """Torch twin of :func:`tardis_envs.core.observation.unpack_planes`: ``float32[..., planes * 64]``
    from packed observations ``int64[..., planes]`` (``kinds`` and ``denominators``: one a
    plane), bit for bit the float kernels' entries."""
    words = words.long()
    entries = torch.arange(PLANE_ENTRIES, device=words.device)
    bits = ((words.unsqueeze(-1) >> entries) & 1).float()
    denominators = denominators.double()
    constant = (words.double() / denominators).float().unsqueeze(-1).expand_as(bits)
    one_value = ((words >> ONE_ENTRY_SHIFT).double() / denominators).float().unsqueeze(-1)
    at_entry = entries == (words & (PLANE_ENTRIES - 1)).unsqueeze(-1)
    one_entry = torch.where(at_entry, one_value, torch.zeros_like(bits))
    kinds = kinds.unsqueeze(-1)
    planes = torch.where(kinds == PLANE_BITS, bits, torch.where(kinds == PLANE_CONSTANT, constant, one_entry))
    return planes.reshape(*words.shape[:-1], -1)


def _split(batch: dict, denominators: Any, packed: tuple[Any, Any] | None = None) -> tuple[Any, dict]:
    """(action mask, the batch with the flat float observation as its ``obs``): compact
    observations (an integer tensor) are divided by the game's ``denominators`` here, and
    packed ones unpacked (``packed``: the planes' kinds and denominators), once per batch,
    giving the float32 observation bit for bit."""
    obs = batch[Columns.OBS]
    mask = obs["action_mask"]
    x = obs["observation"].reshape(*mask.shape[:-1], -1)
    inner = dict(batch)
    if packed is not None:
        inner[Columns.OBS] = unpack_planes(x, *packed)
    else:
        inner[Columns.OBS] = x.float() if x.is_floating_point() else x.float() / denominators
    return mask, inner


def _masked(logits: Any, mask: Any) -> Any:
    return logits.masked_fill(mask == 0, FLOAT_MIN)


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """PPO's default actor-critic over the flattened observation, with masked logits."""

    def __init__(self, *, observation_space: gym.spaces.Dict, action_space: gym.spaces.Discrete, **kwargs: Any):
        if not isinstance(observation_space, gym.spaces.Dict) or not {"observation", "action_mask"} <= set(observation_space.spaces):
            raise ValueError(f"MaskedPPOModule needs the env's {{'observation', 'action_mask'}} Dict space, got {observation_space}")
        self.observation_space_with_mask = observation_space
        size = int(np.prod(observation_space["observation"].shape))
        if (kwargs.get("model_config") or {}).get("obs_packed_kinds"):
            size *= PLANE_ENTRIES  # packed: one word a plane of 64 entries
        flat = gym.spaces.Box(-np.inf, np.inf, (size,), np.float32)
        super().__init__(observation_space=flat, action_space=action_space, **kwargs)

    def setup(self) -> None:
        super().setup()  # builds the encoder and heads for the flat observation
        # per-entry denominators of compact observations (``obs_dtype``), ones for float32 games
        size = int(np.prod(self.observation_space_with_mask["observation"].shape))
        denominators = self.model_config.get("obs_denominators") or [1] * size
        self.obs_denominators = torch.tensor(denominators, dtype=torch.float32)
        # packed observations (obs_dtype "packed"): each plane's kind and denominator
        kinds = self.model_config.get("obs_packed_kinds")
        self.obs_packed = None
        if kinds:
            self.obs_packed = (
                torch.tensor(kinds, dtype=torch.int64),
                torch.tensor(self.model_config["obs_packed_denominators"], dtype=torch.int64),
            )
        # what the module says it takes (and what a checkpoint rebuilds it with) is the dict
        self.observation_space = self.observation_space_with_mask

    def _forward(self, batch: dict, **kwargs: Any) -> dict:
        mask, inner = _split(batch, self.obs_denominators, self.obs_packed)
        out = super()._forward(inner, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = _masked(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def _forward_train(self, batch: dict, **kwargs: Any) -> dict:
        mask, inner = _split(batch, self.obs_denominators, self.obs_packed)
        out = super()._forward_train(inner, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = _masked(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def compute_values(self, batch: dict, embeddings: Any = None) -> Any:
        if embeddings is None:
            _, batch = _split(batch, self.obs_denominators, self.obs_packed)
        return super().compute_values(batch, embeddings)


class UniformLegalModule(TorchRLModule):
    """Equal logits on every legal action: sampling is the random agent."""

    def setup(self) -> None:
        # never trained (not in policies_to_train), but RLlib's learner builds an
        # optimizer for every module and refuses an empty parameter list
        self.unused = torch.nn.Parameter(torch.zeros(1))

    def _forward(self, batch: dict, **kwargs: Any) -> dict:
        mask = batch[Columns.OBS]["action_mask"]
        return {Columns.ACTION_DIST_INPUTS: _masked(torch.zeros(mask.shape), mask)}


class HeuristicModule(TorchRLModule):
    """The game's heuristic (``game.heuristic``) as a module: all probability on its move.
    ``model_config = {"env_id": ..., "options": {...}}`` names the game."""

    def setup(self) -> None:
        from .heuristics import HeuristicAgent

        self.unused = torch.nn.Parameter(torch.zeros(1))  # see UniformLegalModule.setup
        config = dict(self.model_config or {})
        self.agent = HeuristicAgent(tardis_envs.env_module(config["env_id"]).Game(**dict(config.get("options") or {})))

    def _forward(self, batch: dict, **kwargs: Any) -> dict:
        obs = batch[Columns.OBS]
        masks = obs["action_mask"].numpy()
        actions = self.agent.act_batch(obs["state"].numpy().astype(np.int64), obs["observation"].numpy(), masks)
        logits = torch.full(masks.shape, FLOAT_MIN)
        logits[torch.arange(len(actions)), torch.from_numpy(actions)] = 0.0
        return {Columns.ACTION_DIST_INPUTS: logits}
