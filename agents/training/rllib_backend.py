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
* :class:`UniformLegalModule` and :class:`HeuristicModule` - the random agent and the
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

import random
import shutil
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from pettingzoo.utils.wrappers import BaseWrapper
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.tune.registry import register_env

import tardis_envs
from tardis_envs.core.observation import ONE_ENTRY_SHIFT, PLANE_BITS, PLANE_CONSTANT, PLANE_ENTRIES, is_packed, resolve_obs_dtype

from ..checkpoint import META_NAME, CheckpointError, write_meta_dir
from .config import TrainConfig
from .train import checkpoint_meta

ENV_NAME = "tardis_envs_pettingzoo"
MAIN = "main"  # the policy that learns
RANDOM = "random"  # the uniform legal agent, a fixed league member
HEURISTIC = "heuristic"  # the game's heuristic, a fixed league member
FLOAT_MIN = torch.finfo(torch.float32).min


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
    """The game's heuristic (``agents.heuristics``) as a module: all probability on its move.
    ``model_config = {"env_id": ..., "options": {...}}`` names the game."""

    def setup(self) -> None:
        from ..heuristics import HeuristicAgent

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


def learner_steps(result: dict) -> int:
    """Decisions the learning module has taken so far, from an ``algo.train()`` result."""
    sampled = result.get("env_runners", {}).get("num_module_steps_sampled_lifetime", {})
    return int(sampled.get(MAIN, 0))


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
