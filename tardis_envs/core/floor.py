"""The machine's floors for batched game stepping.

The step floor is a trivial race game in numba: each game is one counter that
moves 1..3 squares a step and restarts past square 100; the step kernel has the
same batched shape as a real game's (state rows, an action per row, a legal
mask and an observation written back, auto-reset), so its steps per second
bound what any game can reach here.

The memory floor is the rate at which the same threads copy a large array
(:func:`memory_copy`): a batch whose rows do not fit in the cores' caches moves
each game's state, observation and mask through memory at no more than that.
"""

from __future__ import annotations

import numpy as np

from .jit import njit_parallel, prange

FLOOR_ACTIONS = 3


@njit_parallel
def floor_step(positions, actions, obs, masks, done):
    for i in prange(positions.shape[0]):
        positions[i] += actions[i] + 1
        done[i] = positions[i] >= 100
        if done[i]:
            positions[i] = 0
        obs[i, 0] = positions[i] / 100.0
        for a in range(FLOOR_ACTIONS):
            masks[i, a] = 1


def make_floor(num_envs: int):
    positions = np.zeros(num_envs, dtype=np.int64)
    obs = np.zeros((num_envs, 1), dtype=np.float32)
    masks = np.ones((num_envs, FLOOR_ACTIONS), dtype=np.int8)
    done = np.zeros(num_envs, dtype=np.bool_)
    return positions, obs, masks, done


@njit_parallel
def memory_copy(source, target):
    """``target[:] = source`` over the threads (both 1-D, equal length)."""
    for i in prange(source.shape[0]):
        target[i] = source[i]
