"""The duel heuristic against random play over every roster pairing, per combat mode.

    python benchmarks/gallifrey_pairings.py [--games-per-pairing 40] [--threat dangerous]

For each mode and each ordered pair of roster characters (seats swapped every
other game, so the heuristic plays both characters of a pairing), plays the games and prints
the heuristic's win rate with its 95% Wilson interval, per pairing (a matrix:
row = heuristic's character, column = random's) and over all pairings, with
the mean fight length in exchanges.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from agents import make_agent
from agents.tournament import play_match, wilson_interval
from tardis_envs import gallifrey_duel_v1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games-per-pairing", type=int, default=40)
    parser.add_argument("--threat", default="dangerous")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    names = [c.name for c in gallifrey_duel_v1.Game().content.characters]
    short = [n.replace("The ", "")[:9] for n in names]
    for mode in gallifrey_duel_v1.SPEC.options["mode"].choices:
        started = time.perf_counter()
        wins = np.zeros((len(names), len(names)))
        games = np.zeros((len(names), len(names)))
        total = {"wins": 0, "draws": 0, "losses": 0, "exchanges": 0.0, "games": 0}
        for i in range(len(names)):
            for j in range(len(names)):
                # play_match swaps seats every other game: the heuristic plays names[i] as the
                # first seat and names[j] as the second; each game counts for its own matchup
                options = {"mode": mode, "threat": args.threat, "pair": f"{names[i]}, {names[j]}"}
                game = gallifrey_duel_v1.Game(**options)
                agents = [make_agent("heuristic", game), make_agent("random", game, seed=args.seed + 1)]
                result = play_match(
                    "gallifrey_duel_v1",
                    agents,
                    ["heuristic", "random"],
                    args.games_per_pairing,
                    seed=args.seed + 1000 * (i * len(names) + j),
                    options=options,
                )
                for g in range(result.num_games):
                    h = int(np.flatnonzero(result.seats[g] == 0)[0])  # the heuristic's seat
                    mine, theirs = (i, j) if h == 0 else (j, i)
                    reward = result.rewards[g, h]
                    wins[mine, theirs] += reward > 0
                    games[mine, theirs] += 1
                    total["wins"] += int(reward > 0)
                    total["draws"] += int(reward == 0)
                    total["losses"] += int(reward < 0)
                    total["exchanges"] += result.lengths[g] / 2  # two decisions an exchange
                    total["games"] += 1
        low, high = wilson_interval(total["wins"], total["games"])
        print(
            f"\n{mode} (threat {args.threat}): heuristic vs random over {len(names)}x{len(names)} pairings, "
            f"{total['games']} games: {total['wins']}-{total['draws']}-{total['losses']} (W-D-L), "
            f"win rate {total['wins'] / total['games']:.1%} [{low:.1%}, {high:.1%}], "
            f"mean fight {total['exchanges'] / total['games']:.2f} exchanges, {time.perf_counter() - started:.1f} s"
        )
        print("win rate, row = heuristic's character, column = random's:")
        print(" " * 10 + " ".join(f"{s:>9}" for s in short))
        for i, s in enumerate(short):
            print(f"{s:>9} " + " ".join(f"{wins[i, j] / max(games[i, j], 1):>9.0%}" for j in range(len(names))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
