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

Bit-packed planes (``obs_dtype="packed"``)
------------------------------------------
A game whose observation is planes of 64 entries (Dr. Who Chess: 8 x 8 squares)
can also write each plane as one ``int64`` word, 64 times fewer bytes than
``float32`` and 16 to 32 times fewer than ``compact``. What a word holds depends
on its plane's kind (``Game.packed_plane_kinds``), each entry still
``numerator / denominator`` with the plane's denominator:

==================  ==================================================================
``PLANE_BITS``      the plane's 64 entries as bits, entry ``k`` = bit ``k``
                    (0 or 1; square 63 is the sign bit)
``PLANE_CONSTANT``  the numerator that every entry of the plane holds
``PLANE_ONE_ENTRY`` ``numerator * 64 + k``: entry ``k`` holds the numerator, the
                    others 0 (a word of 0 is an all-zero plane)
==================  ==================================================================

:func:`unpack_planes` (numpy) gives the ``float32`` observation from the words
bit for bit; ``agents/training/rllib_backend.py`` does the same in torch. In
numpy, ``np.unpackbits(words.view(np.uint8), bitorder="little")`` reads the bit
planes of a little-endian machine.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload

from .masks import store_entries
from .sampling import lowest_bit

# obs_dtype values every env, the batched API and training accept ("packed": only games with packed planes)
OBS_DTYPES = ("float32", "compact", "uint8", "int8", "uint16", "int16", "packed")
PACKED_DTYPE = np.dtype(np.int64)  # the dtype of a packed observation's words: no other obs_dtype is int64
PLANE_BITS = 0
PLANE_CONSTANT = 1
PLANE_ONE_ENTRY = 2
PLANE_ENTRIES = 64
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


# --- writing planes of 64 entries: the same observe kernel writes every dtype ----------------
# Into an int64 ``out`` (packed, one word a plane) these write words; into any other dtype the
# plane's 64 entries. numba picks the writer when it compiles the kernel for ``out``'s dtype.


def mark(out, plane, entry):  # pragma: no cover - replaced in numba by the overload below
    """Entry ``entry`` of plane ``plane`` is 1 (a ``PLANE_BITS`` plane)."""
    if out.dtype == PACKED_DTYPE:
        out[plane] |= np.int64(1) << np.int64(entry)
    else:
        out[plane * PLANE_ENTRIES + entry] = 1


@overload(mark)
def _mark(out, plane, entry):
    if out.dtype == types.int64:

        def set_bit(out, plane, entry):
            out[plane] |= np.int64(1) << np.int64(entry)

        return set_bit

    def set_entry(out, plane, entry):
        out[plane * PLANE_ENTRIES + entry] = 1

    return set_entry


def mark_bits(out, plane, bits):  # pragma: no cover - replaced in numba by the overload below
    """Entry ``k`` of plane ``plane`` is 1 for every bit ``k`` set in the ``uint64`` ``bits``."""
    if out.dtype == PACKED_DTYPE:
        out[plane] |= np.int64(bits)
    else:
        for entry in range(PLANE_ENTRIES):
            if (int(bits) >> entry) & 1:
                out[plane * PLANE_ENTRIES + entry] = 1


@overload(mark_bits)
def _mark_bits(out, plane, bits):
    if out.dtype == types.int64:

        def or_word(out, plane, bits):
            out[plane] |= np.int64(bits)

        return or_word

    def set_entries(out, plane, bits):
        while bits:
            out[plane * PLANE_ENTRIES + lowest_bit(bits)] = 1
            bits &= bits - np.uint64(1)

    return set_entries


def fill(out, plane, numerator, denominator):  # pragma: no cover - replaced in numba by the overload below
    """Every entry of plane ``plane`` holds ``numerator / denominator`` (a ``PLANE_CONSTANT`` plane)."""
    if out.dtype == PACKED_DTYPE:
        out[plane] = numerator
    else:
        for entry in range(PLANE_ENTRIES):
            put(out, plane * PLANE_ENTRIES + entry, numerator, denominator)


