"""The az learner's replay buffer: the latest decisions of self-play, sampled into what the
learner takes in one compiled pass (:func:`~tardis_envs.core.minibatch.gather_minibatch`): the
observation decoded to float32 (compact observations divided by their denominators, bit for
bit ``Game.float_observations``), the legal mask unpacked, the policy's entries, and the value
target.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tardis_envs.core.minibatch import gather_minibatch, lambda_returns


class ReplayBuffer:
    """The latest ``capacity`` decisions: observation (in the games' own dtype), legal
    mask (bits), the improved policy's largest entries, the search's root value for the
    mover, and the outcome by seat counted from the mover (unknown until the game ends: such
    decisions are not sampled). A sample's value target is the outcome, its mover's column
    mixed with the root value at ``root_value_share``; or with ``value_lambda > 0`` the game's
    TD(lambda) return over the root values of its decisions in the buffer
    (:func:`~tardis_envs.core.minibatch.lambda_returns`; ``zero_sum``: a two-seat game whose
    root value for the mover is the opposite of the other's).

    A sample's observations are the network's input, ``float32[size, input width]``: stored
    observations divided by ``denominators`` (shaped like one observation; default 1, for
    float32 ones) while they are gathered, or packed ones given to ``unpack`` (a batch of
    them to float32, ``Game.float_observations``) after."""

    def __init__(
        self,
        capacity: int,
        obs_shape: tuple,
        obs_dtype,
        num_actions: int,
        num_players: int,
        entries: int,
        root_value_share: float = 0.0,
        denominators: np.ndarray | None = None,
        unpack: Callable[[np.ndarray], np.ndarray] | None = None,
        value_lambda: float = 0.0,
        zero_sum: bool = False,
    ):
        if value_lambda and root_value_share:
            raise ValueError("value_lambda and root_value_share are two value targets: give one")
        self.capacity = capacity
        self.obs = np.zeros((capacity, *obs_shape), dtype=obs_dtype)
        self.obs_size = int(np.prod(obs_shape))
        self.masks = np.zeros((capacity, (num_actions + 7) // 8), dtype=np.uint8)  # np.packbits of the legal mask
        self.num_actions = num_actions
        self.entries = min(entries, num_actions)
        self.policy_index = np.zeros((capacity, self.entries), dtype=np.int32)
        self.policy_weight = np.zeros((capacity, self.entries), dtype=np.float32)
        self.mover = np.zeros(capacity, dtype=np.int64)
        self.episode = np.full(capacity, -1, dtype=np.int64)
        self.outcome = np.zeros((capacity, num_players), dtype=np.float32)
        self.root_value = np.zeros(capacity, dtype=np.float32)
        self.root_value_share = float(root_value_share)
        self.value_lambda = float(value_lambda)
        self.zero_sum = bool(zero_sum)
        self.played = np.zeros(capacity, dtype=np.int64)  # when a row was added: its game's order
        # the learner's value target: the outcome, or each decision's TD(lambda) return
        self.target = np.zeros_like(self.outcome) if self.value_lambda else self.outcome
        self.ready = np.zeros(capacity, dtype=np.bool_)
        self.next = 0
        self.added = 0
        self.unpack = unpack
        if denominators is None or unpack is not None:
            denominators = np.ones(self.obs_size)
        self.denominators = np.ascontiguousarray(denominators, dtype=np.float32).reshape(-1)
        if self.denominators.size != self.obs_size:
            raise ValueError(f"denominators: {self.denominators.size} entries for observations of {self.obs_size}")

    def add(self, obs, masks, policy_index, policy_weight, movers, episodes, root_values=None) -> None:
        n = len(movers)
        at = (self.next + np.arange(n)) % self.capacity
        self.next = int((self.next + n) % self.capacity)
        self.added += n
        self.obs[at] = obs
        self.masks[at] = masks
        self.policy_index[at] = policy_index
        self.policy_weight[at] = policy_weight
        self.mover[at] = movers
        self.episode[at] = episodes
        self.played[at] = self.added - n + np.arange(n)
        self.root_value[at] = 0.0 if root_values is None else root_values
        self.ready[at] = False

    def finish(self, episodes: np.ndarray, rewards: np.ndarray) -> np.ndarray:
        """Games ``episodes`` ended with ``rewards[k]`` by seat: their decisions get the outcome
        (one pass over the buffer for all the games that ended in a step); the rows they fill."""
        rows = np.flatnonzero(~self.ready & np.isin(self.episode, episodes))
        if rows.size == 0:
            return rows
        order = np.argsort(episodes)
        game = order[np.searchsorted(episodes[order], self.episode[rows])]
        players = rewards.shape[1]
        seats = (self.mover[rows, None] + np.arange(players)) % players
        self.outcome[rows] = np.take_along_axis(rewards[game], seats, axis=1)
        if self.value_lambda:
            order = np.lexsort((self.played[rows], game))
            lambda_returns(
                rows[order],
                game[order],
                np.ascontiguousarray(rewards, dtype=np.float64),
                self.mover,
                self.root_value,
                self.value_lambda,
                self.zero_sum,
                np.zeros(players),
                self.target,
            )
        self.ready[rows] = True
        return rows

    def draw(self, rng: np.random.Generator, size: int) -> np.ndarray | None:
        """``size`` rows drawn uniformly, with replacement, from those whose game has ended
        (None while there are none)."""
        ready = np.count_nonzero(self.ready)
        if ready == 0:
            return None
        if 2 * ready >= self.capacity:
            # Most rows are ready (a full buffer, but for the games in play): rows drawn from
            # the whole buffer and kept where ready are uniform over the ready ones, without
            # listing the ready rows (a twentieth of the time at 200,000 rows).
            pick = np.empty(0, dtype=np.int64)
            while pick.size < size:
                drawn = rng.integers(0, self.capacity, size=2 * size)
                pick = np.concatenate([pick, drawn[self.ready[drawn]]])
            return pick[:size]
        rows = np.flatnonzero(self.ready)
        return rows[rng.integers(0, rows.size, size=size)]

    def sample(self, rng: np.random.Generator, size: int):
        """``size`` decisions drawn by :meth:`draw` (None while no game has ended), as the
        learner takes them: ``(obs float32[size, input width], legal bool[size, num_actions],
        policy index int64[size, entries], policy weight float32, value target float32[size,
        num_players])``."""
        pick = self.draw(rng, size)
        if pick is None:
            return None
        obs = np.empty((size, self.obs_size), dtype=np.float32)
        masks = np.empty((size, self.num_actions), dtype=np.bool_)
        index = np.empty((size, self.entries), dtype=np.int64)
        weight = np.empty((size, self.entries), dtype=np.float32)
        target = np.empty((size, self.outcome.shape[1]), dtype=np.float32)
        decode = self.unpack is None
        gather_minibatch(
            pick,
            self.obs.reshape(self.capacity, -1),
            self.denominators,
            decode,
            self.masks,
            self.num_actions,
            self.policy_index,
            self.policy_weight,
            self.target,
            self.root_value,
            np.float32(self.root_value_share),
            obs,
            masks,
            index,
            weight,
            target,
        )
        if not decode:
            obs = self.unpack(self.obs[pick]).reshape(size, -1)
        return obs, masks, index, weight, target
