"""Exact expectation over chance, one or two plies deep: what each legal action is worth to
its mover when every outcome of the action's chance is valued with its exact probability.

A game of perfect information whose kernels enumerate a move's chance outcomes with their odds
(``Kernels.afterstates``: TARDIS Run's paddles) expands each position into *slots*: one action
and one outcome of its chance, with the outcome's probability given the action. Where the
outcome gives the mover a further decision of its own (TARDIS Run's extra move), the slot holds
each option's position and the mover has the better one. An action's value is the
probability-weighted sum over its slots. There is no sampling and no tree: this is the search
of TD-Gammon (Tesauro, 1995), whose value network was trained on exactly these expectations.

With one ply (``plies=1``) a slot's position is valued by the evaluator (a finished game by its
rewards). With ``plies=2`` it is valued by looking one ply further: the position's own mover
plays its best action by one ply, and the slot is worth that action's expectation, TD-Gammon's
"2-ply" search (expectimax over the dice). Values are vectors with a component per seat, so each
mover maximises its own in any number of seats; the evaluator is asked only at the last ply.

The evaluator is the guided search's: ``evaluate(observations, masks) -> (priors, values)``,
``values[k, j]`` for seat ``(mover + j) % players`` of the ``k``-th position's mover (the
priors are not read). The positions of the last ply go to it in calls of at most ``chunk``
states' leaves, which also bounds the memory a deep search takes.
"""

from __future__ import annotations

import numpy as np

from .state import CURRENT_PLAYER, REWARDS, RUNNING, STATUS

MAX_PLIES = 2


class ExactExpectation:
    """Exact action values over ``game``'s chance, ``plies`` deep (see the module docstring);
    refuses, by name, a game whose kernels do not enumerate its chance or that hides
    information (its leaves would be the true hidden state), and a depth outside
    1..``MAX_PLIES``."""

    def __init__(self, game, plies: int = 1, chunk: int = 1024):
        kernels = game.kernels
        if kernels.afterstates is None or game.spec.hidden_information:
            raise ValueError(
                f"{game.spec.env_id}: exact expectation over chance needs a game of perfect information whose kernels "
                "enumerate its chance with exact odds (Kernels.afterstates; TARDIS Run has them)"
            )
        if isinstance(plies, bool) or not isinstance(plies, (int, np.integer)) or not 1 <= plies <= MAX_PLIES:
            raise ValueError(f"exact expectation plies must be an integer in 1..{MAX_PLIES}, got {plies!r}")
        self.game = game
        self.plies = int(plies)
        self.slots = kernels.afterstate_slots
        self.chunk = chunk
        self.buffers: dict[int, dict[str, np.ndarray]] = {}  # one set a ply, reused call to call
        self.evaluations = 0  # positions valued by the evaluator, over the object's life

    def _buffers(self, ply: int, n: int) -> dict[str, np.ndarray]:
        held = self.buffers.get(ply)
        if held is None or len(held["count"]) < n:
            n = max(n, 2 * len(held["count"]) if held else n)
            held = self.buffers[ply] = {
                "leaves": np.zeros((n, self.slots, 2, self.game.state_size), dtype=np.int64),
                "used": np.zeros((n, self.slots, 2), dtype=np.int8),
                "prob": np.zeros((n, self.slots), dtype=np.float64),
                "action": np.zeros((n, self.slots), dtype=np.int64),
                "count": np.zeros(n, dtype=np.int64),
            }
        return held

    def action_values(self, states: np.ndarray, evaluate) -> np.ndarray:
        """``float64[n, num_actions]``: each legal action's expected value for the mover of
        each of ``states`` (running states, ``int64[n, state_size]``), ``-inf`` where illegal."""
        vectors, legal = self.action_vectors(states, evaluate)
        mover = np.asarray(states)[:, CURRENT_PLAYER]
        return np.where(legal, vectors[np.arange(len(states)), :, mover], -np.inf)

    def action_vectors(self, states: np.ndarray, evaluate, plies: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(float64[n, num_actions, players], bool[n, num_actions])``: each action's expected
        value for every seat (column ``p`` is seat ``p``), ``plies`` deep (the object's by
        default), and which actions are legal (the others' values are 0)."""
        game = self.game
        plies = self.plies if plies is None else plies
        states = np.ascontiguousarray(states, dtype=np.int64)
        n = len(states)
        vectors = np.zeros((n, game.num_actions, game.num_players))
        legal = np.zeros((n, game.num_actions), dtype=bool)
        # a deeper ply expands each of its states' ~30 leaves: fewer states a chunk keeps the
        # leaves' buffers the size of the last ply's
        step = self.chunk if plies == 1 else max(1, self.chunk // 32)
        for start in range(0, n, step):
            end = min(n, start + step)
            vectors[start:end], legal[start:end] = self._expand(states[start:end], evaluate, plies)
        return vectors, legal

    def _expand(self, states: np.ndarray, evaluate, plies: int) -> tuple[np.ndarray, np.ndarray]:
        game = self.game
        players = game.num_players
        n = len(states)
        held = self._buffers(plies, n)
        leaves, used = held["leaves"][:n], held["used"][:n]
        prob, action, count = held["prob"][:n], held["action"][:n], held["count"][:n]
        game.kernels.afterstates(states, game.tables, leaves, used, prob, action, count)
        valid = np.arange(self.slots)[None, :] < count[:, None]
        occupied = (used != 0) & valid[:, :, None]
        running = occupied & (leaves[..., STATUS] == RUNNING)
        finished = occupied & ~running
        value = np.zeros(occupied.shape + (players,))
        at = np.nonzero(finished)
        value[at] = leaves[at][:, REWARDS : REWARDS + players]
        rows = np.argwhere(running)
        if len(rows):
            at = tuple(rows.T)
            leaf_mover = leaves[at + (CURRENT_PLAYER,)]
            if plies == 1:
                obs = np.empty((len(rows), int(np.prod(game.observation_shape))), dtype=np.float32)
                game.kernels.observe_leaves(leaves, rows, game.tables, obs)
                _, values = evaluate(obs, np.ones((len(rows), game.num_actions), dtype=np.int8))
                self.evaluations += len(rows)
                seats = (leaf_mover[:, None] + np.arange(players)[None, :]) % players
                value[at[0][:, None], at[1][:, None], at[2][:, None], seats] = np.asarray(values, dtype=np.float64)
            else:
                # the leaf's own mover plays its best action by the plies below
                below, below_legal = self.action_vectors(leaves[at], evaluate, plies - 1)
                own = np.where(below_legal, below[np.arange(len(rows)), :, leaf_mover], -np.inf)
                value[at] = below[np.arange(len(rows)), np.argmax(own, axis=1)]
        # the mover's better option where the outcome offers two
        mover = states[:, CURRENT_PLAYER]
        own = np.where(occupied, np.take_along_axis(value, mover[:, None, None, None], axis=3)[..., 0], -np.inf)
        option = np.argmax(own, axis=2)
        slot_value = np.take_along_axis(value, option[:, :, None, None], axis=2)[:, :, 0]
        k, s = np.nonzero(valid)
        flat = k * game.num_actions + action[k, s]
        size = n * game.num_actions
        weighted = prob[k, s, None] * slot_value[k, s]
        vectors = np.stack([np.bincount(flat, weights=weighted[:, p], minlength=size) for p in range(players)], axis=1)
        legal = np.bincount(flat, minlength=size) > 0
        return vectors.reshape(n, game.num_actions, players), legal.reshape(n, game.num_actions)
