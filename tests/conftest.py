from .precompile import compile_all, use_suite_settings

use_suite_settings()  # before numba loads

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
        # every game's batched kernels, before the xdist workers start (tests/precompile.py)
        print(compile_all(int(workers) if str(workers).isdigit() else 2), flush=True)


@pytest.fixture(params=tardis_envs.ENV_IDS)
def env_id(request):
    return request.param
