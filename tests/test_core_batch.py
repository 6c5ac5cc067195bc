"""Shared batch machinery: prefetching a game's rows, the one-row legal pick."""

import numba
import numpy as np
import pytest

from tardis_envs.core.batch import PREFETCH_STATE_BYTES, prefetch_row, prefetch_state
from tardis_envs.core.rng import hash_words
from tardis_envs.core.sampling import BLOCK, count_legal, hashed_legal, nth_legal, nth_set_bit, popcount, sample_legal, tail_bits


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


@numba.njit
def _popcount(word):
    return popcount(word)


def test_popcount_and_nth_set_bit_against_python():
    rng = np.random.default_rng(3)
    words = [0, 1, 2**63, 2**64 - 1, 0x5555555555555555] + [int(w) for w in rng.integers(0, 2**63, 300, dtype=np.int64)]
    words += [w | (1 << 63) for w in words[5:50]] + [1 << k for k in range(64)]
    for word in words:
        positions = [k for k in range(64) if (word >> k) & 1]
        assert _popcount(np.uint64(word)) == len(positions)
        assert [nth_set_bit(np.uint64(word), n) for n in range(len(positions))] == positions


@pytest.mark.parametrize("num_actions", [1, 11, BLOCK - 1, BLOCK, BLOCK + 1, 256, 421, 4773])
def test_the_legal_pick_is_the_pick_th_legal_action_for_every_mask_size(num_actions):
    """The pick reads masks a block of 64 at a time and a shorter tail bit by bit:
    every size, density and value (any nonzero entry is legal) gives the ``pick``-th
    legal action in index order, and :func:`hashed_legal` draws exactly the action
    its documented formula names (the random opponents' moves do not depend on how
    the mask is read)."""
    rng = np.random.default_rng(num_actions)
    for density in (0.0, 0.02, 0.3, 1.0):
        for _ in range(5):
            mask = ((rng.random(num_actions) < density) * rng.integers(1, 4, num_actions)).astype(np.int8)
            legal = list(np.flatnonzero(mask))
            assert count_legal(mask) == len(legal)
            assert [nth_legal(mask, k) for k in range(len(legal) + 2)] == legal + [-1, -1]
            for counter in range(8):
                if not legal:
                    assert hashed_legal(mask, 5, counter) == -1
                    continue
                pick = int((hash_words(5, counter) >> np.uint64(11)) % np.uint64(len(legal)))
                assert hashed_legal(mask, 5, counter) == legal[pick]


@numba.njit
def _tail_bits(mask, start):
    return tail_bits(mask, start)


def test_the_tail_of_a_mask_is_read_as_bits_for_every_length_and_dtype():
    """The last ``size - start < 64`` entries of a mask as one word of bits (a masked load
    on processors with AVX-512BW, entry by entry elsewhere), against Python: every tail
    length from 0 to 63, int8 and uint8 rows ending where the buffer ends (a load that
    read past the end would read another row's entries or fault), and a bool mask."""
    rng = np.random.default_rng(5)
    for size in (1, 11, 37, BLOCK - 1, BLOCK + 37, 2 * BLOCK):
        for dtype in (np.int8, np.uint8, np.bool_):
            masks = ((rng.random((4, size)) < 0.5) * rng.integers(1, 3, (4, size))).astype(dtype)
            masks[-1, -1] = 1  # the buffer's last byte is legal: the last row's tail must see it
            for row in masks:
                for start in range(max(size - BLOCK + 1, 0), size + 1):
                    want = sum(1 << (a - start) for a in range(start, size) if row[a])
                    assert int(_tail_bits(row, start)) == want, (size, dtype, start)
    # a row of 11 followed by a poisoned byte that a wider load would count
    buffer = np.zeros(12, dtype=np.int8)
    buffer[:11] = (np.arange(11) % 3 == 0).astype(np.int8)
    buffer[11] = 1
    assert int(_tail_bits(buffer[:11], 0)) == sum(1 << a for a in range(11) if a % 3 == 0)


def test_the_legal_pick_reads_masks_of_any_dtype_and_layout():
    """The kernels' masks are contiguous int8 rows (read 64 at a time with a vector
    compare); a caller's bool, wider or strided masks take the entry-by-entry path and
    give the same picks."""
    rng = np.random.default_rng(11)
    base = (rng.random((6, 300)) < 0.2).astype(np.int8)
    expected = [[nth_legal(row, k) for k in range(12)] for row in base]
    for masks in (base.astype(np.bool_), base.astype(np.int32), np.asfortranarray(base), base.T.copy().T):
        for row, want in zip(masks, expected):
            assert [nth_legal(row, k) for k in range(12)] == want
    strided = np.zeros((6, 600), dtype=np.int8)
    strided[:, ::2] = base
    for row, want in zip(strided[:, ::2], expected):
        assert [nth_legal(row, k) for k in range(12)] == want
    out = np.zeros(6, dtype=np.int64)
    sample_legal(base.astype(np.bool_), 3, 1, out)
    picks = np.zeros(6, dtype=np.int64)
    sample_legal(base, 3, 1, picks)
    assert np.array_equal(out, picks)
