"""Fuzz ``set_state``: every word of states from random playouts set, one at a time, to
boundary and wild values; each must be refused with a ``ValueError`` or accepted and then
played on (``last()``, the mask, one random legal step; ``describe()`` for the first value
accepted at each index) without error.

The fuzz runs in a subprocess: a kernel that writes outside its state kills the process
that runs it (a segfault), which then fails this test with its return code instead of
killing pytest. ``python -m tests.test_state_fuzz [scale] [env id part]`` runs it by hand
(``scale`` times the test's base states) and prints the counts per variant.
"""

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import tardis_envs
from tests.test_check_state import DALEKS, playout_states

ROOT = Path(__file__).resolve().parents[1]

# every game, and each player count / variant whose layout or ranges differ, with the base
# states the test fuzzs (each base state: every word times about a dozen values; the large
# states of chess and Time of the Daleks take one, to keep the test near 30 seconds)
VARIANTS = [
    ("tardis_run_v0", {}, 2),
    ("keys_to_the_tardis_v0", {"num_players": 2}, 2),
    ("keys_to_the_tardis_v0", {"num_players": 3}, 2),
    ("keys_to_the_tardis_v0", {"num_players": 4}, 2),
    ("timelord_chess_v1", {}, 1),
    ("timelord_chess_v1", {"doctor": False}, 1),
    ("gallifrey_duel_v1", {}, 2),
    (DALEKS, {"num_players": 1}, 1),
    (DALEKS, {"num_players": 2}, 1),
    (DALEKS, {"num_players": 3}, 1),
    (DALEKS, {"num_players": 4}, 1),
]
INT64 = np.iinfo(np.int64)
WILD = (-1, 0, 1, 10**9, -(10**9), int(INT64.max) - 1, int(INT64.max), int(INT64.min))


def base_states(game, count, seed):
    """``count`` states of random games: the opening and the end of the first, then states
    drawn from the middle of the games."""
    rng = np.random.default_rng(seed)
    states = []
    game_seed = seed
    while len(states) < count:
        trail = list(playout_states(game, game_seed))
        game_seed += 1
        picks = [0, len(trail) - 1] if len(states) == 0 else [int(rng.integers(len(trail)))]
        states += [trail[i] for i in picks]
    return states[:count]


def values_for(index, states):
    """The wild values, and the boundaries of what the index holds in ``states`` (its least
    and greatest value, one past each): off-by-one bounds are where checks go wrong."""
    low = int(min(s[index] for s in states))
    high = int(max(s[index] for s in states))
    near = [v for v in (low - 1, low, high, high + 1) if INT64.min <= v <= INT64.max]
    return sorted(set(WILD) | set(near))


def fuzz_variant(env_id, options, count, seed=0):
    """Counts for one variant: states tried, refused (ValueError), accepted, and the
    errors of accepted states (anything but a clean run), as ``(index, value, error)``."""
    raw = tardis_envs.env_module(env_id).raw_env(**options)
    raw.reset(seed=seed)
    game = raw.game
    rng = np.random.default_rng(seed)
    states = base_states(game, count, seed)
    tried = refused = accepted = 0
    errors = []
    for base in states:
        for index in range(game.state_size):
            described = False  # describe() (Python, slow in chess) once an index: it reads every word
            for value in values_for(index, states):
                if value == base[index]:
                    continue
                state = base.copy()
                state[index] = value
                tried += 1
                try:
                    raw.set_state(state)
                except ValueError:
                    refused += 1
                    continue
                accepted += 1
                try:
                    obs, _, term, trunc, _ = raw.last()
                    if not described:
                        raw.describe()
                        described = True
                    if not (term or trunc):
                        legal = np.flatnonzero(obs["action_mask"])
                        if legal.size == 0:
                            raise AssertionError("no legal action in a running game")
                        raw.step(int(legal[rng.integers(legal.size)]))
                except Exception as error:  # noqa: BLE001 - every failure is reported
                    errors.append((index, value, f"{type(error).__name__}: {error}"))
    return {"tried": tried, "refused": refused, "accepted": accepted, "errors": errors}


def main(scale=1, only=""):
    """Fuzz every variant whose env id contains ``only`` from ``scale`` times its base states;
    print the counts per variant (to stderr as they come, then all as JSON)."""
    report = {}
    for env_id, options, count in VARIANTS:
        if only not in env_id:
            continue
        started = time.perf_counter()
        result = fuzz_variant(env_id, options, count * scale)
        result["seconds"] = round(time.perf_counter() - started, 1)
        result["errors"] = result["errors"][:20]  # enough to see what is wrong
        report[f"{env_id} {json.dumps(options, sort_keys=True)}"] = result
        print(json.dumps({f"{env_id} {options}": {k: v for k, v in result.items() if k != "errors"}}), file=sys.stderr, flush=True)
    print(json.dumps(report, indent=1 if sys.stdout.isatty() else None))


def test_a_state_with_one_wild_word_is_refused_or_plays_on_never_crashes():
    run = subprocess.run(
        [sys.executable, "-c", "import tests.test_state_fuzz as fuzz; fuzz.main()"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, f"the fuzz process died (return code {run.returncode}); its last words:\n{run.stderr[-3000:]}"
    report = json.loads(run.stdout.splitlines()[-1])
    print("\n".join(f"{k}: " + ", ".join(f"{c} {v[c]}" for c in ("tried", "refused", "accepted", "seconds")) for k, v in report.items()))
    failures = {k: v["errors"] for k, v in report.items() if v["errors"]}
    assert not failures, f"accepted states that failed to play on: {json.dumps(failures, indent=1)}"
    for result in report.values():
        assert result["tried"] > 0 and result["refused"] > 0 and result["accepted"] > 0


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1, sys.argv[2] if len(sys.argv) > 2 else "")
