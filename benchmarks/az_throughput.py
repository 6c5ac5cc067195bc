"""Throughput of AlphaZero-style training's parts, per game, on this machine.

For each game, at each precision training runs (``AZConfig.precision``: fp32, and bf16
through torch's CPU autocast): self-play decisions/s (guided search over ``--games`` games
at once with ``--sims`` simulations, an untrained network of the training default shape),
network evaluations/s inside that search and the share of its time in the network, learner
samples/s (the training run's own step, :func:`~agents.training.az_train.learner_step`: its loss,
backward and fused AdamW step on a fixed minibatch of ``--batch`` positions of the self-play games;
beside it, in turns, AdamW's per-tensor loop, as the speed-up of the fused step), and the
network's achieved FLOP/s in inference (batch of ``--games``) and training, each as a share of the same type's matrix-multiply peak of this machine, measured once
at the start of the run (the best ``x @ W.T``, as a layer multiplies, of square matrices of 512, 1024 and 2048, same thread count; both
peaks are printed: which type is faster depends on the processor, e.g. Intel AMX runs bf16
several times faster than fp32, where processors without bf16 units run it far slower).
The same self-play runs a third time with the network in the compiled kernel an agent plays
with (``NetEvaluator(compiled=True)``, :mod:`tardis_envs.core.mlp`; an MLP network only:
chess's move-squares head stays in torch), and one leaf at a time (a batch of one, as a
``play`` move or the OpenSpiel bot evaluates) is timed in torch and in the kernel.

    python benchmarks/az_throughput.py                       # every game
    python benchmarks/az_throughput.py --env tardis_run_v0 --seconds 5
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

import tardis_envs
from agents.alphazero import PRECISIONS, NetEvaluator, autocast, build_net
from agents.training.az_train import AZConfig, learner_optimizer, learner_step, top_entries
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


def matmul_peak(dtype, sizes: tuple[int, ...] = (512, 1024, 2048), seconds: float = 1.0) -> float:
    """The best FLOP/s of the multiply a network's layer runs (``x @ W.T``, as ``nn.Linear``)
    on square matrices of ``dtype`` of each of ``sizes``: which size runs fastest depends on
    the processor's caches (without AVX-512 the 512 one beats the 2048 one). The layout matters
    where a type has no units of its own: without bfloat16 instructions torch's ``a @ b`` in
    bf16 falls back to a loop some fifteen times slower than ``a @ b.T``."""
    rates = []
    for size in sizes:
        a = torch.randn(size, size).to(dtype)
        b = torch.randn(size, size).to(dtype)
        rates.append(2 * size**3 * timed(lambda: torch.nn.functional.linear(a, b), seconds))
    return max(rates)


def net_flops(shape: dict) -> tuple[int, int]:
    """Multiply-adds x 2 of one row through the network, forward and in a training step
    (biases and activations left out). The backward pass multiplies again for each layer's
    weight gradient and again for its input's, except the first layer's input, the
    observation, which needs no gradient: a step is three forwards less that one multiply."""
    sizes = [shape["obs_size"]] + [shape["hidden"]] * shape["layers"]
    trunk = sum(a * b for a, b in zip(sizes[:-1], sizes[1:]))
    forward = 2 * (trunk + sizes[-1] * (shape["num_actions"] + shape["num_players"]))
    return forward, 3 * forward - 2 * sizes[0] * sizes[1]


def learner_minibatch(vec, size: int, entries: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    """A minibatch of ``size`` rows as the replay buffer gives the learner, from the positions of
    ``vec``'s games (repeated): their observations and legal actions, as the policy target the
    ``entries`` largest of a random distribution over each position's legal actions, and random
    outcomes of +-1 as the value target."""
    rng = np.random.default_rng(seed)
    rows = np.arange(size) % vec.num_envs
    obs = vec.float_observations().reshape(vec.num_envs, -1)[rows]
    masks = vec.masks[rows].astype(bool)
    policy = rng.random(masks.shape) * masks
    index, weight = top_entries(policy, min(entries, masks.shape[1]))
    outcome = rng.choice(np.array([-1.0, 1.0], np.float32), size=(size, vec.game.num_players))
    return np.ascontiguousarray(obs), masks, index.astype(np.int64), weight, outcome


def measure(env_id: str, games: int, sims: int, batch: int, seconds: float, peaks: dict[str, float]) -> dict:
    """Self-play, inference and learner rates of ``env_id`` at each precision, run as training
    runs them (``AZConfig.precision``: float32, or bfloat16 through torch's CPU autocast)."""
    vec = vector.make(env_id, games, seed=0)
    vec.reset()
    game = vec.game
    net = build_net(int(np.prod(game.observation_shape)), game.num_actions, game.num_players)
    search = GuidedSearch(game, sims, gumbel_scale=1.0, seed=0)
    flops, training_flops = net_flops(net.shape)
    out: dict = {"env_id": env_id}
    for precision in (*PRECISIONS, "compiled"):
        evaluate = NetEvaluator(net, compiled=True) if precision == "compiled" else NetEvaluator(net, precision)
        network = {"seconds": 0.0, "rows": 0}
        decisions = 0

        def timed_evaluate(obs, masks):
            started = time.perf_counter()
            result = evaluate(obs, masks)
            network["seconds"] += time.perf_counter() - started
            network["rows"] += len(obs)
            return result

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
        if precision == "compiled":
            leaf = (vec.float_observations()[:1].copy(), vec.masks[:1].copy())
            one_leaf = {name: timed(lambda e=e: e(*leaf), seconds / 4) for name, e in (("torch", NetEvaluator(net)), ("kernel", evaluate))}
            out[precision] = {
                "decisions_per_s": decisions / elapsed,
                "evaluations_per_s": network["rows"] / elapsed,
                "network_share": network["seconds"] / elapsed,
                "one_leaf_torch_per_s": one_leaf["torch"],
                "one_leaf_kernel_per_s": one_leaf["kernel"] if evaluate.compiled is not None else float("nan"),
            }
            continue

        obs = torch.from_numpy(vec.float_observations().reshape(games, -1).copy())
        minibatch = learner_minibatch(vec, batch, AZConfig().policy_entries)
        model = build_net(int(np.prod(game.observation_shape)), game.num_actions, game.num_players)
        config = AZConfig()
        optimizers = {  # the learner's fused step, and AdamW's per-tensor loop it replaces
            "fused": learner_optimizer(model, config),
            "loop": learner_optimizer(model, config, fused=False),
        }

        def infer():
            with torch.inference_mode(), autocast(precision):
                model(obs)

        def train_step(optimizer):
            learner_step(model, optimizer, minibatch, precision, config.value_weight)

        inference = timed(infer, seconds / 2) * games
        rates: dict[str, list[float]] = {"fused": [], "loop": []}
        for _ in range(2):  # in turns, the best of each: a shared machine's noise is larger than their gap
            for kind, optimizer in optimizers.items():
                rates[kind].append(timed(lambda o=optimizer: train_step(o), seconds / 8) * batch)
        samples = max(rates["fused"])
        out[precision] = {
            "decisions_per_s": decisions / elapsed,
            "evaluations_per_s": network["rows"] / elapsed,
            "network_share": network["seconds"] / elapsed,
            "inference_rows_per_s": inference,
            "learner_samples_per_s": samples,
            "fused_step_speedup": samples / max(rates["loop"]),
            "inference_share_of_peak": inference * flops / peaks[precision],
            "training_share_of_peak": samples * training_flops / peaks[precision],
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
    peaks = {"fp32": matmul_peak(torch.float32), "bf16": matmul_peak(torch.bfloat16)}  # keyed as PRECISIONS
    print(
        f"torch {torch.__version__}, {torch.get_num_threads()} threads; {args.games} games x {args.sims} simulations; "
        f"matrix-multiply peak {peaks['fp32'] / 1e9:.0f} GFLOP/s fp32, {peaks['bf16'] / 1e9:.0f} GFLOP/s bf16"
    )
    searched = (*PRECISIONS, "compiled")
    columns = {  # title: (key, format, the runs it is measured in)
        "self-play decisions/s": ("decisions_per_s", "{:,.0f}", searched),
        "network evals/s": ("evaluations_per_s", "{:,.0f}", searched),
        "network share": ("network_share", "{:.0%}", searched),
        "learner samples/s": ("learner_samples_per_s", "{:,.0f}", PRECISIONS),
        "fused AdamW step vs loop": ("fused_step_speedup", "{:.2f}x", PRECISIONS),
        "inference rows/s": ("inference_rows_per_s", "{:,.0f}", PRECISIONS),
        "inference % of peak": ("inference_share_of_peak", "{:.0%}", PRECISIONS),
        "training % of peak": ("training_share_of_peak", "{:.0%}", PRECISIONS),
    }
    titles = [f"{title} {' / '.join(runs)}" for title, (_, _, runs) in columns.items()]
    print("| game | " + " | ".join(titles) + " | one leaf evals/s torch / kernel |")
    print("|---" * (len(columns) + 2) + "|")
    for env_id in args.env or tardis_envs.ENV_IDS:
        r = measure(env_id, args.games, args.sims, args.batch, args.seconds, peaks)
        cells = [" / ".join(form.format(r[p][key]) for p in runs) for key, form, runs in columns.values()]
        cells.append(f"{r['compiled']['one_leaf_torch_per_s']:,.0f} / {r['compiled']['one_leaf_kernel_per_s']:,.0f}")
        print(f"| {env_id} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
