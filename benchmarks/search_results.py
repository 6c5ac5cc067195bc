"""MCTS / ISMCTS against the heuristic and random, for every game, at two budgets.

    python benchmarks/search_results.py --games 200 --speed --out docs/results/search
    python benchmarks/search_results.py --only tardis_run_v0 --games 40   # one game, quick

Each search agent plays ``--games`` games against each opponent (fewer in the games
whose search is slow: see ``PLAN``), seats swapped evenly (same seeds for every pairing); the table gives the search agent's win
rate with its 95% Wilson interval, the games played and the mean time of one
search (one thread; a batch searches its games on two threads). Time of the
Daleks is cooperative: the search agent takes one Doctor's seat (rotating) beside
heuristic Doctors, and the row gives the team's win rate, next to the same team
with the heuristic or the random agent in that seat (same seeds).

``--speed`` also compares the compiled search with OpenSpiel's own MCTS bot run
through the adapter (tardis_envs.openspiel) on TARDIS Run: simulations per
second from the same positions, same playout policy (uniform random).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import tardis_envs
from agents import make_agent
from agents.tournament import play_match, team_match

# (env id, the search agents, rule options): two budgets a game, sized to each game's speed;
# Time of the Daleks' playouts follow the heuristic (random Doctors never win: random
# playouts score every action alike), TARDIS Run shows both kinds of playout
# the last field caps the games per pair where a game is slow to search (None: --games)
PLAN = [
    ("tardis_run_v0", ["mcts:100", "mcts:1000", "mcts:100:playout=heuristic"], {}, None),
    ("keys_to_the_tardis_v0", ["ismcts:25", "ismcts:100"], {}, 100),
    ("timelord_chess_v1", ["mcts:25:rollout=60", "mcts:100:rollout=60"], {}, 100),
    ("gallifrey_duel_v1", ["ismcts:100", "ismcts:1000"], {}, None),
    ("time_of_the_daleks_v2", ["ismcts:10:playout=heuristic", "ismcts:40:playout=heuristic"], {}, 100),
]


def run_game(env_id, specs, options, games, seed):
    game = tardis_envs.make(env_id, **options).unwrapped.game
    rows = []
    cooperative = game.spec.cooperative
    baselines = {}
    if cooperative:
        # the same team with the heuristic or the random agent in the search agent's seat
        for opponent in ("heuristic", "random"):
            partner = make_agent("heuristic", game, seed=seed + 2)
            base = team_match(env_id, make_agent(opponent, game, seed=seed + 1), partner, (opponent, "heuristic"), games, seed, options)
            baselines[opponent] = base.team_record(0)["win_rate"]
    for spec in specs:
        budget = int(spec.split(":")[1])
        for opponent in ("heuristic",) if cooperative else ("heuristic", "random"):
            searcher = make_agent(spec, game, seed=seed)
            other = make_agent(opponent, game, seed=seed + 1)
            started = time.perf_counter()
            if cooperative:
                # the searcher's seat (rotating) beside heuristic Doctors
                partner = make_agent("heuristic", game, seed=seed + 2)
                rec = team_match(env_id, searcher, partner, (spec, "heuristic"), games, seed, options).team_record(0)
                versus = f"team win rate; in that seat heuristic {baselines['heuristic']:.1%}, random {baselines['random']:.1%}"
            else:
                rec = play_match(env_id, [searcher, other], [spec, opponent], games, seed=seed, options=options).record(0)
                versus = opponent
            g, w, d, low, high = rec["games"], rec["wins"], rec["draws"], rec["ci_low"], rec["ci_high"]
            per_search = searcher.search_seconds / max(searcher.searches, 1)
            row = {
                "env_id": env_id,
                "agent": spec,
                "versus": versus,
                "games": g,
                "wins": w,
                "draws": d,
                "win_rate": w / g,
                "ci_low": low,
                "ci_high": high,
                "ms_per_search": 1000 * per_search,
                "simulations_per_second": budget / per_search if searcher.searches else float("nan"),
                "seconds": time.perf_counter() - started,
            }
            rows.append(row)
            print(
                f"{env_id:24s} {spec:30s} vs {versus:40s} {w:4d}/{g:<4d} {row['win_rate']:6.1%} "
                f"[{low:.1%}, {high:.1%}]  {row['ms_per_search']:8.1f} ms/search  {row['simulations_per_second']:10,.0f} sims/s",
                flush=True,
            )
    return rows


def openspiel_speed(positions=20, simulations=200, seed=0):
    """Simulations per second: the compiled search vs OpenSpiel's MCTSBot through the adapter."""
    import pyspiel
    from open_spiel.python.algorithms import mcts

    from tardis_envs import openspiel as tardis_openspiel
    from tardis_envs.core.chance import Position

    env_id = "tardis_run_v0"
    game_os = tardis_openspiel.load_game(env_id)
    game = game_os.tardis
    agent = make_agent(f"mcts:{simulations}", game, seed=seed)
    rng = np.random.default_rng(seed)
    states = []
    state = game.new_state(seed)
    while len(states) < positions:
        if state[1] != 0:
            state = game.new_state(int(rng.integers(1 << 30)))
        if len(game.legal_actions(state)) > 1:
            states.append(state.copy())
        game.kernels.step(state, game.tables, int(rng.choice(game.legal_actions(state))))
    agent.search(states[0], 1)  # compile
    started = time.perf_counter()
    for i, s in enumerate(states):
        agent.search(s, i)
    ours = positions * simulations / (time.perf_counter() - started)
    bot = mcts.MCTSBot(
        game_os, 1.4, simulations, mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)), random_state=np.random.RandomState(seed)
    )
    started = time.perf_counter()
    for s in states:
        os_state = game_os.new_initial_state()
        os_state.position = Position(game, s)
        bot.step(os_state)
    theirs = positions * simulations / (time.perf_counter() - started)
    print(f"search speed on {env_id} ({positions} positions x {simulations} simulations, one thread):")
    print(f"  compiled MCTS (tardis_envs.core.search)        {ours:12,.0f} simulations/s")
    print(f"  OpenSpiel MCTSBot through tardis_envs.openspiel {theirs:12,.0f} simulations/s   ratio {ours / theirs:,.0f}x")
    del pyspiel
    return {"env_id": env_id, "compiled": ours, "openspiel": theirs, "ratio": ours / theirs}


