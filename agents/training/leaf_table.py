"""A learned leaf value for the search of an ``az`` agent over the game's heuristic kernels:
Dr. Who Chess's ``alphabeta`` search, fitted to the heuristic's judgement, and Keys to the
TARDIS's ``turn`` search, fitted to the games' outcomes. ``tardis-envs train <env_id> --algo az``
runs it when the config's ``az:`` section names one of these searches (:class:`LeafTableConfig`)::

    tardis-envs train timelord_chess_v1 --algo az --config configs/chess/az_leaf.yaml --run-dir runs/leaf_chess
    tardis-envs train keys_to_the_tardis_v0 --algo az --config configs/keys/az_leaf.yaml --run-dir runs/leaf_keys

**Dr. Who Chess.** The search is the game's full-width alpha-beta (its heuristic's kernels: ``depth`` plies of
every action, then its capture search, and the mating drive that finishes won games), and each
leaf is scored by a table of points, one entry for each piece kind on each square, the mover's
own or the opponent's (``LEAF_FEATURES`` of the game's heuristic). The table starts as material
alone (each piece its heuristic value). A round plays ``games`` games with the current table,
each against the game's alpha-beta heuristic (the learner's seat alternating) or against itself
at even odds, each opened by 0 to ``random_plies`` random plies so that the games differ. It
keeps their *quiet* positions, those the capture search leaves as they are: where captures are
pending, the pieces are not what a position is worth, and the search's capture plies resolve
those before it scores a leaf. Then it fits the table, by least squares, to the teacher's
judgement of them: the alpha-beta heuristic's own static evaluation (material, mobility,
piece-square terms, and its mating drive where one side leads by more than a minor piece,
which the search then adds again at its leaves), with a ``ridge`` pull toward material. This is the warm start of the project's other ``az``
networks (imitating a teacher) applied to the value. The positions of every round are kept
and each fit is on all of them. A table fitted to the games' outcomes instead overfits the few
hundred outcomes an hour of these games gives (docs/results/az/README.md); ``rounds.csv``
reports how well each table predicts the held-out games' outcomes beside how well it predicts
the teacher.

**Keys to the TARDIS.** The search tries every line of the mover's whole turn (each card, each
move, the Key Tile bonus) in ``redeals`` worlds redealt from what it may know, and
values the end of each line by the table: a logistic regression of the winner on what the
position shows its mover (the route lengths the heuristic plans, its own hand, the Pandorica
turns, whether an extra turn comes: the game heuristic's ``LEAF_FEATURE_NAMES``). The table is the mover's chance of
winning, so the search plays the action of the highest mean chance. Round 1's games are the
heuristic's against itself (the hand-written player's positions, many and fast); every later
round's are the turn search's over the table of the round before, against the heuristic or
itself. Every position where a seat's turn has just ended (before an extra turn too) is a sample, labelled by whether
that seat went on to win (a game that ran out of turns: one half), and each fit is a logistic
regression on all of them, with ``ridge`` times the table's squared size added. In games of
three or four (``options: {num_players: 3}``) a game against the heuristic puts the search on
one seat, in turn, and heuristics on the others; ``init_from: baseline`` keeps that player
count's own network.

**The run.** The result is an ``az`` checkpoint: the network of ``init_from`` (a checkpoint, or
``baseline``), unchanged (it plays ``:net`` and the gumbel search), with ``az_leaf_table.npy``
and its ``search`` added, so that ``az:<it>`` plays its search over the learned table. After
each round's fit the new table plays ``eval_games`` seat-rotated games against each of
``eval_opponents``, and the table of the most points (draws half) is ``checkpoints/best.zip``.
The run folder follows ``tardis-envs train``'s rules and holds what its other runs hold
(``config.yaml``, ``eval.csv``, TensorBoard's ``tb/``, ``winrate.png``, ``summary.md``,
``stats.json``, ``checkpoints/last.zip`` and ``best.zip``) and ``rounds.csv`` (each round's
positions, fit and evaluation). ``checkpoints/last.zip`` and ``checkpoints/leaf_samples_<round>.npz``
(the positions fitted so far) are written after each round's fit; ``--resume`` continues from
them with the next round, whose games are those the run would have played unbroken (round ``r``'s
game ``g`` is seeded ``seed + r x ROUND_SEEDS + g``); it may change ``rounds``, ``max_minutes``
and the evaluation's settings, and refuses any other change, which would play other games. A
round runs whole: a Ctrl-C during its games drops them, keeping the rounds before it; one during
its evaluation keeps its table, which ``--resume`` evaluates first; and ``max_minutes`` starts no
round that the last one's time says would end after it (a slower round can end after it).
"""

from __future__ import annotations

import csv
import json
import math
import sys
import time
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import yaml

from tardis_envs import env_module
from tardis_envs.core.state import CURRENT_PLAYER, REWARDS, RUNNING, STATUS
from tardis_envs.outputs import ctrl_c_deferred

from ..checkpoint import CheckpointError
from ..tournament import rearm_ctrl_c
from .config import settings_of
from .train import EVAL_SEED  # the rounds' evaluation games: seeds EVAL_SEED + g

