import pytest

import tardis_envs


def pytest_collection_modifyitems(config, items):
    # Run quick tests first; long playouts and subprocess tests are marked slow.
    items.sort(key=lambda item: item.get_closest_marker("slow") is not None)


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: long-running test (playouts, subprocesses)")
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        _compile_batch_kernels()


def _compile_batch_kernels():
    """Compile every game's batched kernels once, in the controller, before the
    xdist workers start. The shared bodies in ``core/batch.py`` keep one numba
    cache index for all games; workers compiling different games at the same
    time overwrite each other's entries, and numba then fails on loading
    (KeyError, "underlying object has vanished"). With the cache warm, workers
    only read it."""
    from tardis_envs import vector

    for env_id in tardis_envs.ENV_IDS:
        for observations in (True, False):
            vec = vector.make(env_id, 2, seed=0, observations=observations)
            _, masks, _ = vec.reset()
            vec.step(masks.argmax(axis=1))


@pytest.fixture(params=tardis_envs.ENV_IDS)
def env_id(request):
    return request.param
