"""The generator's uniform draws (tardis_envs.core.rng): exactly the rejection rule its
docstring states, so that every outcome of ``rng_below`` is equally likely."""

from __future__ import annotations

import numpy as np
import pytest

from tardis_envs.core import rng
from tardis_envs.core.rng import SHUFFLE_AT_ONCE, hash_words, rng_below, rng_shuffle, small_remainder
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


def _fisher_yates_by_rng_below(key: int, counter: int, n: int) -> tuple[list[int], int]:
    """The shuffle by its definition: one ``rng_below`` a step, swapped as it is drawn."""
    replay = _state(key)
    replay[RNG_COUNTER] = counter
    expected = list(range(n))
    for i in range(n - 1, 0, -1):
        j = rng_below(replay, RNG_KEY, i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    return expected, int(replay[RNG_COUNTER])


@pytest.mark.parametrize("n", list(range(0, SHUFFLE_AT_ONCE + 6)))
def test_a_shuffle_is_fisher_yates_over_rng_below(n):
    """Every size, those that draw one step after another (below 12, above
    ``SHUFFLE_AT_ONCE``) and those that draw all steps at once: the same items and the
    same counter as one ``rng_below`` after another."""
    for key, counter in ((5, 0), (123_456_789, 17), (KEY_NEAR_TOP, (1 << 40) + 3)):
        state = _state(key)
        state[RNG_COUNTER] = counter
        items = np.arange(n, dtype=np.int64)
        rng_shuffle(state, RNG_KEY, items, n)
        expected, expected_counter = _fisher_yates_by_rng_below(key, counter, n)
        assert items.tolist() == expected
        assert state[RNG_COUNTER] == expected_counter


KEY_NEAR_TOP = (1 << 63) - 2


def test_the_shuffle_at_once_rejects_as_rng_below_does():
    """The steps drawn at once fall back to one draw after another when one of them would
    be rejected: their rejection bounds are ``rng_below``'s, bound by bound (no hashed
    counter is known to reach a bound below 64, about one draw in ``2**57``)."""
    bounds = range(SHUFFLE_AT_ONCE, 1, -1)
    assert rng._STEP_LIMIT.tolist() == [TOP - TOP % n for n in bounds]
    assert rng._STEP_BOUND.tolist() == [float(n) for n in bounds]
    assert rng._STEP_INVERSE.tolist() == [1.0 / n for n in bounds]


def _hard_numbers(n: int) -> list[int]:
    """Numbers below ``2**63`` where a remainder by ``n`` computed in doubles could slip:
    exact multiples (of ``n`` and with a top half that is one), their neighbours, both
    ends of the range and the 32-bit seam."""
    xs = {0, 1, n - 1, n, n + 1, TOP, TOP - 1, TOP - TOP % n, TOP - TOP % n - 1, (1 << 32) - 1, 1 << 32, (1 << 32) + 1}
    for high in (0, 1, n - 1, n, 2 * n, (1 << 31) - 1, ((1 << 31) - 1) // n * n):
        for low in (0, 1, n - 1, n, (1 << 32) - 1, ((1 << 32) - 1) // n * n, (1 << 32) // n * n - 1):
            xs.add((high << 32) | low)
    for k in (1, 2, 3, (1 << 32) // n, (1 << 32) // n + 1, TOP // n, TOP // n - 1, (1 << 40) // n):
        for d in (-1, 0, 1):
            xs.add(k * n + d)
    return [x for x in xs if 0 <= x <= TOP]


@pytest.mark.parametrize("n", list(range(2, SHUFFLE_AT_ONCE + 1)))
def test_small_remainder_is_the_remainder(n):
    generator = np.random.default_rng(n)
    randoms = [int(x) for x in generator.integers(0, TOP, size=2_000, dtype=np.int64, endpoint=True)]
    for x in _hard_numbers(n) + randoms:
        assert small_remainder(np.uint64(x), float(n), 1.0 / n) == x % n, (x, n)
