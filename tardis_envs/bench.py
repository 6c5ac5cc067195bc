"""Throughput measurements shared by ``tardis-envs bench``, ``eval`` and benchmarks/.

Every figure is a median over repeats of a timed loop after a warm-up (the
warm-up also triggers numba compilation, so compile time is never counted).
"""
from __future__ import annotations

import statistics
import time

import numba
import numpy as np

from . import env_module, vector


PEERS = {
    # PettingZoo classic envs users would otherwise pick (need the `bench` extra).
    "connect_four_v3": "pettingzoo.classic.connect_four_v3",
    "tictactoe_v3": "pettingzoo.classic.tictactoe_v3",
}


def peer_factory(name: str):
    """``env()`` of a PettingZoo classic peer, or None when it cannot be imported."""
    import importlib

    try:
        return importlib.import_module(PEERS[name]).env
    except ImportError:
        return None


def aec_steps_per_second(env_id: str, seconds: float = 2.0, seed: int = 0, factory=None, **options) -> float:
    """Agent-steps per second of the PettingZoo loop with random legal actions:
    ``agent_iter``, ``last``, mask sampling, ``step`` (the wrapped ``env()``).

    ``factory`` measures another AEC env (a peer) through the identical loop.
    """
    env = factory() if factory is not None else env_module(env_id).env(**options)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps = 0
    games = 0
    started = time.perf_counter()
    deadline = started + seconds
    while True:
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[rng.integers(legal.size)])
            env.step(action)
            steps += 1
        games += 1
        if time.perf_counter() >= deadline:
            break
        env.reset(seed=seed + games)
    return steps / (time.perf_counter() - started)


def batched_steps_per_second(
    env_id: str, num_envs: int = 1024, num_threads: int | None = None, seconds: float = 2.0, repeats: int = 3, seed: int = 0, **options
) -> dict:
    """Game steps per second of ``tardis_envs.vector`` with random legal actions
    chosen in numpy (the action choice is included in the time)."""
    threads = num_threads or numba.config.NUMBA_NUM_THREADS
    vec = vector.make(env_id, num_envs, seed=seed, num_threads=threads, **options)
    _, masks, _ = vec.reset()
    rng = np.random.default_rng(seed)

    def run(limit: float) -> float:
        nonlocal masks
        steps = 0
        started = time.perf_counter()
        while True:
            scores = rng.random(masks.shape, dtype=np.float32) * masks
            actions = scores.argmax(axis=1)
            _, masks, _, _, _, _ = vec.step(actions)
            steps += num_envs
            elapsed = time.perf_counter() - started
            if elapsed >= limit:
                return steps / elapsed

    run(0.2)  # warm-up
    rates = [run(seconds / repeats) for _ in range(repeats)]
    return {"median": statistics.median(rates), "min": min(rates), "max": max(rates), "num_envs": num_envs, "threads": threads}
