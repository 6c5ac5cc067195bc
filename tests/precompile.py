"""The test suite's process settings and its precompile of every game's batched kernels.

``conftest.py`` applies the settings (``use_suite_settings``) before numba loads, and compiles
the kernels before the xdist workers start, so that the workers load them instead of each
compiling the same kernels beside the other. ``make test`` starts the same compile earlier,
as ``python -m tests.precompile`` in the background while pip installs the extras: pip runs
on one core, and the kernels need only the package's core dependencies. The suite's own
precompile then finds them in the kernel cache (a few seconds to load) instead of compiling
them (about 220 s on the project's 2-core machine).
"""

from __future__ import annotations

import os
import time


def use_suite_settings() -> None:
    """Set the environment every test process (and every process a test starts) runs in;
    a variable already set is kept."""
    # The suite compiles its kernels at LLVM optimisation level 1 (numba's default is 3): the
    # cold compiles are most of the suite's time and level 1 takes about a quarter less, while
    # the rules kernels' results are the same (no rules kernel uses fastmath; the network kernel
    # of tardis_envs/core/mlp.py does, and its tests compare with a tolerance). The kernels go to a cache folder
    # of their own (tardis_envs/core/jit.py), so training and benchmarks never load them.
    # NUMBA_OPT=3 runs the suite on the full kernels. Level 0 was measured too: Time of the
    # Daleks' batched kernels compile in 172 s instead of 197 s, but numba cannot cache them.
    os.environ.setdefault("NUMBA_OPT", "1")
    # Two test processes share the machine's two cores: each runs its numba kernels and torch
    # on one thread (a test that wants more asks, as test_core_batch's two-thread batch does),
    # and the OpenMP threads of the processes the tests start sleep when idle instead of
    # spinning. With two threads each and libgomp's spinning, two processes stepping small
    # batches side by side made 4-7k batch steps a second each; on one thread each, 57-68k
    # (TARDIS Run, 4 games).
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # torch's intra-op threads, here and in the processes tests start


# seconds a cold compile of each game's batched kernels took, two processes on the 2-core
# machine (2026-12-01; `make test` prints each run's): the largest first, so that the two
# processes end together. Split in two parts (with and without observations), a game's
# parts ran side by side and compiled its rules twice: the precompile took as long.
LARGEST_FIRST = {
    "time_of_the_daleks_v2": 181,
    "timelord_chess_v1": 129,
    "keys_to_the_tardis_v0": 51,
    "gallifrey_duel_v1": 29,
    "tardis_run_v0": 16,
}


def compile_batch_kernels(env_id: str) -> tuple[str, float]:
    """Compile (or load) into the kernel cache ``env_id``'s batched kernels, with and without
    observations (float32), and its heuristic's, which most test files use; runs in a process
    of its own; returns ``(env_id, seconds it took)``. Precompiling the AEC, compact and packed
    kernels as well was measured (2026-11-28): 370 s instead of 185 s, the tests 89 s shorter,
    the whole run a minute longer."""
    from agents import make_agent
    from tardis_envs import vector

    started = time.perf_counter()
    for observations in (True, False):
        vec = vector.make(env_id, 2, seed=0, observations=observations)
        obs, masks, _ = vec.reset()
        vec.step(masks.argmax(axis=1))
    make_agent("heuristic", vec.game, seed=0).act_batch(vec.states, obs, masks)
    return env_id, time.perf_counter() - started


def compile_all(processes: int = 2) -> str:
    """Compile every game's batched kernels in ``processes`` processes, one game at a time
    each (the largest first); returns the line that says how long each took. Processes saving
    into one cache at once are safe (``tardis_envs.core.jit`` locks numba's cache index). An
    exception here (SIGTERM included, see ``__main__``) ends the pool's processes."""
    import multiprocessing

    import tardis_envs

    order = sorted(tardis_envs.ENV_IDS, key=lambda env_id: -LARGEST_FIRST.get(env_id, 0))
    started = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(max(1, processes)) as pool:  # leaving it terminates them
        took = ", ".join(f"{env_id} {seconds:.0f} s" for env_id, seconds in pool.imap_unordered(compile_batch_kernels, order))
    return f"kernels compiled or loaded in {time.perf_counter() - started:.0f} s ({took})"


def _exit(signum, frame):
    raise SystemExit(128 + signum)


if __name__ == "__main__":
    import signal

    signal.signal(signal.SIGTERM, _exit)  # make test ends it when the linters fail
    use_suite_settings()
    print(f"precompile for the test suite: {compile_all()}", flush=True)
