"""How far a better value could take the guided search: the search of an ``az`` agent whose
leaves are valued not by the network's value head but by what the game's heuristic judges a
position by, against that heuristic. A value network trained to predict that judgement, however
well, would at best give the search these values, so what the search wins with them bounds what
distilling the heuristic's judgement into the network can give at the same prior and simulations.
The priors are ``--prior``'s (the shipped network's, or uniform over the legal moves).

- Dr. Who Chess (``--env timelord_chess_v1``, the default): ``tanh(points / scale)`` of the
  alpha-beta heuristic's negamax value of the leaf for its mover (``--depth`` plies of every
  action, then its capture search; depth 0 is the capture search alone, what the heuristic scores
  at the ends of its own lines). Chess has no chance: the games differ by the heuristic's seeded
  tie-breaks and the search's own generator. The search of 1,024 simulations over capture-search
  leaves plays 60 games in about 55 minutes on one core.
- Keys to the TARDIS, 2 players (``--env keys_to_the_tardis_v0``): ``tanh(lead / scale)`` of the
  mover's route lead, the opponent's shortest route to its goal row less the mover's own, in the
  heuristic's steps (``route_leads`` of ``tardis_envs/games/keys/heuristic.py``: its route
  planner over the kinds public in the leaf, the mover's hand included for its own route). The
  search's leaves are determinized (ISMCTS), so a leaf's tiles and hands are one redeal of what
  the searcher cannot see; the Gumbel root weighs the values as ``az:baseline`` plays (``c_scale``
  0.1) unless ``--c-scale`` says otherwise.

``--mix`` blends the two, as AlphaGo blended its value network with its rollouts: a leaf's value is
that share of the heuristic's judgement and the rest the ``--prior`` network's value head.

    python benchmarks/leaf_values.py --sims 256 --depth 0 --games 100
    python benchmarks/leaf_values.py --sims 32 --depth 2 --games 100 --seed 1000
    python benchmarks/leaf_values.py --env keys_to_the_tardis_v0 --sims 128 --games 1000
    python benchmarks/leaf_values.py --env keys_to_the_tardis_v0 --sims 32 --mix 0.75 --games 1000

Results: ``docs/results/az/``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

ENVS = ("timelord_chess_v1", "keys_to_the_tardis_v0")
# per game: the leaf value's scale (points of the chess heuristic, steps of the Keys route
# planner, per unit of tanh) and the Gumbel root's weight of the values (chess: 1, as its
# results were measured, since training's 0.1 lets the prior outweigh a pawn; Keys: the 0.1
# az:baseline plays with, so that only the leaves differ from it)
DEFAULT_SCALE = {"timelord_chess_v1": 400.0, "keys_to_the_tardis_v0": 3.0}
DEFAULT_C_SCALE = {"timelord_chess_v1": 1.0, "keys_to_the_tardis_v0": 0.1}


class HeuristicLeaves:
    """A guided search evaluator (``reads_states``: it gets the leaves' states) whose priors
    are ``prior``'s (uniform over the legal actions for ``None``) and whose values are the chess
    heuristic's search values of the leaves for their movers, ``tanh(points / scale)``."""

    reads_states = True

    def __init__(self, game, prior, depth: int, scale: float, mix: float = 1.0):
        self.game = game
        self.prior = prior
        self.depth = int(depth)
        self.scale = float(scale)
        self.mix = float(mix)
        self.weights = game.heuristic.DEFAULT_WEIGHTS

    def points(self, states: np.ndarray) -> np.ndarray:
        """Each leaf's judgement for its mover, before the squashing."""
        out = np.zeros(len(states), dtype=np.float64)
        self.game.heuristic.search_values(states, self.game.tables, self.weights, self.depth, out)
        return out

    def __call__(self, obs: np.ndarray, masks: np.ndarray, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.prior is None:
            priors = masks.astype(np.float32)
            priors /= priors.sum(axis=1, keepdims=True)
            network_values = None
        else:
            priors, network_values = self.prior(obs, masks)
        value = np.tanh(self.points(np.ascontiguousarray(states)) / self.scale).astype(np.float32)
        values = np.stack([value, -value], axis=1)
        if self.mix < 1.0:  # AlphaGo's blend: the judgement's share, the value head's the rest
            values = self.mix * values + (1.0 - self.mix) * network_values
        return priors, values


class RouteLeaves(HeuristicLeaves):
    """The same evaluator for Keys to the TARDIS, 2 players: a leaf's value is the route
    planner's lead for its mover (``route_leads``), ``tanh(lead / scale)``."""

    def __init__(self, game, prior, scale: float, mix: float = 1.0):
        if game.num_players != 2:
            raise ValueError(f"route leaves value 2-player games, got {game.num_players} players")
        super().__init__(game, prior, 0, scale, mix)

    def points(self, states: np.ndarray) -> np.ndarray:
        out = np.zeros(len(states), dtype=np.float64)
        self.game.heuristic.route_leads(states, self.game.tables, self.weights, out)
        return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default=ENVS[0], choices=ENVS, help=f"the game (default {ENVS[0]})")
    parser.add_argument("--prior", default="az:baseline", help="az:<checkpoint.zip>|az:baseline, or uniform (default az:baseline)")
    parser.add_argument("--sims", type=int, default=32, help="simulations a move (default 32)")
    parser.add_argument("--depth", type=int, default=0, help="chess: heuristic plies at each leaf before its capture search (default 0)")
    parser.add_argument("--scale", type=float, help="the judgement per unit of tanh (default: chess 400 points, Keys 3 steps)")
    parser.add_argument("--c-scale", type=float, help="Gumbel root's weight of the values (default: chess 1, Keys 0.1 as az:baseline)")
    parser.add_argument(
        "--mix",
        type=float,
        default=1.0,
        help="the judgement's share of a leaf's value, the network's value head the rest (default 1: the judgement alone)",
    )
    parser.add_argument("--opponent", default="heuristic", help="agent spec (default heuristic: alpha-beta)")
    parser.add_argument("--games", type=int, default=100, help="seat-swapped games (default 100)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.sims < 1:
        parser.error(f"--sims {args.sims}: at least 1")
    chess = args.env == "timelord_chess_v1"
    if not 0 <= args.depth <= 3:
        parser.error(f"--depth {args.depth}: 0 to 3 (the heuristic's search grows about 30-fold a ply)")
    if args.depth and not chess:
        parser.error(f"--depth {args.depth}: only Dr. Who Chess's leaves are searched; Keys' are its route planner's")
    scale = DEFAULT_SCALE[args.env] if args.scale is None else args.scale
    c_scale = DEFAULT_C_SCALE[args.env] if args.c_scale is None else args.c_scale
    if not scale > 0:
        parser.error(f"--scale {args.scale}: a positive number")
    if not c_scale > 0:
        parser.error(f"--c-scale {args.c_scale}: a positive number")
    if not 0.0 <= args.mix <= 1.0:
        parser.error(f"--mix {args.mix}: a share from 0 to 1")
    if args.mix < 1.0 and args.prior == "uniform":
        parser.error(f"--mix {args.mix}: needs an az network's value head (--prior az:...)")
    if args.games <= 0 or args.games % 2:
        parser.error(f"--games {args.games}: a positive even number (seats are swapped)")

    import tardis_envs
    from agents import make_agent
    from agents.alphazero import AZAgent, GuidedAgent
    from agents.tournament import MatchInterrupted, format_table, play_match
    from tardis_envs.core.guided import G_C_SCALE

    game = tardis_envs.make(args.env).unwrapped.game
    if args.prior == "uniform":
        prior, view = None, game
    else:
        if not args.prior.startswith("az:"):
            parser.error(f"--prior {args.prior!r}: az:<checkpoint.zip>, az:baseline or uniform")
        network = make_agent(args.prior, game, seed=args.seed)
        assert isinstance(network, AZAgent)
        prior, view = network.evaluate, network.search.game
    leaves = HeuristicLeaves(game, prior, args.depth, scale, args.mix) if chess else RouteLeaves(game, prior, scale, args.mix)
    agent = GuidedAgent(game, leaves, seed=args.seed, simulations=args.sims, search_game=view)
    agent.search.params[G_C_SCALE] = c_scale
    judged = f"heuristic depth {args.depth}" if chess else "route lead"
    blend = "" if args.mix == 1.0 else f" x {args.mix:g} + value head x {1 - args.mix:g}"
    name = f"{args.prior} prior, {judged}{blend} leaves, sims={args.sims}"
    opponent = make_agent(args.opponent, game, seed=args.seed + 1)
    started = time.perf_counter()
    try:
        result = play_match(args.env, [agent, opponent], [name, args.opponent], args.games, seed=args.seed)
    except MatchInterrupted as stop:  # Ctrl-C: the games finished so far, said to be partial
        result = stop.result
        print(f"interrupted: {result.num_games} of {args.games} games finished")
    print(format_table(result))
    unit = "points" if chess else "lead"
    print(f"leaf value tanh({unit} / {scale:g}), Gumbel root c_scale {c_scale:g}, {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
