"""The generator's uniform draws (tardis_envs.core.rng): exactly the rejection rule its
docstring states, so that every outcome of ``rng_below`` is equally likely."""

from __future__ import annotations

import numpy as np
import pytest

from tardis_envs.core.rng import hash_words, rng_below, rng_shuffle
from tardis_envs.core.state import HEADER_SIZE, RNG_COUNTER, RNG_KEY

TOP = (1 << 63) - 1


def reference_below(x: int, n: int) -> int:
    """The rule by its definition: reject draws at or past the largest multiple of ``n``
    that fits 63 bits, else ``x % n``."""
    limit = TOP - TOP % n
    return x % n if x < limit else -1


def _state(key: int) -> np.ndarray:
    state = np.zeros(HEADER_SIZE + 40, dtype=np.int64)
    state[RNG_KEY] = key
    return state


@pytest.mark.parametrize("n", [1, 2, 6, 36, 1_000_000, (1 << 31) - 1, (1 << 62) + 1, (1 << 62) + (1 << 61)])
def test_rng_below_is_the_reduced_hash_stream(n):
    """``rng_below`` draws ``hash(key, counter) >> 1`` and reduces it, one counter a draw
    (rejected draws too: at ``n = 2**62 + 1`` about half of them are, at
    ``2**62 + 2**61`` a quarter)."""
    state = _state(77)
    counter = 0
    for _ in range(300):
        while True:
            x = int(hash_words(77, counter)) >> 1
            counter += 1
            expected = reference_below(x, n)
            if expected >= 0:
                break
        assert rng_below(state, RNG_KEY, n) == expected
        assert state[RNG_COUNTER] == counter


def test_a_shuffle_is_fisher_yates_over_rng_below():
    state = _state(5)
    items = np.arange(36, dtype=np.int64)
    rng_shuffle(state, RNG_KEY, items, 36)
    expected = list(range(36))
    replay = _state(5)
    for i in range(35, 0, -1):
        j = rng_below(replay, RNG_KEY, i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert items.tolist() == expected
    assert state[RNG_COUNTER] == replay[RNG_COUNTER]
