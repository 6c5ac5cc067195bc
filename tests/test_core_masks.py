"""tardis_envs.core.masks: eight mask entries stored as the bytes of one word."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from tardis_envs.core.masks import store_entries
from tardis_envs.core.observation import put_entries


@njit
def _store(out, start, word):
    store_entries(out, start, word)


WORD = np.uint64(0x0100010101000001)  # entries 0, 3, 4, 5, 7 (byte k is entry k)
ENTRIES = [1, 0, 0, 1, 1, 1, 0, 1]


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.bool_, np.int16])
def test_store_entries_writes_byte_k_of_the_word_to_entry_k_and_nothing_else(dtype):
    """int8 and uint8 rows take one word store; any other dtype entry by entry. Every
    start offset, so that the unaligned store is exercised."""
    for start in range(0, 25):
        out = np.full(40, 7 if dtype is not np.bool_ else True, dtype=dtype)
        before = out.copy()
        _store(out, start, WORD)
        assert out[start : start + 8].astype(np.int64).tolist() == ENTRIES
        assert (out[:start] == before[:start]).all() and (out[start + 8 :] == before[start + 8 :]).all()


def test_store_entries_into_a_strided_row():
    rows = np.zeros((20, 2), dtype=np.int8)
    _store(rows[:, 1], 3, WORD)
    assert rows[3:11, 1].tolist() == ENTRIES and not rows[:, 0].any()
    assert not rows[:3, 1].any() and not rows[11:, 1].any()


@njit
def _put_entries(out, start, word, denominator):
    put_entries(out, start, word, denominator)


NUMERATORS = [10, 0, 3, 127, 1, 9, 0, 4]
NUMERATOR_WORD = np.uint64(sum(n << (8 * k) for k, n in enumerate(NUMERATORS)))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.float32])
def test_put_entries_puts_each_byte_as_a_numerator(dtype):
    """An integer observation takes the numerators (int8/uint8 with one word store), a
    float32 one the fractions, exactly as eight ``put`` calls write them."""
    for start in (0, 1, 5, 12):
        out = np.full(24, 99, dtype=dtype)
        _put_entries(out, start, NUMERATOR_WORD, 10)
        if dtype is np.float32:
            expected = np.array([n / 10 for n in NUMERATORS], dtype=np.float32)
        else:
            expected = np.array(NUMERATORS, dtype=dtype)
        assert out[start : start + 8].tolist() == expected.tolist()
        assert (out[:start] == 99).all() and (out[start + 8 :] == 99).all()
