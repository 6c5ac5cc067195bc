"""How far a value network could take the guided search in Dr. Who Chess: the search of an
``az`` agent whose leaves are valued by the alpha-beta heuristic's own evaluation instead of
the network's value head, against that heuristic.

A leaf's value is ``tanh(points / scale)`` of the heuristic's negamax value of the leaf for
its mover (``--depth`` plies of every action, then its capture search; depth 0 is the capture
search alone, what the heuristic scores at the end of its own lines). A value network trained
to predict that evaluation, however well, would at best give the search these values, so
what this search wins bounds what distilling the heuristic's evaluation into the network can
give at the same prior and simulations. The priors are ``--prior``'s (the shipped network's,
or uniform over the legal moves).

    python benchmarks/leaf_values.py --sims 256 --depth 0 --games 100
    python benchmarks/leaf_values.py --sims 32 --depth 2 --games 100 --seed 1000

Chess has no chance: the games differ by the heuristic's seeded tie-breaks and the search's
own generator. The search of 1,024 simulations over capture-search leaves plays 60 games in
about 55 minutes on one core (results: ``docs/results/az/``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

ENV_ID = "timelord_chess_v1"


class HeuristicLeaves:
    """A guided search evaluator (``reads_states``: it gets the leaves' states) whose priors
    are ``prior``'s and whose values are the chess heuristic's search values of the leaves."""

    reads_states = True

    def __init__(self, game, prior, depth: int, scale: float):
        heuristic = game.heuristic
        self.game = game
        self.prior = prior
        self.depth = int(depth)
        self.scale = float(scale)
        self.kernel = heuristic.search_values
        self.weights = heuristic.DEFAULT_WEIGHTS

    def __call__(self, obs: np.ndarray, masks: np.ndarray, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.prior is None:
            priors = masks.astype(np.float32)
            priors /= priors.sum(axis=1, keepdims=True)
        else:
            priors, _ = self.prior(obs, masks)
        points = np.zeros(len(states), dtype=np.float64)
        self.kernel(np.ascontiguousarray(states), self.game.tables, self.weights, self.depth, points)
        value = np.tanh(points / self.scale).astype(np.float32)
        return priors, np.stack([value, -value], axis=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prior", default="az:baseline", help="az:<checkpoint.zip>|az:baseline, or uniform (default az:baseline)")
    parser.add_argument("--sims", type=int, default=32, help="simulations a move (default 32)")
    parser.add_argument("--depth", type=int, default=0, help="heuristic plies at each leaf before its capture search (default 0)")
    parser.add_argument("--scale", type=float, default=400.0, help="points of the heuristic per unit of tanh (default 400)")
    parser.add_argument("--c-scale", type=float, default=1.0, help="Gumbel root's weight of the values (default 1.0; training's 0.1)")
    parser.add_argument("--opponent", default="heuristic", help="agent spec (default heuristic: alpha-beta)")
    parser.add_argument("--games", type=int, default=100, help="seat-swapped games (default 100)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.sims < 1:
        parser.error(f"--sims {args.sims}: at least 1")
    if not 0 <= args.depth <= 3:
        parser.error(f"--depth {args.depth}: 0 to 3 (the heuristic's search grows about 30-fold a ply)")
    if not args.scale > 0:
        parser.error(f"--scale {args.scale}: a positive number of points")
    if args.games <= 0 or args.games % 2:
        parser.error(f"--games {args.games}: a positive even number (seats are swapped)")

    import tardis_envs
    from agents import make_agent
    from agents.alphazero import AZAgent, GuidedAgent
    from agents.tournament import MatchInterrupted, format_table, play_match
    from tardis_envs.core.guided import G_C_SCALE

    game = tardis_envs.make(ENV_ID).unwrapped.game
    if args.prior == "uniform":
        prior, view = None, game
    else:
        if not args.prior.startswith("az:"):
            parser.error(f"--prior {args.prior!r}: az:<checkpoint.zip>, az:baseline or uniform")
        network = make_agent(args.prior, game, seed=args.seed)
        assert isinstance(network, AZAgent)
        prior, view = network.evaluate, network.search.game
    agent = GuidedAgent(game, HeuristicLeaves(game, prior, args.depth, args.scale), seed=args.seed, simulations=args.sims, search_game=view)
    agent.search.params[G_C_SCALE] = args.c_scale
    name = f"{args.prior} prior, heuristic depth {args.depth} leaves, sims={args.sims}"
    opponent = make_agent(args.opponent, game, seed=args.seed + 1)
    started = time.perf_counter()
    try:
        result = play_match(ENV_ID, [agent, opponent], [name, args.opponent], args.games, seed=args.seed)
    except MatchInterrupted as stop:  # Ctrl-C: the games finished so far, said to be partial
        result = stop.result
        print(f"interrupted: {result.num_games} of {args.games} games finished")
    print(format_table(result))
    print(f"leaf value tanh(points / {args.scale:g}), Gumbel root c_scale {args.c_scale:g}, {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