SCALE = 400.0  # points per unit of tanh: the scale the chess heuristic's values are read at
ROUND_SEEDS = 1_000_000  # round r's games are seeded seed + r x ROUND_SEEDS + g


def round_seed(seed: int, round_number: int) -> int:
    """The seed of round ``round_number``'s first game (its game ``g`` is this ``+ g``): above
    any match's usual seeds, below the rounds' evaluation seeds (:class:`LeafTableConfig` checks the bounds)."""
    return seed + round_number * ROUND_SEEDS


@dataclass
class Samples:
    """Positions of finished games: their features (chess: the quiet positions' piece counts,
    int8; Keys: what the learned value reads, float32), the outcome for their seat (+1, 0, -1),
    the teacher's evaluation for it (chess's points; Keys: none, zeros) and the game each came
    from."""

    features: np.ndarray
    outcome: np.ndarray
    judged: np.ndarray
    game: np.ndarray

    @classmethod
    def empty(cls, size: int, dtype=np.int8) -> "Samples":
        return cls(np.zeros((0, size), dtype=dtype), np.zeros(0, dtype=np.float32), np.zeros(0), np.zeros(0, dtype=np.int64))

    def __add__(self, other: "Samples") -> "Samples":
        return _concat([self, other])

    def __len__(self) -> int:
        return len(self.outcome)

    def save(self, path: Path, round_number: int) -> None:
        """Write the samples, fitted after round ``round_number``, to ``path`` (an ``.npz``,
        written beside it and renamed over it)."""
        temporary = path.with_name(path.name + ".tmp.npz")
        with temporary.open("wb") as out:
            np.savez_compressed(out, round=round_number, **asdict(self))
        temporary.replace(path)

    @classmethod
    def load(cls, path: Path, round_number: int, size: int, dtype) -> "Samples":
        """The samples :meth:`save` wrote after round ``round_number``; a CheckpointError naming
        the file where it is missing, damaged or of another round or shape."""
        where = f"--resume: the positions of the run's rounds, {str(path)!r},"
        try:
            with np.load(path, allow_pickle=False) as data:
                stored = {name: data[name] for name in ("round", "features", "outcome", "judged", "game")}
        except FileNotFoundError:
            raise CheckpointError(f"{where} are missing: the run cannot refit its table; start it over with --overwrite") from None
        except Exception as exc:
            raise CheckpointError(f"{where} could not be read: {exc}") from None
        samples = cls(stored["features"], stored["outcome"], stored["judged"], stored["game"])
        counts = {len(samples.features), len(samples.outcome), len(samples.judged), len(samples.game)}
        if int(stored["round"]) != round_number or samples.features.ndim != 2 or samples.features.shape[1] != size or len(counts) != 1:
            raise CheckpointError(
                f"{where} are those of round {int(stored['round'])} with features {samples.features.shape}, "
                f"not round {round_number}'s of {size} features"
            )
        if not (samples.features.dtype == dtype and np.isfinite(samples.features).all() and np.isfinite(samples.judged).all()):
            raise CheckpointError(f"{where} are not finite {np.dtype(dtype).name} features")
        return samples


