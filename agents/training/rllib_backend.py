"""Ray RLlib (new API stack) as the scale-out training backend: the pieces.

Ray is an optional extra (``pip install -e ".[distributed]"``); nothing else in the
package imports this module.

* :func:`make_env` - the game's PettingZoo AEC env behind RLlib's ``PettingZooEnv``,
  built with ``illegal_action="raise"``: an illegal action stops the run with the
  env's message instead of ending a game with -1 and silently skewing the returns.
* :class:`MaskedPPOModule` - PPO's default torch module over our observation dict
  ``{"observation", "action_mask"}``: the observation is flattened for the MLP
  encoder, the logits of illegal actions are set to the float minimum in every
  forward pass (exploration, inference and training), so no illegal action can be
  sampled and the PPO ratio and entropy see the masked distribution.
* :class:`UniformLegalModule` - the random agent as an RLlib module (a fixed league
  member: uniform over the legal actions, nothing to train).
* :func:`ppo_config` - the ``PPOConfig`` of a run.

Why RLlib runs used to send illegal actions to our envs: RLlib validates a new
environment by stepping it with ``action_space.sample()`` (its environment pre-check),
which knows nothing of masks. With the default ``illegal_action="terminate"`` that
ended the checked game with -1 and a warning. :func:`ppo_config` turns the pre-check
off (the envs pass PettingZoo's own ``api_test`` in this project's tests) and the env
raises on any illegal action, so a masking bug cannot hide.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.tune.registry import register_env

import tardis_envs

from ..checkpoint import write_meta_dir
from .config import TrainConfig
from .train import _meta

ENV_NAME = "tardis_envs_pettingzoo"
MAIN = "main"  # the policy that learns
RANDOM = "random"  # the uniform legal agent, a fixed league member
FLOAT_MIN = torch.finfo(torch.float32).min


def make_env(env_config: dict) -> PettingZooEnv:
    """RLlib env creator: ``env_config = {"env_id": ..., "options": {...}}``."""
    env = tardis_envs.make(env_config["env_id"], illegal_action="raise", **dict(env_config.get("options") or {}))
    return PettingZooEnv(env)


register_env(ENV_NAME, make_env)


def _split(batch: dict) -> tuple[Any, dict]:
    """(action mask, the batch with the flat observation as its ``obs``)."""
    obs = batch[Columns.OBS]
    mask = obs["action_mask"]
    x = obs["observation"]
    inner = dict(batch)
    inner[Columns.OBS] = x.reshape(*mask.shape[:-1], -1).float()
    return mask, inner


def _masked(logits: Any, mask: Any) -> Any:
    return logits.masked_fill(mask == 0, FLOAT_MIN)


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """PPO's default actor-critic over the flattened observation, with masked logits."""

    def __init__(self, *, observation_space: gym.spaces.Dict, action_space: gym.spaces.Discrete, **kwargs: Any):
        if not isinstance(observation_space, gym.spaces.Dict) or set(observation_space.spaces) != {"observation", "action_mask"}:
            raise ValueError(f"MaskedPPOModule needs the env's {{'observation', 'action_mask'}} Dict space, got {observation_space}")
        self.observation_space_with_mask = observation_space
        size = int(np.prod(observation_space["observation"].shape))
        flat = gym.spaces.Box(-np.inf, np.inf, (size,), np.float32)
        super().__init__(observation_space=flat, action_space=action_space, **kwargs)

    def setup(self) -> None:
        super().setup()  # builds the encoder and heads for the flat observation
        # what the module says it takes (and what a checkpoint rebuilds it with) is the dict
        self.observation_space = self.observation_space_with_mask

    def _forward(self, batch: dict, **kwargs: Any) -> dict:
        mask, inner = _split(batch)
        out = super()._forward(inner, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = _masked(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def _forward_train(self, batch: dict, **kwargs: Any) -> dict:
        mask, inner = _split(batch)
        out = super()._forward_train(inner, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = _masked(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def compute_values(self, batch: dict, embeddings: Any = None) -> Any:
        if embeddings is None:
            _, batch = _split(batch)
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


def spaces(env_id: str, options: dict | None = None) -> tuple[gym.spaces.Dict, gym.spaces.Discrete, list[str]]:
    """(observation space, action space, agent names) of a game: every seat shares them."""
    env = tardis_envs.make(env_id, **dict(options or {}))
    agent = env.possible_agents[0]
    return env.observation_space(agent), env.action_space(agent), list(env.possible_agents)


def ppo_config(
    env_id: str,
    options: dict | None = None,
    *,
    num_env_runners: int = 1,
    num_envs_per_env_runner: int = 1,
    num_learners: int = 0,
    hidden: tuple[int, ...] = (256, 256),
    train_batch_size: int = 4000,
    minibatch_size: int = 500,
    num_epochs: int = 4,
    learning_rate: float = 3e-4,
    gamma: float = 0.995,
    lambda_: float = 0.95,
    entropy_coeff: float = 0.01,
    seed: int = 0,
    policy_mapping_fn: Any = None,
    fixed_modules: tuple[str, ...] = (RANDOM,),
) -> PPOConfig:
    """The run's ``PPOConfig``: one learning module (``main``) and the fixed league
    members (``random``); ``policy_mapping_fn`` decides who plays which seat (default:
    ``main`` everywhere, plain self-play)."""
    observation_space, action_space, _ = spaces(env_id, options)
    specs = {
        MAIN: RLModuleSpec(
            module_class=MaskedPPOModule,
            observation_space=observation_space,
            action_space=action_space,
            model_config={"fcnet_hiddens": list(hidden)},
        )
    }
    if RANDOM in fixed_modules:
        specs[RANDOM] = RLModuleSpec(module_class=UniformLegalModule, observation_space=observation_space, action_space=action_space)
    mapping = policy_mapping_fn or (lambda agent_id, episode, **kwargs: MAIN)
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config={"env_id": env_id, "options": dict(options or {})}, disable_env_checking=True)
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=num_envs_per_env_runner)
        .learners(num_learners=num_learners)
        .multi_agent(policies=set(specs), policy_mapping_fn=mapping, policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(
            train_batch_size_per_learner=train_batch_size,
            minibatch_size=minibatch_size,
            num_epochs=num_epochs,
            lr=learning_rate,
            gamma=gamma,
            lambda_=lambda_,
            entropy_coeff=entropy_coeff,
        )
        .debugging(seed=seed)
    )


def learner_steps(result: dict) -> int:
    """Decisions the learning module has taken so far, from an ``algo.train()`` result."""
    sampled = result.get("env_runners", {}).get("num_module_steps_sampled_lifetime", {})
    return int(sampled.get(MAIN, 0))


def save_checkpoint(algo: Any, path: str | Path, config: TrainConfig, game: Any, num_timesteps: int, extra: dict | None = None) -> Path:
    """Write the whole algorithm (modules, optimizer state, connectors) to the folder
    ``path`` with the project's metadata beside it; the old folder is replaced only once
    the new one is complete, so an interrupted save never loses the previous checkpoint."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    algo.save_to_path(str(tmp.resolve()))
    write_meta_dir(tmp, _meta(config, game, num_timesteps, {"backend": "rllib", **(extra or {})}))
    if path.exists():
        old = path.with_name(path.name + ".old")
        if old.exists():
            shutil.rmtree(old)
        path.rename(old)
        tmp.rename(path)
        shutil.rmtree(old)
    else:
        tmp.rename(path)
    return path
