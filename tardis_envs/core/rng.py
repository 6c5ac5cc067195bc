"""A counter-based random generator whose whole state is two words of the game state.

Every game keeps ``[key, counter]`` at a fixed place of its flat ``int64`` state
(``RNG_KEY``/``RNG_COUNTER`` of :mod:`tardis_envs.core.state`). A draw hashes
``(key, counter)`` and increments the counter, so:

* copying the state copies the future dice exactly (search, ``set_state``);
* two games never share a stream unless they share a key;
* no global generator (numba's ``np.random``) is ever touched.

The hash is SplitMix64's finaliser applied twice with the key folded in between,
which passes the usual equidistribution checks for the short streams a game uses.
Integer draws below ``n`` use rejection sampling, so every outcome is exactly
equally likely (tests enumerate chance tables and rely on that).
"""

from __future__ import annotations

import numpy as np

from .jit import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S63 = np.uint64(63)
_S1 = np.uint64(1)
KEY_MASK = (1 << 63) - 1  # keys are kept non-negative so they fit int64 state slots


@njit
def _finalise(z):
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit
def hash_words(key, counter):
    """The generator's output for ``(key, counter)`` as a uint64."""
    k = np.uint64(key)
    z = _finalise(np.uint64(counter) * _GOLDEN + k)
    return _finalise(z ^ (k * _GOLDEN + _GOLDEN))


@njit
def rng_next(state, at):
    """Next uint64 of the generator stored at ``state[at:at+2]`` (key, counter)."""
    out = hash_words(state[at], state[at + 1])
    state[at + 1] += 1
    return out


@njit
def rng_bit(state, at):
    """One fair coin: 0 or 1."""
    return np.int64(rng_next(state, at) >> _S63)


@njit
def rng_below(state, at, n):
    """A uniform integer in ``[0, n)``, exactly (rejection, no modulo bias)."""
    span = np.uint64(n)
    top = np.uint64(0x7FFFFFFFFFFFFFFF)
    limit = top - (top % span)  # largest multiple of n that fits 63 bits
    while True:
        x = rng_next(state, at) >> _S1
        if x < limit:
            return np.int64(x % span)


@njit
def rng_shuffle(state, at, items, n):
    """Fisher–Yates shuffle of ``items[:n]`` in place."""
    for i in range(n - 1, 0, -1):
        j = rng_below(state, at, i + 1)
        tmp = items[i]
        items[i] = items[j]
        items[j] = tmp


@njit
def rng_new_key(state, at):
    """A fresh key drawn from this generator (used when a batch game auto-resets)."""
    return np.int64(rng_next(state, at) >> _S1)


def seed_to_key(seed: int | None) -> int:
    """Turn a user seed into a generator key (fresh entropy when ``seed`` is None).

    ``SeedSequence`` spreads nearby seeds (0, 1, 2, ...) over unrelated keys.
    """
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be a non-negative int or None, got {seed!r}")
        seed = int(seed)
    words = np.random.SeedSequence(seed).generate_state(2, np.uint64)
    return int(words[0]) & KEY_MASK
