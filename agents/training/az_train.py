"""AlphaZero-style training (``tardis-envs train <env_id> --algo az``): expert iteration
on the batched kernels.

Self-play: ``num_envs`` games advance together, each against the network itself or (a share
set by ``opponents``) a fixed agent holding every seat but the learner's. At every decision
of a learner's seat with a choice, one :class:`~tardis_envs.core.guided.GuidedSearch` over
all of them (Gumbel root with noise, ``simulations`` simulations, the current network
evaluating every leaf of the batch in one call, at ``precision``) chooses the move and gives
the training target, the search's improved policy. When a game ends, each of its decisions gets the game's outcome per
seat, counted from that decision's mover (the team's result in Time of the Daleks).
Decisions go to a replay buffer (:mod:`agents.training.replay`; observations in the game's compact or packed dtype,
the policy as its ``policy_entries`` largest entries); after every self-play step the
learner takes ``replay_ratio`` samples per new decision in minibatches (cross-entropy to
the improved policy, squared error to the outcome, or with ``root_value_share`` to a mix of
the outcome and the search's root value, or with ``value_lambda`` to each decision's TD(lambda)
return). With ``search: expectation`` one ply of exact expectation over the dice
(:mod:`tardis_envs.core.expectation`) chooses the moves instead, its best move the policy's
target (TD-Gammon's recipe). Every ``eval_every`` decisions the
current network plays the benchmark opponents with ``eval_simulations`` simulations.

With ``address`` (``--address host:port --num-env-runners N``) the games are played by ``N``
Ray actors on that cluster (:class:`SelfPlayActor`, ``num_envs`` games each, one core
each), each returning batches of ``2 x num_envs`` searched decisions and taking the
learner's latest weights with its next batch; the learner, the buffer and the evaluations
stay in the driver. The time shares in ``stats.json`` then sum the actors' cores. Without
an address nothing of Ray is imported.

The run folder is the PPO backends' (:mod:`agents.training.train`): ``config.yaml``,
``eval.csv``, ``tb/``, ``checkpoints/last.zip`` (also written on Ctrl-C; ``--resume``
continues from it with its optimizer, the replay buffer starts empty), ``best.zip``,
``winrate.png``, ``summary.md``, ``stats.json``. Checkpoints are ``az:<path>`` agents.
"""

from __future__ import annotations

import io
import json
import math
import time
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from tardis_envs import env_module, vector
from tardis_envs.core.expectation import ExactExpectation
from tardis_envs.core.guided import GuidedSearch
from tardis_envs.core.observation import is_packed
from tardis_envs.outputs import ctrl_c_deferred

from .. import make_agent
from ..alphazero import (
    ACTIVATIONS,
    HEADS,
    LEAF_SEARCHES,
    OPTIMIZER_MEMBER,
    PRECISIONS,
    SEARCHES,
    AZAgent,
    NetEvaluator,
    autocast,
    build_net,
    checkpoint_file,
    copy_ppo_policy,
    load_checkpoint,
    masked_logits,
    save_checkpoint,
)
from ..checkpoint import CheckpointError, read_meta
from ..tournament import rearm_ctrl_c
from .config import WARM_START_ONLY, WARM_START_SETTINGS, check_opponents, settings_of
from .memory import keep_freed_memory
from .replay import ReplayBuffer
from .selfplay import OpponentPool
from .train import (
    EVAL_MARGIN,
    REPORT_SECONDS,
    append_eval_rows,
    evaluate_against,
    open_run_dir,
    progress_format,
    read_history,
    refuse_changed_settings,
    resumable_meta,
    write_report,
)

# the searches self-play trains with (the leaf tables of alphabeta and turn: agents.training.leaf_table)
TRAINED_SEARCHES = tuple(search for search in SEARCHES if search not in LEAF_SEARCHES)
SELF = "self"  # the ``opponents`` key of the games the network plays against itself


