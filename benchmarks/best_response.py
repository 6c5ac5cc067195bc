"""How many games any agent can win against a game's heuristic: its exact best response, played.

The duel's heuristic decides from public information alone, so its choice in every position is
known to whoever knows its rules of thumb, and against it the fight is a decision problem for
one side. ``best_response_values`` in the game's heuristic module solves it by dynamic
programming (each Time Card drawn from the full deck: the one approximation); this script plays
that best response against the heuristic over seat-swapped games and prints the match, with
what the dynamic programme itself predicts for the same games (its win chance from each game's
first position, and the heuristic's own under the same model) as a check of the model.

    python benchmarks/best_response.py gallifrey_duel_v1 --games 2000 --seed 0
    python benchmarks/best_response.py gallifrey_duel_v1 --config configs/gallifrey/contest_deadly.yaml

``--counting-bound N`` plays no games: over every fight setting the rules deal (each pair of
characters and each scene, both seats), it bounds what any player who sees only its seat's
information, counting the cards or not, can win against the heuristic (``counting_bounds``:
an information relaxation, the mean over ``N`` random orders of the Time Deck per setting and
seat), beside the best response's own value under the full-deck model over the same settings:

    python benchmarks/best_response.py gallifrey_duel_v1 --counting-bound 2 --seed 0

Only the duel's heuristic has an exact best response here. Results: ``docs/results/az/``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from agents.base import Agent
from tardis_envs.core.state import CURRENT_PLAYER

# --counting-bound: settings whose best response wins at least this share under the full-deck
# model count as won (chosen from a first run, seed 2 in docs/results/az/gallifrey_duel_v1/)
COUNTED_AS_WON = 0.95


class BestResponse(Agent):
    """The best response to the heuristic of ``weights``: each fight's values are solved once,
    at its first decision for a seat (:func:`best_response_values`), then every decision reads
    them (:func:`choose_best_response`)."""

    needs_observations = False
    name = "best response"

    def __init__(self, game, weights: np.ndarray):
        super().__init__(game)
        self.weights = np.asarray(weights, dtype=np.float64)
        self.kernels = game.heuristic
        self.values: dict[tuple[bytes, int], np.ndarray] = {}
        self.solve_seconds = 0.0

    def fight_values(self, state: np.ndarray, seat: int) -> np.ndarray:
        key = (self.kernels.fight_setting(state).tobytes(), seat)
        if key not in self.values:
            started = time.perf_counter()
            self.values[key] = self.kernels.best_response_values(state, self.game.tables, self.weights, seat, False)
            self.solve_seconds += time.perf_counter() - started
        return self.values[key]

    def act_batch(self, states: np.ndarray, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        actions = np.empty(len(states), dtype=np.int64)
        for row, state in enumerate(states):
            values = self.fight_values(state, int(state[CURRENT_PLAYER]))
            actions[row] = self.kernels.choose_best_response(state, self.game.tables, self.weights, values)
        return actions


def predicted(game, states: np.ndarray, seats: np.ndarray, weights: np.ndarray, follow: bool, solved: dict | None = None) -> float:
    """The mean over ``states`` (first positions) of the win chance the dynamic programme gives
    seat ``seats[g]`` there: the best response's, or with ``follow`` the heuristic's own.
    ``solved`` holds values already solved, by fight setting and seat (a :class:`BestResponse`'s
    ``values``), and receives the new ones."""
    kernels = game.heuristic
    solved = {} if solved is None else solved
    total = 0.0
    for state, seat in zip(states, seats):
        key = (kernels.fight_setting(state).tobytes(), int(seat))
        if key not in solved:
            solved[key] = kernels.best_response_values(state, game.tables, weights, int(seat), follow)
        total += solved[key][0, kernels.fight_position(state, game.tables)]
    return total / len(states)


def counting_bound(game, weights: np.ndarray, orders: int, seed: int) -> dict:
    """Over every fight setting and both seats: the best response's value under the full-deck
    model and the mean of ``counting_bounds`` over ``orders`` random deck orders, per seat
    (``values[seat]``, ``bounds[seat]``: one entry per setting of ``settings``; ``orders[seat]``:
    each order's bound; ``spread[seat]``: the standard deviation of each setting's orders)."""
    kernels = game.heuristic
    rng = np.random.default_rng(seed)
    settings = kernels.fight_settings(game.tables)
    out = {"settings": settings, "values": np.zeros((2, len(settings))), "orders": np.zeros((2, len(settings), orders))}
    for k, (first, second, scene) in enumerate(settings):
        state = kernels.fight_of(game.new_state(0), game.tables, (first, second, scene))
        start = kernels.fight_position(state, game.tables)
        for seat in (0, 1):
            values = kernels.best_response_values(state, game.tables, weights, seat, False)
            out["values"][seat, k] = values[0, start]
            out["orders"][seat, k] = kernels.counting_bounds(
                state, game.tables, weights, seat, kernels.deck_orders(game.tables, orders, rng)
            )
    out["bounds"] = out["orders"].mean(axis=2)
    out["spread"] = out["orders"].std(axis=2, ddof=1)
    return out


def save_counting_bound(result: dict, game, path: str) -> None:
    """:func:`counting_bound`'s every setting and seat as CSV: the characters, the scene, the seat,
    the best response's full-deck value and the bound of each deck order."""
    import csv

    content = game.content
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        orders = result["orders"].shape[2]
        writer.writerow(["first", "second", "scene", "seat", "best_response"] + [f"bound_{r + 1}" for r in range(orders)])
        for k, (first, second, scene) in enumerate(result["settings"]):
            for seat in (0, 1):
                names = [content.characters[first].name, content.characters[second].name, content.scenes[scene].name]
                writer.writerow([*names, seat, f"{result['values'][seat, k]:.6f}", *(f"{b:.6f}" for b in result["orders"][seat, k])])


