"""Replay files of evaluated games: how large they are and whether every one replays exactly.

    python benchmarks/replays.py --games 2000 --json docs/results/replays.json --md docs/results/replays.md

For each game, an evaluation of its heuristic against ``random`` (chess: the ``quick``
heuristic, the alpha-beta default costs tens of ms a move; Time of the Daleks: a heuristic
Doctor beside heuristic team-mates) saves a replay of every game; then every file is loaded and
re-run by :func:`tardis_envs.replay.play_back` (each action legal, each chance draw as
recorded, the final digest and rewards as recorded). Reports files, exact replays, bytes per
file (mean, median, largest) and seconds to record and to replay.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import tardis_envs
from agents.evaluation import evaluate
from tardis_envs.replay import SUFFIX, Replay, ReplayError, play_back

AGENTS = {
    "tardis_run_v0": ["heuristic", "random"],
    "keys_to_the_tardis_v0": ["heuristic", "random"],
    "timelord_chess_v1": ["heuristic:quick", "random"],
    "gallifrey_duel_v1": ["heuristic", "random"],
    "time_of_the_daleks_v2": ["heuristic"],
}


def measure(env_id: str, games: int, folder: Path) -> dict:
    started = time.perf_counter()
    evaluate(env_id, AGENTS[env_id], games=games, seed=0, replays=folder)
    recorded = time.perf_counter() - started
    files = sorted(folder.rglob(f"*{SUFFIX}"))
    sizes = np.array([p.stat().st_size for p in files])
    exact, failures = 0, []
    started = time.perf_counter()
    for path in files:
        try:
            play_back(Replay.load(path), source=str(path.name))
            exact += 1
        except ReplayError as exc:
            failures.append(str(exc))
    replayed = time.perf_counter() - started
    return {
        "env_id": env_id,
        "agents": AGENTS[env_id],
        "files": len(files),
        "exact": exact,
        "failures": failures[:5],
        "bytes_mean": float(sizes.mean()),
        "bytes_median": float(np.median(sizes)),
        "bytes_max": int(sizes.max()),
        "seconds_eval_with_replays": round(recorded, 1),
        "seconds_replay_all": round(replayed, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games per env (default 2000: 10,000 in all)")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--md", help="also write a markdown table to this file (the docs include it)")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="tardis-replays-") as tmp:
        for env_id in tardis_envs.ENV_IDS:
            rows.append(measure(env_id, args.games, Path(tmp) / env_id))
            r = rows[-1]
            print(
                f"{env_id:<24} {r['files']:>6} files, {r['exact']:>6} exact; bytes mean {r['bytes_mean']:,.0f}, "
                f"median {r['bytes_median']:,.0f}, largest {r['bytes_max']:,}; eval {r['seconds_eval_with_replays']} s, "
                f"replay {r['seconds_replay_all']} s",
                flush=True,
            )
    total, exact = sum(r["files"] for r in rows), sum(r["exact"] for r in rows)
    print(f"{exact:,} of {total:,} replays exact")
    if args.md:
        lines = [
            "| game | agents | replays | exact | bytes per game: mean | median | largest | eval with replays | replaying all |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        lines += [
            f"| `{r['env_id']}` | {' vs '.join(r['agents'])} | {r['files']:,} | {r['exact']:,} | {r['bytes_mean']:,.0f} | "
            f"{r['bytes_median']:,.0f} | {r['bytes_max']:,} | {r['seconds_eval_with_replays']} s | {r['seconds_replay_all']} s |"
            for r in rows
        ]
        lines.append(f"\n{exact:,} of {total:,} replays exact ({args.games:,} games per game; 2 cores, this project's machine).")
        Path(args.md).write_text("\n".join(lines) + "\n")
    if args.json:
        Path(args.json).write_text(json.dumps({"games_per_env": args.games, "rows": rows, "exact": exact, "files": total}, indent=2) + "\n")
    return 0 if exact == total else 1


if __name__ == "__main__":
    sys.exit(main())
