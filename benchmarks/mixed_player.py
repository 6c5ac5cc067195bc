"""How close must a clone be? A player that makes a strong agent's move with probability
``--share`` and a weak agent's otherwise, against an opponent.

A network that imitates a teacher agrees with it on some share of the moves and errs on the
rest; this player stands in for such a clone before one is trained: the strong agent as the
teacher, the weak one as the kind of move a network plays where it does not agree (its share
of the moves drawn independently per move, so it bounds a clone whose errors fall where they
hurt least as well as where they hurt most). In Dr. Who Chess, for instance, what share of
``heuristic:depth3``'s moves a player needs to beat the alpha-beta ``heuristic``:

    python benchmarks/mixed_player.py timelord_chess_v1 heuristic:depth3 ppo:baseline heuristic --share 0.9 --games 60
"""

from __future__ import annotations

import argparse

import numpy as np

from agents.base import Agent


class MixedPlayer(Agent):
    """``strong``'s action with probability ``share`` (drawn per decision), else ``weak``'s."""

    name = "mixed"

    def __init__(self, game, strong: Agent, weak: Agent, share: float, seed: int | None = None):
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"share must be in [0, 1], got {share!r}")
        super().__init__(game, seed)
        self.strong, self.weak, self.share = strong, weak, share

    def act_batch(self, states: np.ndarray, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        strong = self.strong.act_batch(states, observations, masks)
        weak = self.weak.act_batch(states, observations, masks)
        return np.where(self.rng.random(len(strong)) < self.share, strong, weak)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_id")
    parser.add_argument("strong", help="the agent whose move is played with probability --share, e.g. heuristic:depth3")
    parser.add_argument("weak", help="the agent whose move is played otherwise, e.g. ppo:baseline")
    parser.add_argument("opponent", help="the agent they play against, e.g. heuristic")
    parser.add_argument("--share", type=float, required=True, help="probability of the strong agent's move, in [0, 1]")
    parser.add_argument("--games", type=int, default=100, help="seat-swapped games (default 100)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    import tardis_envs
    from agents import make_agent
    from agents.tournament import format_table, play_match

    game = tardis_envs.make(args.env_id).unwrapped.game
    if not 0.0 <= args.share <= 1.0:
        parser.error(f"--share {args.share}: a probability in [0, 1]")
    if args.games <= 0 or args.games % game.num_players:
        parser.error(f"--games {args.games}: a positive multiple of the {game.num_players} players")
    strong = make_agent(args.strong, game, seed=args.seed)
    weak = make_agent(args.weak, game, seed=args.seed + 1)
    mixed = MixedPlayer(game, strong, weak, args.share, seed=args.seed + 2)
    name = f"{args.strong} {args.share:g} / {args.weak}"
    opponent = make_agent(args.opponent, game, seed=args.seed + 3)
    result = play_match(args.env_id, [mixed, opponent], [name, args.opponent], args.games, seed=args.seed)
    print(format_table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