def format_counting_bound(result: dict, orders: int, counted_as_won: float) -> str:
    """The per-seat table of :func:`counting_bound`. A setting whose best response wins at least
    ``counted_as_won`` under the full-deck model counts as 1: no player wins more than every
    fight, and there the full-deck values are far from what counting wins, so the orders' bounds
    spread far above 1. The rule reads no order's bound, so every other setting's mean over its
    orders stays an unbiased estimate of its bound (capping those means at 1 would bias the sum
    low). The interval is 1.96 standard errors of those settings' orders' spread. Beside it, the
    mean of every setting's orders with none counted as 1, an unbiased estimate of a looser
    bound."""
    lines = [
        "seat    best response (full-deck model)   bound on any fair player, counting or not (95%)   settings counted as 1   "
        "no setting counted as 1 (95%)"
    ]
    for name, seats in (("first", [0]), ("second", [1]), ("both", [0, 1])):
        values = result["values"][seats]
        bounds = result["bounds"][seats]
        spread = result["spread"][seats]
        won = values >= counted_as_won
        bound = np.where(won, 1.0, bounds).mean()
        error = np.sqrt(np.where(won, 0.0, spread**2).sum() / orders) / bounds.size
        loose_error = np.sqrt((spread**2).sum() / orders) / bounds.size
        lines.append(
            f"{name:<7} {100 * values.mean():>6.2f}%{'':<27}{100 * bound:>6.2f}% "
            f"[{100 * (bound - 1.96 * error):.2f}, {100 * (bound + 1.96 * error):.2f}]{'':<24}{int(won.sum()):>4} of {bounds.size:<14}"
            f"{100 * bounds.mean():>6.2f}% [{100 * (bounds.mean() - 1.96 * loose_error):.2f}, {100 * (bounds.mean() + 1.96 * loose_error):.2f}]"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_id")
    parser.add_argument("--games", type=int, default=2000, help="seat-swapped games (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="game g is seeded seed + g, as in tardis-envs eval")
    parser.add_argument("--config", help="YAML config whose options set the rules (default: the game's defaults, as in its default config)")
    parser.add_argument(
        "--counting-bound",
        type=int,
        metavar="ORDERS",
        help="play no games: bound what counting the cards could add, over every fight setting, with ORDERS random deck orders each (at least 2)",
    )
    parser.add_argument(
        "--counted-as-won",
        type=float,
        default=COUNTED_AS_WON,
        metavar="P",
        help=f"with --counting-bound: settings whose best response wins at least P under the full-deck model count as 1 (default {COUNTED_AS_WON})",
    )
    parser.add_argument(
        "--save", metavar="CSV", help="with --counting-bound: also write every setting's values and bounds to this CSV file"
    )
    args = parser.parse_args(argv)

    import tardis_envs
    from agents import make_agent
    from agents.heuristics import HeuristicAgent
    from agents.tournament import format_table, play_match
    from tardis_envs import vector
    from tardis_envs.core.options import load_config

    if args.env_id not in tardis_envs.ENV_IDS:
        parser.error(f"unknown env id {args.env_id!r}; one of {', '.join(tardis_envs.ENV_IDS)}")
    config = load_config(args.config) if args.config else {}
    if config.get("env_id") not in (None, args.env_id):
        parser.error(f"config file {args.config!r} is for {config['env_id']!r}, not {args.env_id!r}")
    options = dict(config.get("options") or {})
    game = tardis_envs.make(args.env_id, **options).unwrapped.game
    if not hasattr(game.heuristic, "best_response_values"):
        parser.error(f"{args.env_id}'s heuristic has no exact best response (gallifrey_duel_v1's has)")
    if args.games <= 0 or args.games % 2:
        parser.error(f"--games {args.games}: a positive even number (seats swap every other game)")
    heuristic = make_agent("heuristic", game)
    assert isinstance(heuristic, HeuristicAgent)
    if args.save and args.counting_bound is None:
        parser.error("--save writes the bound's settings: it needs --counting-bound")
    if args.save and (Path(args.save).exists() or not Path(args.save).resolve().parent.is_dir()):
        parser.error(f"--save {args.save}: name a new file in a folder that exists (an existing file is not replaced)")
    if args.counting_bound is not None:
        if args.counting_bound < 2:
            parser.error(f"--counting-bound {args.counting_bound}: at least 2 deck orders a setting (their spread gives the interval)")
        started = time.perf_counter()
        bound = counting_bound(game, heuristic.weights, args.counting_bound, args.seed)
        print(format_counting_bound(bound, args.counting_bound, args.counted_as_won))
        if args.save:
            save_counting_bound(bound, game, args.save)
        settings = bound["values"].shape[1]
        print(
            f"{settings} fight settings x 2 seats, {args.counting_bound} deck orders each (seed {args.seed}), in {time.perf_counter() - started:.0f} s"
        )
        return 0
    agent = BestResponse(game, heuristic.weights)
    started = time.perf_counter()
    result = play_match(args.env_id, [agent, heuristic], [agent.name, "heuristic"], args.games, seed=args.seed, options=options)
    played = time.perf_counter() - started
    print(format_table(result))
    print(f"{args.games} games in {played:.0f} s ({len(agent.values)} fights solved in {agent.solve_seconds:.0f} s)")

    # the same games' first positions, as play_match deals them (game g seeded seed + g,
    # the best response in seat 0 of the even games)
    vec = vector.make(args.env_id, args.games, seed=args.seed, observations=False, **options)
    vec.reset()
    seats = np.arange(args.games) % 2
    best = predicted(game, vec.states, seats, heuristic.weights, follow=False, solved=agent.values)
    own = predicted(game, vec.states, seats, heuristic.weights, follow=True)
    print(
        f"the dynamic programme's win chance over these first positions: best response {100 * best:.1f}%, the heuristic itself {100 * own:.1f}%"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
