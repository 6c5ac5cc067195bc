"""Time of the Daleks balance by simulation: teams of heuristic (or random) Doctors.

    python benchmarks/daleks_balance.py [--games 2000] [--players 1 2 3 4] [--first-game] [--random]

For each team size, plays ``--games`` games (seeds 0..games-1, the same for every
configuration) with every seat played by the heuristic (``--random``: uniform random
legal actions) and prints the Doctors' win rate with its 95% Wilson interval, the mean
length in rounds and decisions, and how the Daleks win (Ship on Gallifrey, three Daleks
on Earth, a seventh Dalek). Games run in parallel in compiled code (numba threads).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.stats import wilson_interval
from tardis_envs import time_of_the_daleks_v2
from tardis_envs.core.rng import seed_to_key


def simulate(num_players: int, games: int, random_play: bool = False, seed: int = 0, weights=None, game=None, **options) -> dict:
    game = game or time_of_the_daleks_v2.Game(num_players=num_players, **options)
    heuristic = game.heuristic
    states = np.stack([game.new_state(seed_to_key(seed + g)) for g in range(games)])
    out = np.zeros((games, 3), dtype=np.int64)
    w = np.array(heuristic.DEFAULT_WEIGHTS if weights is None else weights, dtype=np.float64)
    heuristic.play_team_games(states, game.tables, w, random_play, seed_to_key(seed + 10**9), out)
    outcome = out[:, heuristic.TEAM_OUTCOME]
    wins = int((outcome == heuristic.DOCTORS_WIN).sum())
    low, high = wilson_interval(wins, games)
    return {
        "players": num_players,
        "team": "random" if random_play else "heuristic",
        "games": games,
        "doctor_wins": wins,
        "win_rate": wins / games,
        "interval": (low, high),
        "rounds": float(out[:, heuristic.TEAM_ROUNDS].mean()),
        "decisions": float(out[:, heuristic.TEAM_DECISIONS].mean()),
        "dalek_wins": {name: int((outcome == k).sum()) for k, name in enumerate(heuristic.TEAM_OUTCOMES) if k >= 2},
        "truncated": int((outcome == -1).sum()),
    }


def format_row(r: dict) -> str:
    lo, hi = r["interval"]
    how = ", ".join(f"{k} {v}" for k, v in r["dalek_wins"].items())
    return (
        f"{r['players']} {r['team']:<9} Doctors win {r['doctor_wins']:>5}/{r['games']} = {100 * r['win_rate']:5.1f}% "
        f"[{100 * lo:.1f}, {100 * hi:.1f}]; {r['rounds']:.1f} rounds, {r['decisions']:.0f} decisions; Daleks: {how}"
        + (f"; truncated {r['truncated']}" if r["truncated"] else "")
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, nargs="+", default=[1, 2, 3, 4])
    parser.add_argument("--first-game", action="store_true", help="the rulebook's first-game set-up")
    parser.add_argument("--random", action="store_true", help="random Doctors instead of the heuristic")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for n in args.players:
        started = time.perf_counter()
        r = simulate(n, args.games, random_play=args.random, seed=args.seed, first_game=args.first_game)
        print(format_row(r) + (" (first game)" if args.first_game else "") + f"  ({time.perf_counter() - started:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
