"""Ray RLlib (new API stack) as the scale-out training backend: the pieces.

Ray is an optional extra (``pip install -e ".[distributed]"``); nothing else in the
package imports this module.

* :func:`make_env` - the game's PettingZoo AEC env behind RLlib's ``PettingZooEnv``,
  built with ``illegal_action="raise"``: an illegal action stops the run with the
  env's message instead of ending a game with -1 and silently skewing the returns.
* :class:`MaskedPPOModule` (in :mod:`agents.rllib_modules`) - PPO's default torch module over our observation dict
  ``{"observation", "action_mask"}``: the observation is flattened for the MLP
  encoder, the logits of illegal actions are set to the float minimum in every
  forward pass (exploration, inference and training), so no illegal action can be
  sampled and the PPO ratio and entropy see the masked distribution.
* :class:`UniformLegalModule` and :class:`HeuristicModule` (also in :mod:`agents.rllib_modules`) - the random agent and the
  game's heuristic as RLlib modules, fixed league members (nothing to train). The
  heuristic reads the game state, so the env adds it to each observation dict under
  ``"state"`` (:class:`StateInObservation`); the learning module never looks at it.
* :class:`LeagueMapping` - who plays which seat: per episode the learner's seat and its
  opponent (random, the heuristic or a frozen snapshot of the learner, by the run's
  weights), the same for every agent of the episode.
* :func:`ppo_config` - the ``PPOConfig`` of a run.

Why RLlib runs used to send illegal actions to our envs: RLlib validates a new
environment by stepping it with ``action_space.sample()`` (its environment pre-check),
which knows nothing of masks. With the default ``illegal_action="terminate"`` that
ended the checked game with -1 and a warning. :func:`ppo_config` turns the pre-check
off (the envs pass PettingZoo's own ``api_test`` in this project's tests) and the env
raises on any illegal action, so a masking bug cannot hide.
"""

from __future__ import annotations

import math
import random
import shutil
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from pettingzoo.utils.wrappers import BaseWrapper
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.tune.registry import register_env

import tardis_envs
from tardis_envs.core.observation import is_packed, resolve_obs_dtype

from ..checkpoint import META_NAME, CheckpointError, write_meta_dir

# the modules live with the agents (rllib:<folder> loads them without the training backend);
# named here too, where checkpoints written before the move look for them
from ..rllib_modules import HeuristicModule, MaskedPPOModule, UniformLegalModule
from .config import TrainConfig
from .train import checkpoint_meta

ENV_NAME = "tardis_envs_pettingzoo"
MAIN = "main"  # the policy that learns
RANDOM = "random"  # the uniform legal agent, a fixed league member
HEURISTIC = "heuristic"  # the game's heuristic, a fixed league member


class StateInObservation(BaseWrapper):
    """Each observation dict also carries the full game state (``int64``) under ``"state"``,
    for the heuristic module; :class:`MaskedPPOModule` reads only ``observation`` and
    ``action_mask``."""

    def __init__(self, env: Any):
        super().__init__(env)
        size = env.unwrapped.game.state_size
        self._state_space = gym.spaces.Box(np.iinfo(np.int64).min, np.iinfo(np.int64).max, (size,), np.int64)

    def observation_space(self, agent: str) -> gym.spaces.Dict:
        return gym.spaces.Dict({**self.env.observation_space(agent).spaces, "state": self._state_space})

    def observe(self, agent: str) -> dict:
        return {**self.env.observe(agent), "state": self.env.unwrapped.get_state()}


def make_env(env_config: dict) -> PettingZooEnv:
    """RLlib env creator: ``env_config = {"env_id": ..., "options": {...}, "obs_dtype": ...}``."""
    env = tardis_envs.env_module(env_config["env_id"]).raw_env(
        illegal_action="raise", obs_dtype=env_config.get("obs_dtype", "float32"), **dict(env_config.get("options") or {})
    )
    return PettingZooEnv(StateInObservation(env))


register_env(ENV_NAME, make_env)


class LeagueMapping:
    """RLlib's agent-to-module mapping for self-play against a league.

    Each episode draws, from its own id (so every agent of the episode agrees), the
    learner's seat and the kind of its opponents or team-mates: ``random``,
    ``heuristic`` or ``snapshot`` by ``weights`` (renormalised over the kinds on hand;
    a snapshot is drawn uniformly). Every other seat plays that module."""

    def __init__(self, agents: list[str], weights: dict[str, float], snapshots: tuple[str, ...] = ()):
        self.agents = list(agents)
        self.weights = dict(weights)
        self.snapshots = tuple(snapshots)

    def with_snapshots(self, snapshots: tuple[str, ...]) -> "LeagueMapping":
        return LeagueMapping(self.agents, self.weights, snapshots)

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        rng = random.Random(str(episode.id_))
        seat = rng.randrange(len(self.agents))
        kinds = [k for k in ("random", "heuristic", "snapshot") if self.weights.get(k, 0) > 0 and (k != "snapshot" or self.snapshots)]
        kind = rng.choices(kinds, [self.weights[k] for k in kinds])[0]
        other = rng.choice(self.snapshots) if kind == "snapshot" else kind
        return MAIN if self.agents.index(agent_id) == seat else other


