"""tardis_envs.core.masks: eight mask entries stored as the bytes of one word; the observation
writers of tardis_envs.core.observation that build on it and on words of bits."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from tardis_envs.core.masks import store_entries
from tardis_envs.core.observation import (
    PLANE_BITS,
    PLANE_CONSTANT,
    PLANE_ONE_ENTRY,
    fill,
    mark,
    mark_bits,
    put_entries,
    put_one,
    unpack_planes,
)
from tardis_envs.core.sampling import compiles_for_fast_pext, extract_bits, reversed_bytes
from tardis_envs.games.chess.observe import gather_nibble_bits, nibble_bits


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


# --- the plane writers (mark, mark_bits, fill, put_one): every dtype from one kernel ------------
@njit
def _write_planes(out, bits, numerator, square):
    mark(out, 0, 63)
    mark(out, 0, 5)
    mark_bits(out, 1, bits)
    fill(out, 2, numerator, 6)
    put_one(out, 3, square, 7, 10)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.float32, np.int64])
def test_plane_writers_write_entries_or_packed_words(dtype):
    """Into an int64 observation the writers put one word a plane (packed), into any other
    dtype the plane's 64 entries; unpacking the words gives the float32 planes exactly."""
    bits = np.uint64((1 << 63) | (1 << 9) | 1)
    out = np.zeros(4 * 64, dtype=dtype)
    _write_planes(out, bits, -4, 17)
    float_planes = np.zeros(4 * 64, dtype=np.float32)
    _write_planes(float_planes, bits, -4, 17)
    expected = np.zeros((4, 64), dtype=np.float32)
    expected[0, [5, 63]] = 1
    expected[1, [0, 9, 63]] = 1
    expected[2, :] = np.float32(-4 / 6)
    expected[3, 17] = np.float32(7 / 10)
    assert np.array_equal(float_planes.reshape(4, 64), expected)
    if dtype is np.int64:
        kinds = np.array([PLANE_BITS, PLANE_BITS, PLANE_CONSTANT, PLANE_ONE_ENTRY])
        assert out[0] == np.int64(-(1 << 63)) | (1 << 5) and out[2] == -4 and out[3] == (7 << 6) | 17
        assert np.array_equal(unpack_planes(out[:4], kinds, np.array([1, 1, 6, 10])).reshape(4, 64), expected)
    elif dtype is not np.float32:
        numerators = np.round(expected * np.array([1, 1, 6, 10])[:, None]).astype(dtype)
        assert np.array_equal(out.reshape(4, 64), numerators)


@njit
def _reversed(word):
    return reversed_bytes(word)


def test_reversed_bytes_mirrors_ranks():
    rng = np.random.default_rng(0)
    for word in [0, 1, 0xFF, 1 << 63, *rng.integers(0, 2**63, 200, dtype=np.uint64).tolist()]:
        flipped = int(_reversed(np.uint64(word)))
        assert flipped == int.from_bytes(int(word).to_bytes(8, "little"), "big")
        # square sq -> sq ^ 56 (rank r -> 7 - r, same file)
        assert all(((flipped >> (sq ^ 56)) & 1) == ((int(word) >> sq) & 1) for sq in range(64))


@njit
def _extract(word, selector):
    return extract_bits(word, selector)


@njit
def _nibbles(word, bit):
    return nibble_bits(word, bit), gather_nibble_bits(word >> np.uint64(bit))


def test_extract_bits_and_the_nibble_gather_against_python():
    """``extract_bits`` (BMI2's pext, where ``compiles_for_fast_pext``) and Dr. Who Chess's
    ``nibble_bits``, which uses it there and shifts and masks (``gather_nibble_bits``)
    elsewhere: both forms give the Python answer."""
    rng = np.random.default_rng(1)
    words = [0, 2**64 - 1, 0x1111111111111111, *rng.integers(0, 2**64 - 1, 300, dtype=np.uint64, endpoint=True).tolist()]
    for word in words:
        for bit in range(4):
            expected = sum(((int(word) >> (4 * j + bit)) & 1) << j for j in range(16))
            assert tuple(int(v) for v in _nibbles(np.uint64(word), bit)) == (expected, expected)
    if not compiles_for_fast_pext():
        pytest.skip("no fast pext on this processor: extract_bits is not compiled here")
    for word, selector in zip(words, reversed(words)):
        chosen = [k for k in range(64) if (int(selector) >> k) & 1]
        expected = sum(((int(word) >> k) & 1) << j for j, k in enumerate(chosen))
        assert int(_extract(np.uint64(word), np.uint64(selector))) == expected
