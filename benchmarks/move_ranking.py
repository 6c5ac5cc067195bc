"""Whether anything ranks an ``az`` network's moves better than its one ply of exact expectation:
three probes of a perfect-information game for two players with enumerated chance (TARDIS Run).

- ``prior``: at each decision the action of the largest ``log prior + scale * Q``, the network's
  policy and the one ply's expected values ``Q`` weighed together (the action Gumbel
  AlphaZero's root takes from its improved policy, here with exact ``Q``), for each of
  ``--scales``: 0 plays the network alone, ``inf`` the one ply. One match against ``--opponent``
  per scale, on the same games.
- ``terms``: how much of the outcome the heuristic's own evaluation terms explain beyond the
  network's value (TARDIS Run's heuristic scores progress and escapes, then weighs escape bonuses,
  the black paddle, stacks and pieces an opponent can hit, ``tardis_envs/games/tardis_run/heuristic.py``):
  the held-out R^2 of the value alone and with the terms fitted on top by least squares, over the
  positions of ``--games`` games of the network's one ply against the heuristic (every tenth game
  held out).
- ``rollouts``: each legal action of ``--positions`` positions (from the one ply's games against
  ``--opponent``) valued by ``--rollouts`` playouts to the end, the mover's seat played by
  ``--rollout`` and the other by ``--opponent``, every action's k-th playout on the same dice
  (the k-th of a set of generator keys: common random numbers). Each chooser's move (the one ply,
  the network alone, the heuristic) is scored against the playouts' best: chosen on one half of
  the playouts and scored on the other, both ways, so that the noise of the playouts does not
  count as a gain.

    python benchmarks/move_ranking.py prior tardis_run_v0 --scales 0 200 400 inf --games 8000 --seed 30000
    python benchmarks/move_ranking.py terms tardis_run_v0 --games 6000
    python benchmarks/move_ranking.py rollouts tardis_run_v0 --positions 200 --rollouts 1000 --seed 7

Results: ``docs/results/az/``.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from agents.base import Agent


class PriorWeighted(Agent):
    """Plays the legal action of the largest ``log prior + scale * Q``: ``network``'s priors
    (an ``az`` agent of the expectation search) and its one ply's values ``Q`` for the mover;
    ``scale`` 0 is the network alone, ``inf`` the one ply."""

    needs_observations = False

    def __init__(self, game, network, scale: float):
        if network.expectation is None:
            raise ValueError("the prior probe needs an az agent of the expectation search (search=expectation)")
        if not scale >= 0:
            raise ValueError(f"scale must be >= 0 (inf: the one ply alone), got {scale!r}")
        super().__init__(game)
        self.network = network
        self.scale = scale
        self.name = f"log prior + {scale:g} Q"

    def act_batch(self, states: np.ndarray, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(masks)
        actions = np.argmax(masks, axis=1).astype(np.int64)  # the only legal action where there is one
        busy = masks.sum(axis=1) > 1
        if busy.any():
            actions[busy] = self.choose(np.asarray(states)[busy])
        return actions

    def choose(self, states: np.ndarray) -> np.ndarray:
        network = self.network
        q = network.expectation.action_values(states, network.evaluate)
        if math.isinf(self.scale):
            return np.argmax(q, axis=1)
        legal = q > -np.inf
        priors, _ = network.evaluate(mover_observations(network.view or self.game, states), legal.astype(np.int8))
        with np.errstate(divide="ignore"):
            score = np.log(priors) + self.scale * np.where(legal, q, 0.0)
        return np.argmax(np.where(legal, score, -np.inf), axis=1)


def play_to_the_end(vec, start, seats: np.ndarray, player: Agent, opponent: Agent, kept: list | None = None) -> np.ndarray:
    """Steps every game of ``vec`` from ``start`` (``(obs, masks, movers)``, as ``reset`` or
    ``set_states`` give them) until each has ended once, ``player`` moving in seat ``seats[i]``
    of game i and ``opponent`` in the others; returns the rewards each game ended with
    (``float64[n, players]``). With ``kept``, appends ``(states, rows)`` of the games still
    running before each step."""
    obs, masks, movers = start
    n = len(seats)
    running = np.ones(n, dtype=bool)
    outcome = np.zeros((n, vec.num_players))
    while running.any():
        rows = np.flatnonzero(running)
        if kept is not None:
            kept.append((vec.states[rows].copy(), rows))
        actions = np.argmax(masks, axis=1).astype(np.int64)  # finished games restart: any legal move, not counted
        for agent, side in ((player, movers == seats), (opponent, movers != seats)):
            at = np.flatnonzero(side & running)
            if at.size:
                actions[at] = agent.act_batch(vec.states[at], obs[at], masks[at])
        obs, masks, movers, rewards, terminated, truncated = vec.step(actions)
        ended = running & (terminated | truncated)
        outcome[ended] = rewards[ended]
        running &= ~ended
    return outcome


def mover_observations(game, states: np.ndarray) -> np.ndarray:
    """``float32[n, obs_size]``: each state as its mover observes it in ``game``."""
    from tardis_envs.core.state import CURRENT_PLAYER

    return np.stack([game.observation(state, int(state[CURRENT_PLAYER])) for state in states]).reshape(len(states), -1).astype(np.float32)


def played_positions(env_id: str, player: Agent, opponent: Agent, games: int, seed: int):
    """Every running position of ``games`` seat-swapped games of ``player`` against
    ``opponent``: ``(states, game index, outcome for the position's mover, the player's seat)``."""
    from tardis_envs import vector
    from tardis_envs.core.state import CURRENT_PLAYER

    vec = vector.make(env_id, games, seed=seed, observations=player.needs_observations or opponent.needs_observations)
    seats = np.arange(games) % 2
    kept: list[tuple[np.ndarray, np.ndarray]] = []
    outcome = play_to_the_end(vec, vec.reset(), seats, player, opponent, kept)
    states = np.concatenate([s for s, _ in kept])
    index = np.concatenate([rows for _, rows in kept])
    return states, index, outcome[index, states[:, CURRENT_PLAYER]], seats[index]


def heuristic_terms(game, states: np.ndarray) -> np.ndarray:
    """``float64[n, 1 + w]``: TARDIS Run's heuristic evaluation of each state for its mover,
    split into its unweighted part (progress and escapes) and each weighted term at its default
    weight (the evaluation is linear in its weights, so the parts sum to it)."""
    from tardis_envs.core.state import CURRENT_PLAYER

    heuristic = game.heuristic
    weights = heuristic.DEFAULT_WEIGHTS
    out = np.zeros((len(states), 1 + len(weights)))
    for i, state in enumerate(states):
        seat = int(state[CURRENT_PLAYER])
        base = heuristic.evaluate(state, game.tables, seat, np.zeros_like(weights))
        out[i, 0] = base
        for j in range(len(weights)):
            alone = np.zeros_like(weights)
            alone[j] = weights[j]
            out[i, 1 + j] = heuristic.evaluate(state, game.tables, seat, alone) - base
    return out


def r_squared(predicted: np.ndarray, outcome: np.ndarray) -> float:
    return float(1.0 - np.mean((outcome - predicted) ** 2) / np.var(outcome))


def playout_starts(game, positions: np.ndarray, keys: np.ndarray):
    """Each legal action of each position played on a copy of it whose generator key is
    ``keys[k]``, for every ``k``: ``(values, children, owners)``, ``values[(position, action)]``
    a ``float64[len(keys)]`` holding the results of the copies that the action ended (for the
    position's mover), ``children`` the copies still running and ``owners`` their
    ``(position, action, k)``. The k-th copies of a position's actions share their dice."""
    from tardis_envs.core.state import CURRENT_PLAYER, REWARDS, RNG_KEY, RUNNING, STATUS

    values: dict[tuple[int, int], np.ndarray] = {}
    children, owners = [], []
    for i, state in enumerate(positions):
        mover = int(state[CURRENT_PLAYER])
        for action in game.legal_actions(state):
            values[(i, int(action))] = np.zeros(len(keys))
            for k, key in enumerate(keys):
                child = state.copy()
                child[RNG_KEY] = key
                game.kernels.step(child, game.tables, int(action))
                if child[STATUS] == RUNNING:
                    children.append(child)
                    owners.append((i, int(action), k))
                else:
                    values[(i, int(action))][k] = child[REWARDS + mover]
    return values, children, owners


def playout_values(env_id: str, game, positions: np.ndarray, rollout: Agent, opponent: Agent, rollouts: int, seed: int):
    """``{(position, action): float64[rollouts]}``: each legal action's playouts' outcomes for
    the position's mover, the mover's seat played by ``rollout`` and the other by ``opponent``,
    the k-th playout of every action of a position on the k-th generator key
    (:func:`playout_starts`)."""
    from tardis_envs import vector
    from tardis_envs.core.state import CURRENT_PLAYER

    keys = np.random.default_rng(seed).integers(1, 2**62, rollouts)
    values, children, owners = playout_starts(game, positions, keys)
    observe = rollout.needs_observations or opponent.needs_observations
    chunk = 20_000
    for start in range(0, len(children), chunk):
        batch = np.stack(children[start : start + chunk])
        n = len(batch)
        vec = vector.make(env_id, n, seed=seed, observations=observe)
        vec.reset()
        seats = positions[[owners[start + r][0] for r in range(n)], CURRENT_PLAYER]
        outcome = play_to_the_end(vec, vec.set_states(batch), seats, rollout, opponent)[np.arange(n), seats]
        for r in range(n):
            i, action, k = owners[start + r]
            values[(i, action)][k] = outcome[r]
    return values


def held_out_gain(outcomes: np.ndarray, chosen: int) -> float:
    """What the playouts' best action is worth above ``chosen`` (rows of ``outcomes``: actions,
    columns: playouts): the best by one half of the playouts scored on the other, both ways."""
    half = outcomes.shape[1] // 2
    first, second = outcomes[:, :half], outcomes[:, half : 2 * half]
    by_first, by_second = int(np.argmax(first.mean(axis=1))), int(np.argmax(second.mean(axis=1)))
    return 0.5 * (second[by_first].mean() - second[chosen].mean() + first[by_second].mean() - first[chosen].mean())


def interval(values: list[float]) -> str:
    a = np.asarray(values)
    return f"{a.mean():+.4f} +- {1.96 * a.std(ddof=1) / np.sqrt(a.size):.4f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("probe", choices=("prior", "terms", "rollouts"))
    parser.add_argument("env_id")
    parser.add_argument("--network", default="az:baseline", help="az spec of the expectation search (default az:baseline)")
    parser.add_argument("--opponent", default="heuristic", help="agent spec (default heuristic)")
    parser.add_argument("--scales", type=float, nargs="+", default=[0.0, 200.0, 400.0, math.inf], help="prior: scales of Q")
    parser.add_argument("--games", type=int, default=2000, help="prior, terms: seat-swapped games (default 2,000)")
    parser.add_argument("--positions", type=int, default=200, help="rollouts: positions (default 200)")
    parser.add_argument("--rollouts", type=int, default=1000, help="rollouts: playouts an action (default 1,000)")
    parser.add_argument("--rollout", default="az:baseline:net", help="rollouts: the mover's seat in the playouts")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.games <= 0 or args.games % 2:
        parser.error(f"--games {args.games}: a positive even number (seats are swapped)")
    if args.positions < 1 or args.rollouts < 2:
        parser.error(f"--positions {args.positions} --rollouts {args.rollouts}: at least 1 position and 2 playouts")
    if any(not s >= 0 for s in args.scales):
        parser.error(f"--scales {args.scales}: each >= 0 (inf: the one ply alone)")

    import tardis_envs
    from agents import make_agent
    from agents.alphazero import AZAgent
    from agents.tournament import format_table, play_match
    from tardis_envs.core.state import CURRENT_PLAYER

    game = tardis_envs.make(args.env_id).unwrapped.game
    if game.num_players != 2 or game.spec.cooperative or game.spec.hidden_information or game.kernels.afterstates is None:
        parser.error(f"{args.env_id}: a two-player game of perfect information whose kernels enumerate its chance (TARDIS Run)")
    if args.probe == "terms" and args.env_id != "tardis_run_v0":
        parser.error(f"terms: TARDIS Run's heuristic evaluation terms; {args.env_id} has none")
    network = make_agent(args.network, game, seed=args.seed)
    if not isinstance(network, AZAgent) or network.expectation is None:
        parser.error(f"--network {args.network!r}: an az agent of the expectation search (add :search=expectation)")
    opponent = make_agent(args.opponent, game, seed=args.seed + 1)
    started = time.perf_counter()

    if args.probe == "prior":
        for scale in args.scales:
            agent = PriorWeighted(game, network, scale)
            result = play_match(args.env_id, [agent, opponent], [agent.name, args.opponent], args.games, seed=args.seed)
            print(format_table(result))
            print(f"({time.perf_counter() - started:.0f} s)\n")
        return 0

    if args.probe == "terms":
        states, index, outcome, _ = played_positions(args.env_id, network, opponent, args.games, args.seed)
        _, values = network.evaluate(mover_observations(game, states), np.ones((len(states), game.num_actions), dtype=np.int8))
        value = values[:, 0].astype(np.float64)
        terms = np.concatenate([heuristic_terms(game, states), np.ones((len(states), 1))], axis=1)
        held = index % 10 == 0
        on_top, *_ = np.linalg.lstsq(terms[~held], (outcome - value)[~held], rcond=None)
        both = np.concatenate([terms, value[:, None]], axis=1)
        jointly, *_ = np.linalg.lstsq(both[~held], outcome[~held], rcond=None)
        alone, *_ = np.linalg.lstsq(terms[~held], outcome[~held], rcond=None)
        print(
            f"{args.env_id}: {len(states):,} positions of {args.games:,} games of {args.network} against {args.opponent} "
            f"({held.sum():,} of the held-out tenth; {time.perf_counter() - started:.0f} s)"
        )
        print(f"held-out R^2: the value {r_squared(value[held], outcome[held]):.4f}")
        print(
            f"  the value + the heuristic's terms fitted to what it misses {r_squared((value + terms @ on_top)[held], outcome[held]):.4f}"
        )
        print(f"  the value and the terms fitted together {r_squared((both @ jointly)[held], outcome[held]):.4f}")
        print(f"  the terms alone {r_squared((terms @ alone)[held], outcome[held]):.4f}")
        return 0

    rng = np.random.default_rng(args.seed)
    states, _, _, seats = played_positions(args.env_id, network, opponent, max(64, args.positions // 4) * 2, args.seed)
    legal = np.array([len(game.legal_actions(s)) for s in states])
    theirs = (states[:, CURRENT_PLAYER] == seats) & (legal > 1)
    positions = states[rng.choice(np.flatnonzero(theirs), args.positions, replace=False)]
    values = playout_values(
        args.env_id, game, positions, make_agent(args.rollout, game, seed=args.seed + 2), opponent, args.rollouts, args.seed
    )
    masks = np.zeros((len(positions), game.num_actions), dtype=np.int8)
    for i, state in enumerate(positions):
        masks[i, game.legal_actions(state)] = 1
    obs = mover_observations(game, positions)
    choosers = {
        args.network: network.act_batch(positions, obs, masks),
        f"{args.network}:net": make_agent(f"{args.network}:net", game).act_batch(positions, obs, masks),
        args.opponent: make_agent(args.opponent, game, seed=args.seed + 3).act_batch(positions, obs, masks),
    }
    print(
        f"{args.env_id}: {len(positions)} positions of {args.network}, {args.rollouts:,} playouts an action "
        f"({args.rollout} for the mover, {args.opponent} for the other; {time.perf_counter() - started:.0f} s)"
    )
    for name, chosen in choosers.items():
        agree, gains = 0, []
        for i, state in enumerate(positions):
            actions = list(game.legal_actions(state))
            outcomes = np.stack([values[(i, a)] for a in actions])
            pick = actions.index(int(chosen[i]))
            agree += pick == int(np.argmax(outcomes.mean(axis=1)))
            gains.append(held_out_gain(outcomes, pick))
        print(
            f"{name}: the playouts' best move {agree / len(positions):.1%} of the time; held-out gain of the playouts' choice a decision {interval(gains)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