def spaces(env_id: str, options: dict | None = None, obs_dtype: str = "float32") -> tuple[gym.spaces.Dict, gym.spaces.Discrete, list[str]]:
    """(observation space, action space, agent names) of a game as RLlib sees it (the
    observation dict with the state added); every seat shares them."""
    env = StateInObservation(tardis_envs.env_module(env_id).raw_env(obs_dtype=obs_dtype, **dict(options or {})))
    agent = env.possible_agents[0]
    return env.observation_space(agent), env.action_space(agent), list(env.possible_agents)


def module_model_config(env_id: str, options: dict | None, hidden, obs_dtype: str = "float32") -> dict:
    """:class:`MaskedPPOModule`'s ``model_config``: its hidden layers and, for compact
    observations, the game's per-entry denominators, for packed ones each plane's kind and
    denominator."""
    config: dict[str, Any] = {"fcnet_hiddens": list(hidden), "obs_denominators": None}
    game = tardis_envs.env_module(env_id).Game(**dict(options or {}))
    if is_packed(resolve_obs_dtype(game, obs_dtype)):
        config["obs_packed_kinds"] = game.packed_plane_kinds.tolist()
        config["obs_packed_denominators"] = game.packed_plane_denominators.tolist()
    elif obs_dtype != "float32":
        config["obs_denominators"] = game.observation_denominators.ravel().tolist()
    return config


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
    clip_param: float = 0.2,
    seed: int = 0,
    policy_mapping_fn: Any = None,
    fixed_modules: tuple[str, ...] = (RANDOM, HEURISTIC),
    obs_dtype: str = "float32",
) -> PPOConfig:
    """The run's ``PPOConfig``: one learning module (``main``) and the fixed league
    members in ``fixed_modules`` (``random``, ``heuristic``); ``policy_mapping_fn``
    decides who plays which seat (default: ``main`` everywhere, plain self-play)."""
    observation_space, action_space, _ = spaces(env_id, options, obs_dtype)
    specs = {
        MAIN: RLModuleSpec(
            module_class=MaskedPPOModule,
            observation_space=observation_space,
            action_space=action_space,
            model_config=module_model_config(env_id, options, hidden, obs_dtype),
        )
    }
    if RANDOM in fixed_modules:
        specs[RANDOM] = RLModuleSpec(module_class=UniformLegalModule, observation_space=observation_space, action_space=action_space)
    if HEURISTIC in fixed_modules:
        specs[HEURISTIC] = RLModuleSpec(
            module_class=HeuristicModule,
            observation_space=observation_space,
            action_space=action_space,
            model_config={"env_id": env_id, "options": dict(options or {})},
        )
    mapping = policy_mapping_fn or (lambda agent_id, episode, **kwargs: MAIN)
    return (
        PPOConfig()
        .environment(
            ENV_NAME, env_config={"env_id": env_id, "options": dict(options or {}), "obs_dtype": obs_dtype}, disable_env_checking=True
        )
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
            clip_param=clip_param,
        )
        .debugging(seed=seed)
    )


def step_count(value: Any) -> int | None:
    """A step count of an ``algo.train()`` result, or None where it has none: an iteration
    whose env runners returned no samples in time (RLlib warns "No samples returned from
    remote workers", which a loaded machine can cause) reports NaN or nothing."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return int(number) if math.isfinite(number) else None


def learner_steps(result: dict) -> int | None:
    """Decisions the learning module has taken so far, from an ``algo.train()`` result (None:
    the result does not say, see :func:`step_count`)."""
    sampled = result.get("env_runners", {}).get("num_module_steps_sampled_lifetime", {})
    return step_count(sampled.get(MAIN))


SAVING_MARK = ".tardis-envs-saving"
"""Marks a checkpoint folder while it is written (a save interrupted before its metadata)."""


def _not_a_checkpoint(folder: Path) -> CheckpointError:
    return CheckpointError(f"{str(folder)!r} is not a checkpoint folder written by tardis-envs train; it is left as it is (move it away)")


def remove_checkpoint_folder(folder: Path) -> None:
    """Delete a checkpoint folder that :func:`save_checkpoint` wrote (it holds ``tardis_meta.json``
    or the saving mark); anything else is refused with a :class:`CheckpointError` and left alone."""
    if not (folder / META_NAME).is_file() and not (folder / SAVING_MARK).is_file():
        raise _not_a_checkpoint(folder)
    shutil.rmtree(folder)


def save_checkpoint(algo: Any, path: str | Path, config: TrainConfig, game: Any, num_timesteps: int, extra: dict | None = None) -> Path:
    """Write the whole algorithm (modules, optimizer state, connectors) to the folder
    ``path`` with the project's metadata beside it; the old folder is replaced only once
    the new one is complete, so an interrupted save never loses the previous checkpoint.
    Only folders this function wrote are ever deleted (:func:`remove_checkpoint_folder`)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    old = path.with_name(path.name + ".old")
    for folder in (tmp, old):
        if folder.exists():
            remove_checkpoint_folder(folder)
    if path.exists() and not (path / META_NAME).is_file():
        raise _not_a_checkpoint(path)
    tmp.mkdir(parents=True)
    (tmp / SAVING_MARK).write_text("")
    algo.save_to_path(str(tmp.resolve()))
    write_meta_dir(tmp, checkpoint_meta(config, game, num_timesteps, {"backend": "rllib", **(extra or {})}))
    (tmp / SAVING_MARK).unlink()
    if path.exists():
        path.rename(old)
        tmp.rename(path)
        remove_checkpoint_folder(old)
    else:
        tmp.rename(path)
    return path