@overload(fill)
def _fill(out, plane, numerator, denominator):
    if out.dtype == types.int64:

        def constant_word(out, plane, numerator, denominator):
            out[plane] = numerator

        return constant_word

    def constant_entries(out, plane, numerator, denominator):
        put(out, slice(plane * PLANE_ENTRIES, (plane + 1) * PLANE_ENTRIES), numerator, denominator)

    return constant_entries


ONE_ENTRY_SHIFT = 6  # a PLANE_ONE_ENTRY word is numerator << 6 | entry


def put_one(out, plane, entry, numerator, denominator):  # pragma: no cover - replaced in numba by the overload below
    """Entry ``entry`` of plane ``plane`` holds ``numerator / denominator``, the plane's only
    nonzero entry (a ``PLANE_ONE_ENTRY`` plane)."""
    if out.dtype == PACKED_DTYPE:
        out[plane] = (numerator << ONE_ENTRY_SHIFT) | entry
    else:
        put(out, plane * PLANE_ENTRIES + entry, numerator, denominator)


@overload(put_one)
def _put_one(out, plane, entry, numerator, denominator):
    if out.dtype == types.int64:

        def entry_word(out, plane, entry, numerator, denominator):
            out[plane] = (np.int64(numerator) << ONE_ENTRY_SHIFT) | entry

        return entry_word

    def one_entry(out, plane, entry, numerator, denominator):
        put(out, plane * PLANE_ENTRIES + entry, numerator, denominator)

    return one_entry


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
    if name == PACKED_DTYPE.name:
        name = "packed"
    if name not in OBS_DTYPES:
        raise ValueError(f"{game.spec.env_id}: obs_dtype must be one of {list(OBS_DTYPES)}, got {obs_dtype!r}")
    if name == "float32":
        return np.dtype(np.float32)
    if name == "packed":
        if game.packed_plane_kinds is None:
            raise ValueError(
                f"{game.spec.env_id}: obs_dtype 'packed' is not available: {game.packed_unavailable_reason}; use 'compact' or 'float32'"
            )
        return PACKED_DTYPE
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


def is_packed(dtype) -> bool:
    """Whether observations of ``dtype`` (a resolved obs dtype, or the name ``"packed"``) are
    bit-packed planes."""
    if isinstance(dtype, str) and dtype in OBS_DTYPES:
        return dtype == "packed"
    return np.dtype(dtype) == PACKED_DTYPE


def unpack_planes(words: np.ndarray, kinds: np.ndarray, denominators: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Float observations ``float32[..., planes * 64]`` from packed ones ``int64[..., planes]``
    (one word a plane, read by the plane's kind in ``kinds``; ``denominators`` one a plane),
    bit for bit the float kernels' entries: ``numerator / denominator`` in float64, rounded
    to float32, as :func:`put` stores them. ``out``, if given, must be C-contiguous."""
    words = np.asarray(words, dtype=PACKED_DTYPE)
    lead = words.shape[:-1]
    planes = words.shape[-1]
    if out is None:
        out = np.empty((*lead, planes * PLANE_ENTRIES), dtype=np.float32)
    elif out.dtype != np.float32 or not out.flags.c_contiguous or out.size != words.size * PLANE_ENTRIES:
        raise ValueError(f"out must be a C-contiguous float32 array of {words.size * PLANE_ENTRIES} entries, got {out.dtype} {out.shape}")
    rows = words.reshape(-1, planes)
    grid = out.reshape(rows.shape[0], planes, PLANE_ENTRIES)  # a view: out is contiguous
    little = np.ascontiguousarray(rows, dtype="<i8").view(np.uint8).reshape(rows.shape[0], planes, 8)
    np.copyto(grid, np.unpackbits(little, axis=-1, bitorder="little"), casting="unsafe")
    constant = np.flatnonzero(kinds == PLANE_CONSTANT)
    grid[:, constant, :] = (rows[:, constant] / denominators[constant]).astype(np.float32)[..., None]
    for plane in np.flatnonzero(kinds == PLANE_ONE_ENTRY):
        word = rows[:, plane]
        grid[:, plane, :] = 0.0
        grid[np.arange(rows.shape[0]), plane, word & (PLANE_ENTRIES - 1)] = (word >> ONE_ENTRY_SHIFT) / denominators[plane]
    return out
