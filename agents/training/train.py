"""A training run: MaskablePPO self-play on the batched core, with evaluation,
CSV/TensorBoard logs, checkpoints (latest, best, resumable), and final plots.

Run directory layout::

    run_dir/config.yaml              the resolved TrainConfig
    run_dir/eval.csv                 one row per evaluation and opponent
    run_dir/tb/                      TensorBoard logs (SB3's and ours)
    run_dir/checkpoints/last.zip     latest (also written on Ctrl-C; --resume reads it)
    run_dir/checkpoints/best.zip     best mean win rate against random and the heuristic
    run_dir/snapshots/*.zip          frozen learners in the opponent pool
    run_dir/winrate.png, summary.md  written at the end

A run folder is recognised by its ``config.yaml`` (a mapping with ``env_id`` and
``total_timesteps``); :func:`clear_run` removes only the files above (``--overwrite``), never
anything else the folder holds.

Time limit (``max_minutes``, ``--minutes``): the clock starts when the :class:`Trainer` is
created (after Python's imports and the config check) and covers everything after: building
the model, loading or compiling the game's kernels, the warm start, training, every
evaluation, the final evaluation and the report. With a limit and no evaluation timed yet,
the run evaluates the learner before it trains (a point on the curve at its first step):
that evaluation's time, with a margin, plus the time of one PPO update and of writing the
report stay free before the deadline, so the run ends inside its budget.
"""

from __future__ import annotations

import csv
import json
import math
import os
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from tardis_envs import env_module
from tardis_envs.core.options import is_run_record
from tardis_envs.outputs import check_writable, write_with_fallback

from ..checkpoint import CheckpointError, check_compatible, load_model, model_meta, option_differences, read_meta, write_meta
from ..heuristics import HeuristicAgent
from ..policy_agent import PolicyAgent
from ..random_agent import RandomAgent
from ..tournament import play_match, rearm_ctrl_c, team_match
from .config import WARM_START_ONLY, WARM_START_SETTINGS, TrainConfig
from .policies import policy_spec
from .selfplay import OpponentPool, SelfPlayVecEnv

EVAL_SEED = 10_000_000  # evaluation games never share seeds with training games
CSV_FIELDS = ["timesteps", "seconds", "opponent", "games", "wins", "draws", "losses", "win_rate", "ci_low", "ci_high"]


EVAL_MARGIN = 1.25  # the final evaluation may take this much longer than the last one timed
REPORT_SECONDS = 3.0  # kept free for the last checkpoint, winrate.png, summary.md and stats.json


def progress_format(seconds_left: float) -> str | None:
    """The progress bar's format: with a time limit (``seconds_left`` finite) the step total is
    only an upper bound, so the bar gives no ETA from it and says how long it may run instead."""
    if not math.isfinite(seconds_left):
        return None
    minutes, seconds = divmod(max(0, round(seconds_left)), 60)
    return "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed} of at most " + f"{minutes}:{seconds:02d}" + "{postfix}]"


RUN_FILES = ("config.yaml", "eval.csv", "winrate.png", "summary.md", "stats.json", "bc.json", "value_fit.csv")
"""Files a run writes at the top of its folder (every trainer; a leaf-table run's ``rounds.csv`` too)."""
RUN_CHECKPOINTS = ("last", "best")  # checkpoints/<name>.zip (sb3) or checkpoints/<name>/ (rllib)


def _run_config(path: str | Path) -> dict | None:
    """The run's ``config.yaml`` as a mapping, or None where there is none (or not a mapping)."""
    config = Path(path) / "config.yaml"
    try:
        data = yaml.safe_load(config.read_text()) if config.is_file() else None
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    return data if isinstance(data, dict) else None


def setting_changes(path: str | Path, now: dict) -> list[tuple[str, Any, Any]]:
    """The settings of ``now`` (a config's ``to_dict()``) that differ from those the run in
    ``path`` recorded in its ``config.yaml``, as ``(key, recorded, now)``; none where it recorded
    none. The rule options are left out: a run resumes only under its own
    (:func:`resumable_meta`)."""
    recorded = _run_config(path)
    if recorded is None or not is_run_record(recorded):
        return []
    return [(key, recorded.get(key), value) for key, value in now.items() if key not in ("options", "algo") and recorded.get(key) != value]