@dataclass
class AZConfig:
    env_id: str = "tardis_run_v0"
    """Game to train on."""
    options: dict = field(default_factory=dict)
    """Rule options of the game."""
    total_timesteps: int = 2_000_000
    """Self-play decisions to train for (decisions with a single legal action are not counted)."""
    max_minutes: float = 0.0
    """Wall-clock budget; training stops, evaluates and saves when it is spent (0: none)."""
    num_envs: int = 256
    """Self-play games advanced together (the batch of every network call)."""
    seed: int = 0
    """Seed of the games, the search's noise and torch."""
    search: str = "gumbel"
    """The search that chooses self-play's moves and gives the targets: ``gumbel``, the guided
    search (``simulations``, ``max_considered``; the target its improved policy); or
    ``expectation``, one ply of exact expectation over the game's chance valued by the network
    (:mod:`tardis_envs.core.expectation`; TD-Gammon's search, in a game of perfect information
    whose kernels enumerate its chance: TARDIS Run), the target the best action; it learns
    from (and counts as decisions) positions of a single legal action too, which its expansion
    values as often as any. The run's checkpoints play with the search they were trained with."""
    simulations: int = 16
    """Simulations per self-play decision (after the root's evaluation)."""
    max_considered: int = 8
    """Root actions the Gumbel search starts its sequential halving from."""
    opponents: dict = field(default_factory=lambda: {SELF: 1.0})
    """Whom the self-play games are against, weights of a draw per game: ``self`` (the current
    network searched on every seat) or a fixed agent of the PPO pool's kinds (``heuristic``,
    ``random``, ``ppo:baseline``, ``az:<checkpoint.zip>``, ...) on every seat but the learner's
    (its opponents, or its team-mates in a cooperative game; the learner's seat drawn per
    game). Only the learner's decisions are searched and learned from."""
    hidden: int = 256
    """Width of the network's hidden layers."""
    layers: int = 2
    """Hidden layers of the network's trunk."""
    head: str = "mlp"
    """The network's policy head: ``mlp`` (a linear layer over the trunk) or ``move_squares``
    (Dr. Who Chess: each move also scored at its from and to squares, :mod:`agents.move_squares`,
    the head of the chess ``ppo:baseline``)."""
    activation: str = "relu"
    """The trunk's units: ``relu``, or ``tanh`` (the units of a PPO policy network, which
    ``init_from: ppo:baseline`` copies)."""
    learning_rate: float = 1e-3
    """Adam step size."""
    learning_rate_end: float = 0.0
    """Where above 0, the step size the run anneals to: from ``learning_rate`` down a half
    cosine over the run's budget, the larger of its decisions' share of ``total_timesteps``
    and its minutes' share of ``max_minutes`` (after ``--resume``, of the minutes trained before
    and ``max_minutes`` more; 0: the step size stays ``learning_rate``).
    SGD at a constant step ends wherever its noise leaves it: networks a few million
    decisions apart play a few points apart; a step that shrinks settles the last one."""
    weight_decay: float = 1e-4
    """AdamW weight decay."""
    batch_size: int = 512
    """Learner minibatch."""
    replay_ratio: float = 4.0
    """Learner samples per self-play decision."""
    learner_burst: int = 1
    """Minibatches the learner takes in a row: it waits until this many minibatches of samples
    are due, then takes them one after another between two self-play steps (1: a minibatch as
    soon as one is due). The samples a decision stay ``replay_ratio``; a longer burst keeps the
    learner's weights, gradients and optimizer state in the caches across its steps, at the
    price of self-play asking a network that many minibatches older."""
    buffer_size: int = 200_000
    """Decisions kept in the replay buffer (the oldest leave first)."""
    policy_entries: int = 64
    """Largest entries of each decision's improved policy kept as its target."""
    value_weight: float = 1.0
    """Weight of the value loss beside the policy loss."""
    root_value_share: float = 0.0
    """Share of the search's judgement in the value target: the mover's target is
    ``(1 - share) x`` the game's outcome ``+ share x`` the root's mean value in the search that
    chose the move (the other seats' targets stay the outcome). A game's outcome is one noisy
    number shared by all its decisions; the root value is a target of each position's own."""
    value_lambda: float = 0.0
    """TD(lambda) value targets (0: none): each decision's target is its game's return over the
    root values of the decisions after it, ``lambda x`` the next one's return ``+ (1 - lambda)
    x`` its own root value, the last one's return the outcome (:func:`tardis_envs.core.minibatch.lambda_returns`).
    Where a game's outcome is mostly the dice still to come, the search's values are a target
    of far less noise. Not with ``root_value_share``."""
    explore: float = 0.0
    """``expectation`` search: share of self-play moves played at random among the legal ones
    (the target stays the best action)."""
    eval_every: int = 100_000
    """Self-play decisions between evaluations and checkpoints."""
    eval_games: int = 400
    """Games per evaluation opponent, seats rotated, fixed seeds."""
    eval_opponents: list = field(default_factory=lambda: ["random", "heuristic"])
    """Agent specs the learner is evaluated against (with, in a team game)."""
    eval_simulations: int = 16
    """Simulations a move in evaluations."""
    num_threads: int = 0
    """Torch threads (0: torch's default)."""
    precision: str = "fp32"
    """The network's arithmetic in self-play and the learner: ``fp32``, or ``bf16`` (torch's CPU
    autocast; the weights and checkpoints stay float32), faster only where the processor has
    bfloat16 units (``benchmarks/az_throughput.py`` measures both)."""
    init_from: str = ""
    """Warm start from another network before self-play ("": none): an ``az`` checkpoint file,
    or ``baseline`` for the game's shipped ``az:baseline``, whose shape must be the config's
    ``hidden`` x ``layers``; or a PPO policy, ``ppo:baseline`` or ``ppo:<checkpoint.zip>``,
    whose policy network (trunk and logit layer) is copied in, so that the network alone
    starts by playing as that policy does: its layers must be the config's ``hidden`` x
    ``layers`` with ``activation: tanh``, and the value head starts at 0 (a PPO critic is a
    network of its own). The run counts its decisions from 0."""
    bc_decisions: int = 0
    """Warm start: decisions of ``bc_teacher``'s play the network imitates before self-play (0: none)."""
    bc_teacher: str = "heuristic"
    """Warm start's teacher, an agent spec (``heuristic``, ``ppo:baseline``, ...)."""
    bc_epochs: int = 2
    """Passes over the warm start's decisions."""
    bc_explore: float = 0.1
    """Share of the warm start's moves played at random (the teacher's choice stays the label)."""
    bc_dagger_rounds: int = 0
    """DAgger rounds after the warm start's first fit: the network alone plays ``bc_decisions``
    more decisions, the teacher labels them, and the network is fitted again on everything."""

    @property
    def eval_heuristic(self) -> str:
        return next((s for s in self.eval_opponents if s.split(":", 1)[0] == "heuristic"), "heuristic")

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None, where: str = "az config") -> "AZConfig":
        config = settings_of(cls, data, where)
        config.validate(where)
        return config

    def validate(self, where: str = "az config") -> None:
        for name in (
            "total_timesteps",
            "num_envs",
            "simulations",
            "max_considered",
            "hidden",
            "layers",
            "batch_size",
            "learner_burst",
            "buffer_size",
            "policy_entries",
            "eval_every",
            "eval_games",
            "eval_simulations",
            "bc_epochs",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{where}: {name!r} must be a positive integer, got {value!r}")
        for name in ("learning_rate", "replay_ratio", "value_weight"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value > 0):
                raise ValueError(f"{where}: {name!r} must be a positive number, got {value!r}")
        for name in ("weight_decay", "max_minutes", "learning_rate_end"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value >= 0):
                raise ValueError(f"{where}: {name!r} must be a number >= 0, got {value!r}")
        for name in ("bc_explore", "root_value_share", "value_lambda", "explore"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise ValueError(f"{where}: {name!r} must be a number in [0, 1], got {value!r}")
        if self.learning_rate_end > self.learning_rate:
            raise ValueError(
                f"{where}: 'learning_rate_end' {self.learning_rate_end} is above 'learning_rate' {self.learning_rate}: "
                "the step size anneals down to it"
            )
        if self.value_lambda and self.root_value_share:
            raise ValueError(f"{where}: 'value_lambda' and 'root_value_share' are two value targets: give one")
        if self.search in LEAF_SEARCHES:
            raise ValueError(
                f"{where}: 'search' {self.search} searches a learned leaf table, which agents.training.leaf_table's "
                "LeafTableConfig and LeafTableTrainer fit (tardis-envs train runs them for such a config)"
            )
        if self.search not in TRAINED_SEARCHES:
            raise ValueError(f"{where}: 'search' must be one of {', '.join(TRAINED_SEARCHES)}, got {self.search!r}")
        if self.search == "expectation":
            game_class = env_module(self.env_id).Game
            if game_class.kernels.afterstates is None or game_class.spec.hidden_information:
                raise ValueError(
                    f"{where}: 'search' expectation needs a game of perfect information whose kernels enumerate its chance "
                    f"(TARDIS Run), not {self.env_id}"
                )
        elif self.explore:
            raise ValueError(f"{where}: 'explore' is for the expectation search (the gumbel search samples its own moves)")
        if self.head not in HEADS:
            raise ValueError(f"{where}: 'head' must be one of {', '.join(HEADS)}, got {self.head!r}")
        if self.head == "move_squares" and not hasattr(env_module(self.env_id).Game, "move_squares_layout"):
            raise ValueError(f"{where}: 'head' move_squares needs a game whose actions move pieces between squares, not {self.env_id}")
        if self.precision not in PRECISIONS:
            raise ValueError(f"{where}: 'precision' must be one of {', '.join(PRECISIONS)}, got {self.precision!r}")
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"{where}: 'activation' must be one of {', '.join(ACTIVATIONS)}, got {self.activation!r}")
        if not isinstance(self.init_from, str):
            raise ValueError(f"{where}: 'init_from' must be a checkpoint file, 'baseline' or 'ppo:baseline', got {self.init_from!r}")
        if self.init_from.lower().startswith("ppo:") and (self.head != "mlp" or self.activation != "tanh"):
            raise ValueError(
                f"{where}: 'init_from' {self.init_from} copies a PPO policy network of tanh units and a linear logit layer: "
                f"set 'activation: tanh' and 'head: mlp' (got {self.activation!r}, {self.head!r})"
            )
        if self.init_from and self.bc_decisions:
            raise ValueError(f"{where}: 'init_from' and 'bc_decisions' are two warm starts: give one")
        if not isinstance(self.bc_teacher, str) or not self.bc_teacher.strip():
            raise ValueError(f"{where}: 'bc_teacher' must be an agent spec, got {self.bc_teacher!r}")
        for name in ("seed", "num_threads", "bc_decisions", "bc_dagger_rounds"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{where}: {name!r} must be an integer >= 0, got {value!r}")
        check_opponents(self.opponents, self.env_id, where, SELF)
        if not isinstance(self.eval_opponents, list) or not self.eval_opponents or not all(isinstance(s, str) for s in self.eval_opponents):
            raise ValueError(f"{where}: 'eval_opponents' must be a list of agent specs, got {self.eval_opponents!r}")

    def to_dict(self) -> dict[str, Any]:
        return {"algo": "az", **asdict(self)}


def az_config(settings: dict[str, Any], where: str = "az config") -> Any:
    """The config an ``az:`` section asks for, checked: a search over a learned leaf table
    (``search: alphabeta`` or ``turn``) is a :class:`~agents.training.leaf_table.LeafTableConfig`,
    whose tables :class:`~agents.training.leaf_table.LeafTableTrainer` fits; any other an
    :class:`AZConfig`, whose network :class:`AZTrainer` trains."""
    if settings.get("search") in LEAF_SEARCHES:
        from .leaf_table import LeafTableConfig

        return LeafTableConfig.from_dict(settings, where=where)
    return AZConfig.from_dict(settings, where=where)


class ValueFit:
    """How well the value head predicts games it has not learned from: when games end, before
    the learner has seen any of their decisions, up to ``per_step`` of those decisions are
    scored (the mover's value against the mover's outcome); :meth:`take` is the R^2 over the
    decisions scored since its last call. A value head that memorises its replay buffer's
    games instead of judging positions shows here as an R^2 near or below 0, and the search
    then steers by noise."""

    def __init__(self, per_step: int = 64, seed: int = 0):
        self.per_step = per_step
        self.rng = np.random.default_rng(seed)
        self.values: list[np.ndarray] = []
        self.outcomes: list[np.ndarray] = []

    @staticmethod
    def of(values: np.ndarray, outcomes: np.ndarray) -> float:
        """R^2 of ``values`` as predictions of ``outcomes`` (nan without two different outcomes)."""
        variance = float(np.var(outcomes)) if len(outcomes) > 1 else 0.0
        if variance == 0.0:
            return float("nan")
        return 1.0 - float(np.mean((values - outcomes) ** 2)) / variance

    def score(self, value_of, obs: np.ndarray, outcomes: np.ndarray, rows: np.ndarray) -> None:
        """Score a draw of ``rows`` (decisions just given their outcome): ``value_of(obs)`` is
        the network's value for the mover of each observation."""
        if rows.size > self.per_step:
            rows = self.rng.choice(rows, self.per_step, replace=False)
        if rows.size:
            self.values.append(value_of(obs[rows]))
            self.outcomes.append(outcomes[rows, 0].copy())

    def take(self) -> tuple[float, int]:
        """(R^2, decisions) since the last call."""
        values = np.concatenate(self.values) if self.values else np.zeros(0)
        outcomes = np.concatenate(self.outcomes) if self.outcomes else np.zeros(0)
        self.values, self.outcomes = [], []
        return self.of(values, outcomes), int(values.size)


def top_entries(policy: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` largest entries of each row of ``policy``: ``(index int32, weight float32)``,
    the weights renormalised to sum to 1."""
    n = policy.shape[0]
    top = np.argpartition(-policy, k - 1, axis=1)[:, :k] if k < policy.shape[1] else np.broadcast_to(np.arange(k), (n, k))
    weight = np.take_along_axis(policy, top, axis=1)
    return top.astype(np.int32), (weight / np.maximum(weight.sum(axis=1, keepdims=True), 1e-12)).astype(np.float32)


class SelfPlay:
    """``num_envs`` self-play games advanced together with the guided search over ``net``:
    the trainer's own self-play, and what each Ray actor runs with ``--address``.

    ``step()`` plays one move in every game and returns the decisions it searched
    (observation, packed legal mask, the improved policy's largest entries, mover, game id)
    and the games that ended (ids, rewards by seat). Game ids are unique across
    ``workers`` (worker ``w`` numbers its games ``w, w + workers, ...``)."""

    def __init__(self, config: AZConfig, net, seed: int, worker: int = 0, workers: int = 1):
        self.config = config
        self.game = env_module(config.env_id).Game(**config.options)
        obs_dtype = "packed" if self.game.packed_plane_kinds is not None else "compact"
        self.vec = vector.make(config.env_id, config.num_envs, seed=seed, obs_dtype=obs_dtype, **config.options)
        self.search = GuidedSearch(self.game, config.simulations, gumbel_scale=1.0, max_considered=config.max_considered, seed=seed)
        self.expectation = ExactExpectation(self.game) if config.search == "expectation" else None
        self.explore_rng = np.random.default_rng(seed + 104729)
        self.net = net
        self.net_evaluate = NetEvaluator(net, config.precision)
        self.entries = min(config.policy_entries, self.game.num_actions)
        self.workers = workers
        self.timing = {"search": 0.0, "network": 0.0, "env": 0.0, "opponents": 0.0}
        self.games_finished = 0
        self.vec.reset()
        self.episodes = worker + workers * np.arange(config.num_envs, dtype=np.int64)
        self.next_episode = worker + workers * config.num_envs
        # games against fixed agents: each game's opponent (-1: itself) and the learner's seat
        self.opponent = np.full(config.num_envs, -1, dtype=np.int64)
        self.learner_seat = np.zeros(config.num_envs, dtype=np.int64)
        fixed = {k: w for k, w in config.opponents.items() if k != SELF and w > 0}
        self.pool = OpponentPool(self.game, fixed, seed=seed, self_play=SELF) if fixed else None
        if self.pool is not None:
            self.self_share = config.opponents.get(SELF, 0) / sum(config.opponents.values())
            self.rng = np.random.default_rng(seed + 7919)
            self._new_games(np.arange(config.num_envs))

    def _new_games(self, rows: np.ndarray) -> None:
        """Draws the opponent (or itself) and the learner's seat of the games in ``rows``."""
        drawn = self.pool.sample(self.rng, rows.size)
        itself = self.rng.random(rows.size) < self.self_share
        self.opponent[rows] = np.where(itself, -1, drawn)
        self.learner_seat[rows] = self.rng.integers(0, self.game.num_players, size=rows.size)

    def evaluations(self) -> int:
        """Positions the network has valued in this self-play's searches."""
        return self.search.evaluations + (self.expectation.evaluations if self.expectation is not None else 0)

    def evaluate(self, obs: np.ndarray, masks: np.ndarray):
        started = time.perf_counter()
        out = self.net_evaluate(obs, masks)
        self.timing["network"] += time.perf_counter() - started
        return out

    def step(self) -> dict[str, np.ndarray]:
        vec = self.vec
        started = time.perf_counter()
        choice = vec.masks.sum(axis=1) > 1
        learners = (self.opponent < 0) | (vec.current_player == self.learner_seat)
        # the expectation search values every position its expansion reaches, those of a single
        # legal action too: it learns them all
        busy = (choice if self.expectation is None else vec.masks.any(axis=1)) & learners
        actions = np.argmax(vec.masks, axis=1).astype(np.int64)
        rows = np.flatnonzero(busy)
        out: dict[str, np.ndarray] = {}
        if rows.size:
            network_before = self.timing["network"]
            if self.expectation is None:
                searched, policy, _ = self.search.run(vec.states, self.evaluate, active=busy)
                actions[busy] = searched[busy]
                policy, root_values = policy[rows], self.search.root_values()[rows]
            else:
                policy, root_values = self._expectation_step(vec.states[rows], actions, rows)
            index, weight = top_entries(policy, self.entries)
            out = {
                "obs": vec.obs[rows].copy(),
                "masks": np.packbits(vec.masks[rows].astype(bool), axis=1),
                "policy_index": index,
                "policy_weight": weight,
                "movers": vec.current_player[rows].copy(),
                "episodes": self.episodes[rows].copy(),
                "root_values": root_values,
            }
            self.timing["search"] += time.perf_counter() - started - (self.timing["network"] - network_before)
        if self.pool is not None:
            started = time.perf_counter()
            others = np.flatnonzero(choice & ~learners)
            which = self.opponent[others]
            for k in np.unique(which):
                rows_of_k = others[which == k]
                actions[rows_of_k] = self.pool.act(k, vec, rows_of_k)
            self.timing["opponents"] += time.perf_counter() - started
        stepped = time.perf_counter()
        _, _, _, rewards, terminated, truncated = vec.step(actions)
        ended = np.flatnonzero(terminated | truncated)
        if ended.size:
            out["ended"] = self.episodes[ended].copy()
            out["rewards"] = rewards[ended].copy()
            self.episodes[ended] = self.next_episode + self.workers * np.arange(ended.size)
            self.next_episode += self.workers * ended.size
            self.games_finished += ended.size
            if self.pool is not None:
                self._new_games(ended)
        self.timing["env"] += time.perf_counter() - stepped
        return out

    def _expectation_step(self, states: np.ndarray, actions: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The ``expectation`` search's moves into ``actions[rows]`` (``explore`` of them at
        random among the legal ones); returns the targets, the best action's one-hot policy, and
        the root values, its expected value for the mover."""
        values = self.expectation.action_values(states, self.evaluate)
        best = np.argmax(values, axis=1)
        chosen = best.copy()
        explore = np.flatnonzero(self.explore_rng.random(len(rows)) < self.config.explore)
        for k in explore:
            chosen[k] = self.explore_rng.choice(np.flatnonzero(values[k] > -np.inf))
        actions[rows] = chosen
        policy = np.zeros(values.shape, dtype=np.float32)
        policy[np.arange(len(rows)), best] = 1.0
        return policy, values[np.arange(len(rows)), best].astype(np.float32)

    def play(self, decisions: int, weights=None) -> list[dict[str, np.ndarray]]:
        """Steps until ``decisions`` decisions were searched (after loading ``weights``, a
        state dict, into the network): what a Ray actor returns to the learner."""
        if weights is not None:
            self.net.load_state_dict(weights)
        steps, searched = [], 0
        while searched < decisions:
            steps.append(self.step())
            searched += len(steps[-1].get("movers", ()))
        return steps


class SelfPlayActor:
    """A :class:`SelfPlay` in a Ray actor (``--address``): its own network of the learner's
    shape, one torch thread, the learner's weights with every call."""

    def __init__(self, config: dict, shape: dict, seed: int, worker: int, workers: int):
        import torch

        torch.set_num_threads(1)
        keep_freed_memory()
        config = AZConfig.from_dict(config)
        game = env_module(config.env_id).Game(**config.options)
        self.selfplay = SelfPlay(config, build_net(**shape, game=game), seed, worker, workers)

    def play(self, decisions: int, weights) -> tuple[list[dict[str, np.ndarray]], dict[str, float], int]:
        steps = self.selfplay.play(decisions, weights)
        return steps, dict(self.selfplay.timing), self.selfplay.evaluations()


def learner_optimizer(net, config: AZConfig, fused: bool = True):
    """The learner's AdamW over ``net``'s parameters, each step in torch's fused kernel: one
    pass over each parameter instead of a dozen elementwise calls per tensor, which makes the
    learner 1.14-1.43x faster in fp32 on two cores, most for small networks
    (``benchmarks/az_throughput.py``, which times it against ``fused=False``, the loop)."""
    import torch

    return torch.optim.AdamW(net.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay, fused=fused)


def learner_step(net, optimizer, batch: tuple[np.ndarray, ...], precision: str, value_weight: float):
    """One step of ``optimizer`` on the learner's loss over ``batch`` (as
    :meth:`ReplayBuffer.sample <agents.training.replay.ReplayBuffer.sample>` gives it): the
    cross-entropy of the masked policy to the improved policy's kept entries, plus
    ``value_weight`` x the squared error of the value to its target; ``(policy loss, value
    loss)`` as tensors. The network runs at ``precision``, the losses in float32 at any."""
    import torch

    obs, masks, index, weight, outcome = batch
    with autocast(precision):
        logits, values = net(torch.from_numpy(obs))
    logits, values = logits.float(), values.float()
    log_policy = torch.log_softmax(masked_logits(logits, torch.from_numpy(masks)), dim=1)
    picked = torch.gather(log_policy, 1, torch.from_numpy(index))
    policy_loss = -(torch.from_numpy(weight) * torch.nan_to_num(picked, neginf=0.0)).sum(dim=1).mean()
    value_loss = ((values - torch.from_numpy(outcome)) ** 2).mean()
    optimizer.zero_grad(set_to_none=True)
    (policy_loss + value_weight * value_loss).backward()
    optimizer.step()
    return policy_loss, value_loss


def load_optimizer_state(optimizer, state: dict) -> None:
    """A saved ``state_dict`` into the learner's ``optimizer``, which keeps its fused step: loading
    replaces each group's settings with the saved ones, ``fused`` among them, and a run saved
    before the learner fused its step would resume on the slower per-tensor loop."""
    optimizer.load_state_dict(state)
    for group in optimizer.param_groups:
        group["fused"], group["foreach"] = True, None


class AZTrainer:
    """Owns one run folder; ``run()`` trains until the decisions or the minutes are spent."""

    def __init__(
        self,
        config: AZConfig,
        run_dir: str | Path,
        resume: bool = False,
        progress: bool = True,
        address: str | None = None,
        workers: int = 1,
        overwrite: bool = False,
    ):
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
        self.config = config
        self.address = address  # a Ray cluster's head: self-play runs in `workers` actors there
        self.workers = workers
        self.resume = resume
        self.progress = progress
        self.game = env_module(config.env_id).Game(**config.options)
        self.relation = "with" if self.game.spec.cooperative else "vs"
        self.started = time.perf_counter()
        self.seconds_before = 0.0
        self.history: list[dict] = []
        self.best_score = -math.inf
        self.eval_seconds = 0.0
        self.num_timesteps = 0
        self.learner_samples = 0
        self.interrupted = False
        self.timing = {"search": 0.0, "network": 0.0, "learner": 0.0, "env": 0.0, "opponents": 0.0}
        self.last_results: dict[str, dict] = {}
        self.last_results_at = -1
        self.warm: dict | None = None  # the warm start's record, if the run had one
        # the run folder's rules, last: nothing is cleared for a trainer that refuses its settings
        self.run_dir, self.kept = open_run_dir(run_dir, "az", "sb3", resume=resume, overwrite=overwrite)

    def seconds(self) -> float:
        return self.seconds_before + time.perf_counter() - self.started

    # --- setup -------------------------------------------------------------------
    def _build(self) -> None:
        import torch

        config, game = self.config, self.game
        if config.num_threads:
            torch.set_num_threads(config.num_threads)
        keep_freed_memory()
        torch.manual_seed(config.seed)
        self.net = build_net(
            int(np.prod(game.observation_shape)),
            game.num_actions,
            game.num_players,
            config.hidden,
            config.layers,
            config.head,
            game=game,
            activation=config.activation,
        )
        self.optimizer = learner_optimizer(self.net, config)
        if self.resume:
            last = self.run_dir / "checkpoints" / "last.zip"
            if last.exists() and "leaf_run" in read_meta(last):
                raise CheckpointError(
                    f"--resume: {str(last)!r} is a leaf-table run's (agents.training.leaf_table); resume it without --config (its own config.yaml)"
                )
            meta = resumable_meta(last, config, game, self.run_dir)
            if meta.get("algo") != "az":
                raise CheckpointError(f"--resume: {str(last)!r} is not an az checkpoint; resume it with its own --algo")
            net, meta = load_checkpoint(last, game)
            if net.shape != self.net.shape:
                raise CheckpointError(f"--resume: {str(last)!r} holds a network of shape {net.shape}, the config asks {self.net.shape}")
            refuse_changed_settings(meta.get("config") or {}, config.to_dict(), WARM_START_SETTINGS, self.run_dir, WARM_START_ONLY)
            self.net = net
            self.optimizer = learner_optimizer(self.net, config)
            with zipfile.ZipFile(last) as archive:
                if OPTIMIZER_MEMBER in archive.namelist():
                    load_optimizer_state(self.optimizer, torch.load(io.BytesIO(archive.read(OPTIMIZER_MEMBER)), weights_only=True))
            for group in self.optimizer.param_groups:  # the saved state brings the saved settings: the config's apply
                group["lr"], group["weight_decay"] = config.learning_rate, config.weight_decay
            self.num_timesteps = int(meta["num_timesteps"])
            self.learner_samples = int(meta.get("learner_samples", 0))
            self.seconds_before = float(meta.get("seconds", 0.0))
            self.best_score = meta.get("best_score") if meta.get("best_score") is not None else -math.inf
            self.history = read_history(self.run_dir)
            self.warm = meta.get("warm_start")
        elif config.init_from:
            self._init_from()
        elif config.bc_decisions:
            self._warm_start()
        self.net.train()
        seed = config.seed + self.num_timesteps
        self.selfplay = SelfPlay(config, self.net, seed)  # the learner's own games (local runs play them all)
        vec = self.selfplay.vec
        self.obs_dtype = vec.obs_dtype
        self.buffer = ReplayBuffer(
            config.buffer_size,
            vec.obs.shape[1:],
            vec.obs.dtype,
            game.num_actions,
            game.num_players,
            config.policy_entries,
            config.root_value_share,
            value_lambda=config.value_lambda,
            zero_sum=game.spec.utility == "zero_sum",
            **(
                {"unpack": lambda obs: game.float_observations(obs, self.obs_dtype)}
                if is_packed(self.obs_dtype)
                else {"denominators": game.observation_denominators}
            ),
        )
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(str(self.run_dir / "tb" / "az"))
        self.value_fit = ValueFit(seed=config.seed + 7)

    def _init_from(self) -> None:
        """Warm start from ``init_from``'s network: its weights, a fresh optimizer."""
        config, game = self.config, self.game
        if config.init_from.lower().startswith("ppo:"):
            self.warm = copy_ppo_policy(self.net, config.init_from, game)
            print(
                f"warm start: the policy network of {self.warm['checkpoint']} ({self.warm['its_decisions']:,} PPO decisions), "
                "the value head at 0",
                flush=True,
            )
            return
        path = checkpoint_file(config.init_from, game)
        where = f"init_from: checkpoint {str(path)!r}"
        net, meta = load_checkpoint(path, game)
        if tuple(meta["observation_shape"]) != tuple(game.observation_shape):
            raise CheckpointError(f"{where} observes through other options ({meta.get('options')}): train under them to start from it")
        if net.shape != self.net.shape:
            raise CheckpointError(f"{where} holds a network of shape {net.shape}, the config asks {self.net.shape}")
        self.net.load_state_dict(net.state_dict())
        self.warm = {"init_from": config.init_from, "checkpoint": str(path), "its_decisions": int(meta.get("num_timesteps", 0))}
        print(f"warm start: the network of {path} ({self.warm['its_decisions']:,} self-play decisions)", flush=True)

    def _warm_start(self) -> None:
        """Behaviour cloning before self-play (:mod:`agents.training.imitation`): the policy head
        learns ``bc_teacher``'s choices (cross-entropy), the value head the outcome of each
        decision's game by seat (the mover's reward, the rest of the table's filled in as in a
        zero-sum game, or as the team's in a cooperative one). ``bc_dagger_rounds`` DAgger
        rounds follow: the network alone plays, the teacher labels, the network is fitted again
        on every decision so far. Each round holds out whole games of its own, which no fit
        trains on; the record goes to ``bc.json``."""
        from .imitation import held_out_games, record_round, warm_record

        config, game = self.config, self.game
        teacher = make_agent(config.bc_teacher, game, seed=config.seed + 11)
        data = held = train = None
        rounds = []
        for round_number in range(config.bc_dagger_rounds + 1):
            # round 0: the teacher plays; later rounds: the network alone plays, the teacher labels
            behaviour = None if data is None else AZAgent(game, self.net, seed=config.seed + round_number, net_only=True)
            new = record_round(config, teacher, round_number, behaviour)
            fresh_held, fresh_train = held_out_games(new, seed=config.seed + round_number)
            if data is None:
                data, held, train = new, fresh_held, fresh_train
            else:
                held = np.concatenate([held, len(data) + fresh_held])
                train = np.concatenate([train, len(data) + fresh_train])
                data = data + new
            started = time.perf_counter()
            fit = self._fit_demonstrations(data, held, train, seed=config.seed + 1 + round_number)
            fit.update(
                round=round_number,
                played_by="teacher" if behaviour is None else "network",
                decisions=len(new),
                games=new.games,
                record_seconds=round(new.seconds, 1),
                fit_seconds=round(time.perf_counter() - started, 1),
            )
            rounds.append(fit)
        assert data is not None
        last = rounds[-1]
        self.warm = {
            **warm_record(config, data, rounds),
            "epoch_losses": last["epoch_losses"],
            "held_out_agreement": last["held_out_by_epoch"][-1]["agreement"],
            "held_out_value_r2": last["held_out_by_epoch"][-1]["value_r2"],
            "held_out_by_epoch": last["held_out_by_epoch"],
        }
        if config.bc_dagger_rounds:
            self.warm["rounds"] = rounds
        (self.run_dir / "bc.json").write_text(json.dumps(self.warm, indent=2))
        print(
            f"warm start: {len(data):,} decisions of {config.bc_teacher} in {data.seconds + self.warm['fit_seconds']:.0f} s, "
            f"held-out agreement {100 * self.warm['held_out_agreement']:.1f}%, "
            f"value R^2 {self.warm['held_out_value_r2']:.3f} (held-out games)",
            flush=True,
        )

    def _fit_demonstrations(self, data, held: np.ndarray, train: np.ndarray, seed: int) -> dict:
        """``bc_epochs`` passes over the ``train`` decisions of ``data``; after each, the
        network's agreement with the teacher and its value's R^2 on the ``held`` ones."""
        import torch

        config, net = self.config, self.net
        train = train.copy()  # shuffled in place
        players = self.game.num_players
        outcome = np.repeat(data.returns[:, None], players, axis=1)
        if not self.game.spec.cooperative and players > 1:
            outcome[:, 1:] = -outcome[:, :1] / (players - 1)
        rng = np.random.default_rng(seed)

        def judge() -> tuple[float, float]:
            """(agreement with the teacher's move, the value's R^2) on the held-out games."""
            if not held.size:
                return float("nan"), float("nan")
            with torch.inference_mode():
                logits, values = net(torch.from_numpy(data.observations[held].astype(np.float32).reshape(held.size, -1)))
                best = masked_logits(logits, torch.from_numpy(data.masks[held])).argmax(dim=1).numpy()
            done = data.finished[held]
            return float((best == data.actions[held]).mean()), ValueFit.of(values[:, 0].numpy()[done], data.returns[held][done])

        net.train()  # judge() runs without gradients and leaves the mode as it is
        losses, held_out = [], []
        for epoch in range(config.bc_epochs):
            rng.shuffle(train)
            total, batches = 0.0, 0
            for start in range(0, train.size, config.batch_size):
                rows = train[start : start + config.batch_size]
                obs = torch.from_numpy(data.observations[rows].astype(np.float32).reshape(len(rows), -1))
                logits, values = net(obs)
                loss = torch.nn.functional.cross_entropy(
                    masked_logits(logits, torch.from_numpy(data.masks[rows])), torch.from_numpy(data.actions[rows])
                )
                done = torch.from_numpy(data.finished[rows])
                if done.any():
                    loss = loss + config.value_weight * ((values[done] - torch.from_numpy(outcome[rows])[done]) ** 2).mean()
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                self.optimizer.step()
                total, batches = total + float(loss.detach()), batches + 1
            losses.append(total / max(batches, 1))
            agreement, value_r2 = judge()
            held_out.append({"epoch": epoch + 1, "agreement": agreement, "value_r2": value_r2})
        return {"epoch_losses": losses, "held_out_by_epoch": held_out}

    def _extra(self) -> dict:
        return {
            "config": self.config.to_dict(),
            "seed": self.config.seed,
            "learner_samples": self.learner_samples,
            "seconds": round(self.seconds(), 1),
            "best_score": None if math.isinf(self.best_score) else self.best_score,
            "warm_start": self.warm,
            "interrupted": self.interrupted,
        }

    def save(self, name: str) -> Path:
        """Write ``checkpoints/<name>.zip``; ``last`` carries the optimizer state for ``--resume``."""
        import torch

        path = self.run_dir / "checkpoints" / f"{name}.zip"
        with ctrl_c_deferred():  # a Ctrl-C meanwhile comes after the checkpoint
            members = {}
            if name == "last":
                buffer = io.BytesIO()
                torch.save(self.optimizer.state_dict(), buffer)
                members[OPTIMIZER_MEMBER] = buffer.getvalue()
            return save_checkpoint(path, self.net, self.game, self.num_timesteps, self._extra(), members)

    # --- evaluation ----------------------------------------------------------------
    def evaluate(self) -> dict[str, dict]:
        started = time.perf_counter()
        self.net.eval()
        config, game = self.config, self.game
        learner = AZAgent(
            game, self.net, seed=1, simulations=config.eval_simulations, considered=config.max_considered, search=config.search
        )
        n = game.num_players
        games = max(config.eval_games - config.eval_games % n, n)
        results = evaluate_against(config.env_id, game, learner, config.eval_opponents, games, config.options)
        self.net.train()
        rearm_ctrl_c()
        self.eval_seconds = time.perf_counter() - started
        self.last_results, self.last_results_at = results, self.num_timesteps
        self.history += append_eval_rows(self.run_dir, self.num_timesteps, self.seconds(), results, game.spec.cooperative)
        for name, rec in results.items():
            self.writer.add_scalar(f"eval/{self.relation}_{name}", rec["win_rate"], self.num_timesteps)
        self._record_value_fit()
        score = float(np.mean([rec["win_rate"] for rec in results.values()]))
        if score > self.best_score:
            self.best_score = score
            self.save("best")
        self.save("last")
        return results

    def _record_value_fit(self) -> None:
        """The value head's R^2 on unseen games since the last evaluation: TensorBoard's
        ``value/r2_unseen_games`` and a row of ``value_fit.csv``."""
        r2, scored = self.value_fit.take()
        if not scored:
            return
        self.writer.add_scalar("value/r2_unseen_games", r2, self.num_timesteps)
        path = self.run_dir / "value_fit.csv"
        new = not path.exists()
        with path.open("a") as out:
            if new:
                out.write("num_timesteps,minutes,r2_unseen_games,decisions_scored\n")
            out.write(f"{self.num_timesteps},{self.seconds() / 60:.2f},{r2:.4f},{scored}\n")

    # --- self-play and learning ------------------------------------------------------
    def learning_rate(self) -> float:
        """The learner's step size now: ``learning_rate``, or, with ``learning_rate_end``, the
        half cosine between the two at the run's share of its budget spent."""
        config = self.config
        if not config.learning_rate_end:
            return config.learning_rate
        spent = self.num_timesteps / config.total_timesteps
        if config.max_minutes:  # a resumed run's budget: the minutes it had trained, and max_minutes more
            spent = max(spent, self.seconds() / (self.seconds_before + 60 * config.max_minutes))
        spent = min(spent, 1.0)
        return config.learning_rate_end + 0.5 * (config.learning_rate - config.learning_rate_end) * (1 + math.cos(math.pi * spent))

    def _learn(self, minibatches: int) -> int:
        """``minibatches`` learner steps on minibatches drawn from the buffer; the samples
        learned (0 while no game has ended)."""

        config = self.config
        started = time.perf_counter()
        learned = 0
        if config.learning_rate_end:
            rate = self.learning_rate()
            for group in self.optimizer.param_groups:
                group["lr"] = rate
        for _ in range(minibatches):
            batch = self.buffer.sample(self.rng, config.batch_size)
            if batch is None:
                break
            policy_loss, value_loss = learner_step(self.net, self.optimizer, batch, config.precision, config.value_weight)
            learned += config.batch_size
            self.learner_samples += config.batch_size
            self.updates += 1
            if self.updates % 50 == 0:
                self.writer.add_scalar("train/learning_rate", self.optimizer.param_groups[0]["lr"], self.num_timesteps)
                self.writer.add_scalar("loss/policy", policy_loss.item(), self.num_timesteps)
                self.writer.add_scalar("loss/value", value_loss.item(), self.num_timesteps)
        self.timing["learner"] += time.perf_counter() - started
        return learned

    def _values(self, obs: np.ndarray) -> np.ndarray:
        """The network's value for the mover of each of ``obs`` (buffer rows), in float32."""
        import torch

        with torch.inference_mode():
            _, values = self.net(torch.from_numpy(self.game.float_observations(obs, self.obs_dtype).reshape(len(obs), -1)))
        return values[:, 0].float().numpy()

    def _store(self, step: dict[str, np.ndarray]) -> int:
        """Put one self-play step's decisions and ended games into the buffer; the decisions added."""
        added = 0
        if "movers" in step:
            added = len(step["movers"])
            self.buffer.add(
                step["obs"],
                step["masks"],
                step["policy_index"],
                step["policy_weight"],
                step["movers"],
                step["episodes"],
                step["root_values"],
            )
            self.num_timesteps += added
            self.pending_samples += added * self.config.replay_ratio
        if "ended" in step:
            rows = self.buffer.finish(step["ended"], step["rewards"])
            self.value_fit.score(self._values, self.buffer.obs, self.buffer.outcome, rows)
            self.games_finished += len(step["ended"])
        return added

    def _self_play(self) -> None:
        """One round of self-play: a move in every local game, or (``--address``) the next
        actor's batch of decisions, its next batch asked with the learner's latest weights."""
        if self.actors is None:
            self._store(self.selfplay.step())
            return
        import ray

        ready, _ = ray.wait(list(self.requests), num_returns=1)
        actor = self.requests.pop(ready[0])
        steps, timing, evaluations = ray.get(ready[0])
        for step in steps:
            self._store(step)
        self.remote_timing[actor] = (timing, evaluations)
        if self.weights_ref is None:
            self.weights_ref = ray.put({k: v.detach().clone() for k, v in self.net.state_dict().items()})
        self.requests[self.actors[actor].play.remote(self.decisions_per_call, self.weights_ref)] = actor

    def _start_actors(self) -> None:
        """``workers`` self-play actors on the cluster at ``address``, each asked for its first batch."""
        import ray

        # one move of the driver's own games first: the kernels are then compiled into this
        # machine's numba cache, which actors on this machine load instead of each compiling them
        self.selfplay.step()
        ray.init(address=self.address, include_dashboard=False, log_to_driver=False, configure_logging=False)
        remote = ray.remote(num_cpus=1)(SelfPlayActor)
        config = self.config.to_dict()
        config.pop("algo")
        seed = self.config.seed + self.num_timesteps
        self.actors = [remote.remote(config, dict(self.net.shape), seed + 1 + k, k, self.workers) for k in range(self.workers)]
        # each call plays about one batch of decisions per 2 x num_envs, so the learner's weights
        # reach the actors every few moves of their games
        self.decisions_per_call = 2 * self.config.num_envs
        self.weights_ref = ray.put({k: v.detach().clone() for k, v in self.net.state_dict().items()})
        self.requests = {actor.play.remote(self.decisions_per_call, self.weights_ref): k for k, actor in enumerate(self.actors)}
        self.remote_timing: dict[int, tuple[dict, int]] = {}

    def run(self) -> dict:
        config = self.config
        created = not self.run_dir.exists()
        self.run_dir.mkdir(parents=True, exist_ok=True)
        config_file = self.run_dir / "config.yaml"
        if not self.resume:
            config_file.write_text(yaml.safe_dump(self.config.to_dict(), sort_keys=False))
        try:
            self._build()
        except BaseException:
            if created and [p.name for p in self.run_dir.iterdir()] in ([], ["config.yaml"]):
                config_file.unlink(missing_ok=True)
                self.run_dir.rmdir()
            raise
        config_file.write_text(yaml.safe_dump(self.config.to_dict(), sort_keys=False))  # a resumed run's settings from now on
        self.rng = np.random.default_rng(config.seed + self.num_timesteps)
        self.updates = 0
        self.pending_samples = 0.0
        self.games_finished = 0
        self.actors = None
        if self.address:
            self._start_actors()
        try:
            return self._loop()
        finally:
            if self.actors is not None:
                import ray

                ray.shutdown()  # the driver leaves the cluster; its actors end with it

    def _loop(self) -> dict:
        config = self.config
        deadline = self.started + 60 * config.max_minutes if config.max_minutes else math.inf
        if config.max_minutes and self.num_timesteps < config.total_timesteps and not self.history:
            self.evaluate()  # a point at the start, and the time one evaluation takes
        next_eval = (self.num_timesteps // config.eval_every + 1) * config.eval_every
        bar = None
        if self.progress:
            from tqdm import tqdm

            fmt = progress_format(deadline - time.perf_counter())
            bar = tqdm(
                total=config.total_timesteps, initial=self.num_timesteps, unit="decision", mininterval=2, dynamic_ncols=True, bar_format=fmt
            )
        t0 = time.perf_counter()
        steps0, samples0 = self.num_timesteps, self.learner_samples
        last_step_seconds = 0.0

        def reserve() -> float:
            return EVAL_MARGIN * self.eval_seconds + last_step_seconds + REPORT_SECONDS

        try:
            while self.num_timesteps < config.total_timesteps and time.perf_counter() + reserve() < deadline:
                step_started = time.perf_counter()
                before = self.num_timesteps
                self._self_play()
                if self.pending_samples >= config.batch_size * config.learner_burst:
                    # whole minibatches, the remainder kept for the next step: the learner takes
                    # replay_ratio samples a decision whatever a step's decisions are against the
                    # minibatch (nothing is kept while no game has ended: nothing to learn from)
                    learned = self._learn(int(self.pending_samples // config.batch_size))
                    self.pending_samples = self.pending_samples - learned if learned else 0.0
                    self.weights_ref = None  # the actors' next batches are asked with these weights
                last_step_seconds = time.perf_counter() - step_started
                if bar is not None:
                    bar.update(self.num_timesteps - before)
                if self.num_timesteps >= next_eval:
                    next_eval += config.eval_every
                    if time.perf_counter() + self.eval_seconds + reserve() < deadline:
                        results = self.evaluate()
                        if bar is not None:
                            bar.set_postfix_str(" ".join(f"{self.relation} {k} {100 * v['win_rate']:.0f}%" for k, v in results.items()))
        except KeyboardInterrupt:
            self.interrupted = True
            path = self.save("last")
            if bar is not None:
                bar.close()
            print(f"\ninterrupted at {self.num_timesteps} decisions; resumable checkpoint: {path}")
            raise
        finally:
            if bar is not None:
                bar.close()
        for name, seconds in self.selfplay.timing.items():
            self.timing[name] += seconds
        evaluations = self.selfplay.evaluations()
        if self.actors is not None:  # the actors' time on their own cores, summed
            for timing, count in self.remote_timing.values():
                for name, seconds in timing.items():
                    self.timing[name] += seconds
                evaluations += count
        elapsed = time.perf_counter() - t0
        decisions = self.num_timesteps - steps0
        # the final evaluation (unless the last one in the loop saw this very network)
        results = self.last_results if self.last_results_at == self.num_timesteps and self.last_results else self.evaluate()
        stats = {
            "num_timesteps": self.num_timesteps,
            "seconds": round(self.seconds(), 1),
            "learner_steps_per_second": decisions / elapsed if elapsed > 0 else 0.0,
            "env_steps_per_second": decisions / elapsed if elapsed > 0 else 0.0,
            "learner_samples": self.learner_samples,
            # the learner's own rate in this run (its samples over its seconds, not the run's),
            # what benchmarks/az_throughput.py measures of the learner step alone
            "learner_samples_per_second": (self.learner_samples - samples0) / self.timing["learner"] if self.timing["learner"] > 0 else 0.0,
            "games": self.games_finished,
            "network_evaluations": evaluations,
            "self_play_workers": self.workers if self.actors is not None else 0,
            "time_shares": {k: round(v / elapsed, 3) if elapsed > 0 else 0.0 for k, v in self.timing.items()},
            "final": results,
            "best_score": self.best_score,
        }
        self.writer.close()
        write_report(self.run_dir, self.config, self.game, self.history, stats, "checkpoints/best.zip")
        return stats
