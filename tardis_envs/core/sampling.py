"""Uniform random legal actions for many games at once, inside numba.

Choosing actions in numpy (``argmax`` of random scores over an ``N x A``
mask) costs more than a game step for games with hundreds of actions, so
batched random play (benchmarks, random opponents in self-play) draws them
here: one counter-based hash per row and call, no Python loop.
"""

from __future__ import annotations

import numpy as np

from .jit import njit_parallel, prange
from .rng import hash_words


@njit_parallel
def sample_legal(masks, key, counter, out):
    """``out[i]``: a uniformly random index with ``masks[i] != 0`` (-1 if none)."""
    for i in prange(masks.shape[0]):
        count = 0
        for a in range(masks.shape[1]):
            if masks[i, a]:
                count += 1
        if count == 0:
            out[i] = -1
            continue
        pick = np.int64((hash_words(key, counter * masks.shape[0] + i) >> np.uint64(11)) % np.uint64(count))
        for a in range(masks.shape[1]):
            if masks[i, a]:
                if pick == 0:
                    out[i] = a
                    break
                pick -= 1


@njit_parallel
def first_illegal(masks, actions):
    """Index of the first row whose action is out of range or not legal, else -1."""
    bad = masks.shape[0]
    for i in prange(masks.shape[0]):
        a = actions[i]
        if a < 0 or a >= masks.shape[1] or masks[i, a] == 0:
            bad = min(bad, i)
    return -1 if bad == masks.shape[0] else bad
