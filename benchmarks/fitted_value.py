"""How much of a game's outcome a value network can learn from many games, and what the guided
search gains with it: a fresh network's value head fitted by regression to the outcomes of
``--decisions`` decisions of ``--teacher``'s games (whole games held out, as the ``az`` warm
start holds them), its R^2 on the held-out games after each epoch beside that of ``--network``'s
value head on the same positions, then the guided search with ``--network``'s priors and the
fitted value at its leaves against ``--opponent`` (``--sims``, one match each; none without).

The engine records a teacher's decisions far faster than self-play makes them (TARDIS Run's
heuristic: 4M in under half a minute on two cores), so the fit shows where the value stops improving
with data: in a game whose outcome the dice mostly decide, no network explains much of it.
Two-player zero-sum games; the fitted network has ``--network``'s shape, or is ``--hidden`` wide
and ``--layers`` deep (whether a larger network explains more). (``value_fit.py`` scores
a trained network's value on a teacher's games; this one fits a fresh value to them.)

    python benchmarks/fitted_value.py tardis_run_v0 --decisions 4000000 --sims 32 128 --games 2000
    python benchmarks/fitted_value.py tardis_run_v0 --decisions 4000000 --epochs 2 --hidden 1024 --layers 3

Results: ``docs/results/az/``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


class FittedValue:
    """A guided search evaluator: ``prior``'s priors, the fitted network's value for the mover
    (the other seat the opposite)."""

    def __init__(self, prior, value):
        self.prior = prior
        self.value = value

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        priors, _ = self.prior(obs, masks)
        _, values = self.value(obs, masks)
        return priors, np.stack([values[:, 0], -values[:, 0]], axis=1)


def recorded_games(env_id: str, game, teacher: str, decisions: int, seed: int):
    """``decisions`` of ``teacher``'s games (no random moves) and a split of them by whole games:
    ``(data, held, train)``, the same games for the same ``seed`` in every benchmark that fits them."""
    from agents import make_agent
    from agents.training.imitation import held_out_games, record_teacher

    data = record_teacher(env_id, make_agent(teacher, game, seed=seed + 11), decisions, seed=seed + 123, explore=0.0)
    held, train = held_out_games(data, seed=seed + 5)
    return data, held, train


def fit_value(net, data, train: np.ndarray, held: np.ndarray, epochs: int, batch: int, seed: int, say) -> list[float]:
    """``epochs`` passes of AdamW over the ``train`` decisions of ``data`` (those of finished
    games), the value head's squared error to the mover's outcome; the held-out R^2 after each."""
    import torch

    from agents.training.az_train import ValueFit

    optimizer = torch.optim.AdamW(net.parameters(), lr=1e-3)
    train = train[data.finished[train]]
    held = held[data.finished[held]]
    held_obs = torch.from_numpy(data.observations[held].astype(np.float32).reshape(held.size, -1))
    rng = np.random.default_rng(seed)
    scores = []
    for epoch in range(epochs):
        started = time.perf_counter()
        rng.shuffle(train)
        for start in range(0, train.size, batch):
            rows = train[start : start + batch]
            _, values = net(torch.from_numpy(data.observations[rows].astype(np.float32).reshape(len(rows), -1)))
            loss = ((values[:, 0] - torch.from_numpy(data.returns[rows])) ** 2).mean()
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        with torch.inference_mode():
            _, values = net(held_obs)
        scores.append(ValueFit.of(values[:, 0].numpy(), data.returns[held]))
        say(f"epoch {epoch + 1}: held-out value R^2 {scores[-1]:.4f} ({time.perf_counter() - started:.0f} s)")
    return scores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_id")
    parser.add_argument("--teacher", default="heuristic", help="agent spec whose games are fitted (default heuristic)")
    parser.add_argument("--decisions", type=int, default=4_000_000, help="decisions recorded (default 4,000,000)")
    parser.add_argument("--epochs", type=int, default=4, help="passes over them (default 4)")
    parser.add_argument("--batch", type=int, default=2048, help="minibatch (default 2,048)")
    parser.add_argument("--network", default="az:baseline", help="az spec: the value compared, the search's priors (default az:baseline)")
    parser.add_argument("--hidden", type=int, help="the fitted network's width (default --network's)")
    parser.add_argument("--layers", type=int, help="the fitted network's hidden layers (default --network's)")
    parser.add_argument("--sims", type=int, nargs="*", default=[], help="simulations a move of each match (default: no match)")
    parser.add_argument("--opponent", default="heuristic", help="agent spec of the matches (default heuristic)")
    parser.add_argument("--games", type=int, default=2000, help="seat-swapped games a match (default 2,000)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.decisions < 1000:
        parser.error(f"--decisions {args.decisions}: at least 1,000 (whole games are held out)")
    if args.epochs < 1 or args.batch < 1:
        parser.error(f"--epochs {args.epochs} --batch {args.batch}: each at least 1")
    if (args.hidden is not None and args.hidden < 1) or (args.layers is not None and args.layers < 1):
        parser.error(f"--hidden {args.hidden} --layers {args.layers}: each at least 1")
    if any(s < 1 for s in args.sims):
        parser.error(f"--sims {args.sims}: each at least 1")
    if args.games <= 0 or args.games % 2:
        parser.error(f"--games {args.games}: a positive even number (seats are swapped)")
    if not args.network.startswith("az:"):
        parser.error(f"--network {args.network!r}: az:<checkpoint.zip> or az:baseline")

    import torch

    import tardis_envs
    from agents import make_agent
    from agents.alphazero import AZAgent, GuidedAgent, NetEvaluator, build_net
    from agents.tournament import format_table, play_match
    from agents.training.az_train import ValueFit

    game = tardis_envs.make(args.env_id).unwrapped.game
    if game.num_players != 2 or game.spec.cooperative:
        parser.error(f"{args.env_id}: a two-player zero-sum game ({game.num_players} players here)")
    network = make_agent(args.network, game, seed=args.seed)
    assert isinstance(network, AZAgent)
    if network.view is not None:
        parser.error(
            f"--network {args.network!r} observes other options than the game's own: its value cannot read the recorded observations"
        )
    torch.manual_seed(args.seed)
    started = time.perf_counter()
    data, held, train = recorded_games(args.env_id, game, args.teacher, args.decisions, args.seed)
    done = held[data.finished[held]]
    print(
        f"{args.env_id}: {len(data):,} decisions of {args.teacher} ({data.games:,} games, {time.perf_counter() - started:.0f} s); "
        f"{done.size:,} decisions of {np.unique(data.game[held]).size:,} held-out games"
    )
    _, theirs = network.evaluate(data.observations[done].astype(np.float32), data.masks[done].astype(np.int8))
    print(f"{args.network}'s value on them: R^2 {ValueFit.of(theirs[:, 0], data.returns[done]):.4f}")
    shape = network.net.shape
    hidden, layers = args.hidden or shape["hidden"], args.layers or shape["layers"]
    print(f"the fitted network: {layers} x {hidden}")
    fitted = build_net(shape["obs_size"], shape["num_actions"], shape["num_players"], hidden, layers)
    fit_value(fitted, data, train, held, args.epochs, args.batch, args.seed, print)
    fitted.eval()
    value = NetEvaluator(fitted, seats=2, compiled=True)
    for sims in args.sims:
        agent = GuidedAgent(game, FittedValue(network.evaluate, value), seed=args.seed, simulations=sims)
        name = f"{args.network} priors, fitted value, sims={sims}"
        started = time.perf_counter()
        result = play_match(
            args.env_id, [agent, make_agent(args.opponent, game, seed=args.seed + 1)], [name, args.opponent], args.games, seed=args.seed
        )
        print(format_table(result))
        print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
