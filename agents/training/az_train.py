"""AlphaZero-style training (``tardis-envs train <env_id> --algo az``): expert iteration
on the batched kernels.

Self-play: ``num_envs`` games advance together; at every decision with a choice, one
:class:`~tardis_envs.core.guided.GuidedSearch` over all of them (Gumbel root with
noise, ``simulations`` simulations, the current network evaluating every leaf of the
batch in one call) chooses the move and gives the training target, the search's
improved policy. When a game ends, each of its decisions gets the game's outcome per
seat, counted from that decision's mover (the team's result in Time of the Daleks).
Decisions go to a replay buffer (observations in the game's compact or packed dtype,
the policy as its ``policy_entries`` largest entries); after every self-play step the
learner takes ``replay_ratio`` samples per new decision in minibatches (cross-entropy to
the improved policy, squared error to the outcome). Every ``eval_every`` decisions the
current network plays the benchmark opponents with ``eval_simulations`` simulations.

The run folder is the PPO backends' (:mod:`agents.training.train`): ``config.yaml``,
``eval.csv``, ``tb/``, ``checkpoints/last.zip`` (also written on Ctrl-C; ``--resume``
continues from it with its optimizer, the replay buffer starts empty), ``best.zip``,
``winrate.png``, ``summary.md``, ``stats.json``. Checkpoints are ``az:<path>`` agents.
"""

from __future__ import annotations

import io
import math
import time
import zipfile
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from tardis_envs import env_module, vector
from tardis_envs.core.guided import GuidedSearch

from .. import make_agent
from ..alphazero import AZAgent, NetEvaluator, build_net, load_checkpoint, masked_logits, save_checkpoint
from ..checkpoint import CheckpointError
from ..tournament import play_match, rearm_ctrl_c, team_match
from .train import EVAL_MARGIN, EVAL_SEED, REPORT_SECONDS, append_eval_rows, read_history, resumable_meta, write_report

