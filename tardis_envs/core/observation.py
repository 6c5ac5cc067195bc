"""Observations in ``float32`` or in a compact integer dtype that carries the same values.

Every observation entry is a fraction ``numerator / denominator`` with a small
integer numerator and a denominator fixed per entry (by the layout and the
game's tables): a one-hot plane is ``1 / 1``, a hand of three cards out of four
is ``3 / 4``. Observe kernels write an entry with :func:`put` (or a plain store
when the denominator is 1), and numba compiles each kernel once per output
dtype: into a float array :func:`put` stores the fraction, into an integer
array it stores the numerator. The compact observation is therefore the
numerators, and ``compact / denominators`` (float32 division, see
:func:`to_float32`) is the float observation bit for bit: a float32 division of
two small integers is correctly rounded, as is the float64 division rounded to
float32 that the float kernels do (an exact quotient of integers below 2**24
cannot fall within 2**-53 of a float32 rounding boundary).

``Game.observation_denominators`` gives each game's table of denominators,
``Game.compact_dtype`` the smallest integer dtype holding every numerator, and
tests/test_observation_dtype.py checks both over random playouts of every game.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload

from .masks import store_entries

# obs_dtype values every env, the batched API and training accept
OBS_DTYPES = ("float32", "compact", "uint8", "int8", "uint16", "int16")
_INTEGER_DTYPES = (np.uint8, np.int8, np.uint16, np.int16)


def put(out, index, numerator, denominator):  # pragma: no cover - replaced in numba by the overload below
    """``out[index] = numerator / denominator`` for a float ``out``, ``numerator`` for an integer one."""
    if np.issubdtype(out.dtype, np.floating):
        out[index] = numerator / denominator
    else:
        out[index] = numerator


@overload(put)
def _put(out, index, numerator, denominator):
    if isinstance(out.dtype, types.Float):

        def put_fraction(out, index, numerator, denominator):
            out[index] = numerator / denominator

        return put_fraction

    def put_numerator(out, index, numerator, denominator):
        out[index] = numerator

    return put_numerator


def put_entries(out, start, word, denominator):  # pragma: no cover - replaced in numba by the overload below
    """:func:`put` of the eight entries ``start .. start + 7``, whose numerators are the bytes
    of ``word`` (a ``uint64``: byte ``k`` is entry ``start + k``'s numerator, 0..127), all
    over ``denominator``. Into a contiguous ``int8``/``uint8`` observation that is one word
    store (:func:`~tardis_envs.core.masks.store_entries`); a game keeps such words in its
    tables for entries that depend on its content only (the duel's Aspects of a character
    in a scene)."""
    for k in range(8):
        put(out, start + k, (int(word) >> (8 * k)) & 0xFF, denominator)


@overload(put_entries)
def _put_entries(out, start, word, denominator):
    if isinstance(out.dtype, types.Float):

        def fractions(out, start, word, denominator):
            for k in range(8):
                out[start + k] = np.int64((word >> np.uint64(8 * k)) & np.uint64(0xFF)) / denominator

        return fractions

    def numerators(out, start, word, denominator):
        store_entries(out, start, word)

    return numerators


def compact_dtype_for(low: int, high: int) -> np.dtype:
    """The smallest of uint8, int8, uint16, int16 holding every integer in ``low..high``."""
    for dtype in _INTEGER_DTYPES:
        info = np.iinfo(dtype)
        if info.min <= low and high <= info.max:
            return np.dtype(dtype)
    raise ValueError(f"observation numerators span {low}..{high}: no 8- or 16-bit integer dtype holds them")


def resolve_obs_dtype(game, obs_dtype) -> np.dtype:
    """The numpy dtype that ``obs_dtype`` names for ``game``; a clear error otherwise.

    ``"float32"`` (the default everywhere) gives the fractions; ``"compact"`` the
    game's :attr:`compact_dtype`; an integer dtype name is accepted when it holds
    every numerator of the game."""
    name = obs_dtype.name if isinstance(obs_dtype, np.dtype) else obs_dtype
    if name not in OBS_DTYPES:
        raise ValueError(f"{game.spec.env_id}: obs_dtype must be one of {list(OBS_DTYPES)}, got {obs_dtype!r}")
    if name == "float32":
        return np.dtype(np.float32)
    compact = game.compact_dtype
    if name == "compact":
        return compact
    dtype = np.dtype(name)
    low, high = game.observation_numerator_bounds
    info = np.iinfo(dtype)
    if low < info.min or high > info.max:
        raise ValueError(
            f"{game.spec.env_id}: obs_dtype {name!r} cannot hold this game's observation numerators "
            f"({low}..{high}); use 'compact' ({compact.name}) or 'float32'"
        )
    return dtype


def to_float32(observations: np.ndarray, denominators: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Float observations from compact ones: ``observations / denominators`` in float32
    (``denominators`` has the shape of one observation; leading batch axes broadcast)."""
    return np.divide(observations, denominators, out=out, dtype=np.float32, casting="unsafe")