def is_leaf_table_run(path: str | Path) -> bool:
    """Whether ``path`` holds a leaf-table run (:mod:`agents.training.leaf_table`), whose config
    counts ``rounds`` instead of ``total_timesteps``."""
    data = _run_config(path)
    return data is not None and "env_id" in data and data.get("algo") == "az" and "rounds" in data


def is_run_folder(path: str | Path) -> bool:
    """Whether ``path`` holds a training run: a ``config.yaml`` that is a run's record (:func:`is_run_record`)."""
    return is_run_record(_run_config(path))


def run_files(path: str | Path) -> list[Path]:
    """What a run wrote in the folder ``path`` (files and checkpoint folders), and nothing else."""
    run = Path(path)
    found = [run / name for name in RUN_FILES + (("rounds.csv",) if is_leaf_table_run(run) else ())]
    checkpoints = run / "checkpoints"
    for name in RUN_CHECKPOINTS:
        found += [checkpoints / f"{name}.zip", checkpoints / f"{name}.tmp.zip"]
        found += [checkpoints / name, checkpoints / f"{name}.tmp", checkpoints / f"{name}.old"]
    found += sorted(checkpoints.glob("leaf_samples_*.npz"))  # a leaf-table run's positions
    found += sorted((run / "snapshots").glob("snap_*.zip"))
    found += sorted((run / "tb").glob("*/events.out.tfevents.*"))
    return [f for f in found if f.exists() or f.is_symlink()]


def clear_run(path: str | Path) -> list[Path]:
    """Delete what a run wrote in ``path`` (:func:`run_files`) and the run's sub-folders that are
    then empty; returns the entries left in the folder (the user's own files). Refuses a folder
    that holds no run (:func:`is_run_folder`) with a ``ValueError``."""
    run = Path(path)
    if not is_run_folder(run):
        raise ValueError(f"--run-dir {str(run)!r} holds no training run (no config.yaml of tardis-envs train): nothing is deleted")
    for entry in run_files(run):
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)  # an RLlib checkpoint folder, written whole by the run
        else:
            entry.unlink()
    for folder in sorted((run / "tb").glob("*"), reverse=True) + [run / "tb", run / "snapshots", run / "checkpoints"]:
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
    return sorted(run.iterdir())


def default_run_dir(env_id: str) -> Path:
    """Where a run of ``env_id`` goes when no folder is named: ``runs/<env_id>``."""
    return Path("runs") / env_id


def open_run_dir(
    run_dir: str | Path, algo: str = "ppo", backend: str = "sb3", resume: bool = False, overwrite: bool = False
) -> tuple[Path, list[Path]]:
    """Check the run folder against what the caller asks, before any training, by the rules
    every trainer keeps (and ``tardis-envs train`` with them): a new or empty folder starts a
    run; a run's folder is continued with ``resume`` (by the same ``algo`` and ``backend`` that
    wrote it) or started over with ``overwrite``, which deletes only what the run wrote
    (:func:`clear_run`); a folder holding anything else is refused, never trained into nor
    emptied. Returns the folder and, after ``overwrite``, the entries it kept (the user's own
    files). Refusals are a one-line ``ValueError``."""
    if resume and overwrite:
        raise ValueError("--resume and --overwrite contradict each other: --resume continues the run, --overwrite deletes it")
    run = check_writable(run_dir, "--run-dir", kind="folder")
    rllib = backend == "rllib"
    last_zip = run / "checkpoints" / "last.zip"
    if resume and last_zip.is_file():
        trained = "az" if read_meta(last_zip).get("algo") == "az" else "ppo"
        if trained != algo:
            raise ValueError(f"--resume: the run in {str(run)!r} was trained with --algo {trained}; resume it with that algo")
    own = run / "checkpoints" / ("last" if rllib else "last.zip")
    foreign = run / "checkpoints" / ("last.zip" if rllib else "last")
    if resume and not own.exists() and foreign.exists():
        other = "sb3" if rllib else "rllib"
        raise ValueError(f"--resume: the run in {str(run)!r} was trained with --backend {other}; resume it with that backend")
    is_run = is_run_folder(run)
    if not resume and run.is_dir() and any(run.iterdir()) and not is_run:
        raise ValueError(
            f"--run-dir {str(run)!r} holds files but no training run (no config.yaml of tardis-envs train); give a new or empty folder"
        )
    if not resume and is_run and not overwrite:
        raise ValueError(f"--run-dir {str(run)!r} already holds a run; use --resume to continue it or --overwrite to start over")
    kept = clear_run(run) if overwrite and is_run else []
    return run, kept