OPTIMIZER_MEMBER = "az_optimizer.pt"


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
    simulations: int = 16
    """Simulations per self-play decision (after the root's evaluation)."""
    max_considered: int = 8
    """Root actions the Gumbel search starts its sequential halving from."""
    hidden: int = 256
    """Width of the network's hidden layers."""
    layers: int = 2
    """Hidden layers of the network's trunk."""
    learning_rate: float = 1e-3
    """Adam step size."""
    weight_decay: float = 1e-4
    """AdamW weight decay."""
    batch_size: int = 512
    """Learner minibatch."""
    replay_ratio: float = 4.0
    """Learner samples per self-play decision."""
    buffer_size: int = 200_000
    """Decisions kept in the replay buffer (the oldest leave first)."""
    policy_entries: int = 64
    """Largest entries of each decision's improved policy kept as its target."""
    value_weight: float = 1.0
    """Weight of the value loss beside the policy loss."""
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

    @property
    def eval_heuristic(self) -> str:
        return next((s for s in self.eval_opponents if s.split(":", 1)[0] == "heuristic"), "heuristic")

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None, where: str = "az config") -> "AZConfig":
        data = dict(data or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"{where}: unknown key {unknown[0]!r}; allowed: {', '.join(sorted(known))}")
        config = cls(**data)
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
            "buffer_size",
            "policy_entries",
            "eval_every",
            "eval_games",
            "eval_simulations",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{where}: {name!r} must be a positive integer, got {value!r}")
        for name in ("learning_rate", "replay_ratio", "value_weight"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value > 0):
                raise ValueError(f"{where}: {name!r} must be a positive number, got {value!r}")
        for name in ("weight_decay", "max_minutes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value >= 0):
                raise ValueError(f"{where}: {name!r} must be a number >= 0, got {value!r}")
        for name in ("seed", "num_threads"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{where}: {name!r} must be an integer >= 0, got {value!r}")
        if not isinstance(self.eval_opponents, list) or not self.eval_opponents or not all(isinstance(s, str) for s in self.eval_opponents):
            raise ValueError(f"{where}: 'eval_opponents' must be a list of agent specs, got {self.eval_opponents!r}")

    def to_dict(self) -> dict[str, Any]:
        return {"algo": "az", **asdict(self)}


class ReplayBuffer:
    """The latest ``capacity`` decisions: observation (in the games' own dtype), legal
    mask (bits), the improved policy's largest entries, and the outcome by seat counted
    from the mover (unknown until the game ends: such decisions are not sampled)."""

    def __init__(self, capacity: int, obs_shape: tuple, obs_dtype, num_actions: int, num_players: int, entries: int):
        self.capacity = capacity
        self.obs = np.zeros((capacity, *obs_shape), dtype=obs_dtype)
        self.masks = np.zeros((capacity, (num_actions + 7) // 8), dtype=np.uint8)
        self.num_actions = num_actions
        self.entries = min(entries, num_actions)
        self.policy_index = np.zeros((capacity, self.entries), dtype=np.int32)
        self.policy_weight = np.zeros((capacity, self.entries), dtype=np.float32)
        self.mover = np.zeros(capacity, dtype=np.int64)
        self.episode = np.full(capacity, -1, dtype=np.int64)
        self.outcome = np.zeros((capacity, num_players), dtype=np.float32)
        self.ready = np.zeros(capacity, dtype=np.bool_)
        self.next = 0
        self.added = 0

    def add(self, obs, masks, policy, movers, episodes) -> None:
        n = len(movers)
        at = (self.next + np.arange(n)) % self.capacity
        self.next = int((self.next + n) % self.capacity)
        self.added += n
        self.obs[at] = obs
        self.masks[at] = np.packbits(masks.astype(bool), axis=1)
        k = self.entries
        top = np.argpartition(-policy, k - 1, axis=1)[:, :k] if k < policy.shape[1] else np.broadcast_to(np.arange(k), (n, k))
        weight = np.take_along_axis(policy, top, axis=1)
        self.policy_index[at] = top
        self.policy_weight[at] = weight / np.maximum(weight.sum(axis=1, keepdims=True), 1e-12)
        self.mover[at] = movers
        self.episode[at] = episodes
        self.ready[at] = False

    def finish(self, episodes: np.ndarray, rewards: np.ndarray) -> None:
        """Games ``episodes`` ended with ``rewards[k]`` by seat: their decisions get the outcome
        (one pass over the buffer for all the games that ended in a step)."""
        rows = np.flatnonzero(~self.ready & np.isin(self.episode, episodes))
        if rows.size == 0:
            return
        order = np.argsort(episodes)
        game = order[np.searchsorted(episodes[order], self.episode[rows])]
        players = rewards.shape[1]
        seats = (self.mover[rows, None] + np.arange(players)) % players
        self.outcome[rows] = np.take_along_axis(rewards[game], seats, axis=1)
        self.ready[rows] = True

    def sample(self, rng: np.random.Generator, size: int):
        rows = np.flatnonzero(self.ready)
        if rows.size == 0:
            return None
        pick = rows[rng.integers(0, rows.size, size=size)]
        masks = np.unpackbits(self.masks[pick], axis=1, count=self.num_actions).astype(bool)
        return self.obs[pick], masks, self.policy_index[pick], self.policy_weight[pick], self.outcome[pick]


class AZTrainer:
    """Owns one run folder; ``run()`` trains until the decisions or the minutes are spent."""

    def __init__(self, config: AZConfig, run_dir: str | Path, resume: bool = False, progress: bool = True):
        self.config = config
        self.run_dir = Path(run_dir)
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
        self.timing = {"search": 0.0, "network": 0.0, "learner": 0.0, "env": 0.0}
        self.last_results: dict[str, dict] = {}
        self.last_results_at = -1

    def seconds(self) -> float:
        return self.seconds_before + time.perf_counter() - self.started

    # --- setup -------------------------------------------------------------------
    def _build(self) -> None:
        import torch

        config, game = self.config, self.game
        if config.num_threads:
            torch.set_num_threads(config.num_threads)
        torch.manual_seed(config.seed)
        self.net = build_net(int(np.prod(game.observation_shape)), game.num_actions, game.num_players, config.hidden, config.layers)
        self.optimizer = torch.optim.AdamW(self.net.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay)
        if self.resume:
            last = self.run_dir / "checkpoints" / "last.zip"
            meta = resumable_meta(last, config, game, self.run_dir)
            if meta.get("algo") != "az":
                raise CheckpointError(f"--resume: {str(last)!r} is not an az checkpoint; resume it with its own --algo")
            net, meta = load_checkpoint(last, game)
            if net.shape != self.net.shape:
                raise CheckpointError(f"--resume: {str(last)!r} holds a network of shape {net.shape}, the config asks {self.net.shape}")
            self.net = net
            self.optimizer = torch.optim.AdamW(self.net.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay)
            with zipfile.ZipFile(last) as archive:
                if OPTIMIZER_MEMBER in archive.namelist():
                    self.optimizer.load_state_dict(torch.load(io.BytesIO(archive.read(OPTIMIZER_MEMBER)), weights_only=True))
            self.num_timesteps = int(meta["num_timesteps"])
            self.learner_samples = int(meta.get("learner_samples", 0))
            self.seconds_before = float(meta.get("seconds", 0.0))
            self.best_score = meta.get("best_score") if meta.get("best_score") is not None else -math.inf
            self.history = read_history(self.run_dir)
        self.net.train()
        obs_dtype = "packed" if game.packed_plane_kinds is not None else "compact"
        self.vec = vector.make(config.env_id, config.num_envs, seed=config.seed + self.num_timesteps, obs_dtype=obs_dtype, **config.options)
        self.buffer = ReplayBuffer(
            config.buffer_size, self.vec.obs.shape[1:], self.vec.obs.dtype, game.num_actions, game.num_players, config.policy_entries
        )
        self.search = GuidedSearch(
            game, config.simulations, gumbel_scale=1.0, max_considered=config.max_considered, seed=config.seed + self.num_timesteps
        )
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(str(self.run_dir / "tb" / "az"))

    def _extra(self) -> dict:
        return {
            "config": self.config.to_dict(),
            "seed": self.config.seed,
            "learner_samples": self.learner_samples,
            "seconds": round(self.seconds(), 1),
            "best_score": None if math.isinf(self.best_score) else self.best_score,
        }

    def save(self, name: str) -> Path:
        import torch

        path = save_checkpoint(self.run_dir / "checkpoints" / f"{name}.zip", self.net, self.game, self.num_timesteps, self._extra())
        if name == "last":
            buffer = io.BytesIO()
            torch.save(self.optimizer.state_dict(), buffer)
            with zipfile.ZipFile(path, "a") as archive:
                archive.writestr(OPTIMIZER_MEMBER, buffer.getvalue())
        return path

    # --- evaluation ----------------------------------------------------------------
    def evaluate(self) -> dict[str, dict]:
        started = time.perf_counter()
        self.net.eval()
        config, game = self.config, self.game
        learner = AZAgent(game, self.net, seed=1, simulations=config.eval_simulations, considered=config.max_considered)
        n = game.num_players
        games = max(config.eval_games - config.eval_games % n, n)
        results = {}
        for spec in config.eval_opponents:
            other = make_agent(spec, game, seed=1)
            if game.spec.cooperative:
                match = team_match(config.env_id, learner, other, ("learner", spec), games, seed=EVAL_SEED, options=config.options)
                results[spec] = match.team_record(0)
            else:
                agents = [learner, other] if n == 2 else [learner] + [other] * (n - 1)
                names = ["learner", spec] if n == 2 else ["learner"] + [spec] * (n - 1)
                results[spec] = play_match(config.env_id, agents, names, games, seed=EVAL_SEED, options=config.options).record(0)
        self.net.train()
        rearm_ctrl_c()
        self.eval_seconds = time.perf_counter() - started
        self.last_results, self.last_results_at = results, self.num_timesteps
        self.history += append_eval_rows(self.run_dir, self.num_timesteps, self.seconds(), results, game.spec.cooperative)
        for name, rec in results.items():
            self.writer.add_scalar(f"eval/{self.relation}_{name}", rec["win_rate"], self.num_timesteps)
        score = float(np.mean([rec["win_rate"] for rec in results.values()]))
        if score > self.best_score:
            self.best_score = score
            self.save("best")
        self.save("last")
        return results

    # --- self-play and learning ------------------------------------------------------
    def _learn(self, samples: int) -> None:
        import torch

        config = self.config
        started = time.perf_counter()
        while samples > 0:
            batch = self.buffer.sample(self.rng, config.batch_size)
            if batch is None:
                return
            obs, masks, index, weight, outcome = batch
            obs_t = torch.from_numpy(self.game.float_observations(obs, self.vec.obs_dtype).reshape(len(obs), -1))
            logits, values = self.net(obs_t)
            log_policy = torch.log_softmax(masked_logits(logits, torch.from_numpy(masks)), dim=1)
            picked = torch.gather(log_policy, 1, torch.from_numpy(index.astype(np.int64)))
            policy_loss = -(torch.from_numpy(weight) * torch.nan_to_num(picked, neginf=0.0)).sum(dim=1).mean()
            value_loss = ((values - torch.from_numpy(outcome)) ** 2).mean()
            loss = policy_loss + config.value_weight * value_loss
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
            samples -= config.batch_size
            self.learner_samples += config.batch_size
            self.updates += 1
            if self.updates % 50 == 0:
                self.writer.add_scalar("loss/policy", policy_loss.item(), self.num_timesteps)
                self.writer.add_scalar("loss/value", value_loss.item(), self.num_timesteps)
        self.timing["learner"] += time.perf_counter() - started

    def _self_play_step(self, evaluate) -> None:
        vec = self.vec
        started = time.perf_counter()
        busy = vec.masks.sum(axis=1) > 1
        actions = np.argmax(vec.masks, axis=1).astype(np.int64)
        if busy.any():
            network_before = self.network_seconds
            searched, policy, _ = self.search.run(vec.states, evaluate, active=busy)
            actions[busy] = searched[busy]
            rows = np.flatnonzero(busy)
            self.buffer.add(vec.obs[rows], vec.masks[rows], policy[rows], vec.current_player[rows], self.episodes[rows])
            self.num_timesteps += rows.size
            self.pending_samples += rows.size * self.config.replay_ratio
            self.timing["search"] += time.perf_counter() - started - (self.network_seconds - network_before)
        stepped = time.perf_counter()
        _, _, _, rewards, terminated, truncated = vec.step(actions)
        ended = np.flatnonzero(terminated | truncated)
        if ended.size:
            self.buffer.finish(self.episodes[ended], rewards[ended])
            self.episodes[ended] = self.next_episode + np.arange(ended.size)
            self.next_episode += ended.size
            self.games_finished += ended.size
        self.timing["env"] += time.perf_counter() - stepped

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
        self.rng = np.random.default_rng(config.seed + self.num_timesteps)
        self.updates = 0
        self.pending_samples = 0.0
        self.games_finished = 0
        self.network_seconds = 0.0
        self.vec.reset()
        self.episodes = np.arange(config.num_envs, dtype=np.int64)
        self.next_episode = config.num_envs
        net_evaluate = NetEvaluator(self.net)
        trainer = self

        def evaluate(obs, masks):
            started = time.perf_counter()
            out = net_evaluate(obs, masks)
            trainer.network_seconds += time.perf_counter() - started
            return out

        deadline = self.started + 60 * config.max_minutes if config.max_minutes else math.inf
        if config.max_minutes and self.num_timesteps < config.total_timesteps and not self.history:
            self.evaluate()  # a point at the start, and the time one evaluation takes
        next_eval = (self.num_timesteps // config.eval_every + 1) * config.eval_every
        bar = None
        if self.progress:
            from tqdm import tqdm

            fmt = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]" if math.isfinite(deadline) else None
            bar = tqdm(
                total=config.total_timesteps, initial=self.num_timesteps, unit="decision", mininterval=2, dynamic_ncols=True, bar_format=fmt
            )
        t0 = time.perf_counter()
        steps0 = self.num_timesteps
        last_step_seconds = 0.0

        def reserve() -> float:
            return EVAL_MARGIN * self.eval_seconds + last_step_seconds + REPORT_SECONDS

        try:
            while self.num_timesteps < config.total_timesteps and time.perf_counter() + reserve() < deadline:
                step_started = time.perf_counter()
                before = self.num_timesteps
                self._self_play_step(evaluate)
                if self.pending_samples >= config.batch_size:
                    self._learn(int(self.pending_samples))
                    self.pending_samples -= int(self.pending_samples)
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
        self.timing["network"] = self.network_seconds
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
            "games": self.games_finished,
            "network_evaluations": self.search.evaluations,
            "time_shares": {k: round(v / elapsed, 3) if elapsed > 0 else 0.0 for k, v in self.timing.items()},
            "final": results,
            "best_score": self.best_score,
        }
        self.writer.close()
        write_report(self.run_dir, self.config, self.game, self.history, stats, "checkpoints/best.zip")
        return stats
