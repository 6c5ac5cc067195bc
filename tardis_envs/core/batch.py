"""Per-game bodies of the batched API, shared by every game.

numba cannot cache a kernel that receives another kernel as an argument at the
top level, nor a closure built by a factory, nor a body that forwards a kernel
argument one call further; it can cache a kernel that passes *global* kernels
to a shared jitted body directly (the body itself is compiled into each game's
cached kernel, never cached alone: see ``njit_shared_body``). So each game writes a short ``prange`` loop
(``batch_reset``/``batch_step`` in its ``batch.py``) calling these bodies with
its kernels named as module attributes (``rules.step``: a bare global name in
a ``prange`` body makes numba refuse the cache), and everything else lives
here once.
"""

from __future__ import annotations

from .jit import njit, njit_shared_body
from .rng import rng_new_key
from .state import CURRENT_PLAYER, REWARDS, RNG_KEY, RUNNING, STATUS, TERMINATED, TRUNCATED, VARIANT


@njit_shared_body
def reset_one(init, legal_mask, observe, state, tables, key, obs, mask, observe_seats):
    """Start a new game with generator key ``key`` and write the mover's view
    (the observation only when ``observe_seats[mover]``: rows whose mover is a
    random or heuristic agent need none)."""
    variant = state[VARIANT]  # the batch's rule options: kept across games
    state[:] = 0
    state[VARIANT] = variant
    state[RNG_KEY] = key
    init(state, tables)
    legal_mask(state, tables, mask)
    if observe_seats[state[CURRENT_PLAYER]]:
        observe(state, tables, state[CURRENT_PLAYER], obs)


@njit_shared_body
def step_one(step_and_mask, observe, state, tables, action, obs, mask, rewards, done, observe_seats):
    """Play ``action``; returns True when the game ended (then the caller resets).

    ``rewards[p]`` receives each seat's reward of this step; ``done[0]`` is
    terminated and ``done[1]`` truncated. The game's ``step_and_mask`` writes
    the next legal mask along with the step (a game whose step already works
    the mask out, to find whether a real decision follows, hands it over
    instead of computing it twice).
    """
    step_and_mask(state, tables, action, mask)
    for p in range(rewards.shape[0]):
        rewards[p] = state[REWARDS + p]
    status = state[STATUS]
    done[0] = status == TERMINATED
    done[1] = status == TRUNCATED
    if status != RUNNING:
        return True
    if observe_seats[state[CURRENT_PLAYER]]:
        observe(state, tables, state[CURRENT_PLAYER], obs)
    return False


@njit
def next_key(state):
    """Key of the game that follows a finished one in a batch row (auto-reset):
    drawn from the finished game's generator, so a batch is reproducible from
    its seed alone."""
    return rng_new_key(state, RNG_KEY)