def to_markdown(rows, speed):
    lines = [
        "| game | agent | versus | games | win rate [95% CI] | draws | ms / search | simulations/s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['env_id']} | `{r['agent']}` | {r['versus']} | {r['games']} | {r['win_rate']:.1%} "
            f"[{r['ci_low']:.1%}, {r['ci_high']:.1%}] | {r['draws']} | {r['ms_per_search']:.1f} | {r['simulations_per_second']:,.0f} |"
        )
    if speed:
        lines += [
            "",
            f"Search speed on {speed['env_id']}: compiled {speed['compiled']:,.0f} simulations/s, OpenSpiel's MCTSBot "
            f"through the adapter {speed['openspiel']:,.0f} ({speed['ratio']:,.0f}x).",
        ]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="games per pairing (even: seats swap)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", default="", help="comma-separated env ids (default: all)")
    parser.add_argument("--speed", action="store_true", help="also compare with OpenSpiel's MCTSBot")
    parser.add_argument("--out", default="", help="folder for results.md and results.json")
    args = parser.parse_args(argv)
    if args.games < 2 or args.games % 2:
        parser.error(f"--games must be an even number >= 2 (seats swap), got {args.games}")
    only = {e.strip() for e in args.only.split(",") if e.strip()}
    unknown = only - set(tardis_envs.ENV_IDS)
    if unknown:
        parser.error(f"unknown env id {sorted(unknown)[0]!r}; registered: {', '.join(tardis_envs.ENV_IDS)}")
    rows = []
    for env_id, specs, options, cap in PLAN:
        if only and env_id not in only:
            continue
        rows += run_game(env_id, specs, options, min(args.games, cap or args.games), args.seed)
    speed = openspiel_speed() if args.speed else None
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(json.dumps({"rows": rows, "speed": speed, "games": args.games}, indent=2))
        (out / "results.md").write_text(to_markdown(rows, speed))
        print(f"wrote {out / 'results.md'}")


if __name__ == "__main__":
    main()