def checkpoint_meta(config: TrainConfig, game, num_timesteps: int, extra: dict | None = None) -> dict:
    """What a checkpoint says it was trained on (both backends write it; loading checks it)."""
    return model_meta(game, num_timesteps, {"config": config.to_dict(), "seed": config.seed, **(extra or {})})


def save_checkpoint(model, path: Path, config: TrainConfig, game, extra: dict | None = None) -> Path:
    """Save ``model`` with its metadata at ``path``; returns where it went: ``path``, or a new
    ``<run>-<name>`` file in the working directory when the run folder refuses the write (a full
    disk, a folder removed during the run), so that the training is not lost."""

    def write(target: Path) -> None:
        tmp = target.with_suffix(".tmp.zip")
        model.save(str(tmp))
        write_meta(tmp, checkpoint_meta(config, game, model.num_timesteps, extra))
        os.replace(tmp, target)  # never leave a half-written checkpoint behind

    return write_with_fallback(path, write, fallback_name=f"{path.parent.parent.name}-{path.name}")


def evaluate_learner(config: TrainConfig, game, learner) -> dict[str, dict]:
    """The learner against the random agent and the heuristic (or with them as team-mates in a
    cooperative game): seat-swapped games with fixed seeds, one record per benchmark agent."""
    results = {}
    n = game.num_players
    games = max(config.eval_games - config.eval_games % n, n)
    heuristic = config.eval_heuristic
    preset = heuristic.split(":", 1)[1] if ":" in heuristic else None
    for name, opponent in (("random", RandomAgent(game, seed=1)), (heuristic, HeuristicAgent(game, preset=preset))):
        if game.spec.cooperative:
            # a team game: the learner in one seat, these agents as its team-mates; the team's win rate
            match = team_match(config.env_id, learner, opponent, ("learner", name), games, seed=EVAL_SEED, options=config.options)
            results[name] = match.team_record(0)
            if n == 1:
                break  # no team-mates: one evaluation
            continue
        names = ["learner", name] if n == 2 else ["learner"] + [name] * (n - 1)
        agents = [learner, opponent] if n == 2 else [learner] + [opponent] * (n - 1)
        match = play_match(config.env_id, agents, names, games, seed=EVAL_SEED, options=config.options)
        results[name] = match.record(0)
    return results


def evaluate_against(env_id: str, game, learner, specs, games: int, options: dict) -> dict[str, dict]:
    """``learner`` against each agent of ``specs`` (with them as team-mates in a cooperative
    game): ``games`` games each, seats rotated, the evaluation's fixed seeds; one record per spec."""
    from .. import make_agent

    n = game.num_players
    results = {}
    for spec in specs:
        other = make_agent(spec, game, seed=1)
        if game.spec.cooperative:
            match = team_match(env_id, learner, other, ("learner", spec), games, seed=EVAL_SEED, options=options)
            results[spec] = match.team_record(0)
        else:
            agents = [learner] + [other] * (n - 1)
            names = ["learner"] + [spec] * (n - 1)
            results[spec] = play_match(env_id, agents, names, games, seed=EVAL_SEED, options=options).record(0)
    return results


def results_table(results: dict[str, dict], cooperative: bool = False) -> list[str]:
    """The markdown table of a run's final evaluation (one row per benchmark agent)."""
    lines = [
        f"| {'team-mates' if cooperative else 'opponent'} | games | wins | draws | losses | win rate | 95% interval |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, rec in results.items():
        lines.append(
            f"| {name} | {rec['games']} | {rec['wins']} | {rec['draws']} | {rec['losses']} | "
            f"{100 * rec['win_rate']:.1f}% | [{100 * rec['ci_low']:.1f}%, {100 * rec['ci_high']:.1f}%] |"
        )
    return lines


def append_eval_rows(run_dir: Path, timesteps: int, seconds: float, results: dict[str, dict], cooperative: bool = False) -> list[dict]:
    """Append one eval.csv row per benchmark agent; returns the rows (the agent under ``opponent``).
    In a cooperative game the benchmark agents are the learner's team-mates: the file's column is
    ``partner`` then."""
    rows = [
        {"timesteps": int(timesteps), "seconds": round(seconds, 1), "opponent": name, **{k: rec[k] for k in CSV_FIELDS[3:]}}
        for name, rec in results.items()
    ]
    column = "partner" if cooperative else "opponent"
    path = Path(run_dir) / "eval.csv"
    fresh = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=[column if k == "opponent" else k for k in CSV_FIELDS])
        if fresh:
            writer.writeheader()
        writer.writerows([{(column if k == "opponent" else k): v for k, v in row.items()} for row in rows])
    return rows