def play_games(
    game,
    leaf,
    games: int,
    seed: int,
    self_share: float = 0.5,
    random_plies: int = 8,
    batch: int = 64,
    progress: Callable[[int], object] | None = None,
) -> Samples:
    """Play ``games`` games of ``leaf``'s search (a :class:`agents.alphazero.LeafSearch`) against
    the game's heuristic on every other seat (``1 - self_share`` of them; the learner's seat
    rotating) or itself on every seat,
    each opened by 0 to ``random_plies`` random plies; with ``leaf`` None, the heuristic plays
    every seat. Returns the positions the game's fit learns from, after the opening: chess's
    quiet positions with the heuristic's evaluation of each, Keys' positions where a seat's turn
    has just ended (an extra turn's too), for that seat. ``progress(n)`` is told of every ``n``
    games finished, a batch at a time."""
    kernels = game.heuristic
    opponent = kernels.DEFAULT_WEIGHTS
    turns = kernels.LEARNED_SEARCH == "turn"
    rng = np.random.default_rng(seed)
    parts = [Samples.empty(kernels.LEAF_FEATURES, np.float32 if turns else np.int8)]
    mask = np.zeros(game.num_actions, dtype=np.int8)
    for start in range(0, games, batch):
        rows = min(batch, games - start)
        ids = np.arange(start, start + rows) + seed
        states = np.stack([game.new_state(int(key)) for key in ids])
        learner = (ids % game.num_players).astype(np.int64)
        selfplay = rng.random(rows) < self_share
        opening = rng.integers(0, random_plies + 1, size=rows)
        plies = np.zeros(rows, dtype=np.int64)
        seen: list[list[np.ndarray]] = [[] for _ in range(rows)]
        movers: list[list[int]] = [[] for _ in range(rows)]
        while True:
            running = np.flatnonzero(states[:, STATUS] == RUNNING)
            if len(running) == 0:
                break
            actions = np.zeros(rows, dtype=np.int64)
            searched, opposed = [], []
            for i in running:
                if not turns:
                    seen[i].append(states[i].copy())
                if plies[i] < opening[i]:
                    game.kernels.legal_mask(states[i], game.tables, mask)
                    actions[i] = rng.choice(np.flatnonzero(mask))
                elif leaf is not None and (selfplay[i] or states[i, CURRENT_PLAYER] == learner[i]):
                    searched.append(i)
                else:
                    opposed.append(i)
            if searched:
                actions[searched] = leaf.choose(states[searched])
            if opposed:
                out = np.empty(len(opposed), dtype=np.int64)
                kernels.choose_batch(np.ascontiguousarray(states[opposed]), game.tables, opponent, out)
                actions[opposed] = out
            for i in running:
                mover = states[i, CURRENT_PLAYER]
                turn = kernels.turn_number(states[i]) if turns else 0
                game.kernels.step(states[i], game.tables, int(actions[i]))
                plies[i] += 1
                # Keys: the positions the turn search values, a seat's turn just ended
                if turns and plies[i] > opening[i] and states[i, STATUS] == RUNNING and kernels.turn_number(states[i]) != turn:
                    seen[i].append(states[i].copy())
                    movers[i].append(int(mover))
        for row in range(rows):
            if not seen[row]:
                continue
            positions = np.stack(seen[row])
            features = np.zeros((len(positions), kernels.LEAF_FEATURES), dtype=np.float64)
            if turns:
                seats = np.array(movers[row], dtype=np.int64)
                searched_by = opponent if leaf is None else leaf.weights  # the weights the search values with
                kernels.leaf_features_batch(positions, game.tables, seats, searched_by, features)
                keep = np.ones(len(positions), dtype=np.bool_)
                judged = np.zeros(len(positions))
                dtype: type = np.float32
            else:
                seats = positions[:, CURRENT_PLAYER]
                quiet = np.zeros(len(positions), dtype=np.bool_)
                judged = np.zeros(len(positions))
                kernels.leaf_samples(positions, game.tables, leaf.weights, kernels.DEFAULT_WEIGHTS, features, quiet, judged)
                keep = quiet & (np.arange(len(positions)) >= opening[row])
                dtype = np.int8
            outcome = states[row, REWARDS + seats].astype(np.float32)
            count = int(keep.sum())
            parts.append(Samples(features[keep].astype(dtype), outcome[keep], judged[keep], np.full(count, ids[row], dtype=np.int64)))
        if progress is not None:
            progress(rows)
        rearm_ctrl_c()  # numba's first compile takes SIGINT over: a Ctrl-C must still end the round
    return _concat(parts)


def _concat(parts: list[Samples]) -> Samples:
    return Samples(*(np.concatenate([getattr(p, name) for p in parts]) for name in ("features", "outcome", "judged", "game")))


def held_out_games(samples: Samples, share: float, seed: int, what: str = "positions") -> np.ndarray:
    """Which samples belong to the ``share`` of the games held out of a fit; a ValueError where
    there are no ``what`` to fit, or too few games to hold some out."""
    if len(samples) == 0:
        raise ValueError(f"no {what} to fit the leaf table on")
    games = np.unique(samples.game)
    held = np.isin(samples.game, np.random.default_rng(seed).choice(games, size=max(1, int(len(games) * share)), replace=False))
    if held.all():
        raise ValueError(f"the {what} come from {len(games)} game(s): too few to hold some out of the fit")
    return held


def fit_teacher(samples: Samples, start: np.ndarray, ridge: float, held_share: float = 0.1, seed: int = 0) -> tuple[np.ndarray, dict]:
    """The warm start: the table whose score best predicts the teacher's evaluation of
    ``samples`` (least squares in pawns, ``ridge`` times the mean squared change from ``start``
    in pawns added); the record gives the held-out R^2 of the fitted table and of ``start``."""
    held = held_out_games(samples, held_share, seed, "quiet positions")
    x = samples.features.astype(np.float64)
    residual = (samples.judged - x @ start) / 100.0  # what the start leaves to explain, in pawns
    train = x[~held]
    normal = train.T @ train / len(train) + ridge / len(start) * np.eye(len(start))
    change = np.linalg.solve(normal, train.T @ residual[~held] / len(train))
    table = start + 100.0 * change

    def r2(candidate: np.ndarray) -> float:
        errors = samples.judged[held] - x[held] @ candidate
        spread = samples.judged[held] - samples.judged[held].mean()
        return float(1.0 - (errors @ errors) / max(spread @ spread, 1e-12))

    def outcome_correlation(candidate: np.ndarray) -> float:
        scores, outcomes = np.tanh(x[held] @ candidate / SCALE), samples.outcome[held]
        if scores.std() == 0 or outcomes.std() == 0:  # held-out games of one outcome: no correlation to give
            return float("nan")
        return float(np.corrcoef(scores, outcomes)[0, 1])

    fitted, by_material = r2(table), r2(start)
    # material explains most of the teacher's points; what matters is how much of the rest
    explained = 1.0 - (1.0 - fitted) / max(1.0 - by_material, 1e-12)
    return table, {
        "teacher_positions": int(len(samples)),
        "teacher_r2_start": round(by_material, 4),
        "teacher_r2": round(fitted, 4),
        "teacher_beyond_material": round(explained, 4),
        "outcome_correlation_start": round(outcome_correlation(start), 4),
        "outcome_correlation": round(outcome_correlation(table), 4),
    }


