"""Results of the shipped learned baselines (docs/results/baselines/), one game or all.

For each game: the training run's learning curve, warm-start record and summary (copied from
the run folder the baseline was exported from), then the round robin of ``ppo:baseline``,
the heuristic and random with ``tardis-envs eval`` (2,000 seat-swapped games per pair, 95%
intervals, Bradley-Terry ratings). Game by game, what the issue measures:

- Dr. Who Chess: against ``heuristic:greedy`` in the round robin, and a shorter match against
  the alpha-beta ``heuristic`` (tens of ms a move);
- Keys to the TARDIS: 2 players, then 3 and 4 (one baseline alone against copies of the other,
  ``--multiplayer-games`` each: the heuristic's route planning makes these the slow ones);
- Time of the Daleks: each agent's team with heuristic Doctors (the baseline + a heuristic
  Doctor against two heuristic Doctors, same seeds).

    python benchmarks/baseline_results.py --runs runs --games 2000 [env_id ...]

``--runs`` holds ``baseline-<env_id>/`` (the recipe's run); without it only the evaluations run.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "results" / "baselines"
RUN_FILES = ("eval.csv", "winrate.png", "bc.json", "summary.md", "stats.json", "config.yaml")


def evaluations(env_id: str, games: int, abgames: int, mpgames: int) -> list[tuple[str, list[str]]]:
    """(name, tardis-envs eval arguments) of each evaluation of ``env_id``."""
    out = str((OUT / env_id).relative_to(ROOT))  # relative: the saved transcripts name repository paths
    if env_id == "timelord_chess_v1":
        return [
            ("round_robin", ["--agents", "ppo:baseline,heuristic:greedy,random", "--games", str(games), "--out", out]),
            ("vs_alphabeta", ["--agents", "ppo:baseline,heuristic", "--games", str(abgames), "--out", out + "/alphabeta"]),
        ]
    if env_id == "keys_to_the_tardis_v0":
        runs = [("round_robin", ["--agents", "ppo:baseline,heuristic,random", "--games", str(games), "--out", out])]
        for players in (3, 4):
            # a multiple of the seat rotation, near the requested count
            n = mpgames - mpgames % players
            runs.append(
                (
                    f"players_{players}",
                    ["--agents", "ppo:baseline,heuristic", "--num-players", str(players), "--games", str(n), "--out", f"{out}/{players}p"],
                )
            )
        return runs
    return [("round_robin", ["--agents", "ppo:baseline,heuristic,random", "--games", str(games), "--out", out])]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_ids", nargs="*", help="games (default: every game with a shipped baseline)")
    parser.add_argument("--runs", help="folder of the recipes' runs (baseline-<env_id>/)")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--alphabeta-games", type=int, default=200, help="chess: games against the alpha-beta heuristic")
    parser.add_argument(
        "--multiplayer-games", type=int, default=600, help="Keys: games at 3 and at 4 players (each heuristic seat plans routes)"
    )
    parser.add_argument("--only", help="comma-separated evaluations to run (round_robin, vs_alphabeta, players_3, players_4)")
    args = parser.parse_args(argv)
    from agents.baselines import available

    env_ids = args.env_ids or available()
    for env_id in env_ids:
        folder = OUT / env_id
        folder.mkdir(parents=True, exist_ok=True)
        if args.runs:
            run = Path(args.runs) / f"baseline-{env_id}"
            for name in RUN_FILES:
                if (run / name).exists():
                    shutil.copy(run / name, folder / name)
        for name, extra in evaluations(env_id, args.games, args.alphabeta_games, args.multiplayer_games):
            if args.only and name not in args.only.split(","):
                continue
            command = [sys.executable, "-m", "tardis_envs.cli", "eval", env_id, *extra]
            print("$ tardis-envs eval", env_id, " ".join(extra), flush=True)
            result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
            if result.returncode:
                print(result.stderr, file=sys.stderr)
                return result.returncode
            (folder / f"{name}.txt").write_text(result.stdout)
            print(result.stdout, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
