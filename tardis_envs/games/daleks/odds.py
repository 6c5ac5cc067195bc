"""Exact odds that story dice meet a Challenge, by dynamic programming over the dice.

A roll meets a Challenge when, for every symbol, at least as many dice show it as the
Challenge asks (each die shows one symbol, so matching dice to symbols is a matter of
counts). :func:`meet_probability` carries the distribution of the counts, each capped
at what the Challenge needs (a mixed-radix index of at most a few hundred states),
through the dice one at a time: exact, and cheap enough for a heuristic to call it for
every action it weighs. ``tests/daleks/test_odds.py`` checks it against brute force.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit_alloc
from .content import DIE_FACES, NUM_COLOURS, NUM_SYMBOLS


@njit_alloc
def meet_probability(fixed, roll, need):
    """P(the dice meet ``need``): ``fixed[s]`` dice already show symbol ``s`` and
    ``roll[c]`` dice of colour ``c`` are rolled (``need`` and ``fixed``: int64[6];
    ``roll``: int64[4])."""
    stride = np.empty(NUM_SYMBOLS, dtype=np.int64)
    size = 1
    for s in range(NUM_SYMBOLS):
        stride[s] = size
        size *= need[s] + 1
    start = 0
    for s in range(NUM_SYMBOLS):
        start += min(fixed[s], need[s]) * stride[s]
    full = size - 1
    if start == full:
        return 1.0
    dist = np.zeros(size)
    nxt = np.zeros(size)
    dist[start] = 1.0
    for c in range(NUM_COLOURS):
        for _ in range(roll[c]):
            nxt[:] = 0.0
            for idx in range(size):
                p = dist[idx]
                if p == 0.0:
                    continue
                p6 = p / 6.0
                for f in range(6):
                    sym = DIE_FACES[c, f]
                    digit = (idx // stride[sym]) % (need[sym] + 1)
                    if digit < need[sym]:
                        nxt[idx + stride[sym]] += p6
                    else:
                        nxt[idx] += p6
            for idx in range(size):
                dist[idx] = nxt[idx]
    return dist[full]


@njit_alloc
def pool_probability(counts, need):
    """P(rolling ``counts[c]`` dice of each colour meets ``need``)."""
    fixed = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    return meet_probability(fixed, counts, need)
