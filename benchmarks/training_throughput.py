"""Training throughput: MaskablePPO on the batched self-play VecEnv vs the plain AEC env.

    python benchmarks/training_throughput.py [env_id ...] [--timesteps 32768] [--num-envs 64]

Both sides train the same MaskablePPO (same network, rollout and update
settings) against the uniform-random opponent, for the same number of learner
steps, in the same process: ours on ``SelfPlayVecEnv`` (all games in one numba
call), the baseline on SB3's ``DummyVecEnv`` of ``AECSingleAgentEnv`` (one
PettingZoo AEC env per game, stepped in Python). Reported: learner steps per
second of the whole ``learn()`` call (updates included) and of collection alone
(rollout steps with the policy's forward pass), and their ratio.

``--obs-dtype`` picks the observation dtype of our batched games (``compact``,
the default of ``tardis-envs train``, or ``float32``); ``--profile`` runs our
``learn()`` once more and reports the share of its time spent in the environment
(``SelfPlayVecEnv.step_wait`` and ``reset``, timed on every call: game steps,
opponents' moves, the float32 conversion) against the policy's forward passes
and the PPO update. (An earlier version measured it under cProfile, which
inflates Python code: on the same code, TARDIS Run's environment
measured 7.5% of ``learn()`` under cProfile and 5.3-5.8% timed.)
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv

import tardis_envs
from agents import RandomAgent
from agents.training.aec_gym import AECSingleAgentEnv
from agents.training.selfplay import OpponentPool, SelfPlayVecEnv


def _model(venv) -> MaskablePPO:
    """The same MaskablePPO on every side of the comparison."""
    return MaskablePPO(
        "MlpPolicy", venv, n_steps=64, batch_size=1024, n_epochs=4, policy_kwargs={"net_arch": [256, 256]}, seed=0, device="cpu", verbose=0
    )


def measure(venv, timesteps: int, num_envs: int) -> dict:
    model = _model(venv)
    model.learn(total_timesteps=num_envs * 64)  # warm-up: compile, allocate
    started = time.perf_counter()
    model.learn(total_timesteps=timesteps, reset_num_timesteps=False)
    total = time.perf_counter() - started
    # collection alone: step the env with masked random actions
    from sb3_contrib.common.maskable.utils import get_action_masks

    venv.reset()
    rng = np.random.default_rng(0)
    steps = 0
    started = time.perf_counter()
    while steps < timesteps:
        masks = get_action_masks(venv)
        scores = rng.random(masks.shape) * masks
        venv.step(scores.argmax(axis=1))
        steps += num_envs
    collect = time.perf_counter() - started
    return {"learn_steps_per_second": timesteps / total, "env_steps_per_second": steps / collect}


def env_share(venv, timesteps: int, num_envs: int) -> dict:
    """Seconds of one ``learn()`` on ``venv`` spent in the environment (its ``step_wait`` and
    ``reset``, timed on every call), and in the whole call."""
    spent = [0.0]

    def timed(method):
        def call(*args, **kwargs):
            started = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                spent[0] += time.perf_counter() - started

        return call

    venv.step_wait, venv.reset = timed(venv.step_wait), timed(venv.reset)
    model = _model(venv)
    model.learn(total_timesteps=num_envs * 64)  # warm-up
    spent[0] = 0.0
    started = time.perf_counter()
    model.learn(total_timesteps=timesteps, reset_num_timesteps=False)
    total = time.perf_counter() - started
    return {"env_seconds": spent[0], "learn_seconds": total, "env_share": spent[0] / total}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("env_ids", nargs="*")
    parser.add_argument("--timesteps", type=int, default=32768)
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--obs-dtype", default="compact", choices=("compact", "float32"))
    parser.add_argument("--profile", action="store_true", help="also report the environment's share of learn() (its calls timed)")
    parser.add_argument("--no-aec", action="store_true", help="measure our batched env only")
    parser.add_argument("--json")
    args = parser.parse_args()
    results = {}
    for env_id in args.env_ids or tardis_envs.ENV_IDS:
        game = tardis_envs.env_module(env_id).Game()

        def ours():
            return SelfPlayVecEnv(env_id, args.num_envs, OpponentPool(game, {"random": 1.0}), seed=0, obs_dtype=args.obs_dtype)

        row: dict = {"obs_dtype": args.obs_dtype, "ours": measure(ours(), args.timesteps, args.num_envs)}
        line = f"{env_id} ({args.obs_dtype}): learn() {row['ours']['learn_steps_per_second']:,.0f} learner steps/s"
        if not args.no_aec:
            base = DummyVecEnv([lambda: AECSingleAgentEnv(env_id, lambda g: RandomAgent(g, seed=1)) for _ in range(args.num_envs)])
            row["aec_dummyvecenv"] = measure(base, args.timesteps, args.num_envs)
            for key in ("learn_steps_per_second", "env_steps_per_second"):
                row[f"ratio_{key}"] = row["ours"][key] / row["aec_dummyvecenv"][key]
            line += (
                f" vs {row['aec_dummyvecenv']['learn_steps_per_second']:,.0f} ({row['ratio_learn_steps_per_second']:.1f}x); env only "
                f"{row['ours']['env_steps_per_second']:,.0f} vs {row['aec_dummyvecenv']['env_steps_per_second']:,.0f} "
                f"({row['ratio_env_steps_per_second']:.1f}x)"
            )
        else:
            line += f"; env only {row['ours']['env_steps_per_second']:,.0f}"
        if args.profile:
            row["profile"] = env_share(ours(), args.timesteps, args.num_envs)
            line += f"; environment {100 * row['profile']['env_share']:.1f}% of learn() ({row['profile']['env_seconds']:.2f} of {row['profile']['learn_seconds']:.2f} s)"
        results[env_id] = row
        print(line, flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
