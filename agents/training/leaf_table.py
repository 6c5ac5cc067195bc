"""A learned leaf value for the search of an ``az`` agent over the game's heuristic kernels:
Dr. Who Chess's ``alphabeta`` search, fitted to the heuristic's judgement, and Keys to the
TARDIS's ``turn`` search, fitted to the games' outcomes.

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
and each fit is on all of them. After each fit the new table plays ``eval_games`` seat-swapped
games against the heuristic, and the best table so far is the run's.

A table fitted to the games' outcomes instead overfits the few hundred outcomes an hour of
these games gives (docs/results/az/README.md); ``rounds.csv`` reports how well each table
predicts the held-out games' outcomes beside how well it predicts the teacher.

The result is an ``az`` checkpoint: the network of ``--from``, unchanged (it plays ``:net`` and
the gumbel search), with ``az_leaf_table.npy`` and its ``search`` added, so that
``az:<it>`` plays its search over the learned table::

    python -m agents.training.leaf_table timelord_chess_v1 --from az:baseline --rounds 2 --games 128 --run-dir runs/leaf_chess

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
regression on all of them, with ``ridge`` times the table's squared size added::

    python -m agents.training.leaf_table keys_to_the_tardis_v0 --from az:baseline --rounds 2 --games 2000 --run-dir runs/leaf_keys

The run folder holds ``rounds.csv`` (each round's positions, fit and evaluation),
``summary.md``, ``checkpoints/best.zip`` and ``checkpoints/last.zip``. A Ctrl-C during a
round's games ends the run, keeping the tables of the rounds before it. A folder that holds
anything else is refused; one that holds a run of this program is replaced only with
``--overwrite``.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tardis_envs.core.state import CURRENT_PLAYER, REWARDS, RUNNING, STATUS

SCALE = 400.0  # points per unit of tanh: the scale the chess heuristic's values are read at
EVAL_SEED = 10_000_000  # the rounds' evaluation games: seeds EVAL_SEED + g
ROUND_SEEDS = 1_000_000  # round r's games are seeded seed + r x ROUND_SEEDS + g


def round_seed(seed: int, round_number: int) -> int:
    """The seed of round ``round_number``'s first game (its game ``g`` is this ``+ g``): above
    any match's usual seeds, below the rounds' evaluation seeds (``main`` checks the bounds)."""
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


def play_games(
    game,
    leaf,
    games: int,
    seed: int,
    self_share: float = 0.5,
    random_plies: int = 8,
    batch: int = 64,
) -> Samples:
    """Play ``games`` games of ``leaf``'s search (a :class:`agents.alphazero.LeafSearch`) against
    the game's heuristic (``1 - self_share`` of them; the learner's seat alternating) or itself,
    each opened by 0 to ``random_plies`` random plies; with ``leaf`` None, the heuristic plays
    every seat. Returns the positions the game's fit learns from, after the opening: chess's
    quiet positions with the heuristic's evaluation of each, Keys' positions where a seat's turn
    has just ended (an extra turn's too), for that seat."""
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
        learner = (ids % 2).astype(np.int64)
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
        return float(np.corrcoef(np.tanh(x[held] @ candidate / SCALE), samples.outcome[held])[0, 1])

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


def save_leaf_checkpoint(path: Path, source: Path, leaf, record: dict[str, Any]) -> Path:
    """``source``'s az checkpoint with ``leaf``'s table and its search (``alphabeta``, ``turn``)
    added (written beside ``path`` and renamed over it)."""
    from ..alphazero import LEAF_TABLE_MEMBER
    from ..checkpoint import META_NAME, read_meta, write_meta

    meta = read_meta(source)
    config = dict(meta.get("config") or {})
    config["search"] = leaf.search
    meta = {**meta, "config": config, "leaf_search": {**leaf.record(), **record}}
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as copy:
        for name in archive.namelist():
            if name not in (META_NAME, LEAF_TABLE_MEMBER):
                copy.writestr(name, archive.read(name))
        for name, data in leaf.members().items():
            copy.writestr(name, data)
    write_meta(temporary, meta)
    temporary.replace(path)
    return path


def evaluate(checkpoint: Path, game, games: int, opponent: str = "heuristic") -> dict[str, Any]:
    """``az:<checkpoint>`` (its search over the learned table) against ``opponent`` over ``games``
    seat-swapped games on the evaluation seeds: wins, draws, losses and the share of the points
    (draws half)."""
    from .. import make_agent
    from ..tournament import play_match

    agents = [make_agent(f"az:{checkpoint}", game, seed=0), make_agent(opponent, game, seed=1)]
    result = play_match(game.spec.env_id, agents, ["az", opponent], games, seed=EVAL_SEED, options=dict(game.options))
    record = result.record(0)
    points = (record["wins"] + record["draws"] / 2) / max(record["games"], 1)
    return {key: record[key] for key in ("games", "wins", "draws", "losses")} | {"points": round(points, 4)}


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


def train(args: argparse.Namespace) -> dict[str, Any]:
    """The rounds of :mod:`agents.training.leaf_table` (see the module docstring)."""
    from .. import make_agent
    from ..alphazero import AZAgent, LeafSearch, checkpoint_file, leaf_kernels
    from ..tournament import MatchInterrupted

    run_dir = Path(args.run_dir)
    # everything is checked before anything in the run folder is replaced
    game = _game(args.env_id)
    kernels = leaf_kernels(game)
    turns = kernels.LEARNED_SEARCH == "turn"
    if turns and args.depth is not None:
        raise ValueError(f"--depth is a setting of the alphabeta search; {args.env_id}'s is the turn search (--redeals)")
    if not turns and args.redeals is not None:
        raise ValueError(f"--redeals is a setting of the turn search; {args.env_id}'s is the alphabeta search (--depth)")
    if not (args.source.startswith("az:") or args.source.endswith(".zip")):
        raise ValueError(f"--from {args.source}: an az checkpoint file (.zip) or az:baseline")
    path = args.source[3:] if args.source.startswith("az:") else args.source
    if ":" in path.replace("\\", "/").split("/")[-1]:
        raise ValueError(
            f"--from {args.source}: a checkpoint, without agent settings (the table is fitted for the game's {kernels.LEARNED_SEARCH} search)"
        )
    source = checkpoint_file(path, game)
    base = make_agent(f"az:{path}:net", game, seed=0)  # loads and checks the checkpoint
    if not isinstance(base, AZAgent):
        raise ValueError(f"--from {args.source}: an az checkpoint or az:baseline")
    if run_dir.resolve() in source.resolve().parents:
        raise ValueError(
            f"--from {args.source} lies inside --run-dir {str(run_dir)!r}, whose checkpoints the run replaces: copy it elsewhere"
        )
    if run_dir.exists() and any(run_dir.iterdir()):
        if not args.overwrite:
            raise ValueError(f"run folder {str(run_dir)!r} is not empty: give another --run-dir, or --overwrite to replace its run")
        if not (run_dir / "rounds.csv").exists():
            raise ValueError(f"run folder {str(run_dir)!r} holds no leaf-table run (no rounds.csv): it is not this program's to replace")
        for name in ("rounds.csv", "summary.md", "checkpoints/last.zip", "checkpoints/best.zip"):
            (run_dir / name).unlink(missing_ok=True)
    started = time.perf_counter()
    if turns:  # round 1: the heuristic's own games, fitted from no table
        weights = kernels.DEFAULT_WEIGHTS.copy()
        leaf = None
        random_plies = 0 if args.random_plies is None else args.random_plies
        ridge = 1e-3 if args.ridge is None else args.ridge
        samples = Samples.empty(kernels.LEAF_FEATURES, np.float32)
    else:
        weights = kernels.PRESETS["material3"].copy()
        weights[kernels.W_DEPTH] = 3 if args.depth is None else args.depth
        start = kernels.material_table(weights)
        leaf = LeafSearch(game, start, weights)
        random_plies = 8 if args.random_plies is None else args.random_plies
        ridge = 0.1 if args.ridge is None else args.ridge
        samples = Samples.empty(kernels.LEAF_FEATURES)
    run_dir.mkdir(parents=True, exist_ok=True)
    best, history = None, []
    with open(run_dir / "rounds.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        writer.writeheader()
        for round_number in range(1, args.rounds + 1):
            try:
                played = play_games(game, leaf, args.games, seed=round_seed(args.seed, round_number), random_plies=random_plies)
            except KeyboardInterrupt:
                print(
                    f"interrupted: round {round_number}'s games are dropped; the tables of the rounds before it are kept", file=sys.stderr
                )
                break
            samples = samples + played
            if turns:
                table, fit = fit_outcomes(samples, ridge, seed=args.seed)
                leaf = LeafSearch(game, table, weights, redeals=args.redeals, seed=args.seed + round_number)
            else:
                table, fit = fit_teacher(samples, start, ridge, seed=args.seed)
                fit["positions"] = fit["teacher_positions"]
                fit["mean_change_points"] = round(float(np.mean(np.abs(table - start))), 2)
                leaf = LeafSearch(game, table, weights)
            last = save_leaf_checkpoint(run_dir / "checkpoints" / "last.zip", source, leaf, {"round": round_number, **fit})
            try:
                result = evaluate(last, game, args.eval_games)
            except (KeyboardInterrupt, MatchInterrupted):
                print(f"interrupted during round {round_number}'s evaluation: checkpoints/last.zip holds its table", file=sys.stderr)
                break
            row = {"round": round_number, "seconds": round(time.perf_counter() - started), "games": args.games * round_number}
            row.update(fit)
            row.update({f"eval_{key}": value for key, value in result.items() if key != "games"})
            writer.writerow({key: row.get(key) for key in FIELDS})
            handle.flush()
            history.append(row)
            print(json.dumps(row), flush=True)
            if best is None or result["points"] > best["eval_points"]:
                best = row
                shutil.copyfile(last, run_dir / "checkpoints" / "best.zip")
            if args.minutes and time.perf_counter() - started > args.minutes * 60:
                break
    if turns:
        search = f"the turn search in {leaf.redeals if leaf else args.redeals or '8'} redealt worlds"
        fitted = "held-out log loss of the outcomes (one constant chance / fitted)"
    else:
        search = f"alpha-beta depth {int(weights[kernels.W_DEPTH])} with the capture search"
        fitted = "held-out R^2 of the teacher's points (material / fitted; beyond material)"
    lines = [
        f"# Learned leaf table: {args.env_id}",
        "",
        f"From `{args.source}`; {search}; {args.games} games a round, ridge {ridge}.",
        "",
        f"| round | minutes | positions | {fitted} | vs heuristic (W-D-L) | points |",
        "|---|---|---|---|---|---|",
    ]
    for row in history:
        if turns:
            fit_text = f"{row['outcome_log_loss_constant']} / {row['outcome_log_loss']}"
        else:
            fit_text = f"{row['teacher_r2_start']} / {row['teacher_r2']}; {row['teacher_beyond_material']}"
        lines.append(
            f"| {row['round']} | {row['seconds'] / 60:.1f} | {row['positions']:,} | {fit_text} | "
            f"{row['eval_wins']}-{row['eval_draws']}-{row['eval_losses']} | {100 * row['eval_points']:.1f}% |"
        )
    (run_dir / "summary.md").write_text("\n".join(lines) + "\n")
    return {"best": best, "rounds": history}


def _game(env_id: str):
    from tardis_envs import env_module

    return env_module(env_id).Game()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "env_id", help="the game (its heuristic must search a learned leaf value: timelord_chess_v1, keys_to_the_tardis_v0)"
    )
    parser.add_argument(
        "--from",
        dest="source",
        default="az:baseline",
        help="the az checkpoint (a file, or az:baseline) whose network the result keeps (default az:baseline)",
    )
    parser.add_argument("--run-dir", required=True, help="the run folder")
    parser.add_argument("--overwrite", action="store_true", help="replace the leaf-table run already in --run-dir")
    parser.add_argument("--depth", type=int, help="alphabeta: the search's plies before its capture search (default 3)")
    parser.add_argument("--redeals", type=int, help="turn: the search's redealt worlds a decision (default 8)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds at most (default 2)")
    parser.add_argument("--minutes", type=float, default=0.0, help="no new round after this many minutes (default 0: none)")
    parser.add_argument("--games", type=int, default=128, help="games a round (default 128)")
    parser.add_argument("--eval-games", type=int, default=100, help="seat-swapped games against the heuristic a round (default 100)")
    parser.add_argument("--random-plies", type=int, help="each game opens with 0 to this many random plies (default: alphabeta 8, turn 0)")
    parser.add_argument(
        "--ridge",
        type=float,
        help="alphabeta: pull of the table toward material, in pawns (default 0.1); turn: times the table's squared size (default 0.001)",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    from ..alphazero import MAX_DEPTH, MAX_REDEALS

    for name, low, high in (
        ("depth", 1, MAX_DEPTH),
        ("redeals", 1, MAX_REDEALS),
        ("rounds", 1, 10_000),
        ("games", 2, ROUND_SEEDS - 1),  # a game held out of each fit and one fitted on, at least
        ("eval_games", 2, 100_000),
        ("random_plies", 0, 1_000),
        ("seed", 0, ROUND_SEEDS - 1),
    ):
        if getattr(args, name) is not None and not low <= getattr(args, name) <= high:
            parser.error(f"--{name.replace('_', '-')} {getattr(args, name)}: from {low} to {high}")
    if round_seed(args.seed, args.rounds) + args.games > EVAL_SEED:
        parser.error(
            f"--rounds {args.rounds}: at most {(EVAL_SEED - args.seed - args.games) // ROUND_SEEDS}, or the games would take the evaluation's seeds"
        )
    if args.eval_games % 2:
        parser.error(f"--eval-games {args.eval_games}: an even number (seats are swapped)")
    if (args.ridge is not None and not (np.isfinite(args.ridge) and args.ridge > 0)) or not (
        np.isfinite(args.minutes) and args.minutes >= 0
    ):
        parser.error("--ridge: a number > 0; --minutes: a number >= 0")
    try:
        train(args)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
