"""Whether a value ranks moves: one ply of exact expectation over chance, against a heuristic.

The agent plays, at each decision with a choice, the action of the highest expected value for
its mover: every outcome of the action's chance with its exact probability (``Position.chance_leaves``:
TARDIS Run's paddles), the mover's own next decision at an outcome (TARDIS Run's extra move)
taken at the best of its options, each position reached valued by ``--value`` for the mover (a
finished game by its reward). There is no sampling and no tree: what the agent wins is what the
value's differences between moves are worth, where the guided search mixes them with the
network's priors and with the noise of sampled dice.

``--value`` is an ``az`` network's value head (``az:baseline``, ``az:<checkpoint.zip>``) or
``fitted``: a fresh network of the shipped network's shape, its value head fitted by regression
to the outcomes of ``--decisions`` decisions of ``--teacher``'s games in ``--epochs`` passes
(``fitted_value.py``'s fit, whole games held out, its R^2 printed).

Perfect-information games for two players (the leaves are the true states, which a game with
hidden information would leak): TARDIS Run, Dr. Who Chess. It enumerates chance through the
chance tape (``Position``), for any game and slowly; the compiled one ply the ``az`` agents
train and play with (``tardis_envs/core/expectation.py``, on a game's ``afterstates`` kernel)
is tested against it.

    python benchmarks/one_ply.py tardis_run_v0 --value az:baseline --games 1000 --seed 0
    python benchmarks/one_ply.py tardis_run_v0 --value fitted --decisions 4000000 --games 1000 --seed 1000

Results: ``docs/results/az/``.
"""

from __future__ import annotations

import argparse
import runpy
import time
from pathlib import Path

import numpy as np

from agents.base import Agent