def fit_outcomes(samples: Samples, ridge: float, held_share: float = 0.1, seed: int = 0) -> tuple[np.ndarray, dict]:
    """Keys' fit: the table whose logistic best predicts whether each sample's seat won (a game
    that ran out of turns counts one half), by Newton's method on the mean log loss plus
    ``ridge`` times the table's squared size; the record gives the held-out games' log loss of
    the fitted table and of one constant chance (the fitted games' share of wins)."""
    held = held_out_games(samples, held_share, seed)
    x = samples.features.astype(np.float64)
    won = (samples.outcome.astype(np.float64) + 1.0) / 2.0
    train_x, train_won = x[~held], won[~held]
    table = np.zeros(x.shape[1])
    for _ in range(50):
        chance = 1.0 / (1.0 + np.exp(-(train_x @ table)))
        gradient = train_x.T @ (chance - train_won) / len(train_x) + ridge * table
        curvature = (train_x * (chance * (1.0 - chance))[:, None]).T @ train_x / len(train_x) + ridge * np.eye(len(table))
        change = np.linalg.solve(curvature, gradient)
        table -= change
        if np.abs(change).max() < 1e-9:
            break

    def log_loss(chance: np.ndarray) -> float:
        chance = np.clip(chance, 1e-9, 1.0 - 1e-9)
        return float(-np.mean(won[held] * np.log(chance) + (1.0 - won[held]) * np.log(1.0 - chance)))

    return table, {
        "positions": int(len(samples)),
        "outcome_log_loss_constant": round(log_loss(np.full(int(held.sum()), train_won.mean())), 4),
        "outcome_log_loss": round(log_loss(1.0 / (1.0 + np.exp(-(x[held] @ table)))), 4),
    }


def save_leaf_checkpoint(path: Path, source: Path, leaf, record: dict[str, Any], extra: dict[str, Any] | None = None) -> Path:
    """``source``'s az checkpoint with ``leaf``'s table and its search (``alphabeta``, ``turn``)
    added, ``record`` in its metadata's ``leaf_search`` and ``extra`` beside it (written beside
    ``path`` and renamed over it; ``source`` may be ``path``)."""
    from ..alphazero import LEAF_TABLE_MEMBER
    from ..checkpoint import META_NAME, read_meta, write_meta

    meta = read_meta(source)
    config = dict(meta.get("config") or {})
    config["search"] = leaf.search
    meta = {**meta, "config": config, "leaf_search": {**leaf.record(), **record}, **(extra or {})}
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp.zip")  # a name clear_run knows
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as copy:
        for name in archive.namelist():
            if name not in (META_NAME, LEAF_TABLE_MEMBER):
                copy.writestr(name, archive.read(name))
        for name, data in leaf.members().items():
            copy.writestr(name, data)
    write_meta(temporary, meta)
    temporary.replace(path)
    return path


def samples_file(run_dir: Path, round_number: int) -> Path:
    """Where a run keeps the positions it fitted after round ``round_number``."""
    return run_dir / "checkpoints" / f"leaf_samples_{round_number}.npz"


def drop_rows(path: Path, column: str, value: int) -> None:
    """Rewrite the CSV file ``path`` (if it exists) without its rows whose ``column`` is ``value``."""
    if not path.exists():
        return
    with path.open(newline="") as handle:
        reader = csv.DictReader(handle)
        fieldnames = reader.fieldnames or []
        rows = [row for row in reader if float(row[column]) != value]
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fieldnames)
        writer.writeheader()
        writer.writerows(rows)


FIELDS = [
    "round",
    "seconds",
    "games",
    "positions",
    "teacher_r2_start",
    "teacher_r2",
    "teacher_beyond_material",
    "outcome_correlation_start",
    "outcome_correlation",
    "outcome_log_loss_constant",
    "outcome_log_loss",
    "mean_change_points",
    "eval_wins",
    "eval_draws",
    "eval_losses",
    "eval_points",
]
"""The columns of ``rounds.csv``; the evaluation's are those of the first of ``eval_opponents``."""


