"""Shared batch machinery: prefetching a game's rows, the one-row legal pick."""

import numba
import numpy as np
import pytest

from tardis_envs.core.batch import PREFETCH_STATE_BYTES, prefetch_row, prefetch_state
from tardis_envs.core.sampling import count_legal, nth_legal


@numba.njit
def _prefetch_every_row(states, obs, masks):
    for i in range(states.shape[0] + 2):  # past the end too: nothing is asked there
        prefetch_state(states, i)
        if i < states.shape[0]:
            prefetch_row(states[i])
            prefetch_row(obs[i])
            prefetch_row(masks[i])


@pytest.mark.parametrize("obs_dtype", [np.int8, np.uint8, np.int16, np.float32])
def test_prefetching_compiles_for_every_row_dtype_and_changes_nothing(obs_dtype):
    """Prefetch is a hint to the memory system: it must compile (an LLVM intrinsic
    whose name changes between LLVM versions) and leave every value as it was."""
    rng = np.random.default_rng(0)
    states = rng.integers(-(2**40), 2**40, (5, PREFETCH_STATE_BYTES // 8 + 3))
    obs = rng.integers(0, 100, (5, 1000)).astype(obs_dtype)
    masks = rng.integers(0, 2, (5, 421)).astype(np.int8)
    copies = states.copy(), obs.copy(), masks.copy()
    _prefetch_every_row(states, obs, masks)
    _prefetch_every_row(states[:0], obs[:0], masks[:0])
    for after, before in zip((states, obs, masks), copies):
        assert np.array_equal(after, before)


def test_nth_legal_and_count_legal():
    mask = np.zeros(300, dtype=np.int8)
    legal = [0, 5, 63, 64, 65, 128, 200, 299]
    mask[legal] = 1
    mask[200] = 3  # any nonzero entry is one legal action
    assert count_legal(mask) == len(legal)
    assert [nth_legal(mask, k) for k in range(len(legal) + 1)] == legal + [-1]
    assert nth_legal(np.zeros(70, dtype=np.int8), 0) == -1
