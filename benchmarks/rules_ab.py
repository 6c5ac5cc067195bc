"""A game's rules kernels at another commit beside the working tree's, in one process.

    python benchmarks/rules_ab.py tardis_run_v0 [--base HEAD~1] [--observe] [--rounds 16]
    python benchmarks/rules_ab.py keys_to_the_tardis_v0 --base a8b16f5 --check 400 num_players=3

This host runs the same code 10-30% faster or slower from one run to the next (other work
shares it), which hides a change of a few percent between two separate processes. Here the
game's ``rules.py`` of ``--base`` (from ``git show``) is loaded beside the current one, as a
second module of the same package, and both step one game (random legal actions, the batch
sampler's draw, a reset when the game ends) in alternation, ``--rounds`` times; the fastest
and the median ns per step of each are printed. Each plays on a state of its own module's
``STATE_SIZE``, so a base from before a change of the state's layout can be timed too. Both use the working tree's core, content and
tables (and the working tree's ``observe.py``, unless the base's ``rules.py`` writes the
observation itself): the comparison is of ``rules.py`` alone, and a base whose ``rules.py`` needs names
the working tree no longer has cannot be loaded. The base's file is kept in the system's
temporary folder under ``tardis_envs_rules_ab/<commit>/``, where numba's cache of its kernels
serves the next run.

``--check N`` first plays N random steps in 32 games and compares the two ``legal_mask`` and
``observe`` (float32 and compact, every seat) in every position; a difference is an error
(and so is a base whose state has another layout: it cannot read the working tree's states).
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import numba
import numpy as np
import yaml

from tardis_envs import env_module, vector
from tardis_envs.core.sampling import hashed_legal, sample_legal
from tardis_envs.core.state import RNG_KEY, STATUS, VARIANT

ROOT = Path(__file__).resolve().parents[1]


def load_base_rules(rules_module: str, base: str):
    """``rules_module`` (``tardis_envs.games.<game>.rules``) as it is at commit ``base``.

    The file is written to a folder named by the commit (in the system's temporary folder),
    so numba's cache of its kernels, found by the file's path, serves the next run too."""
    commit = subprocess.run(["git", "rev-parse", "--verify", f"{base}^{{commit}}"], cwd=ROOT, capture_output=True, text=True)
    if commit.returncode != 0:
        raise SystemExit(f"--base {base!r} is not a commit of {ROOT}")
    commit_hash = commit.stdout.strip()
    path = rules_module.replace(".", "/") + ".py"
    source = subprocess.run(["git", "show", f"{commit_hash}:{path}"], cwd=ROOT, capture_output=True, text=True)
    if source.returncode != 0:
        raise SystemExit(f"git show {base}:{path} failed: {source.stderr.strip()}")
    folder = Path(tempfile.gettempdir()) / "tardis_envs_rules_ab" / commit_hash
    folder.mkdir(parents=True, exist_ok=True)
    file = folder / f"{rules_module.split('.')[-2]}_rules.py"
    if not file.exists() or file.read_text() != source.stdout:
        file.write_text(source.stdout)
    package = rules_module.rsplit(".", 1)[0]
    module = type(sys)(f"{package}._rules_at_base")
    module.__package__ = package
    module.__file__ = str(file)  # numba caches the kernels by their file
    sys.modules[module.__name__] = module
    exec(compile(source.stdout, str(file), "exec"), module.__dict__)
    return module


@numba.njit
def _play(init, step_and_mask, legal_mask, observe, state, tables, mask, obs, steps, with_observation):
    legal_mask(state, tables, mask)
    for i in range(steps):
        step_and_mask(state, tables, hashed_legal(mask, 7, i), mask)
        if with_observation:
            observe(state, tables, state[0], obs)
        if state[STATUS] != 0:  # the next game, on a key of its own
            key = state[2]
            state[:] = 0
            state[2] = key + 1
            init(state, tables)
            legal_mask(state, tables, mask)


def kernels_of(rules, observe) -> SimpleNamespace:
    """The kernels of a ``rules`` module, with ``observe`` for the observation unless that
    rules.py writes one itself (the base may be from before the game's observe.py)."""
    kernels = {name: getattr(rules, name) for name in ("init", "step", "legal_mask", "step_and_mask")}
    kernels["observe"] = getattr(rules, "observe", observe)
    if hasattr(rules, "STATE_SIZE"):
        kernels["STATE_SIZE"] = rules.STATE_SIZE
    return SimpleNamespace(**kernels)


def state_size(game, kernels) -> int:
    """Words of state ``kernels`` play on: their module's ``STATE_SIZE`` (a base from before a
    change of the state's layout has its own), else the working tree's."""
    return int(getattr(kernels, "STATE_SIZE", game.state_size))


def opening(game, kernels, key: int) -> np.ndarray:
    """The opening of generator key ``key`` by ``kernels``' own ``init``, in a state of their size."""
    state = np.zeros(state_size(game, kernels), dtype=np.int64)
    state[RNG_KEY] = key
    state[VARIANT] = game.variant
    kernels.init(state, game.tables)
    return state


def parse_options(pairs: list[str]) -> dict:
    """``["num_players=3", "mode=contest"]`` -> rule options (values read as YAML scalars)."""
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"rule option {pair!r}: expected key=value")
        options[key] = yaml.safe_load(value)
    return options


def check(env_id: str, old, new, steps: int, options: dict) -> int:
    positions = 0
    for obs_dtype in ("float32", "compact"):
        vec = vector.make(env_id, 32, seed=3, obs_dtype=obs_dtype, **options)
        vec.reset()
        actions = np.zeros(32, dtype=np.int64)
        tables = vec.game.tables
        for call in range(steps):
            for i in range(32):
                state = vec.states[i]
                masks = [np.full(vec.masks.shape[1], fill, dtype=np.int8) for fill in (7, 9)]
                for kernels, mask in zip((new, old), masks):
                    kernels.legal_mask(state, tables, mask)
                if not np.array_equal(*masks):
                    raise SystemExit(f"legal masks differ at step {call}, game {i}: actions {np.flatnonzero(masks[0] != masks[1])}")
                for seat in range(vec.num_players):
                    views = [np.full(vec._obs_flat.shape[1], fill, dtype=vec._obs_flat.dtype) for fill in (5, 3)]
                    for kernels, view in zip((new, old), views):
                        kernels.observe(state, tables, seat, view)
                    if not np.array_equal(*views):
                        raise SystemExit(f"{obs_dtype} observations differ at step {call}, game {i}, seat {seat}")
                positions += 1
            sample_legal(vec.masks, 0, call, actions)
            vec.step(actions)
    return positions


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_id")
    parser.add_argument("options", nargs="*", help="rule options as key=value")
    parser.add_argument("--base", default="HEAD~1", help="the commit whose rules.py runs beside the working tree's")
    parser.add_argument("--observe", action="store_true", help="write the mover's observation (compact) after each step")
    parser.add_argument("--rounds", type=int, default=16)
    parser.add_argument("--steps", type=int, default=300_000, help="steps per round and side")
    parser.add_argument("--check", type=int, default=0, metavar="N", help="first compare masks and observations over N random steps")
    args = parser.parse_args(argv)
    options = parse_options(args.options)
    game = env_module(args.env_id).Game(**options)
    rules_module = type(game).__module__.rsplit(".", 1)[0] + ".rules"
    observe = importlib.import_module(rules_module.rsplit(".", 1)[0] + ".observe").observe
    new = kernels_of(importlib.import_module(rules_module), observe)
    old = kernels_of(load_base_rules(rules_module, args.base), observe)
    if args.check:
        if state_size(game, old) != state_size(game, new):
            raise SystemExit(
                f"--check: the state of {args.base} has {state_size(game, old)} words and the working tree's "
                f"{state_size(game, new)}: the two cannot be shown one position; time them without --check"
            )
        print(f"masks and observations equal in {check(args.env_id, old, new, args.check, options):,} positions")
    obs = np.zeros_like(vector.make(args.env_id, 1, obs_dtype="compact", **options)._obs_flat[0])
    times: dict[str, list[float]] = {args.base: [], "working tree": []}
    for _ in range(args.rounds):
        for name, kernels in ((args.base, old), ("working tree", new)):
            state = opening(game, kernels, 1)
            mask = np.zeros(game.num_actions, dtype=np.int8)
            play = (kernels.init, kernels.step_and_mask, kernels.legal_mask, kernels.observe, state, game.tables, mask, obs)
            _play(*play, 10, args.observe)
            started = time.perf_counter()
            _play(*play, args.steps, args.observe)
            times[name].append((time.perf_counter() - started) / args.steps * 1e9)
    what = "step, mask and observation" if args.observe else "step and mask"
    for name, values in times.items():
        values.sort()
        print(f"{args.env_id} {what}, rules.py of {name}: fastest {values[0]:.1f} ns, median {values[len(values) // 2]:.1f} ns a step")
    return 0


if __name__ == "__main__":
    sys.exit(main())
