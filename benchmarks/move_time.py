"""Milliseconds a move of one agent on one thread (torch and numba), one decision at a time
(a batch of one, as in ``play`` or the OpenSpiel bot), from positions with a choice reached
by random play. The issue's budget for search agents is 50 ms a move on one thread.

    python benchmarks/move_time.py gallifrey_duel_v1 az:baseline
    python benchmarks/move_time.py tardis_run_v0 az:baseline:sims=128 --positions 400
    python benchmarks/move_time.py keys_to_the_tardis_v0 az:baseline:sims=128 --num-players 3
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # read when numba is first imported, below


def positions(game, count: int, seed: int = 0) -> list:
    """``count`` states with more than one legal action, from random playouts."""
    import numpy as np

    from tardis_envs.core.state import STATUS

    rng = np.random.default_rng(seed)
    found = []
    key = 0
    while len(found) < count:
        state = game.new_state(key)
        key += 1
        for _ in range(int(rng.integers(0, 30))):
            if state[STATUS]:
                break
            legal = game.legal_actions(state)
            if len(legal) > 1 and rng.random() < 0.3:
                found.append(state.copy())
            game.kernels.step(state, game.tables, int(rng.choice(legal)))
    return found[:count]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_id")
    parser.add_argument("agent", help="an agent spec, e.g. az:baseline:sims=64")
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--num-players", type=int, help="players, in games that seat 2-4 (default: the game's own)")
    args = parser.parse_args(argv)

    import numpy as np
    import torch

    import tardis_envs
    from agents import make_agent
    from tardis_envs.core.state import CURRENT_PLAYER

    torch.set_num_threads(1)
    options = {} if args.num_players is None else {"num_players": args.num_players}
    try:
        game = tardis_envs.make(args.env_id, **options).unwrapped.game
        agent = make_agent(args.agent, game, seed=0)
    except ValueError as error:  # an unknown game, option or agent spec
        parser.error(str(error))

    def decide(state) -> None:
        masks = np.zeros((1, game.num_actions), np.int8)
        masks[0, game.legal_actions(state)] = 1
        agent.act_batch(state[None], game.observation(state, int(state[CURRENT_PLAYER]))[None], masks)

    states = positions(game, args.positions)
    decide(states[0])  # compiled and loaded before timing
    started = time.perf_counter()
    for state in states:
        decide(state)
    ms = 1000 * (time.perf_counter() - started) / len(states)
    players = "" if args.num_players is None else f", {args.num_players} players"
    print(f"{args.env_id}{players} {args.agent}: {ms:.1f} ms a move (1 thread, {len(states)} positions)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
