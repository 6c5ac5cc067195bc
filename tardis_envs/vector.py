"""Many games per call over the same numba kernels as the AEC envs.

>>> from tardis_envs import vector
>>> vec = vector.make("tardis_run_v0", num_envs=1024, seed=0)
>>> obs, mask, player = vec.reset()
>>> obs, mask, player, rewards, terminated, truncated = vec.step(actions)

Arrays (``N = num_envs``, ``A`` actions, ``P`` players):

=================  ===========================  =================================
``obs``            ``float32[N, *obs_shape]``   the view of the player to move
                   (or ``obs_dtype``)
``mask``           ``int8[N, A]``               legal actions of that player
``current_player`` ``int64[N]``                 seat to move
``rewards``        ``float32[N, P]``            each seat's reward of this step
``terminated``     ``bool[N]``                  a game ended on this step
``truncated``      ``bool[N]``                  a game hit its length limit
=================  ===========================  =================================

``obs_dtype`` picks the observation dtype: ``"float32"`` (the default) or
``"compact"``, the game's smallest integer dtype (``uint8``, ``int8`` or
``int16``; an explicit name is accepted when it fits), whose entries are the
numerators of the float entries: ``vec.float_observations()`` (or
``obs / vec.observation_denominators``) gives the float32 observation bit for
bit, at a quarter or half of the memory traffic (:mod:`tardis_envs.core.observation`).

``observe_seats`` (``bool[N, P]``, all True by default) says, per row and
seat, whether a step that leaves that seat to move writes its observation;
rows whose mover reads only states and masks (random, heuristics, search)
can skip it, and keep their last observation. ``observations=False`` sets
it all False and gives ``obs`` no columns.

A finished game is reset at once (auto-reset): the returned ``obs``/``mask``/
``current_player`` of that row already belong to the next game, while
``rewards``/``terminated``/``truncated`` describe the step that ended the old one.
Game ``i`` starts exactly as ``env.reset(seed=seed + i)``; later games of row
``i`` take their key from the finished game's generator, so the whole batch is
reproducible from ``seed``. The returned arrays are buffers owned by the
vector env and overwritten by the next call: copy what you keep.
Steps run in parallel over games on numba's threads (``num_threads``).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from . import env_module
from .core.observation import resolve_obs_dtype, to_float32
from .core.rng import seed_to_key
from .core.sampling import first_illegal
from .core.state import CURRENT_PLAYER, VARIANT

# numba sets its config attributes at import time (invisible to type checkers)
MAX_THREADS: int = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]


class VectorEnv:
    """A batch of ``num_envs`` independent games of one env id."""

    def __init__(
        self,
        env_id: str,
        num_envs: int,
        seed: int | None = None,
        num_threads: int | None = None,
        observations: bool = True,
        obs_dtype: str = "float32",
        **options: Any,
    ):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        if num_threads is not None and not 1 <= num_threads <= MAX_THREADS:
            raise ValueError(f"num_threads must be in 1..{MAX_THREADS}, got {num_threads!r}")
        self.env_id = env_id
        self.game = env_module(env_id).Game(**options)
        self.num_envs = int(num_envs)
        self.num_threads = num_threads
        game = self.game
        self.num_players = game.num_players
        self.num_actions = game.num_actions
        self.observation_shape = game.observation_shape
        self.agent_names = game.agent_names
        n = self.num_envs
        self.states = np.zeros((n, game.state_size), dtype=np.int64)
        self.states[:, VARIANT] = game.variant
        self.observations = bool(observations)
        self.obs_dtype = resolve_obs_dtype(game, obs_dtype)
        width = int(np.prod(game.observation_shape)) if self.observations else 0
        self._obs_flat = np.zeros((n, width), dtype=self.obs_dtype)
        self.obs = self._obs_flat.reshape((n, *game.observation_shape)) if self.observations else self._obs_flat
        self.observe_seats = np.full((n, game.num_players), self.observations, dtype=np.bool_)
        self._no_observations = np.zeros_like(self.observe_seats)  # what the kernels get without observations
        self._denominators = game.observation_denominators.astype(np.float32)
        self.masks = np.zeros((n, game.num_actions), dtype=np.int8)
        self.rewards = np.zeros((n, game.num_players), dtype=np.float32)
        self._done = np.zeros((n, 2), dtype=np.bool_)
        self.seed = seed
        self._actions = np.zeros(n, dtype=np.int64)
        self._reset_done = False

    @property
    def observation_denominators(self) -> np.ndarray:
        """Per-entry denominators: float observation = ``obs / observation_denominators``."""
        return self.game.observation_denominators

    def float_observations(self, rows=None, out: np.ndarray | None = None) -> np.ndarray:
        """The float32 observations of all rows (or of ``rows``), whatever ``obs_dtype`` is."""
        obs = self.obs if rows is None else self.obs[rows]
        if self.obs_dtype != np.float32:
            return to_float32(obs, self._denominators, out)
        if out is None:
            return obs.copy()
        np.copyto(out, obs)
        return out

    @property
    def current_player(self) -> np.ndarray:
        return self.states[:, CURRENT_PLAYER]

    def _seats(self) -> np.ndarray:
        return self.observe_seats if self.observations else self._no_observations

    def _threads(self):
        if self.num_threads is None:
            return None
        previous = numba.get_num_threads()
        numba.set_num_threads(self.num_threads)
        return previous

    def reset(self, seed: int | None = None):
        """Start all games; returns ``(obs, mask, current_player)``."""
        if seed is not None:
            self.seed = seed
        if self.seed is None:
            keys = np.array([seed_to_key(None) for _ in range(self.num_envs)], dtype=np.int64)
        else:
            keys = np.array([seed_to_key(self.seed + i) for i in range(self.num_envs)], dtype=np.int64)
        previous = self._threads()
        try:
            self.game.kernels.batch_reset(self.states, self.game.tables, keys, self._obs_flat, self.masks, self._seats())
        finally:
            if previous is not None:
                numba.set_num_threads(previous)
        self.rewards[:] = 0
        self._done[:] = False
        self._reset_done = True
        return self.obs, self.masks, self.current_player

    def _check_actions(self, actions: np.ndarray, rows: np.ndarray | None) -> None:
        masks = self.masks if rows is None else self.masks[rows]
        k = first_illegal(masks, actions)
        if k >= 0:
            bad = k if rows is None else int(rows[k])
            allowed = np.flatnonzero(self.masks[bad]).tolist()
            raise ValueError(f"{self.env_id}: illegal action {int(actions[k])} in game {bad}; legal actions there: {allowed}")

    def step(self, actions):
        """Play one action in every game; returns
        ``(obs, mask, current_player, rewards, terminated, truncated)``."""
        if not self._reset_done:
            raise ValueError(f"{self.env_id}: call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be an integer array of shape ({self.num_envs},), got {actions.dtype} {actions.shape}")
        np.copyto(self._actions, actions, casting="unsafe")
        self._check_actions(self._actions, None)
        self._batch_step(self.states, self._actions, self._obs_flat, self.masks, self.rewards, self._done, self._seats())
        return self.obs, self.masks, self.current_player, self.rewards, self._done[:, 0], self._done[:, 1]

    def _batch_step(self, states, actions, obs, masks, rewards, done, observe_seats) -> None:
        previous = self._threads()
        try:
            self.game.kernels.batch_step(states, self.game.tables, actions, obs, masks, rewards, done, observe_seats)
        finally:
            if previous is not None:
                numba.set_num_threads(previous)

    def step_rows(self, rows, actions):
        """Play ``actions[k]`` in game ``rows[k]`` only; the other games wait.

        Returns ``(rewards, terminated, truncated)`` for those rows (copies);
        ``obs``, ``masks`` and ``states`` are updated in place for them. Used
        where only some games have a decision to make (opponents' turns inside
        a training environment).
        """
        if not self._reset_done:
            raise ValueError(f"{self.env_id}: call reset() before step_rows()")
        rows = np.asarray(rows, dtype=np.int64)
        actions = np.asarray(actions, dtype=np.int64)
        if rows.shape != actions.shape or rows.ndim != 1:
            raise ValueError("rows and actions must be 1-D arrays of the same length")
        self._check_actions(actions, rows)
        if rows.size == self.num_envs and np.array_equal(rows, np.arange(self.num_envs)):
            # every game moves: step in place, no gather/scatter
            np.copyto(self._actions, actions)
            self._batch_step(self.states, self._actions, self._obs_flat, self.masks, self.rewards, self._done, self._seats())
            return self.rewards.copy(), self._done[:, 0].copy(), self._done[:, 1].copy()
        states = self.states[rows]
        obs = self._obs_flat[rows]
        masks = self.masks[rows]
        rewards = np.zeros((rows.size, self.num_players), dtype=np.float32)
        done = np.zeros((rows.size, 2), dtype=np.bool_)
        self._batch_step(states, actions, obs, masks, rewards, done, self._seats()[rows])
        self.states[rows] = states
        self._obs_flat[rows] = obs
        self.masks[rows] = masks
        return rewards, done[:, 0], done[:, 1]


def make(env_id: str, num_envs: int, **kwargs: Any) -> VectorEnv:
    """A :class:`VectorEnv` of ``num_envs`` games of ``env_id``: ``seed``, ``num_threads``,
    ``observations``, ``obs_dtype`` and the game's rule options as keyword arguments."""
    return VectorEnv(env_id, num_envs, **kwargs)
