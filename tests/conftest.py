from .precompile import compile_all, use_suite_settings

use_suite_settings()  # before numba loads

import numba  # noqa: E402
import pytest  # noqa: E402

import tardis_envs  # noqa: E402

numba.set_num_threads(1)


# Test files with few tests but minutes of work (186 s and 59 s in a fresh run on the 2-core
# machine, 2026-12-01). By their number of tests they would come last, and one process ran
# them alone at the end while the other had finished: 157 s of a core unused.
LONG_FILES_WITH_FEW_TESTS = ("tests/test_rllib_processes.py", "tests/test_wheel.py")


def pytest_collection_modifyitems(config, items):
    # Run quick tests first; long playouts and subprocess tests are marked slow. Under xdist
    # (one test file per process) the files go out in this order: the files with the most
    # tests first (xdist's own order, which pytest_configure turns off), then, when a fifth of
    # the tests is left, the long files with few tests, so that the short files that remain
    # fill both processes' ends. Two other orders were measured slower. Every file longest
    # first: the many short files that come early compile each game's AEC kernels, which the
    # long ones then load; long files side by side compiled the same kernels twice. The
    # few-test Ray and wheel files first: the Ray file took 474 s at the start against 306 s
    # at the end (its Ray and training processes beside the other process's cold compiles).
    items.sort(key=lambda item: item.get_closest_marker("slow") is not None)
    files: dict[str, list] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::")[0], []).append(item)
    order = sorted(files, key=lambda name: -len(files[name]))  # stable: ties keep pytest's order
    late = [name for name in order if name in LONG_FILES_WITH_FEW_TESTS]
    order = [name for name in order if name not in LONG_FILES_WITH_FEW_TESTS]
    counted, at = 0, len(order)
    for index, name in enumerate(order):
        counted += len(files[name])
        if counted >= 0.8 * len(items):
            at = index + 1
            break
    items[:] = [item for name in order[:at] + late + order[at:] for item in files[name]]


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: long-running test (playouts, subprocesses)")
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False  # the files go out in pytest_collection_modifyitems's order
    workers = getattr(config.option, "numprocesses", None)
    if workers and not hasattr(config, "workerinput"):
        # every game's batched kernels, before the xdist workers start (tests/precompile.py)
        print(compile_all(int(workers) if str(workers).isdigit() else 2), flush=True)


@pytest.fixture(params=tardis_envs.ENV_IDS)
def env_id(request):
    return request.param
