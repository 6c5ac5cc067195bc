"""``tardis-envs train --backend rllib``: PPO on Ray RLlib with the same run folder as the
SB3 backend.

Run directory layout::

    run_dir/config.yaml            the resolved TrainConfig (and the RLlib settings)
    run_dir/eval.csv               one row per evaluation and benchmark agent
    run_dir/tb/rllib/              TensorBoard: evaluation win rates, episode returns, throughput
    run_dir/checkpoints/last/      the whole algorithm (also written on Ctrl-C; --resume reads it)
    run_dir/checkpoints/best/      best mean win rate against random and the heuristic
    run_dir/winrate.png, summary.md, stats.json  written at the end

Each checkpoint folder holds ``tardis_meta.json`` (game, version, options, steps, the league's
snapshots): ``eval --agents rllib:<run_dir>/checkpoints/best`` plays it.

The league: the learning module ``main``, the fixed modules ``random`` and ``heuristic``, and a
frozen copy of ``main`` every ``snapshot_every`` learner steps (``Algorithm.add_module``; only
``main`` is trained; the oldest snapshots stay in the checkpoint but leave the draw beyond
``max_snapshots``). :class:`~agents.training.rllib_backend.LeagueMapping` seats them per episode
by the run's ``opponents`` weights.

Time limit (``max_minutes``, ``--minutes``): as in the SB3 backend, the clock starts when the
trainer is created, an evaluation is timed before training, and its time (x ``EVAL_MARGIN``), one
more ``algo.train()`` iteration and the report stay free before the deadline, so the run ends
inside its budget.

Ray: by default the command starts a local Ray of its own and ends it; ``address`` joins a
running cluster (``ray start --head`` on one machine, ``ray start --address=<head>:6379`` on
the others), and the env runners and learners are spread over it.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
import threading
import time
from pathlib import Path

import numpy as np
import yaml

from tardis_envs import env_module

from ..checkpoint import CheckpointError
from ..rllib_agent import RLlibPolicyAgent
from .config import TrainConfig
from .rllib_backend import (
    MAIN,
    LeagueMapping,
    MaskedPPOModule,
    learner_steps,
    module_model_config,
    ppo_config,
    save_checkpoint,
    spaces,
    step_count,
)
from .train import (
    EVAL_MARGIN,
    REPORT_SECONDS,
    append_eval_rows,
    evaluate_learner,
    open_run_dir,
    read_history,
    rearm_ctrl_c,
    refuse_changed_settings,
    resumable_meta,
    write_report,
)

# Learner decisions per PPO update: at least MIN_UPDATE (a smaller batch is mostly noise), at
# most half the run's --timesteps (a short run still updates more than once)
MIN_UPDATE = 256
PROGRESS_SECONDS = 10.0  # a progress line at most this often (and after the first update)
EMPTY_ITERATIONS = 5  # training iterations in a row without samples that end a run with an error


def batch_sizes(config: TrainConfig, num_players: int, sampling_games: int) -> dict:
    """RLlib's ``train_batch_size`` (env steps) and ``minibatch_size`` for a run.

    RLlib's env runners step one Python game each (``sampling_games`` in all), not the SB3
    backend's ``num_envs`` batched numba games, so an update takes ``n_steps`` decisions from
    each sampling game (at least ``MIN_UPDATE``, at most half of ``total_timesteps``). RLlib
    counts a batch in env steps, of which the learner takes about 1/``num_players``; the
    minibatch is never larger than the learner's share (RLlib skips the update otherwise).
    """
    learner = max(config.n_steps * sampling_games, MIN_UPDATE)
    learner = max(min(learner, config.total_timesteps // 2), 1)
    return {"train_batch_size": learner * num_players, "minibatch_size": min(config.batch_size, max(learner // 2, 1))}


# What Ray and RLlib print on every run that says nothing about this run: the cluster's token
# notice, the new-API-stack and RLModule-config deprecation notes, the actor-restart caveat of
# the env runners, the GPU monitor's install hint, and the signal handler's raw dumps (a
# "SIGTERM received" banner and its stack addresses) when workers are ended at shutdown.
RAY_NOISE = tuple(
    re.compile(pattern)
    for pattern in (
        r"^Token authentication is enabled for this Ray cluster",
        r"WARNING algorithm_config\.py:\d+ -- You are running \w+ on the new API stack",
        r"core_worker\.cc:\d+: Actor with class name: .* has constructor arguments in the object store",
        r"DeprecationWarning: `RLModule\(config=",
        r"^Install gputil for GPU system monitoring",
        r"\*\*\* SIGTERM received at time=",
        r"^(\[[^]]*\] )?([\w.]+:\d+: )?\s*(PC: )?@\s+0x[0-9a-f]+ ",
    )
)


@contextlib.contextmanager
def filtered_stderr(noise: tuple[re.Pattern, ...] = RAY_NOISE):
    """Drop the lines of ``noise`` from everything written to file descriptor 2 meanwhile (by
    Python, and by Ray's C++ core in this process, which bypasses ``sys.stderr``); every other
    line passes through unchanged."""
    sys.stderr.flush()
    original = os.dup(2)
    read_end, write_end = os.pipe()
    os.dup2(write_end, 2)
    os.close(write_end)
    passed = os.dup(original)  # the pump's own copy: it may outlive ``original``

    def pump() -> None:
        with os.fdopen(read_end, "rb") as pipe, os.fdopen(passed, "wb", buffering=0) as out:
            for line in pipe:
                if not any(pattern.search(line.decode(errors="replace")) for pattern in noise):
                    out.write(line)

    thread = threading.Thread(target=pump, name="ray-noise-filter", daemon=True)
    thread.start()
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(original, 2)  # the pipe ends when no process holds its write end any more
        os.close(original)
        thread.join(timeout=2.0)


class RLlibTrainer:
    """Owns one run directory; ``run()`` trains until the budget is spent."""

    def __init__(
        self,
        config: TrainConfig,
        run_dir: str | Path,
        resume: bool = False,
        progress: bool = True,
        *,
        address: str | None = None,
        num_env_runners: int = 1,
        num_envs_per_env_runner: int = 1,
        num_learners: int = 0,
        quiet: bool = True,
        overwrite: bool = False,
    ):
        """``quiet``: Ray's routine notices (:data:`RAY_NOISE`) are left out of stderr."""
        for name, value, low in (
            ("num_env_runners", num_env_runners, 0),
            ("num_envs_per_env_runner", num_envs_per_env_runner, 1),
            ("num_learners", num_learners, 0),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"--{name.replace('_', '-')} must be an integer >= {low}, got {value!r}")
        self.config = config
        self.resume = resume
        self.progress = progress
        self.address = address
        self.quiet = quiet
        self.scale = {"num_env_runners": num_env_runners, "num_envs_per_env_runner": num_envs_per_env_runner, "num_learners": num_learners}
        self.game = env_module(config.env_id).Game(**config.options)
        self._check_opponents()
        self.relation = "with" if self.game.spec.cooperative else "vs"
        self.history: list[dict] = []
        self.best_score = -math.inf
        self.snapshots: list[str] = []
        self.num_timesteps = 0
        self.seconds_before = 0.0
        self.started = time.perf_counter()
        self.interrupted = False
        # the run folder's rules, last: nothing is cleared for a trainer that refuses its settings
        self.run_dir, self.kept = open_run_dir(run_dir, "ppo", "rllib", resume=resume, overwrite=overwrite)

    def seconds(self) -> float:
        return self.seconds_before + time.perf_counter() - self.started

    def sampling_games(self) -> int:
        """Games sampled at once: each env runner's games (the driver's when there are none)."""
        return max(self.scale["num_env_runners"], 1) * self.scale["num_envs_per_env_runner"]

    # --- setup ---------------------------------------------------------------
    def _check_opponents(self) -> None:
        search = sorted(k for k in self.config.opponents if ":" in k)
        if search:
            raise ValueError(
                f"opponents: {search[0]!r}: search, preset and fixed ppo opponents are played by the sb3 backend only (--backend sb3)"
            )
        if isinstance(self.config.net_arch, dict):
            raise ValueError("net_arch: separate pi/vf sizes are a setting of the sb3 backend only (--backend sb3, or one list)")
        if self.config.policy != "mlp":
            raise ValueError(f"policy: {self.config.policy!r} is a network of the sb3 backend only (--backend sb3, or policy: mlp)")
        if self.config.bc_decisions:
            raise ValueError(
                "bc_decisions: the behaviour-cloning warm start is part of the sb3 backend only (--backend sb3, or bc_decisions: 0)"
            )

    def _mapping(self) -> LeagueMapping:
        live = tuple(self.snapshots[-self.config.max_snapshots :]) if self.config.max_snapshots else ()
        return LeagueMapping(self.agent_names, self.config.opponents, live)

    def _build(self) -> None:
        c = self.config
        observation_space, action_space, self.agent_names = spaces(c.env_id, c.options, c.obs_dtype)
        self.module_spec_args = {
            "observation_space": observation_space,
            "action_space": action_space,
            "model_config": module_model_config(c.env_id, c.options, c.net_arch, c.obs_dtype),
        }
        last = self.run_dir / "checkpoints" / "last"
        meta = None
        if self.resume:
            meta = resumable_meta(last, c, self.game, self.run_dir)
            trained_dtype = (meta.get("config") or {}).get("obs_dtype", "float32")
            if trained_dtype != c.obs_dtype:
                # the RLlib module's observation space carries the dtype (SB3 policies always see float32)
                raise CheckpointError(
                    f"--resume: {str(last)!r} was trained with obs_dtype {trained_dtype!r}, the config asks for {c.obs_dtype!r}; "
                    f"set 'obs_dtype: {trained_dtype}' in the run's config to resume it, or start a new run"
                )
            if meta.get("backend") != "rllib":
                raise CheckpointError(f"--resume: {str(last)!r} was not written by the rllib backend")
            refuse_changed_settings(
                meta.get("config") or {},
                c.to_dict(),
                ("net_arch",),
                self.run_dir,
                "its network keeps its own shape (start a new run to change it)",
            )
            self.snapshots = list(meta.get("snapshots") or [])
        self.algo = ppo_config(
            c.env_id,
            c.options,
            **self.scale,
            hidden=tuple(c.net_arch),
            **batch_sizes(c, self.game.num_players, self.sampling_games()),
            num_epochs=c.n_epochs,
            learning_rate=c.learning_rate,
            gamma=c.gamma,
            lambda_=c.gae_lambda,
            entropy_coeff=c.ent_coef,
            clip_param=c.clip_range,
            seed=c.seed,
            policy_mapping_fn=self._mapping(),
            obs_dtype=c.obs_dtype,
        ).build_algo()
        if meta is not None:
            from ray.rllib.core.rl_module.rl_module import RLModuleSpec

            for name in self.snapshots:  # the modules must exist before their weights come back
                self.algo.add_module(
                    module_id=name,
                    module_spec=RLModuleSpec(module_class=MaskedPPOModule, **self.module_spec_args),
                    new_agent_to_module_mapping_fn=self._mapping(),
                    new_should_module_be_updated=[MAIN],
                )
            self.algo.restore_from_path(str(last.resolve()))
            self.num_timesteps = int(meta["num_timesteps"])
            self.seconds_before = float(meta.get("seconds") or 0.0)
            self.best_score = meta.get("best_score") if meta.get("best_score") is not None else -math.inf
            self.history = read_history(self.run_dir)

    # --- league, evaluation, checkpoints -----------------------------------------
    def snapshot(self) -> None:
        from ray.rllib.core.rl_module.rl_module import RLModuleSpec

        name = f"snap_{self.num_timesteps:010d}"
        self.snapshots.append(name)
        self.algo.add_module(
            module_id=name,
            module_spec=RLModuleSpec(module_class=MaskedPPOModule, **self.module_spec_args),
            new_agent_to_module_mapping_fn=self._mapping(),
            new_should_module_be_updated=[MAIN],
        )
        # the copy starts as the learner's current weights, on the learner and the env runners
        self.algo.set_state({"learner_group": {"learner": {"rl_module": {name: self.algo.get_module(MAIN).get_state()}}}})
        self.algo.env_runner_group.sync_weights(policies=[name])

    def _extra(self) -> dict:
        return {
            "best_score": self.best_score if math.isfinite(self.best_score) else None,
            "seconds": round(self.seconds(), 1),
            "snapshots": self.snapshots,
            "interrupted": self.interrupted,
            "rllib": self.scale,
        }

    def evaluate(self) -> dict[str, dict]:
        learner = RLlibPolicyAgent(self.game, self.algo.get_module(MAIN), deterministic=True)
        results = evaluate_learner(self.config, self.game, learner)
        self.history.extend(append_eval_rows(self.run_dir, self.num_timesteps, self.seconds(), results, self.game.spec.cooperative))
        for name, rec in results.items():
            for key in ("win_rate", "ci_low", "ci_high"):
                self.writer.add_scalar(f"eval/{key}_vs_{name}", rec[key], self.num_timesteps)
        score = float(np.mean([r["win_rate"] for r in results.values()]))
        checkpoints = self.run_dir / "checkpoints"
        if score > self.best_score:
            self.best_score = score
            save_checkpoint(self.algo, checkpoints / "best", self.config, self.game, self.num_timesteps, self._extra())
        save_checkpoint(self.algo, checkpoints / "last", self.config, self.game, self.num_timesteps, self._extra())
        return results

    # --- the run ---------------------------------------------------------------
    def run(self) -> dict:
        import ray
        from torch.utils.tensorboard import SummaryWriter

        c = self.config
        self.run_dir.mkdir(parents=True, exist_ok=True)
        record = yaml.safe_dump({**c.to_dict(), "backend": "rllib", **self.scale}, sort_keys=False)
        if not self.resume:  # a resume's settings replace the run's record once its checks pass
            (self.run_dir / "config.yaml").write_text(record)
        with filtered_stderr() if self.quiet else contextlib.nullcontext():
            started_ray = not ray.is_initialized()
            if started_ray:
                # no address: a local Ray of this command's own, ended below (never someone else's)
                ray.init(address=self.address or "local", include_dashboard=False, log_to_driver=False, configure_logging=False)
            self.writer = SummaryWriter(str(self.run_dir / "tb" / "rllib"))
            try:
                self._build()
                (self.run_dir / "config.yaml").write_text(record)
                stats = self._loop()
            finally:
                self.writer.close()
                if getattr(self, "algo", None) is not None:
                    self.algo.stop()
                if started_ray:
                    ray.shutdown()
        write_report(self.run_dir, c, self.game, self.history, stats, "checkpoints/best/")
        return stats

    def _loop(self) -> dict:
        c = self.config
        deadline = self.started + 60 * c.max_minutes if c.max_minutes else math.inf
        next_eval = (self.num_timesteps // c.eval_every + 1) * c.eval_every
        next_snapshot = (self.num_timesteps // c.snapshot_every + 1) * c.snapshot_every
        steps0, t0, env_steps = self.num_timesteps, time.perf_counter(), 0
        base = None  # learner steps the algorithm counted before this process (resume)
        empty = 0  # iterations in a row that returned no samples
        eval_seconds = 0.0  # the last evaluation's wall time
        iteration_seconds = 0.0  # the last algo.train() call's wall time
        last_line = None  # when the last progress line was printed

        def reserve() -> float:
            """Seconds kept free before the deadline: the final evaluation, one more iteration, the report."""
            return EVAL_MARGIN * eval_seconds + iteration_seconds + REPORT_SECONDS

        if math.isfinite(deadline) and self.num_timesteps < c.total_timesteps:
            started = time.perf_counter()
            self.evaluate()  # times an evaluation: the final one's time is kept free from the start
            eval_seconds = time.perf_counter() - started
        try:
            while self.num_timesteps < c.total_timesteps and time.perf_counter() + reserve() < deadline:
                rearm_ctrl_c()  # the last evaluation may have compiled kernels
                started = time.perf_counter()
                result = self.algo.train()
                iteration_seconds = time.perf_counter() - started
                counted = learner_steps(result)
                if counted is None:  # nothing sampled in time this iteration: the next one tries again
                    empty += 1
                    if empty >= EMPTY_ITERATIONS:
                        raise RuntimeError(
                            f"{empty} training iterations in a row returned no samples: the env runners are not "
                            "sampling (see Ray's log above)"
                        )
                    print(f"  iteration returned no samples ({empty} in a row; a loaded machine?): training goes on", flush=True)
                    continue
                empty = 0
                if base is None:
                    base = self.num_timesteps - (counted - self._last_batch(result))
                self.num_timesteps = base + counted
                env_steps += step_count(result.get("env_runners", {}).get("num_env_steps_sampled")) or 0
                returns = result.get("env_runners", {}).get("module_episode_returns_mean", {})
                for module, value in returns.items():
                    self.writer.add_scalar(f"train/episode_return_{module}", value, self.num_timesteps)
                rate = (self.num_timesteps - steps0) / max(time.perf_counter() - t0, 1e-9)
                self.writer.add_scalar("train/learner_steps_per_second", rate, self.num_timesteps)
                if self.progress and (last_line is None or time.perf_counter() - last_line >= PROGRESS_SECONDS):
                    last_line = time.perf_counter()
                    own = returns.get(MAIN)
                    print(
                        f"  {self.num_timesteps:,} of {c.total_timesteps:,} learner steps, {rate:,.0f}/s, {env_steps:,} env steps"
                        + (f", episode return {own:+.2f}" if own is not None else ""),
                        flush=True,
                    )
                if self.num_timesteps >= next_snapshot and c.opponents.get("snapshot", 0) > 0:
                    self.snapshot()
                    next_snapshot += c.snapshot_every
                if self.num_timesteps >= next_eval and time.perf_counter() + eval_seconds + reserve() >= deadline:
                    next_eval += c.eval_every  # no time for two more evaluations: the final one comes soon
                elif self.num_timesteps >= next_eval:
                    started = time.perf_counter()
                    results = self.evaluate()
                    eval_seconds = time.perf_counter() - started
                    next_eval += c.eval_every
                    if self.progress:
                        words = " ".join(f"{self.relation} {k} {100 * v['win_rate']:.0f}%" for k, v in results.items())
                        print(f"  {self.num_timesteps:,} learner steps, {rate:,.0f}/s: {words}", flush=True)
        except KeyboardInterrupt:
            self.interrupted = True
            path = save_checkpoint(self.algo, self.run_dir / "checkpoints" / "last", c, self.game, self.num_timesteps, self._extra())
            print(f"\ninterrupted at {self.num_timesteps} learner steps; resumable checkpoint: {path}")
            raise
        elapsed = time.perf_counter() - t0
        final = self.evaluate() if self.history == [] or self.history[-1]["timesteps"] != self.num_timesteps else self._last_results()
        return {
            "num_timesteps": self.num_timesteps,
            "seconds": round(self.seconds(), 1),
            "learner_steps_per_second": (self.num_timesteps - steps0) / elapsed if elapsed > 0 else 0.0,
            "env_steps_per_second": env_steps / elapsed if elapsed > 0 else 0.0,
            "final": final,
            "best_score": self.best_score,
            "backend": "rllib",
            **self.scale,
        }

    @staticmethod
    def _last_batch(result: dict) -> int:
        return step_count(result.get("env_runners", {}).get("num_module_steps_sampled", {}).get(MAIN)) or 0

    def _last_results(self) -> dict[str, dict]:
        """The records of the evaluation at the current step (already in the history)."""
        rows = [r for r in self.history if r["timesteps"] == self.num_timesteps]
        return {
            r["opponent"]: {
                k: (int(r[k]) if k in ("games", "wins", "draws", "losses") else float(r[k]))
                for k in ("games", "wins", "draws", "losses", "win_rate", "ci_low", "ci_high")
            }
            for r in rows
        }


__all__ = ["RLlibTrainer"]
