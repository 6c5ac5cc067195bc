"""Record or check golden playthroughs of every registered env id."""

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

import tardis_envs

HERE = Path(__file__).parent
SEED = 2026


def playthrough(env_id: str) -> list[str]:
    """One line per ply: agent, mask, observation and state digests, the action in
    words; the full ``describe()`` on the first and last ply and every 25th."""
    env = tardis_envs.make(env_id)
    env.reset(seed=SEED)
    raw = env.unwrapped
    rng = np.random.default_rng(SEED)
    lines = []
    for ply, agent in enumerate(env.agent_iter(max_iter=2000)):
        obs, reward, term, trunc, _ = env.last()
        words = json.dumps(raw.describe(), sort_keys=True)
        record = {
            "ply": ply,
            "agent": agent,
            "reward": reward,
            "mask": np.flatnonzero(obs["action_mask"]).tolist(),
            "observation_sha256": hashlib.sha256(np.ascontiguousarray(obs["observation"]).tobytes()).hexdigest()[:16],
            "state_sha256": hashlib.sha256(words.encode()).hexdigest()[:16],
        }
        if ply % 25 == 0 or term or trunc:
            record["state"] = json.loads(words)
        if term or trunc:
            action = None
        else:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.integers(legal.size)])
            record["action"] = raw.action_to_string(action)
        lines.append(json.dumps(record, sort_keys=True))
        env.step(action)
    return lines


def path_of(env_id: str) -> Path:
    return HERE / f"{env_id}.jsonl"


if __name__ == "__main__":
    if "--update" not in sys.argv:
        sys.exit("usage: python -m tests.golden.playthrough --update")
    for env_id in tardis_envs.ENV_IDS:
        path_of(env_id).write_text("\n".join(playthrough(env_id)) + "\n")
        print(f"wrote {path_of(env_id)}")