@dataclass
class LeafTableConfig:
    """The settings of a leaf-table run (the ``az:`` section of a config whose ``search`` is a
    search over a learned leaf table). Where a setting is left out (``None``), :meth:`from_dict`
    gives the search's own default and the run's ``config.yaml`` records it."""

    env_id: str = "timelord_chess_v1"
    """Game to train for: one whose heuristic searches a learned leaf value."""
    options: dict = field(default_factory=dict)
    """Rule options of the game."""
    search: str = "alphabeta"
    """The game's search over a learned leaf table: ``alphabeta`` (Dr. Who Chess) or ``turn``
    (Keys to the TARDIS)."""
    init_from: str = "baseline"
    """The ``az`` checkpoint whose network the result keeps (a file, or ``baseline`` for the
    game's shipped ``az:baseline``); its own table, if it has one, is not used."""
    rounds: int = 2
    """Rounds of games and a fit."""
    games: int = 128
    """Games a round."""
    num_envs: int = 64
    """Games played together (the batch of each search call)."""
    self_share: float = 0.5
    """Share of a round's games the search plays against itself; the rest against the heuristic."""
    random_plies: int | None = None
    """Each game opens with 0 to this many random plies (alphabeta 8, turn 0)."""
    ridge: float | None = None
    """alphabeta: the table's pull toward material, in pawns (0.1); turn: times the table's
    squared size (0.001)."""
    depth: int | None = None
    """alphabeta: the search's plies before its capture search (3)."""
    redeals: int | None = None
    """turn: the search's redealt worlds a decision (8)."""
    eval_games: int = 100
    """Games per evaluation opponent after each round, seats rotated, fixed seeds."""
    eval_opponents: list = field(default_factory=lambda: ["heuristic"])
    """Agent specs each round's table is evaluated against; ``rounds.csv`` gives the first."""
    max_minutes: float = 0.0
    """Wall-clock budget (0: none): no round starts that the last one's time says would end
    after it (the first round of a run or of a resume always runs; a round slower than the one
    before it can end after the budget)."""
    seed: int = 0
    """Seed of the rounds' games and the turn search's worlds."""

    # what a resumed run may change: everything else decides the rounds' games and fits
    RESUMABLE_CHANGES = ("rounds", "max_minutes", "eval_games", "eval_opponents", "init_from")

    DEFAULTS = {
        "alphabeta": {"random_plies": 8, "ridge": 0.1, "depth": 3},
        "turn": {"random_plies": 0, "ridge": 1e-3, "redeals": 8},
    }

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None, where: str = "leaf-table config") -> "LeafTableConfig":
        data = dict(data or {})
        data.pop("algo", None)  # a run's own config.yaml says algo: az
        config = settings_of(cls, data, where)
        config.validate(where)
        for name in cls.DEFAULTS[config.search]:  # the run's config.yaml records the defaults taken
            setattr(config, name, config.setting(name))
        return config

    def validate(self, where: str = "leaf-table config") -> None:
        from ..alphazero import LEAF_SEARCHES, MAX_DEPTH, MAX_REDEALS

        own = getattr(env_module(self.env_id).Game.kernels.heuristic, "LEARNED_SEARCH", None)
        if self.search not in LEAF_SEARCHES or own is None:
            raise ValueError(
                f"{where}: 'search' {self.search} needs a game whose heuristic searches a learned leaf value "
                f"(alphabeta: timelord_chess_v1; turn: keys_to_the_tardis_v0), not {self.env_id}"
            )
        if self.search != own:
            raise ValueError(f"{where}: 'search' {self.search} is not {self.env_id}'s search over a learned leaf table, which is {own}")
        for name, other in (("depth", "alphabeta"), ("redeals", "turn")):
            if getattr(self, name) is not None and self.search != other:
                raise ValueError(f"{where}: {name!r} is a setting of the {other} search; {self.env_id}'s is the {self.search} search")
        for name, low, high in (
            ("rounds", 1, 10_000),
            ("games", 2, ROUND_SEEDS - 1),  # a game held out of each fit and one fitted on, at least
            ("num_envs", 1, 100_000),
            ("eval_games", 2, 100_000),
            ("seed", 0, ROUND_SEEDS - 1),
            ("random_plies", 0, 1_000),
            ("depth", 1, MAX_DEPTH),
            ("redeals", 1, MAX_REDEALS),
        ):
            value = getattr(self, name)
            if value is None and name in ("random_plies", "depth", "redeals"):
                continue
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"{where}: {name!r} must be an integer from {low} to {high}, got {value!r}")
        if round_seed(self.seed, self.rounds) + self.games > EVAL_SEED:
            raise ValueError(
                f"{where}: 'rounds' {self.rounds}: at most {(EVAL_SEED - self.seed - self.games) // ROUND_SEEDS}, "
                "or the games would take the evaluation's seeds"
            )
        for name, low in (("ridge", 0.0), ("max_minutes", 0.0), ("self_share", 0.0)):
            value = getattr(self, name)
            if value is None and name == "ridge":
                continue
            bad = isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)
            if bad or value < low or (name == "ridge" and value == 0) or (name == "self_share" and value > 1):
                rule = {"ridge": "a number > 0", "max_minutes": "a number >= 0", "self_share": "a number in [0, 1]"}[name]
                raise ValueError(f"{where}: {name!r} must be {rule}, got {value!r}")
        if not isinstance(self.options, dict):
            raise ValueError(f"{where}: 'options' must be a mapping of rule options, got {self.options!r}")
        source = self.init_from[3:] if isinstance(self.init_from, str) and self.init_from.startswith("az:") else self.init_from
        if not isinstance(source, str) or not source or source.lower().startswith("ppo:"):
            raise ValueError(f"{where}: 'init_from' {self.init_from!r}: an az checkpoint file (.zip) or baseline")
        if ":" in source.replace("\\", "/").split("/")[-1]:
            raise ValueError(
                f"{where}: 'init_from' {self.init_from}: a checkpoint, without agent settings "
                f"(the table is fitted for the game's {self.search} search)"
            )
        if not isinstance(self.eval_opponents, list) or not self.eval_opponents or not all(isinstance(s, str) for s in self.eval_opponents):
            raise ValueError(f"{where}: 'eval_opponents' must be a list of agent specs, got {self.eval_opponents!r}")

    def setting(self, name: str) -> Any:
        """The search's setting ``name``, its default where the config leaves it out."""
        value = getattr(self, name)
        return self.DEFAULTS[self.search][name] if value is None else value

    def to_dict(self) -> dict[str, Any]:
        return {"algo": "az", **asdict(self)}


