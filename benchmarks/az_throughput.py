"""Throughput of AlphaZero-style training's parts, per game, on this machine.

For each game: self-play decisions/s (guided search over ``--games`` games at once with
``--sims`` simulations, an untrained network of the training default shape), network
evaluations/s inside that search and the share of its time in the network, learner
samples/s (forward, backward and AdamW step on minibatches of ``--batch``), and the
network's achieved FLOP/s in inference (batch of ``--games``) and training, in fp32 and
bf16, as a share of the fp32 matrix-multiply peak of this machine measured in the same run
(``torch.mm`` of two 2048 x 2048 matrices, same thread count; the bf16 peak is printed
beside it: where bf16 multiplies slower than fp32, fp32 is the peak to compare with).

    python benchmarks/az_throughput.py                       # every game
    python benchmarks/az_throughput.py --env tardis_run_v0 --seconds 5
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

import tardis_envs
from agents.alphazero import NetEvaluator, build_net
from tardis_envs import vector
from tardis_envs.core.guided import GuidedSearch


def timed(fn, seconds: float) -> float:
    """Calls of ``fn`` per second over about ``seconds`` (after one warm-up call)."""
    fn()
    calls, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        fn()
        calls += 1
    return calls / (time.perf_counter() - started)


def matmul_peak(dtype, size: int = 2048, seconds: float = 2.0) -> float:
    a = torch.randn(size, size).to(dtype)
    b = torch.randn(size, size).to(dtype)
    return 2 * size**3 * timed(lambda: torch.mm(a, b), seconds)


def net_flops(shape: dict) -> int:
    """Multiply-adds x 2 of one row through the network (biases and activations left out)."""
    sizes = [shape["obs_size"]] + [shape["hidden"]] * shape["layers"]
    trunk = sum(a * b for a, b in zip(sizes[:-1], sizes[1:]))
    return 2 * (trunk + sizes[-1] * (shape["num_actions"] + shape["num_players"]))


def measure(env_id: str, games: int, sims: int, batch: int, seconds: float) -> dict:
    vec = vector.make(env_id, games, seed=0)
    vec.reset()
    game = vec.game
    net = build_net(int(np.prod(game.observation_shape)), game.num_actions, game.num_players)
    evaluate = NetEvaluator(net)
    network = {"seconds": 0.0, "rows": 0}

    def timed_evaluate(obs, masks):
        started = time.perf_counter()
        out = evaluate(obs, masks)
        network["seconds"] += time.perf_counter() - started
        network["rows"] += len(obs)
        return out

    search = GuidedSearch(game, sims, gumbel_scale=1.0, seed=0)
    decisions = 0

    def self_play_step():
        nonlocal decisions
        busy = vec.masks.sum(axis=1) > 1
        actions = np.argmax(vec.masks, axis=1).astype(np.int64)
        if busy.any():
            searched, _, _ = search.run(vec.states, timed_evaluate, active=busy)
            actions[busy] = searched[busy]
            decisions += int(busy.sum())
        vec.step(actions)

    while decisions < 3 * games:  # compiles (the first decisions of a game may have one legal action)
        self_play_step()
    decisions, network["seconds"], network["rows"] = 0, 0.0, 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        self_play_step()
    elapsed = time.perf_counter() - started
    out = {
        "env_id": env_id,
        "decisions_per_s": decisions / elapsed,
        "evaluations_per_s": network["rows"] / elapsed,
        "network_share": network["seconds"] / elapsed,
    }
    flops = net_flops(net.shape)
    obs = torch.from_numpy(vec.float_observations().reshape(games, -1).copy())
    big = obs.repeat((batch + games - 1) // games, 1)[:batch]
    for name, dtype in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
        model = build_net(int(np.prod(game.observation_shape)), game.num_actions, game.num_players).to(dtype)
        x, xb = obs.to(dtype), big.to(dtype)
        with torch.inference_mode():
            inference = timed(lambda: model(x), seconds / 2) * games
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

        def train_step():
            logits, values = model(xb)
            loss = logits.float().logsumexp(dim=1).mean() + values.float().pow(2).mean()
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()

        samples = timed(train_step, seconds / 2) * batch
        peak = matmul_peak(torch.float32)  # the machine's fastest matrix multiply here (see bf16_peak)
        out[name] = {
            "inference_rows_per_s": inference,
            "learner_samples_per_s": samples,
            "peak_gflops": matmul_peak(dtype) / 1e9,
            "inference_share_of_peak": inference * flops / peak,
            "training_share_of_peak": samples * 3 * flops / peak,  # backward ~ 2x forward
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", action="append", help="env id (repeatable; default every game)")
    parser.add_argument("--games", type=int, default=256, help="games searched together (default 256)")
    parser.add_argument("--sims", type=int, default=16, help="simulations a decision (default 16)")
    parser.add_argument("--batch", type=int, default=512, help="learner minibatch (default 512)")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per measurement (default 10)")
    args = parser.parse_args(argv)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; {args.games} games x {args.sims} simulations")
    print(
        "| game | decisions/s | network evals/s | network share | learner samples/s fp32 / bf16 | inference % of peak fp32 / bf16 | training % of peak fp32 / bf16 | peak GFLOP/s fp32 / bf16 |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for env_id in args.env or tardis_envs.ENV_IDS:
        r = measure(env_id, args.games, args.sims, args.batch, args.seconds)
        f, b = r["fp32"], r["bf16"]
        print(
            f"| {env_id} | {r['decisions_per_s']:,.0f} | {r['evaluations_per_s']:,.0f} | {100 * r['network_share']:.0f}% | "
            f"{f['learner_samples_per_s']:,.0f} / {b['learner_samples_per_s']:,.0f} | "
            f"{100 * f['inference_share_of_peak']:.0f}% / {100 * b['inference_share_of_peak']:.0f}% | "
            f"{100 * f['training_share_of_peak']:.0f}% / {100 * b['training_share_of_peak']:.0f}% | "
            f"{f['peak_gflops']:.0f} / {b['peak_gflops']:.1f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
