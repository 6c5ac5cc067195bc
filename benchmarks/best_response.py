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

Only the duel's heuristic has an exact best response here. Results: ``docs/results/az/``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.base import Agent
from tardis_envs.core.state import CURRENT_PLAYER


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_id")
    parser.add_argument("--games", type=int, default=2000, help="seat-swapped games (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="game g is seeded seed + g, as in tardis-envs eval")
    parser.add_argument("--config", help="YAML config whose options set the rules (default: the game's defaults, as in its default config)")
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
