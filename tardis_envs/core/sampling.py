"""Uniform random legal actions for many games at once, inside numba.

Choosing actions in numpy (``argmax`` of random scores over an ``N x A``
mask) costs more than a game step for games with hundreds of actions, so
batched random play (benchmarks, random opponents in self-play) draws them
here: one counter-based hash per row and call, no Python loop.
"""

from __future__ import annotations

import numpy as np

from .jit import njit, njit_parallel, njit_parallel_alloc, prange
from .rng import hash_words

# Actions per block when looking for the chosen action: a block's legal count is a
# fixed-length sum the compiler vectorises, so only the block holding the pick is
# scanned action by action (chess has 4,773 actions and about 35 legal ones).
BLOCK = 64


@njit
def count_legal(mask):
    """Number of nonzero entries of one game's ``mask`` (a fixed-length loop the compiler
    vectorises)."""
    count = 0
    for a in range(mask.shape[0]):
        count += np.int64(mask[a] != 0)
    return count


@njit
def nth_legal(mask, pick):
    """Index of the ``pick``-th (from 0) nonzero entry of ``mask``, -1 past the last:
    whole ``BLOCK``s are skipped by their legal counts, then one block is scanned."""
    num_actions = mask.shape[0]
    whole_blocks = num_actions // BLOCK * BLOCK
    start = 0
    while start < whole_blocks:
        in_block = 0
        for a in range(BLOCK):
            in_block += np.int64(mask[start + a] != 0)
        if pick < in_block:
            break
        pick -= in_block
        start += BLOCK
    for a in range(start, num_actions):
        if mask[a] != 0:
            if pick == 0:
                return a
            pick -= 1
    return -1


@njit
def hashed_legal(mask, key, counter):
    """A uniformly random index with ``mask != 0`` (-1 if none): the ``pick``-th legal
    action in index order, ``pick`` hashed from ``key`` and ``counter``."""
    count = count_legal(mask)
    if count == 0:
        return -1
    return nth_legal(mask, np.int64((hash_words(key, counter) >> np.uint64(11)) % np.uint64(count)))


@njit_parallel
def sample_legal(masks, key, counter, out):
    """``out[i]``: :func:`hashed_legal` of row ``i`` with counter ``counter * rows + i``."""
    for i in prange(masks.shape[0]):
        out[i] = hashed_legal(masks[i], key, counter * masks.shape[0] + i)


@njit_parallel_alloc
def first_illegal(masks, actions):
    """Index of the first row whose action is out of range or not legal, else -1."""
    bad = masks.shape[0]
    for i in prange(masks.shape[0]):
        a = actions[i]
        if a < 0 or a >= masks.shape[1] or masks[i, a] == 0:
            bad = min(bad, i)
    return -1 if bad == masks.shape[0] else bad
