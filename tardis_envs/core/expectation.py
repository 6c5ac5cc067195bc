"""One ply of exact expectation over chance: what each legal action is worth to its mover when
every outcome of the action's chance is valued with its exact probability.

A game of perfect information whose kernels enumerate a move's chance outcomes with their odds
(``Kernels.afterstates``: TARDIS Run's paddles) expands each position into *slots*: one action
and one outcome of its chance, with the outcome's probability given the action. A slot's
position is valued by an evaluator for the deciding seat (a finished game by its reward); where
the outcome gives the mover a further decision of its own (TARDIS Run's extra move), the slot
holds each option's position and the mover has the better one. An action's value is the
probability-weighted sum over its slots. There is no sampling and no tree: this is the search
of TD-Gammon (Tesauro, 1995), whose value network was trained on exactly these expectations.

The evaluator is the guided search's: ``evaluate(observations, masks) -> (priors, values)``,
``values[k, j]`` for seat ``(mover + j) % players`` of the ``k``-th position's mover (the
priors are not read). All the positions of all the states asked about go to it in one call.
"""

from __future__ import annotations

import numpy as np

from .state import CURRENT_PLAYER, REWARDS, RUNNING, STATUS


class OnePlyExpectation:
    """Exact one-ply action values over ``game``'s chance (see the module docstring); refuses,
    by name, a game whose kernels do not enumerate its chance or that hides information (its
    leaves would be the true hidden state)."""

    def __init__(self, game):
        kernels = game.kernels
        if kernels.afterstates is None or game.spec.hidden_information:
            raise ValueError(
                f"{game.spec.env_id}: one ply of exact expectation needs a game of perfect information whose kernels "
                "enumerate its chance with exact odds (Kernels.afterstates; TARDIS Run has them)"
            )
        self.game = game
        self.slots = kernels.afterstate_slots
        self.capacity = 0
        self.evaluations = 0  # positions valued by the evaluator, over the object's life

    def _buffers(self, n: int) -> None:
        if n <= self.capacity:
            return
        self.capacity = max(n, 2 * self.capacity)
        size = self.game.state_size
        self.leaves = np.zeros((self.capacity, self.slots, 2, size), dtype=np.int64)
        self.leaf_used = np.zeros((self.capacity, self.slots, 2), dtype=np.int8)
        self.slot_prob = np.zeros((self.capacity, self.slots), dtype=np.float64)
        self.slot_action = np.zeros((self.capacity, self.slots), dtype=np.int64)
        self.slot_count = np.zeros(self.capacity, dtype=np.int64)

    def action_values(self, states: np.ndarray, evaluate) -> np.ndarray:
        """``float64[n, num_actions]``: each legal action's expected value for the mover of
        each of ``states`` (running states, ``int64[n, state_size]``), ``-inf`` where illegal."""
        game = self.game
        states = np.ascontiguousarray(states, dtype=np.int64)
        n = len(states)
        self._buffers(n)
        leaves, used = self.leaves[:n], self.leaf_used[:n]
        prob, action, count = self.slot_prob[:n], self.slot_action[:n], self.slot_count[:n]
        game.kernels.afterstates(states, game.tables, leaves, used, prob, action, count)
        valid = np.arange(self.slots)[None, :] < count[:, None]
        occupied = (used != 0) & valid[:, :, None]
        running = occupied & (leaves[..., STATUS] == RUNNING)
        finished = occupied & ~running
        seat = states[:, CURRENT_PLAYER]
        value = np.full(occupied.shape, -np.inf)
        at = np.nonzero(finished)
        value[at] = leaves[at + (REWARDS + seat[at[0]],)]
        rows = np.argwhere(running)
        if len(rows):
            obs = np.empty((len(rows), int(np.prod(game.observation_shape))), dtype=np.float32)
            game.kernels.observe_leaves(leaves, rows, game.tables, obs)
            _, values = evaluate(obs, np.ones((len(rows), game.num_actions), dtype=np.int8))
            self.evaluations += len(rows)
            at = tuple(rows.T)
            column = (seat[rows[:, 0]] - leaves[at + (CURRENT_PLAYER,)]) % game.num_players
            value[at] = np.asarray(values, dtype=np.float64)[np.arange(len(rows)), column]
        slot_value = value.max(axis=2)  # the mover's better option where the outcome offers two
        k, s = np.nonzero(valid)
        flat = k * game.num_actions + action[k, s]
        size = n * game.num_actions
        total = np.bincount(flat, weights=prob[k, s] * slot_value[k, s], minlength=size)
        legal = np.bincount(flat, minlength=size) > 0
        return np.where(legal, total, -np.inf).reshape(n, game.num_actions)