class OnePly(Agent):
    """An agent choosing by one ply of exact expectation: ``value(observations, masks, states)
    -> values[n, 2]`` of the positions reached (each observed by its mover), columns counted from
    each position's mover as the guided search's evaluators give them."""

    needs_observations = False
    name = "one-ply"

    def __init__(self, game, value):
        super().__init__(game)
        self.value = value

    def action_values(self, state: np.ndarray) -> dict[int, float]:
        """Each legal action's expected value for the mover of ``state``."""
        return {action: value for (_, action), value in self._expectations([state]).items()}

    def act_batch(self, states: np.ndarray, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(masks)
        actions = np.argmax(masks, axis=1).astype(np.int64)  # the only legal action where there is one
        busy = [i for i in range(len(states)) if masks[i].sum() > 1]
        expectations = self._expectations([states[i] for i in busy])
        best: dict[int, tuple[float, int]] = {}
        for (k, action), value in expectations.items():
            if k not in best or value > best[k][0]:
                best[k] = (value, action)
        for k, (_, action) in best.items():
            actions[busy[k]] = action
        return actions

    def _expectations(self, states: list[np.ndarray]) -> dict[tuple[int, int], float]:
        """``{(k, action): expected value}`` for each state ``k`` and legal action: the positions
        reached are valued in one batched call, a follow-up decision of the same mover at its
        best option."""
        from tardis_envs.core.chance import Position
        from tardis_envs.core.state import CURRENT_PLAYER, REWARDS, RUNNING, STATUS

        game = self.game
        # (k, action, follow-up key or None, follow-up action, probability, state reached)
        reached: list[tuple[int, int, int | None, int, float, np.ndarray]] = []
        follow_ups = 0
        for k, state in enumerate(states):
            mover = int(state[CURRENT_PLAYER])
            for action in game.legal_actions(state):
                for p, leaf in Position(game, state).child(int(action)).chance_leaves():
                    after = leaf.state
                    if int(after[STATUS]) == RUNNING and int(after[CURRENT_PLAYER]) == mover:
                        for then in game.legal_actions(after):
                            for q, leaf2 in Position(game, after).child(int(then)).chance_leaves():
                                reached.append((k, int(action), follow_ups, int(then), float(p * q), leaf2.state))
                        follow_ups += 1
                    else:
                        reached.append((k, int(action), None, -1, float(p), after))
        values = np.zeros(len(reached))
        running = [r for r, row in enumerate(reached) if int(row[5][STATUS]) == RUNNING]
        for r, row in enumerate(reached):
            if int(row[5][STATUS]) != RUNNING:
                values[r] = row[5][REWARDS + int(states[row[0]][CURRENT_PLAYER])]
        if running:
            leaves = [reached[r][5] for r in running]
            movers = np.array([int(s[CURRENT_PLAYER]) for s in leaves])
            obs = np.stack([game.observation(s, int(m)) for s, m in zip(leaves, movers)]).astype(np.float32)
            masks = np.zeros((len(leaves), game.num_actions), dtype=np.int8)
            for i, s in enumerate(leaves):
                masks[i, game.legal_actions(s)] = 1
            out = self.value(obs, masks, np.stack(leaves))
            for i, r in enumerate(running):
                seat = int(states[reached[r][0]][CURRENT_PLAYER])
                values[r] = out[i, (seat - movers[i]) % 2]  # the column of the deciding seat
        expectation: dict[tuple[int, int], float] = {}
        options: dict[tuple[int, int, int], dict[int, float]] = {}
        for (k, action, follow_up, then, p, _), value in zip(reached, values):
            if follow_up is None:
                expectation[(k, action)] = expectation.get((k, action), 0.0) + p * value
            else:
                key = (k, action, follow_up)
                taken = options.setdefault(key, {})
                taken[then] = taken.get(then, 0.0) + p * value
        for (k, action, _), taken in options.items():
            expectation[(k, action)] = expectation.get((k, action), 0.0) + max(taken.values())
        return expectation


def network_value(evaluate, mover_only: bool = False):
    """A value for :class:`OnePly` from an evaluator giving ``(priors, values)``; with
    ``mover_only`` the mover's column alone is read and the other seat's is its opposite (a
    fitted value head learns the mover's outcome only)."""

    def value(obs: np.ndarray, masks: np.ndarray, states: np.ndarray) -> np.ndarray:
        values = np.asarray(evaluate(obs, masks)[1])
        return np.stack([values[:, 0], -values[:, 0]], axis=1) if mover_only else values

    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_id")
    parser.add_argument("--value", default="az:baseline", help="az:<checkpoint.zip>, az:baseline or fitted (default az:baseline)")
    parser.add_argument("--teacher", default="heuristic", help="fitted: agent spec whose games are fitted (default heuristic)")
    parser.add_argument("--decisions", type=int, default=4_000_000, help="fitted: decisions recorded (default 4,000,000)")
    parser.add_argument("--epochs", type=int, default=1, help="fitted: passes over them (default 1)")
    parser.add_argument("--opponent", default="heuristic", help="agent spec (default heuristic)")
    parser.add_argument("--games", type=int, default=1000, help="seat-swapped games (default 1,000)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.games <= 0 or args.games % 2:
        parser.error(f"--games {args.games}: a positive even number (seats are swapped)")
    if args.value != "fitted" and not args.value.startswith("az:"):
        parser.error(f"--value {args.value!r}: az:<checkpoint.zip>, az:baseline or fitted")
    if args.decisions < 1000 or args.epochs < 1:
        parser.error(f"--decisions {args.decisions} --epochs {args.epochs}: at least 1,000 decisions and 1 epoch")

    import tardis_envs
    from agents import make_agent
    from agents.alphazero import AZAgent, NetEvaluator, build_net
    from agents.tournament import format_table, play_match

    game = tardis_envs.make(args.env_id).unwrapped.game
    if game.num_players != 2 or game.spec.cooperative or game.spec.hidden_information:
        parser.error(f"{args.env_id}: a two-player zero-sum game of perfect information (its leaves are the true states)")
    network = make_agent("az:baseline" if args.value == "fitted" else args.value, game, seed=args.seed)
    if not isinstance(network, AZAgent) or network.view is not None:
        parser.error(f"--value {args.value!r}: an az network that observes this game's own options")
    started = time.perf_counter()
    if args.value == "fitted":
        import torch

        fitting = runpy.run_path(str(Path(__file__).with_name("fitted_value.py")))
        torch.manual_seed(args.seed)
        data, held, train = fitting["recorded_games"](args.env_id, game, args.teacher, args.decisions, args.seed)
        print(f"{args.env_id}: {len(data):,} decisions of {args.teacher} ({data.games:,} games, {time.perf_counter() - started:.0f} s)")
        shape = network.net.shape
        fitted = build_net(shape["obs_size"], shape["num_actions"], shape["num_players"], shape["hidden"], shape["layers"])
        fitting["fit_value"](fitted, data, train, held, args.epochs, 2048, args.seed, print)
        fitted.eval()
        del data
        value = network_value(NetEvaluator(fitted, seats=2, compiled=True), mover_only=True)
        name = f"one ply, value fitted to {args.decisions:,} decisions of {args.teacher}"
    else:
        value = network_value(network.evaluate)
        name = f"one ply, {args.value}'s value"
    agent = OnePly(game, value)
    opponent = make_agent(args.opponent, game, seed=args.seed + 1)
    started = time.perf_counter()
    result = play_match(args.env_id, [agent, opponent], [name, args.opponent], args.games, seed=args.seed, batch=200)
    print(format_table(result))
    print(f"{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
