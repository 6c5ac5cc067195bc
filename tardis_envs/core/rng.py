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

Every chance event of every game is one of three draws: :func:`rng_below` (a
uniform outcome in ``[0, n)``; a shuffle is a sequence of them, one per
Fisher–Yates step), :func:`rng_bit` (a fair coin) and :func:`rng_ppm` (a coin
that comes up 1 with probability ``ppm / 1,000,000``). That is what makes
explicit chance (:mod:`tardis_envs.core.chance`) possible without touching a
game's rules: when the state's ``CHANCE_TAPE`` word is non-zero, each draw
still advances the generator exactly as it would have, then takes its outcome
from the tape if one is written there for it, and records what it drew and the
shape of the chance event (``n``, or ``-ppm`` for a biased coin). The word is 0
in every stored state, so the sampled path costs one load and one branch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .jit import njit, njit_inline, stack_empty
from .state import CHANCE_TAPE

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S63 = np.uint64(63)
_S1 = np.uint64(1)
KEY_MASK = (1 << 63) - 1  # keys are kept non-negative so they fit int64 state slots
_TOP = (1 << 63) - 1  # the largest draw: a draw is the hash's top 63 bits


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


# Layout of the chance tape at ``state[state[CHANCE_TAPE]:]`` (see core/chance.py).
TAPE_FORCED = 0  # outcomes written by the caller, taken by the first draws
TAPE_TAKEN = 1  # draws made so far in this replay
TAPE_CAPACITY = 2  # draws the tape can record
TAPE_HEADER = 3  # then CAPACITY outcome words, then CAPACITY shape words
PPM = 1_000_000


@njit
def _tape(state, shape, drawn):
    """The outcome of a draw of ``shape`` while a chance tape is attached: the
    forced one if the caller wrote it, else the generator's ``drawn``; recorded."""
    t = state[CHANCE_TAPE]
    i = state[t + TAPE_TAKEN]
    capacity = state[t + TAPE_CAPACITY]
    outcome = drawn
    if i < capacity:
        if i < state[t + TAPE_FORCED]:
            outcome = state[t + TAPE_HEADER + i]
        state[t + TAPE_HEADER + i] = outcome
        state[t + TAPE_HEADER + capacity + i] = shape
    state[t + TAPE_TAKEN] = i + 1
    return outcome


@njit
def rng_bit(state, at):
    """One fair coin: 0 or 1."""
    bit = np.int64(rng_next(state, at) >> _S63)
    if state[CHANCE_TAPE] != 0:
        bit = _tape(state, 2, bit)
    return bit


@njit
def rng_ppm(state, at, ppm):
    """A biased coin: 1 with probability ``ppm`` in a million (exactly), else 0."""
    hit = np.int64(1) if _below(state, at, PPM) < ppm else np.int64(0)
    if state[CHANCE_TAPE] != 0:
        hit = _tape(state, -ppm, hit)
    return hit


@njit
def rng_below(state, at, n):
    """A uniform integer in ``[0, n)``, exactly (rejection, no modulo bias)."""
    x = _below(state, at, n)
    if state[CHANCE_TAPE] != 0:
        x = _tape(state, n, x)
    return x


@njit
def _below(state, at, n):
    span = np.uint64(n)
    top = np.uint64(_TOP)
    limit = top - (top % span)  # largest multiple of n that fits 63 bits
    while True:
        x = rng_next(state, at) >> _S1
        if x < limit:
            return np.int64(x % span)


# A shuffle of up to ``SHUFFLE_AT_ONCE`` items makes its draws at once (``rng_shuffle``).
# Step ``k`` of a shuffle of ``n`` draws below ``n - k``; its bound's tables are read at
# ``SHUFFLE_AT_ONCE - n + k``, so consecutive steps read consecutive entries (vector loads).
SHUFFLE_AT_ONCE = 64
_SHUFFLE_MIN_AT_ONCE = 12  # below this, one draw after another is as fast
_STEP_BOUNDS = range(SHUFFLE_AT_ONCE, 1, -1)  # entry m: the bound SHUFFLE_AT_ONCE - m
_STEP_BOUND = np.array([float(bound) for bound in _STEP_BOUNDS], dtype=np.float64)
_STEP_INVERSE = np.array([1.0 / bound for bound in _STEP_BOUNDS], dtype=np.float64)
_STEP_LIMIT = np.array([_TOP - _TOP % bound for bound in _STEP_BOUNDS], dtype=np.uint64)  # as _below's
_LOW_WORD = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)