def resumable_meta(last: Path, config, game, run_dir: Path, trained_options=None) -> dict:
    """The metadata of a run's last checkpoint, checked for ``--resume``: same game, same
    rule options, compatible with this version of the game (every trainer). The run's options
    are the checkpoint's, or ``trained_options(meta)`` (a leaf-table run's: its network may
    observe through options of its own), which may refuse the checkpoint with a CheckpointError."""
    if not last.exists():
        raise CheckpointError(f"--resume: no checkpoint at {str(last)!r}")
    meta = read_meta(last)
    if meta["env_id"] != config.env_id:
        raise CheckpointError(f"--resume: {str(last)!r} was trained on {meta['env_id']!r}")
    trained = trained_options(meta) if trained_options is not None else meta.get("options") or {}
    differing = option_differences(trained, game.options)
    if differing:
        raise CheckpointError(
            f"--resume: the run in {str(run_dir)!r} was trained under other rule options "
            f"({differing}); resume it without --config (its own {str(run_dir / 'config.yaml')!r}) "
            "or start a new run"
        )
    check_compatible(meta, game, last)
    return meta


def refuse_changed_settings(recorded: dict, now: dict, keys, run_dir: Path, why: str) -> None:
    """``--resume``'s refusal, by name, of the first of ``keys`` whose value in ``now`` (the
    config's settings) differs from ``recorded`` (the run's, from its checkpoint); a key the run
    did not record is passed over. ``why`` says what the change would break."""
    for key in keys:
        if key in recorded and recorded[key] != now[key]:
            raise CheckpointError(f"--resume: {key!r} was {recorded[key]!r} in the run in {str(run_dir)!r}, now {now[key]!r}: {why}")


def read_history(run_dir: Path) -> list[dict]:
    """The rows of a run's eval.csv (empty before its first evaluation)."""
    path = Path(run_dir) / "eval.csv"
    if not path.exists():
        return []
    with path.open() as f:  # a cooperative run's "partner" column is read as "opponent"
        rows = [{("opponent" if k == "partner" else k): v for k, v in row.items()} for row in csv.DictReader(f)]
    return [{k: (float(v) if k != "opponent" else v) for k, v in row.items()} for row in rows]


