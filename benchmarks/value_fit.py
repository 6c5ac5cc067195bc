"""How much of a game's outcome an ``az`` network's value head predicts on games it never
saw: a teacher plays every seat of ``--decisions`` decisions (``agents.training.imitation``),
and the network's value for each finished decision's mover is scored against that mover's
final reward (R^2: 1 is perfect, 0 knows no more than the average outcome, below 0 is
confidently wrong), with how the outcomes fall in bands of the predicted value.

    python benchmarks/value_fit.py keys_to_the_tardis_v0 baseline --teacher ppo:baseline
    python benchmarks/value_fit.py gallifrey_duel_v1 runs/az/checkpoints/best.zip --decisions 40000
"""

from __future__ import annotations

import argparse

import numpy as np


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_id")
    parser.add_argument("checkpoint", help="an az checkpoint file, or baseline for the game's shipped az:baseline")
    parser.add_argument("--teacher", default="ppo:baseline", help="the agent spec that plays the games (default ppo:baseline)")
    parser.add_argument("--decisions", type=int, default=60_000)
    parser.add_argument("--num-envs", type=int, default=256, help="games played at once")
    parser.add_argument("--seed", type=int, default=987_654)
    args = parser.parse_args(argv)

    import torch

    from agents import make_agent
    from agents.alphazero import checkpoint_file, load_checkpoint
    from agents.training.az_train import ValueFit
    from agents.training.imitation import record_teacher
    from tardis_envs import env_module

    torch.set_num_threads(1)
    game = env_module(args.env_id).Game()
    net, _ = load_checkpoint(checkpoint_file(args.checkpoint, game), game)
    teacher = make_agent(args.teacher, game, seed=5)
    data = record_teacher(args.env_id, teacher, args.decisions, seed=args.seed, num_envs=args.num_envs, explore=0.0)
    done = data.finished
    if not done.any():
        parser.error(f"no game ended within {args.decisions:,} decisions of {args.num_envs} games; give more --decisions")
    with torch.inference_mode():
        _, values = net(torch.from_numpy(data.observations[done].astype(np.float32).reshape(int(done.sum()), -1)))
    predicted, outcome = values[:, 0].numpy(), data.returns[done]
    print(f"{args.env_id}: {args.checkpoint}'s value on {data.games} games of {args.teacher} ({int(done.sum()):,} decisions)")
    print(f"R^2 {ValueFit.of(predicted, outcome):.3f}, correlation {np.corrcoef(predicted, outcome)[0, 1]:.3f}")
    print(f"mean outcome {outcome.mean():+.3f}, mean value {predicted.mean():+.3f}, draws {(outcome == 0).mean():.1%}")
    for low in (-1.0, -0.5, 0.0, 0.5):
        band = (predicted >= low) & (predicted < low + 0.5 + (low == 0.5))
        if band.any():
            print(f"value in [{low:+.1f}, {low + 0.5:+.1f}): {band.mean():5.1%} of decisions, mean outcome {outcome[band].mean():+.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