class LeafTableTrainer:
    """Owns one run folder (``tardis-envs train``'s rules: :func:`agents.training.train.open_run_dir`);
    ``run()`` plays and fits the rounds (see the module docstring) and returns the run's stats."""

    relation = "vs"

    def __init__(self, config: LeafTableConfig, run_dir: str | Path, resume: bool = False, progress: bool = True, overwrite: bool = False):
        from .. import make_agent
        from ..alphazero import AZAgent, checkpoint_file, leaf_kernels
        from .train import open_run_dir

        self.config, self.resume, self.progress = config, resume, progress
        self.started = time.perf_counter()
        self.seconds_before = 0.0
        self.game = env_module(config.env_id).Game(**config.options)
        self.kernels = kernels = leaf_kernels(self.game, config.search)
        # the search weights the tables are searched with; chess's first table is material alone
        self.weights = kernels.DEFAULT_WEIGHTS.copy()
        self.start: np.ndarray | None = None
        if config.search == "alphabeta":
            self.weights = kernels.PRESETS["material3"].copy()
            self.weights[kernels.W_DEPTH] = config.setting("depth")
            self.start = kernels.material_table(self.weights)
        players = self.game.num_players
        if config.eval_games % players:
            raise ValueError(f"'eval_games' {config.eval_games} is not a multiple of the {players} players (seats are rotated evenly)")
        for spec in config.eval_opponents:
            make_agent(spec, self.game, seed=1)  # a bad spec is refused now, not after a round
        run = Path(run_dir)
        if ":" in str(run):
            raise ValueError(f"--run-dir {str(run)!r}: a leaf-table run's folder may not hold ':', which az agent specs read as a setting")
        # everything is checked before anything in the run folder is replaced
        self.source = run / "checkpoints" / "last.zip"
        if not resume:
            self.source = checkpoint_file(config.init_from, self.game)
            base = make_agent(f"az:{self.source}:net", self.game, seed=0)  # loads and checks the checkpoint
            if not isinstance(base, AZAgent):
                raise ValueError(f"init_from {config.init_from}: an az checkpoint or baseline")
            if run.resolve() in self.source.resolve().parents:
                raise ValueError(
                    f"init_from {config.init_from} lies inside --run-dir {str(run)!r}, whose checkpoints the run replaces: copy it elsewhere"
                )
        self.run_dir, self.kept = open_run_dir(run, "az", "sb3", resume=resume, overwrite=overwrite)

    def seconds(self) -> float:
        return self.seconds_before + time.perf_counter() - self.started

    def _search(self, table: np.ndarray, round_number: int):
        """The search over ``table`` that round ``round_number + 1`` plays (and round
        ``round_number``'s checkpoint holds)."""
        from ..alphazero import LeafSearch

        config = self.config
        if config.search == "turn":
            return LeafSearch(self.game, table, self.weights, redeals=config.setting("redeals"), seed=config.seed + round_number)
        return LeafSearch(self.game, table, self.weights)

    def _save(self, leaf, fit: dict, round_number: int, games: int, evaluated: bool, name: str = "last") -> Path:
        """Write ``checkpoints/<name>.zip`` (callers hold a Ctrl-C back meanwhile); a ValueError
        naming the file where it cannot be written."""
        path = self.run_dir / "checkpoints" / f"{name}.zip"
        run = {
            "round": round_number,
            "games": games,
            "seconds": round(self.seconds(), 1),
            "best_points": None if math.isinf(self.best_points) else self.best_points,
            "evaluated": evaluated,
            "config": self.config.to_dict(),
        }
        try:
            return save_leaf_checkpoint(path, self.source, leaf, {"round": round_number, **fit}, {"leaf_run": run})
        except OSError as exc:
            raise ValueError(f"cannot write {str(path)!r} ({exc.strerror or exc}); the rounds before it are in {self.run_dir}") from None

    def _resumable(self, last: Path) -> dict[str, Any]:
        """The metadata of the run's last checkpoint, checked for ``--resume``: a leaf-table run
        of this game, under the same rule options and the same settings but those a resumed run
        may change (:data:`LeafTableConfig.RESUMABLE_CHANGES`)."""
        from .train import refuse_changed_settings, resumable_meta

        config = self.config

        def trained_options(meta: dict[str, Any]) -> dict[str, Any]:
            record = meta.get("leaf_run")
            if not isinstance(record, dict) or not isinstance(record.get("round"), int):
                raise CheckpointError(
                    f"--resume: {str(last)!r} holds no leaf-table run of {config.env_id}; resume the run without --config (its own config.yaml)"
                )
            try:
                return type(self.game)(**record["config"]["options"]).options
            except (KeyError, TypeError, ValueError) as exc:
                raise CheckpointError(f"--resume: {str(last)!r} records options that cannot be read ({exc})") from None

        meta = resumable_meta(last, config, self.game, self.run_dir, trained_options)
        recorded, now = meta["leaf_run"]["config"], config.to_dict()
        refuse_changed_settings(
            {key: recorded.get(key) for key in now},  # a setting the run did not record counts as changed
            now,
            [key for key in now if key not in ("options", *config.RESUMABLE_CHANGES)],
            self.run_dir,
            f"the next rounds would not be the run's (a resumed run may change only {', '.join(config.RESUMABLE_CHANGES)})",
        )
        return meta

    def _evaluate(self, last: Path) -> dict[str, dict]:
        from .. import make_agent
        from .train import evaluate_against

        config = self.config
        learner = make_agent(f"az:{last}", self.game, seed=0)
        results = evaluate_against(config.env_id, self.game, learner, config.eval_opponents, config.eval_games, config.options)
        rearm_ctrl_c()
        return results

    def run(self) -> dict[str, Any]:
        from torch.utils.tensorboard import SummaryWriter
        from tqdm import tqdm

        from ..alphazero import LeafSearch
        from .train import append_eval_rows, progress_format, read_history

        config, game, kernels = self.config, self.game, self.kernels
        turns = config.search == "turn"
        dtype = np.float32 if turns else np.int8
        last = self.run_dir / "checkpoints" / "last.zip"
        start = self.start
        self.best_points = -math.inf
        evaluated = True
        if self.resume:
            meta = self._resumable(last)
            record = meta["leaf_run"]
            done, games_played = record["round"], int(record["games"])
            leaf = LeafSearch.from_checkpoint(last, meta, game, seed=config.seed + done)
            samples = Samples.load(samples_file(self.run_dir, done), done, kernels.LEAF_FEATURES, dtype)
            self.seconds_before = float(record["seconds"])
            self.best_points = float(record["best_points"]) if record.get("best_points") is not None else -math.inf
            evaluated = bool(record["evaluated"])
            fit = {key: value for key, value in meta["leaf_search"].items() if key in FIELDS}
            if not evaluated:  # rows an evaluation wrote before it was cut off are written again
                drop_rows(self.run_dir / "eval.csv", "timesteps", games_played)
                drop_rows(self.run_dir / "rounds.csv", "round", done)
        else:
            done, games_played = 0, 0
            leaf = None if turns else self._search(start, 0)
            samples = Samples.empty(kernels.LEAF_FEATURES, dtype)
            fit = {}
        (self.run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
        (self.run_dir / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
        deadline = self.started + 60 * config.max_minutes if config.max_minutes else math.inf
        writer = SummaryWriter(str(self.run_dir / "tb" / "az"))
        bar = None
        if self.progress:
            bar = tqdm(
                total=config.rounds * config.games,
                initial=done * config.games,
                unit="game",
                dynamic_ncols=True,
                bar_format=progress_format(deadline - time.perf_counter()),
            )
        final: dict[str, dict] = {}
        round_seconds = 0.0
        rounds_csv = self.run_dir / "rounds.csv"

        def evaluate_round(round_number: int) -> None:
            """Evaluate last.zip, round ``round_number``'s table: eval.csv, rounds.csv, TensorBoard, best.zip."""
            nonlocal final
            try:
                results = self._evaluate(last)
            except KeyboardInterrupt:
                print(
                    f"\ninterrupted during round {round_number}'s evaluation: {last} holds its table; --resume evaluates it and goes on",
                    file=sys.stderr,
                )
                raise
            final = results
            append_eval_rows(self.run_dir, games_played, self.seconds(), results)
            first = results[config.eval_opponents[0]]
            points = (first["wins"] + first["draws"] / 2) / max(first["games"], 1)
            row = {"round": round_number, "seconds": round(self.seconds()), "games": games_played, **fit}
            row.update({f"eval_{key}": first[key] for key in ("wins", "draws", "losses")} | {"eval_points": round(points, 4)})
            fresh = not rounds_csv.exists()
            with rounds_csv.open("a", newline="") as handle:
                writer_csv = csv.DictWriter(handle, fieldnames=FIELDS)
                if fresh:
                    writer_csv.writeheader()
                writer_csv.writerow({key: row.get(key) for key in FIELDS})
            for name, rec in results.items():
                writer.add_scalar(f"eval/vs_{name}", rec["win_rate"], games_played)
            for key in FIELDS[3:-4]:
                if isinstance(fit.get(key), (int, float)):
                    writer.add_scalar(f"leaf/{key}", fit[key], games_played)
            writer.flush()
            with ctrl_c_deferred():  # best.zip, then last.zip marked evaluated: a Ctrl-C waits for both
                if points > self.best_points:
                    self.best_points = points
                    self._save(leaf, fit, round_number, games_played, evaluated=True, name="best")
                self._save(leaf, fit, round_number, games_played, evaluated=True)
            print(json.dumps(row), flush=True)
            if bar is not None:
                bar.set_postfix_str(f"round {round_number}: {100 * points:.0f}% of the points vs {config.eval_opponents[0]}")

        try:
            if not evaluated:
                evaluate_round(done)
            for round_number in range(done + 1, config.rounds + 1):
                if round_seconds and time.perf_counter() + round_seconds > deadline:
                    break
                round_started = time.perf_counter()
                try:
                    played = play_games(
                        game,
                        leaf,
                        config.games,
                        seed=round_seed(config.seed, round_number),
                        self_share=config.self_share,
                        random_plies=config.setting("random_plies"),
                        batch=config.num_envs,
                        progress=bar.update if bar is not None else None,
                    )
                except KeyboardInterrupt:
                    kept = f"{last} holds round {round_number - 1}'s table (--resume goes on from it)" if round_number > 1 else "none"
                    print(
                        f"\ninterrupted: round {round_number}'s games are dropped; the table of the rounds before it: {kept}",
                        file=sys.stderr,
                    )
                    raise
                samples = samples + played
                games_played += config.games
                if turns:
                    table, fit = fit_outcomes(samples, config.setting("ridge"), seed=config.seed)
                else:
                    table, fit = fit_teacher(samples, start, config.setting("ridge"), seed=config.seed)
                    fit["positions"] = fit["teacher_positions"]
                    fit["mean_change_points"] = round(float(np.mean(np.abs(table - start))), 2)
                leaf = self._search(table, round_number)
                with ctrl_c_deferred():  # the positions, then the checkpoint that names their round
                    try:
                        samples.save(samples_file(self.run_dir, round_number), round_number)
                    except OSError as exc:
                        raise ValueError(f"cannot write the round's positions in {self.run_dir} ({exc.strerror or exc})") from None
                    self._save(leaf, fit, round_number, games_played, evaluated=False)
                    samples_file(self.run_dir, round_number - 1).unlink(missing_ok=True)
                evaluate_round(round_number)
                done = round_number
                round_seconds = time.perf_counter() - round_started
        finally:
            if bar is not None:
                bar.close()
            writer.close()
        history = read_history(self.run_dir)
        if not final and not history:  # eval.csv lost: the last table is evaluated again
            final = self._evaluate(last)
        if not final:  # nothing left to play: the last evaluation's rows
            last_count = max(row["timesteps"] for row in history)
            final = {
                row["opponent"]: {k: (int(v) if k in ("games", "wins", "draws", "losses") else v) for k, v in row.items()}
                for row in history
                if row["timesteps"] == last_count
            }
        stats = {
            "num_timesteps": games_played,
            "rounds": done,
            "positions": len(samples),
            "seconds": round(self.seconds(), 1),
            "final": final,
            "best_score": self.best_points,
        }
        self._report(history, stats)
        return stats

    def _report(self, history: list[dict], stats: dict) -> None:
        """winrate.png, summary.md (the rounds and the final table's evaluation) and stats.json."""
        from tardis_envs.outputs import write_with_fallback

        from .train import plot_winrate, results_table, write_summary

        config, run_dir = self.config, self.run_dir
        write_with_fallback(
            run_dir / "winrate.png",
            lambda p: plot_winrate(history, p, config.env_id, "vs", "games the search played"),
            fallback_name=f"{run_dir.name}-winrate.png",
        )
        with (run_dir / "rounds.csv").open() as handle:
            rounds = list(csv.DictReader(handle))
        if config.search == "turn":
            search = f"the turn search in {config.setting('redeals')} redealt worlds"
            fitted = "held-out log loss of the outcomes (one constant chance / fitted)"
        else:
            search = f"alpha-beta depth {config.setting('depth')} with the capture search"
            fitted = "held-out R^2 of the teacher's points (material / fitted; beyond material)"
        lines = [
            f"# Training run: {config.env_id} (--algo az, the learned leaf table of search {config.search})",
            "",
            f"- the network of `{config.init_from}`; {search}; {config.games} games a round, ridge {config.setting('ridge')}",
            f"- rounds: {stats['rounds']}; {stats['num_timesteps']:,} games, {stats['positions']:,} positions, {stats['seconds']:.0f} s",
            f"- best checkpoint: `checkpoints/best.zip` ({100 * stats['best_score']:.1f}% of the points against {config.eval_opponents[0]}, draws half)",
            "",
            f"| round | minutes | positions | {fitted} | vs {config.eval_opponents[0]} (W-D-L) | points |",
            "|---|---|---|---|---|---|",
        ]
        for row in rounds:
            if config.search == "turn":
                fit_text = f"{row['outcome_log_loss_constant']} / {row['outcome_log_loss']}"
            else:
                fit_text = f"{row['teacher_r2_start']} / {row['teacher_r2']}; {row['teacher_beyond_material']}"
            lines.append(
                f"| {row['round']} | {float(row['seconds']) / 60:.1f} | {int(row['positions']):,} | {fit_text} | "
                f"{row['eval_wins']}-{row['eval_draws']}-{row['eval_losses']} | {100 * float(row['eval_points']):.1f}% |"
            )
        lines += ["", f"Evaluation of the last table, {config.eval_games} games per opponent, seats rotated, fixed seeds:", ""]
        lines += results_table(stats["final"])
        write_summary(run_dir, config, lines, stats)