@njit
def _swap(items, i, j):
    tmp = items[i]
    items[i] = items[j]
    items[j] = tmp


@njit
def small_remainder(x, bound, inverse):
    """``x % n`` for ``x < 2**63`` and ``2 <= n <= SHUFFLE_AT_ONCE``, exactly, without a
    division: ``bound`` is ``float(n)``, ``inverse`` the double nearest ``1 / n``.

    In two steps of 32 bits: ``part``, the top half less a multiple of ``n`` (its remainder,
    or that plus ``n``), then the remainder of ``part * 2**32 + low``, a number below
    ``(n + 1) * 2**32 < 2**53`` that a double holds exactly. Each quotient is the floor of a
    double product within ``2**-19`` of the true quotient, whose fraction is a multiple of
    ``1 / n``: the floor is the true quotient, or one less when that quotient is whole, which
    leaves ``n`` (corrected to 0 in the second step; the first step's ``n`` is harmless).
    Vector units do this eight lanes at a time (AVX-512), where a 64-bit division is one at
    a time and takes 10-18 cycles.
    """
    high = np.float64(x >> _S32)
    part = high - np.floor(high * inverse) * bound
    whole = part * 4294967296.0 + np.float64(x & _LOW_WORD)
    rest = whole - np.floor(whole * inverse) * bound
    rest = rest - bound if rest >= bound else rest
    return np.int64(rest)


@njit_inline
def rng_shuffle(state, at, items, n):
    """Fisher–Yates shuffle of ``items[:n]`` in place: for ``i`` from ``n - 1`` down to 1,
        swap item ``i`` with item ``rng_below(i + 1)``.

        Those draws do not depend on one another: draw ``k`` reduces the hash of ``counter + k``
        (a draw below 64 is rejected about once in ``2**57``, and then every later draw takes the
        next counter). So a shuffle of 12 to ``SHUFFLE_AT_ONCE`` items makes all its draws first,
        in one loop the compiler vectorises (hashes eight at a time, each bound's remainder by
        :func:`small_remainder`), and swaps after: the draws and the counter are exactly those of
        one ``rng_below`` after another (a 36-card shuffle in a numba loop: 85 ns, against 190 ns
    drawn one after another). When one
        of them would be rejected, or a chance tape is attached, it makes them one after another.
        Inlined into each caller, so that a constant ``n`` (a deck's size) fixes the loops' counts.
    """
    if _SHUFFLE_MIN_AT_ONCE <= n <= SHUFFLE_AT_ONCE and state[CHANCE_TAPE] == 0:
        draws = stack_empty(SHUFFLE_AT_ONCE, np.int64)
        key = state[at]
        first = state[at + 1]
        rejected = np.uint64(0)
        for k in range(n - 1):
            step = SHUFFLE_AT_ONCE - n + k
            x = hash_words(key, first + k) >> _S1
            rejected |= np.uint64(x >= _STEP_LIMIT[step])
            draws[k] = small_remainder(x, _STEP_BOUND[step], _STEP_INVERSE[step])
        if rejected == 0:
            state[at + 1] = first + n - 1
            for k in range(n - 1):
                _swap(items, n - 1 - k, draws[k])
            return
    for i in range(n - 1, 0, -1):
        _swap(items, i, rng_below(state, at, i + 1))


@njit
def rng_new_key(state, at):
    """A fresh key drawn from this generator (used when a batch game auto-resets)."""
    return np.int64(rng_next(state, at) >> _S1)


def check_seed(seed: Any) -> int | None:
    """``seed`` as a Python int (numpy integers accepted), or None; a ``ValueError``
    for anything else (bools, floats, negatives)."""
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int or None, got {seed!r}")
    return int(seed)


def seed_to_key(seed: int | None) -> int:
    """Turn a user seed into a generator key (fresh entropy when ``seed`` is None).

    ``SeedSequence`` spreads nearby seeds (0, 1, 2, ...) over unrelated keys.
    """
    words = np.random.SeedSequence(check_seed(seed)).generate_state(2, np.uint64)
    return int(words[0]) & KEY_MASK
