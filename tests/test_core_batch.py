"""Shared batch machinery: prefetching a game's rows, streaming rows out, the one-row legal pick."""

import numba
import numpy as np
import pytest

from tardis_envs import vector
from tardis_envs.core.batch import (
    PREFETCH_STATE_BYTES,
    STREAM_BATCH_BYTES,
    STREAM_ROW_BYTES,
    STREAM_SCRATCH_WORDS,
    prefetch_row,
    prefetch_state,
    stream_copy,
    streams_rows,
)
from tardis_envs.core.rng import hash_words
from tardis_envs.core.sampling import (
    BLOCK,
    count_legal,
    hashed_legal,
    lowest_bit,
    nth_legal,
    nth_set_bit,
    nth_set_bit_by_halves,
    popcount,
    sample_legal,
    tail_bits,
)
from tardis_envs.core.state import CURRENT_PLAYER


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


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.float32])
def test_a_streamed_copy_equals_the_source_at_every_alignment_and_length(dtype):
    """The non-temporal copy writes whole 64-byte lines only where the target is aligned
    to one: every start offset within a line and every length around line multiples
    (none, less than a line, a head, whole lines, a tail) copies exactly, touching no
    entry outside the target."""
    rng = np.random.default_rng(1)
    size = np.dtype(dtype).itemsize
    buffer = np.zeros(4096 // size, dtype=dtype)
    for offset in range(64 // size):
        for length in [0, 1, 7, 31, 32, 33, 63, 64, 65, 127, 128, 129, 300, 1000]:
            length = min(length, buffer.size - offset - 1)
            buffer[:] = -1 if dtype != np.uint8 else 255
            before = buffer.copy()
            source = rng.integers(0, 100, length).astype(dtype)
            stream_copy(source, buffer[offset : offset + length])
            assert np.array_equal(buffer[offset : offset + length], source), (offset, length)
            assert np.array_equal(buffer[:offset], before[:offset])
            assert np.array_equal(buffer[offset + length :], before[offset + length :])


def test_rows_are_streamed_only_when_long_and_too_many_for_the_cache():
    row = STREAM_ROW_BYTES
    many = STREAM_BATCH_BYTES // row + 1
    assert streams_rows(np.zeros((many, row), np.int8), np.zeros((many, row), np.int8)) == 3
    assert streams_rows(np.zeros((many, row), np.int8), np.zeros((many, row - 1), np.int8)) == 1  # short rows
    assert streams_rows(np.zeros((many - 1, row), np.int8), np.zeros((many, row // 2), np.int16)) == 2  # a batch that fits
    assert streams_rows(np.zeros((many, row // 4), np.float32), np.zeros((1, 1), np.int8)) == 1
    assert streams_rows(np.zeros((8, STREAM_SCRATCH_WORDS * 8 + 1), np.int8), np.zeros((8, 1), np.int8)) == 0  # past the scratch
    assert streams_rows(np.zeros((many, 0), np.int8), np.zeros((many, 0), np.int8)) == 0  # no observations


def test_a_batch_of_streamed_rows_holds_what_the_kernels_write_directly():
    """Dr. Who Chess at 4,096 games streams both its observations and its masks; after
    random steps (with games ending and restarting) every row equals the game's own
    ``observe`` and ``legal_mask`` of that row's state, written straight into fresh arrays.
    Such a batch steps with the game's ``batch_step_streamed``, a small one with ``batch_step``.
    Compact observations, the dtype of self-play's large batches: the kernel is the same code
    for every dtype, and each dtype is a cold compile of its own (15 s here)."""
    num_envs = 4096
    small = vector.make("timelord_chess_v1", 64, seed=5)
    kernels = small.game.kernels
    assert small._batch_step_kernel is kernels.batch_step
    vec = vector.make("timelord_chess_v1", num_envs, seed=5, obs_dtype="compact", num_threads=2)
    assert streams_rows(vec._obs_flat, vec.masks) == 3
    assert vec._batch_step_kernel is kernels.batch_step_streamed
    vec.reset()
    actions = np.zeros(num_envs, dtype=np.int64)
    tables = vec.game.tables
    for counter in range(40):
        sample_legal(vec.masks, 5, counter, actions)
        vec.step(actions)
    for row in range(0, num_envs, 97):
        state = vec.states[row]
        mask = np.zeros_like(vec.masks[row])
        kernels.legal_mask(state.copy(), tables, mask)
        assert np.array_equal(vec.masks[row], mask), row
        obs = np.zeros_like(vec._obs_flat[row])
        kernels.observe(state.copy(), tables, int(state[CURRENT_PLAYER]), obs)
        assert np.array_equal(vec._obs_flat[row], obs), row
    for overload in kernels.batch_step_streamed.overloads.values():
        assert not overload.library.has_dynamic_globals, "batch_step_streamed cannot be cached"


def test_a_batch_on_two_threads_plays_the_games_one_thread_plays(env_id):
    """The suite runs kernels on one thread (conftest); a batch stepped on two, its games
    ending and restarting, holds the same states, observations, masks and rewards."""
    runs = []
    for threads in (1, 2):
        vec = vector.make(env_id, 64, seed=11, num_threads=threads)
        vec.reset()
        actions = np.zeros(vec.num_envs, dtype=np.int64)
        rewards = []
        for counter in range(150):
            sample_legal(vec.masks, 11, counter, actions)
            rewards.append(vec.step(actions)[3].copy())
        runs.append((vec.states.copy(), vec.obs.copy(), vec.masks.copy(), np.array(rewards)))
    restarted = runs[0][3].any(axis=(1, 2)).sum()
    assert restarted > 0, "no game ended: the restarts went untested"
    for one, two in zip(*runs):
        assert np.array_equal(one, two)


@numba.njit
def _lowest_bit(word):
    return lowest_bit(word)


def test_lowest_bit_against_python():
    for word in [1, 2, 3, 2**63, 2**64 - 1, 0x5555555555555550, 1 << 40 | 1 << 50]:
        assert _lowest_bit(np.uint64(word)) == (word & -word).bit_length() - 1


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
    """Both forms of ``nth_set_bit``: the one compiled here (``pdep`` where it is fast) and the
    binary search."""
    rng = np.random.default_rng(3)
    words = [0, 1, 2**63, 2**64 - 1, 0x5555555555555555] + [int(w) for w in rng.integers(0, 2**63, 300, dtype=np.int64)]
    words += [w | (1 << 63) for w in words[5:50]] + [1 << k for k in range(64)]
    for word in words:
        positions = [k for k in range(64) if (word >> k) & 1]
        assert _popcount(np.uint64(word)) == len(positions)
        assert [nth_set_bit(np.uint64(word), n) for n in range(len(positions))] == positions
        # the binary search that processors without a fast pdep run (nth_set_bit's other form)
        assert [nth_set_bit_by_halves(np.uint64(word), n) for n in range(len(positions))] == positions


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
        for row, want, counted in zip(masks, expected, base):
            assert [nth_legal(row, k) for k in range(12)] == want
            assert count_legal(row) == np.count_nonzero(counted)
    strided = np.zeros((6, 600), dtype=np.int8)
    strided[:, ::2] = base
    for row, want, counted in zip(strided[:, ::2], expected, base):
        assert [nth_legal(row, k) for k in range(12)] == want
        assert count_legal(row) == np.count_nonzero(counted)
    out = np.zeros(6, dtype=np.int64)
    sample_legal(base.astype(np.bool_), 3, 1, out)
    picks = np.zeros(6, dtype=np.int64)
    sample_legal(base, 3, 1, picks)
    assert np.array_equal(out, picks)
