import os
import time

# The suite compiles its kernels at LLVM optimisation level 1 (numba's default is 3): the cold
# compiles are most of the suite's time and level 1 takes about a quarter less, while the
# kernels' results are the same (no fastmath anywhere). The kernels go to a cache folder of
# their own (tardis_envs/core/jit.py), so training and benchmarks never load them; the
# processes a test starts inherit the setting. NUMBA_OPT=3 runs the suite on the full kernels.
os.environ.setdefault("NUMBA_OPT", "1")
# Two test processes share the machine's two cores: each runs its numba kernels and torch on
# one thread (a test that wants more asks, as test_core_batch's two-thread batch does), and
# the OpenMP threads of the processes the tests start sleep when idle instead of spinning.
# With two threads each and libgomp's spinning, two processes stepping small batches side by
# side made 4-7k batch steps a second each; on one thread each, 57-68k (TARDIS Run, 4 games).
os.environ.setdefault("OMP_WAIT_POLICY", "passive")
os.environ.setdefault("OMP_NUM_THREADS", "1")  # torch's intra-op threads, here and in the processes tests start

import numba  # noqa: E402
import pytest  # noqa: E402

import tardis_envs  # noqa: E402

numba.set_num_threads(1)


def pytest_collection_modifyitems(config, items):
    # Run quick tests first; long playouts and subprocess tests are marked slow. Under xdist
    # (one test file per process) xdist hands out the files with the most tests first. Two
    # other orders were measured slower. Every file longest first: the many short files that
    # come early compile each game's AEC kernels, which the long ones then load; long files
    # side by side compiled the same kernels twice. The few-test Ray and wheel files first
    # (they come last, and one process ran on alone for 90 s): two runs on one install, the Ray
    # file took 474 s at the start against 306 s at the end (its Ray and training processes
    # beside the other process's cold compiles), and 842 tests were done at 1,094 s against 1,024.
    items.sort(key=lambda item: item.get_closest_marker("slow") is not None)


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: long-running test (playouts, subprocesses)")
    workers = getattr(config.option, "numprocesses", None)
    if workers and not hasattr(config, "workerinput"):
        _compile_batch_kernels(int(workers) if str(workers).isdigit() else 2)


def _compile_batch_kernels(processes: int) -> None:
    """Compile every game's batched kernels before the xdist workers start, one game per
    process, ``processes`` at a time (the largest games first): the workers then load them
    instead of each compiling the same kernels beside the other. Processes saving into one
    cache at once are safe (``tardis_envs.core.jit`` locks numba's cache index)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from .helpers import compile_batch_kernels

    order = sorted(tardis_envs.ENV_IDS, key=lambda env_id: -LARGEST_FIRST.get(env_id, 0))
    started = time.perf_counter()
    with ProcessPoolExecutor(max(1, processes), mp_context=multiprocessing.get_context("spawn")) as pool:
        took = ", ".join(f"{env_id} {seconds:.0f} s" for env_id, seconds in pool.map(compile_batch_kernels, order))
    print(f"kernels compiled or loaded in {time.perf_counter() - started:.0f} s ({took})", flush=True)


# seconds a cold compile of each game's batched kernels took on this project's 2-core machine
# (2026-11-28): two processes finish in about 185 s where one took 330 s (`make test` prints
# each run's). Precompiling the AEC, compact and packed kernels here as well was measured:
# 370 s here, the tests 89 s shorter, the whole run a minute longer.
LARGEST_FIRST = {
    "time_of_the_daleks_v2": 138,
    "timelord_chess_v1": 108,
    "keys_to_the_tardis_v0": 53,
    "gallifrey_duel_v1": 31,
    "tardis_run_v0": 15,
}


@pytest.fixture(params=tardis_envs.ENV_IDS)
def env_id(request):
    return request.param
