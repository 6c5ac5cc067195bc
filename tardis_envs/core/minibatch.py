"""A learner's minibatch gathered from a replay buffer's arrays in one compiled pass.

A minibatch is a few thousand random rows of a buffer of hundreds of thousands, each row a
cache miss in every array it is read from: :func:`gather_minibatch` reads each picked row once,
on every core, and writes what the learner takes (``agents/training/replay.py``'s buffer).
"""

from __future__ import annotations

import numpy as np

from .jit import njit, njit_parallel, prange


@njit_parallel
def gather_minibatch(
    pick,
    obs,
    denominators,
    decode,
    masks,
    num_actions,
    policy_index,
    policy_weight,
    outcome,
    root_value,
    share,
    out_obs,
    out_masks,
    out_index,
    out_weight,
    out_target,
):  # pragma: no cover - compiled
    """Rows ``pick`` of the buffer's arrays into the ``out_`` arrays: ``obs / denominators``
    as float32 (when ``decode``), the ``np.packbits`` masks unpacked, the policy's index (as
    int64) and weight, and the outcome with its mover's column mixed with the root value at
    ``share`` (float32 arithmetic, as numpy does it)."""
    for k in prange(pick.size):
        row = pick[k]
        if decode:
            for j in range(obs.shape[1]):
                out_obs[k, j] = np.float32(obs[row, j]) / denominators[j]
        for a in range(num_actions):
            out_masks[k, a] = (masks[row, a >> 3] >> (7 - (a & 7))) & 1 != 0
        for e in range(policy_index.shape[1]):
            out_index[k, e] = policy_index[row, e]
            out_weight[k, e] = policy_weight[row, e]
        for p in range(outcome.shape[1]):
            out_target[k, p] = outcome[row, p]
        out_target[k, 0] = out_target[k, 0] + share * (root_value[row] - out_target[k, 0])


@njit
def lambda_returns(rows, games, rewards, mover, root_value, lam, zero_sum, scratch, out):  # pragma: no cover - compiled
    """TD(lambda) value targets of finished games' decisions: ``rows`` (buffer rows, each game's
    in the order they were played) of games ``games[k]`` (indices into ``rewards``, the final
    rewards by seat). Walking each game back from its end, the return ``G`` starts at the
    rewards; a decision's mover's column becomes ``lam x G + (1 - lam) x`` its root value (the
    search's value of the position for its mover), in a two-seat zero-sum game the other's
    column its opposite, and ``out[row]`` is ``G`` counted from the mover. ``lam = 1`` gives the
    outcome; ``lam = 0`` the root values alone. ``scratch``: a float64 array of the players."""
    players = rewards.shape[1]
    current = -1
    for k in range(rows.size - 1, -1, -1):
        row = rows[k]
        if games[k] != current:
            current = games[k]
            for p in range(players):
                scratch[p] = rewards[current, p]
        m = mover[row]
        scratch[m] = lam * scratch[m] + (1.0 - lam) * root_value[row]
        if zero_sum:
            scratch[1 - m] = -scratch[m]
        for p in range(players):
            out[row, p] = scratch[(m + p) % players]
