"""Per-game bodies of the batched API, shared by every game.

numba cannot cache a kernel that receives another kernel as an argument at the
top level, nor a closure built by a factory, but it can cache a kernel that
passes *global* kernels to a shared jitted body. So each game writes a
three-line ``prange`` loop (``batch_reset``/``batch_step`` in its
``rules.py``) and everything else lives here once.
"""
from __future__ import annotations

from .jit import njit
from .rng import rng_new_key
from .state import CURRENT_PLAYER, REWARDS, RNG_KEY, RUNNING, STATUS, TERMINATED, TRUNCATED


@njit
def reset_one(init, legal_mask, observe, state, tables, key, obs, mask):
    """Start a new game with generator key ``key`` and write the mover's view."""
    state[:] = 0
    state[RNG_KEY] = key
    init(state, tables)
    legal_mask(state, tables, mask)
    observe(state, tables, state[CURRENT_PLAYER], obs)


@njit
def step_one(init, step, legal_mask, observe, state, tables, action, obs, mask, rewards, done):
    """Play ``action``; on a finished game start the next one (auto-reset).

    ``rewards[p]`` receives each seat's reward of this step; ``done[0]`` is
    terminated and ``done[1]`` truncated. The next game's key is drawn from the
    finished game's generator, so a batch is reproducible from its seed alone.
    """
    step(state, tables, action)
    for p in range(rewards.shape[0]):
        rewards[p] = state[REWARDS + p]
    status = state[STATUS]
    done[0] = status == TERMINATED
    done[1] = status == TRUNCATED
    if status != RUNNING:
        reset_one(init, legal_mask, observe, state, tables, rng_new_key(state, RNG_KEY), obs, mask)
    else:
        legal_mask(state, tables, mask)
        observe(state, tables, state[CURRENT_PLAYER], obs)