class Trainer:
    """Owns one run directory; ``run()`` trains until the budget is spent."""

    def __init__(self, config: TrainConfig, run_dir: str | Path, resume: bool = False, progress: bool = True, overwrite: bool = False):
        self.config = config
        self.resume = resume
        self.progress = progress
        self.game = env_module(config.env_id).Game(**config.options)
        self.history: list[dict] = []
        self.best_score = -math.inf
        self.started = time.perf_counter()
        self.seconds_before = 0.0
        self.interrupted = False
        self.eval_seconds = 0.0  # how long the last evaluation took (kept free before a time limit)
        self.update_seconds = 0.0  # how long the last PPO update took (kept free too)
        self.last_eval: tuple[int, dict] | None = None  # (learner steps, results) of the last evaluation
        self.warm: dict | None = None  # the behaviour-cloning warm start's record, if the run had one
        # the run folder's rules, last: nothing is cleared for a trainer that refuses its settings
        self.run_dir, self.kept = open_run_dir(run_dir, "ppo", "sb3", resume=resume, overwrite=overwrite)

    # --- setup ---------------------------------------------------------------
    def _build(self):
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.vec_env import VecMonitor

        config = self.config
        if config.num_threads:
            # both pools: torch's for the learner, numba's for the batched core's parallel kernels
            # (left alone, numba takes every core and two runs side by side starve each other)
            import numba

            torch.set_num_threads(config.num_threads)
            numba.set_num_threads(min(config.num_threads, numba.config.NUMBA_NUM_THREADS))
        self.pool = OpponentPool(self.game, config.opponents, seed=config.seed, max_snapshots=config.max_snapshots)
        last = self.run_dir / "checkpoints" / "last.zip"
        if self.resume:
            meta = resumable_meta(last, config, self.game, self.run_dir)
            recorded, now = meta.get("config") or {}, config.to_dict()
            refuse_changed_settings(recorded, now, WARM_START_SETTINGS, self.run_dir, WARM_START_ONLY)
            refuse_changed_settings(
                recorded,
                now,
                config.KEPT_BY_THE_MODEL,
                self.run_dir,
                f"its model keeps its own (a resumed run may not change {', '.join(config.KEPT_BY_THE_MODEL)}; start a new run to)",
            )
            # a run interrupted before its first evaluation saved no best score (null)
            best = meta.get("best_score")
            self.best_score = -math.inf if best is None else float(best)
            self.seconds_before = meta.get("seconds", 0.0)
            self.warm = meta.get("warm_start")
            for snap in meta.get("snapshots", []):
                snap_path = self.run_dir / "snapshots" / snap
                if snap_path.exists():
                    self.pool.add_snapshot(PolicyAgent.from_checkpoint(snap_path, self.game, deterministic=False), snap)
            self._read_history()
            done = int(meta["num_timesteps"])
        else:
            done = 0
        # a resumed run plays fresh games: shift the seed by the steps already taken
        games = SelfPlayVecEnv(
            config.env_id, config.num_envs, self.pool, seed=config.seed + done, options=config.options, obs_dtype=config.obs_dtype
        )
        self.venv = VecMonitor(games)
        if self.resume:
            self.model, _ = load_model(last, self.game, env=self.venv)  # num_envs may change: the rollout follows it
            self.model.tensorboard_log = str(self.run_dir / "tb")
        else:
            policy, policy_kwargs = policy_spec(config.policy, self.game, config.net_arch)
            self.model = MaskablePPO(
                policy,
                self.venv,
                n_steps=config.n_steps,
                batch_size=config.batch_size,
                n_epochs=config.n_epochs,
                learning_rate=config.learning_rate,
                gamma=config.gamma,
                gae_lambda=config.gae_lambda,
                ent_coef=config.ent_coef,
                clip_range=config.clip_range,
                policy_kwargs=policy_kwargs,
                seed=config.seed,
                device="cpu",
                verbose=0,
                tensorboard_log=str(self.run_dir / "tb"),
            )
            if config.bc_decisions:
                self.warm_start()

    def warm_start(self) -> None:
        """Behaviour cloning of ``bc_teacher`` before PPO (:mod:`agents.training.imitation`), then
        ``bc_dagger_rounds`` DAgger rounds; the record goes to ``bc.json`` and into every
        checkpoint's metadata."""
        from .. import make_agent
        from ..policy_agent import PolicyAgent
        from .imitation import clone_policy, held_out_split, record_round, warm_record

        config = self.config
        teacher = make_agent(config.bc_teacher, self.game, seed=config.seed + 11)
        data = None
        held = None  # decisions no fit trains on: every round's agreement is measured on unseen ones
        rounds = []
        for round_number in range(config.bc_dagger_rounds + 1):
            # round 0: the teacher plays; later rounds: the clone plays, the teacher labels
            behaviour = None if data is None else PolicyAgent(self.game, policy=self.model.policy, deterministic=True)
            new = record_round(config, teacher, round_number, behaviour)
            fresh_held, _ = held_out_split(len(new), seed=config.seed + round_number)
            held = fresh_held if held is None else np.concatenate([held, len(data) + fresh_held])
            data = new if data is None else data + new
            started = time.perf_counter()
            epochs = clone_policy(
                self.model.policy,
                data,
                epochs=config.bc_epochs,
                learning_rate=config.bc_learning_rate,
                batch_size=config.batch_size,
                seed=config.seed + round_number,
                held_out=None if round_number == 0 else held,  # round 0: the default split, which is `held`
            )
            rounds.append(
                {
                    "round": round_number,
                    "played_by": "teacher" if behaviour is None else "clone",
                    "decisions": len(new),
                    "games": new.games,
                    "record_seconds": round(new.seconds, 1),
                    "fit_seconds": round(time.perf_counter() - started, 1),
                    "epochs": epochs,
                }
            )
            if self.progress and config.bc_dagger_rounds:
                print(
                    f"warm start round {round_number}: {len(new):,} decisions played by {rounds[-1]['played_by']}, "
                    f"agreement with the teacher {100 * epochs[-1]['agreement']:.1f}%"
                )
        assert data is not None
        self.warm = {
            **warm_record(config, data, rounds),
            "epochs": rounds[-1]["epochs"],  # the last fit's
        }
        if config.bc_dagger_rounds:
            self.warm["rounds"] = rounds
        (self.run_dir / "bc.json").write_text(json.dumps(self.warm, indent=2))
        if self.progress:
            print(
                f"warm start: {len(data):,} decisions of {config.bc_teacher} in {data.seconds:.0f} s, fitted in "
                f"{self.warm['fit_seconds']:.0f} s; agreement with the teacher {100 * rounds[-1]['epochs'][-1]['agreement']:.1f}%"
            )

    def _read_history(self) -> None:
        self.history = read_history(self.run_dir)

    # --- evaluation and checkpoints ---------------------------------------------------------------
    @property
    def relation(self) -> str:
        """'with' team-mates in a cooperative game, 'vs' opponents otherwise."""
        return "with" if self.game.spec.cooperative else "vs"

    def seconds(self) -> float:
        return self.seconds_before + time.perf_counter() - self.started

    def evaluate(self) -> dict[str, dict]:
        if self.last_eval is not None and self.last_eval[0] == self.model.num_timesteps:
            return self.last_eval[1]  # the same weights: not evaluated twice
        started = time.perf_counter()
        results = self._evaluate()
        self.eval_seconds = time.perf_counter() - started
        self.last_eval = (self.model.num_timesteps, results)
        return results

    def _evaluate(self) -> dict[str, dict]:
        learner = PolicyAgent(self.game, policy=self.model.policy, deterministic=True)
        results = evaluate_learner(self.config, self.game, learner)
        for name, rec in results.items():
            if getattr(self.model, "_logger", None) is None:
                break  # evaluated before learn() set up SB3's logger (after the warm start): eval.csv only
            for key in ("win_rate", "ci_low", "ci_high"):
                self.model.logger.record(f"eval/{key}_vs_{name}", rec[key])
            self.model.logger.record(f"eval/draw_rate_vs_{name}", rec["draws"] / rec["games"])
            self.model.logger.record(f"eval/loss_rate_vs_{name}", rec["losses"] / rec["games"])
        self.history.extend(
            append_eval_rows(self.run_dir, self.model.num_timesteps, self.seconds(), results, cooperative=self.game.spec.cooperative)
        )
        score = float(np.mean([r["win_rate"] for r in results.values()]))
        extra = self._extra()
        if score > self.best_score:
            self.best_score = score
            extra["best_score"] = score
            save_checkpoint(self.model, self.run_dir / "checkpoints" / "best.zip", self.config, self.game, extra)
        save_checkpoint(self.model, self.run_dir / "checkpoints" / "last.zip", self.config, self.game, self._extra())
        return results

    def _extra(self) -> dict:
        return {
            "best_score": self.best_score if math.isfinite(self.best_score) else None,
            "seconds": round(self.seconds(), 1),
            "snapshots": self.pool.snapshot_names,
            "interrupted": self.interrupted,
            "warm_start": self.warm,
        }

    def snapshot(self) -> None:
        name = f"snap_{self.model.num_timesteps:010d}.zip"
        path = save_checkpoint(self.model, self.run_dir / "snapshots" / name, self.config, self.game, self._extra())
        self.pool.add_snapshot(PolicyAgent.from_checkpoint(path, self.game, deterministic=False), name)

    # --- the run ---------------------------------------------------------------
    def run(self) -> dict:
        from stable_baselines3.common.callbacks import BaseCallback

        created = not self.run_dir.exists()
        self.run_dir.mkdir(parents=True, exist_ok=True)
        config_file = self.run_dir / "config.yaml"
        if not self.resume:  # first, so that a warm start's bc.json lies in a recognisable run folder
            config_file.write_text(yaml.safe_dump(self.config.to_dict(), sort_keys=False))
        try:
            self._build()
        except BaseException:
            if created and [p.name for p in self.run_dir.iterdir()] in ([], ["config.yaml"]):
                config_file.unlink(missing_ok=True)  # a run that never started leaves no folder behind
                self.run_dir.rmdir()
            raise
        config_file.write_text(yaml.safe_dump(self.config.to_dict(), sort_keys=False))
        config = self.config
        if self.warm is not None and not self.resume:
            self.evaluate()  # the learning curve starts where the warm start left it
            # the clone joins the pool at once: a stand-in for its teacher that costs no more
            # than the learner (Keys' route-planning heuristic costs ~75 env steps a move)
            self.snapshot()
        elif config.max_minutes and self.model.num_timesteps < config.total_timesteps:
            self.evaluate()  # times an evaluation: the final one's time is kept free from the start
        trainer = self
        remaining = config.total_timesteps - self.model.num_timesteps
        deadline = self.started + 60 * config.max_minutes if config.max_minutes else math.inf

        def reserve() -> float:
            """Seconds kept free before the deadline: the final evaluation, a PPO update, the report."""
            return EVAL_MARGIN * trainer.eval_seconds + trainer.update_seconds + REPORT_SECONDS

        bar = None
        if self.progress:
            from tqdm import tqdm

            bar = tqdm(
                total=config.total_timesteps,
                initial=self.model.num_timesteps,
                unit="step",
                mininterval=2,
                dynamic_ncols=True,
                bar_format=progress_format(deadline - time.perf_counter()),
            )

        class Hooks(BaseCallback):
            def _on_training_start(self) -> None:
                self.next_eval = (self.num_timesteps // config.eval_every + 1) * config.eval_every
                self.next_snapshot = (self.num_timesteps // config.snapshot_every + 1) * config.snapshot_every
                self.last_count = self.num_timesteps
                self.t0 = time.perf_counter()
                self.steps0 = self.num_timesteps

            def _on_rollout_end(self) -> None:
                self.update_started = time.perf_counter()  # the PPO update follows

            def _on_rollout_start(self) -> None:
                if getattr(self, "update_started", None) is not None:
                    trainer.update_seconds = time.perf_counter() - self.update_started

            def _on_step(self) -> bool:
                rearm_ctrl_c()  # the evaluation below may have compiled kernels
                if self.num_timesteps >= self.next_snapshot:
                    trainer.snapshot()
                    self.next_snapshot += config.snapshot_every
                if self.num_timesteps >= self.next_eval and time.perf_counter() + trainer.eval_seconds + reserve() >= deadline:
                    self.next_eval += config.eval_every  # no time for two more evaluations: the final one comes soon
                elif self.num_timesteps >= self.next_eval:
                    results = trainer.evaluate()
                    self.next_eval += config.eval_every
                    if bar is not None:
                        left = f" | {max(deadline - time.perf_counter(), 0) / 60:.1f} min left" if math.isfinite(deadline) else ""
                        bar.set_postfix_str(
                            " ".join(f"{trainer.relation} {k} {100 * v['win_rate']:.0f}%" for k, v in results.items())
                            + f" | {(self.num_timesteps - self.steps0) / (time.perf_counter() - self.t0):,.0f} steps/s"
                            + left
                        )
                if bar is not None:
                    bar.update(self.num_timesteps - self.last_count)
                    self.last_count = self.num_timesteps
                # stop early enough for the final evaluation and the report to end inside the time limit
                return time.perf_counter() + reserve() < deadline

        t0 = time.perf_counter()
        steps0 = self.model.num_timesteps
        opponent_steps0 = self.venv.venv.opponent_steps
        try:
            if remaining > 0 and time.perf_counter() + reserve() < deadline:  # else no time to train and evaluate again
                self.model.learn(total_timesteps=remaining, callback=Hooks(), reset_num_timesteps=not self.resume, tb_log_name="ppo")
        except KeyboardInterrupt:
            self.interrupted = True
            path = save_checkpoint(self.model, self.run_dir / "checkpoints" / "last.zip", config, self.game, self._extra())
            if bar is not None:
                bar.close()
            print(f"\ninterrupted at {self.model.num_timesteps} steps; resumable checkpoint: {path}")
            raise
        finally:
            if bar is not None:
                bar.close()
        elapsed = time.perf_counter() - t0
        learner_steps = self.model.num_timesteps - steps0
        results = self.evaluate()
        stats = {
            "num_timesteps": self.model.num_timesteps,
            "seconds": round(self.seconds(), 1),
            "learner_steps_per_second": learner_steps / elapsed if elapsed > 0 else 0.0,
            "env_steps_per_second": (learner_steps + self.venv.venv.opponent_steps - opponent_steps0) / elapsed if elapsed > 0 else 0.0,
            "final": results,
            "best_score": self.best_score,
        }
        self.write_report(stats)
        return stats

    # --- report ---------------------------------------------------------------
    def write_report(self, stats: dict) -> None:
        write_report(self.run_dir, self.config, self.game, self.history, stats, "checkpoints/best.zip")


def write_report(run_dir: Path, config: TrainConfig, game, history: list[dict], stats: dict, best_name: str) -> None:
    """winrate.png, summary.md and stats.json of a finished run (both backends)."""
    run = run_dir.name  # a report the run folder refuses goes to ./<run>-<file> (write_with_fallback)
    az = config.to_dict().get("algo") == "az"
    unit = "self-play decisions" if az else "learner steps"
    write_with_fallback(
        run_dir / "winrate.png",
        lambda p: plot_winrate(history, p, config.env_id, ("with" if game.spec.cooperative else "vs"), unit),
        fallback_name=f"{run}-winrate.png",
    )
    speed = (
        f"({stats['learner_steps_per_second']:,.0f} decisions/s, {stats.get('learner_samples', 0):,} learner samples"
        + (
            f", {stats['learner_samples_per_second']:,.0f} a second of the learner's own time"
            if "learner_samples_per_second" in stats
            else ""
        )
        + ")"
        if az
        else f"({stats['learner_steps_per_second']:,.0f} learner steps/s, {stats['env_steps_per_second']:,.0f} env steps/s "
        "counting the opponents' moves)"
    )
    lines = [
        f"# Training run: {config.env_id}" + (" (--algo az)" if az else ""),
        "",
        f"- {unit}: {stats['num_timesteps']:,} in {stats['seconds']:.0f} s {speed}",
        f"- best checkpoint: `{best_name}` (mean win rate {100 * stats['best_score']:.1f}%)",
        *([f"- self-play: {stats['self_play_workers']} Ray actors, the learner in the driver"] if stats.get("self_play_workers") else []),
        (
            f"- evaluation: {config.eval_games} games per team-mate kind (the learner in one seat, rotated; "
            "a win is the team's), fixed seeds"
            if game.spec.cooperative
            else f"- evaluation: {config.eval_games} games per opponent, seats rotated, fixed seeds"
        ),
        "",
        *results_table(stats["final"], game.spec.cooperative),
    ]
    write_summary(run_dir, config, lines, stats)


def write_summary(run_dir: Path, config, lines: list[str], stats: dict) -> None:
    """summary.md (``lines``, the win-rate plot and the config) and stats.json of a finished run."""
    run = run_dir.name
    lines = [
        *lines,
        "",
        "![win rate](winrate.png)",
        "",
        "## Config",
        "",
        "```yaml",
        yaml.safe_dump(config.to_dict(), sort_keys=False).strip(),
        "```",
    ]
    summary = "\n".join(lines) + "\n"
    write_with_fallback(run_dir / "summary.md", lambda p: p.write_text(summary), fallback_name=f"{run}-summary.md")
    data = json.dumps(stats, indent=2, default=float)
    write_with_fallback(run_dir / "stats.json", lambda p: p.write_text(data), fallback_name=f"{run}-stats.json")


def plot_winrate(history: list[dict], path: Path, env_id: str, relation: str = "vs", unit: str = "learner steps") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for name in sorted({row["opponent"] for row in history}):
        rows = [r for r in history if r["opponent"] == name]
        x = [float(r["timesteps"]) for r in rows]
        ax.plot(x, [100 * float(r["win_rate"]) for r in rows], marker="o", label=f"{relation} {name}")
        ax.fill_between(x, [100 * float(r["ci_low"]) for r in rows], [100 * float(r["ci_high"]) for r in rows], alpha=0.2)
    ax.set_xlabel(unit)
    ax.set_ylabel("win rate (%) with 95% interval")
    ax.set_ylim(0, 100)
    ax.set_title(f"{env_id}: learner {'with benchmark team-mates' if relation == 'with' else 'against benchmark opponents'}")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
