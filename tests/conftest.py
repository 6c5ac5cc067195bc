import numpy as np
import pytest

import tardis_envs


def pytest_collection_modifyitems(config, items):
    # Run quick tests first; long playouts and subprocess tests are marked slow.
    items.sort(key=lambda item: item.get_closest_marker("slow") is not None)


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: long-running test (playouts, subprocesses)")


@pytest.fixture(params=tardis_envs.ENV_IDS)
def env_id(request):
    return request.param
