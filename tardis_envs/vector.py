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
bit, at a quarter or half of the memory traffic. Dr. Who Chess also offers
``"packed"``: ``obs`` is ``int64[N, planes]``, one word a plane of 8 x 8
(bits, or a plane's one value), 1/64 of the float32 bytes;
``vec.float_observations()`` unpacks it (:mod:`tardis_envs.core.observation`).
``vec.observation_shape`` is always the float observation's shape.

``observe_seats`` (``bool[N, P]``, all True by default) says, per row and
seat, whether a step that leaves that seat to move writes its observation;
rows whose mover reads only states and masks (random, heuristics, search)
can skip it, and keep their last observation. ``observations=False`` sets
it all False and gives ``obs`` no columns.

``step_until_seats(actions, seats, random_opponents)`` is the self-play step: the
player to move plays its action (``WAIT``, -1, in games where nobody moves), then
random opponents play inside numba until each game's ``seats[i]`` is to move, and
the final position of a game that ended is returned in ``seats[i]``'s view.
``observe_rows(rows)`` rewrites the mover's observation after ``observe_seats``
changed in games under way. ``set_states(states, rows)`` puts states from
``env.unwrapped.get_state()`` into games under way, each validated as ``set_state``
does (a bad word is refused naming the game and the field).

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
from .core.batch import WAIT, streams_rows
from .core.observation import resolve_obs_dtype
from .core.rng import KEY_MASK, check_seed, seed_to_key
from .core.sampling import first_illegal
from .core.state import CURRENT_PLAYER, RUNNING, STATUS, VARIANT

# numba sets its config attributes at import time (invisible to type checkers)
MAX_THREADS: int = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]


# second word of the seed sequence of step_until_seats' random moves (the games' keys use the seed alone)
UNTIL_SEAT_STREAM = 1


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
        self._row_shape = row_shape = game.observation_shape_of(self.obs_dtype)
        width = int(np.prod(row_shape)) if self.observations else 0
        self._obs_flat = np.zeros((n, width), dtype=self.obs_dtype)
        self.obs = self._obs_flat.reshape((n, *row_shape)) if self.observations else self._obs_flat
        self.observe_seats = np.full((n, game.num_players), self.observations, dtype=np.bool_)
        self._no_observations = np.zeros_like(self.observe_seats)  # what the kernels get without observations
        self.masks = np.zeros((n, game.num_actions), dtype=np.int8)
        # a batch whose long rows cannot stay in cache streams them out: the kernel that does
        # is compiled only by a program whose batch needs it
        streamed = streams_rows(self._obs_flat, self.masks)
        self._batch_step_kernel = game.kernels.batch_step_streamed if streamed else game.kernels.batch_step
        self.rewards = np.zeros((n, game.num_players), dtype=np.float32)
        self._done = np.zeros((n, 2), dtype=np.bool_)
        self.seed = check_seed(seed)  # a bad seed is refused here, not at the first reset()
        self._actions = np.zeros(n, dtype=np.int64)
        self._terminal_obs = None  # step_until_seats' buffers, made on first use
        self._reset_done = False

    @property
    def observation_denominators(self) -> np.ndarray:
        """Per-entry denominators: float observation = ``obs / observation_denominators``."""
        return self.game.observation_denominators

    def float_observations(self, rows=None, out: np.ndarray | None = None) -> np.ndarray:
        """The float32 observations ``float32[rows, *observation_shape]`` of all rows (or of
        ``rows``), whatever ``obs_dtype`` is: compact ones divided by their denominators,
        packed ones unpacked, once for the whole batch."""
        obs = self.obs if rows is None else self.obs[rows]
        return self.game.float_observations(obs, self.obs_dtype, out)

    def float_terminal_observations(self, rows) -> np.ndarray:
        """``float32[len(rows), *obs_shape]``: the views of the final positions that the last
        :meth:`step_until_seats` returned for games ``rows``."""
        if self._terminal_obs is None or not self.observations:
            raise ValueError(f"{self.env_id}: no terminal observations (observations=False, or no step_until_seats() call yet)")
        terminal = self._terminal_obs[rows].reshape((-1, *self._row_shape))  # flat rows, as the kernels write them
        return self.game.float_observations(terminal, self.obs_dtype)

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
            self.seed = check_seed(seed)
        if self.seed is None:
            keys = np.array([seed_to_key(None) for _ in range(self.num_envs)], dtype=np.int64)
        else:
            keys = np.array([seed_to_key(self.seed + i) for i in range(self.num_envs)], dtype=np.int64)
        # step_until_seats' random moves: a stream of their own (no game's key), fixed by the seed
        entropy = None if self.seed is None else [self.seed, UNTIL_SEAT_STREAM]
        self._until_seat_key = int(np.random.SeedSequence(entropy).generate_state(1, np.uint64)[0]) & KEY_MASK
        self._until_seat_calls = 0
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
            self._batch_step_kernel(states, self.game.tables, actions, obs, masks, rewards, done, observe_seats)
        finally:
            if previous is not None:
                numba.set_num_threads(previous)

    def observe_rows(self, rows) -> None:
        """Write the observation of the seat to move in games ``rows`` where
        ``observe_seats`` says that seat reads one: after changing ``observe_seats``
        of a game under way (a restarted game's seats handed to other players)."""
        if not self.observations:
            return
        for row in np.asarray(rows, dtype=np.int64).reshape(-1):
            player = self.states[row, CURRENT_PLAYER]
            if self.states[row, STATUS] == RUNNING and self.observe_seats[row, player]:
                self.game.kernels.observe(self.states[row], self.game.tables, player, self._obs_flat[row])

    def set_states(self, states, rows=None):
        """Put states (``env.unwrapped.get_state()`` of this game and options) into games
        ``rows`` (all games by default), each validated as ``set_state`` does, and write their
        masks and observations; returns ``(obs, mask, current_player)``. A bad state or a
        finished game is refused with a ``ValueError`` naming the game, and no game changes.
        Call :meth:`reset` first (it seeds the games that follow a finished one)."""
        if not self._reset_done:
            raise ValueError(f"{self.env_id}: call reset() before set_states()")
        rows = np.arange(self.num_envs) if rows is None else np.asarray(rows, dtype=np.int64).reshape(-1)
        states = np.asarray(states)
        if states.ndim != 2 or states.shape[0] != rows.shape[0]:
            raise ValueError(f"{self.env_id}: set_states needs one state per row ({rows.shape[0]}), got shape {states.shape}")
        if ((rows < 0) | (rows >= self.num_envs)).any():
            raise ValueError(f"{self.env_id}: set_states rows must be games 0..{self.num_envs - 1}, got {rows.tolist()}")
        checked = []
        for k, row in enumerate(rows):
            try:
                state = self.game.check_state(states[k])
            except ValueError as error:
                raise ValueError(f"game {int(row)}: {error}") from None
            if state[STATUS] != RUNNING:
                raise ValueError(f"{self.env_id}: game {int(row)}: the state is of a finished game; the batched API holds games under way")
            checked.append(state)
        for row, state in zip(rows, checked):
            self.states[row] = state
            self.game.kernels.legal_mask(self.states[row], self.game.tables, self.masks[row])
        self.rewards[rows] = 0
        self._done[rows] = False
        self.observe_rows(rows)
        return self.obs, self.masks, self.current_player

    def step_until_seats(self, actions, seats, random_opponents):
        """Step every game towards its seat ``seats[i]``'s next turn, in one numba call (the
        self-play training environment's step, ``seats`` being the learner's): the player
        to move in game ``i`` plays ``actions[i]`` (``WAIT``, -1: nobody moves), then, where
        ``random_opponents[i]``, every seat but ``seats[i]`` plays uniformly random legal
        moves until ``seats[i]`` is to move. A game that ends restarts, as in :meth:`step`.

        Returns ``(moves, final_status, rewards, terminal_obs)``, buffers of ``num_envs``
        rows: the random moves played in each game; ``RUNNING`` (0), or how the game ended
        (``TERMINATED``/``TRUNCATED`` of :mod:`tardis_envs.core.state`); ``seats[i]``'s
        reward of the final step; ``seats[i]``'s view of the final position (flat, in
        ``obs_dtype``; written when ``observe_seats`` says that seat reads one). The random
        moves come from the vector env's seed and a call counter, so a seeded run repeats.
        """
        if not self._reset_done:
            raise ValueError(f"{self.env_id}: call reset() before step_until_seats()")
        actions = np.asarray(actions)
        seats = np.asarray(seats)
        random_opponents = np.asarray(random_opponents)
        n = self.num_envs
        if actions.shape != (n,) or seats.shape != (n,) or random_opponents.shape != (n,):
            raise ValueError(
                f"actions, seats and random_opponents must have shape ({n},), got {actions.shape}, {seats.shape}, {random_opponents.shape}"
            )
        if actions.dtype.kind not in "iu" or seats.dtype.kind not in "iu":
            raise ValueError(f"actions and seats must be integer arrays, got {actions.dtype} and {seats.dtype}")
        if seats.min() < 0 or seats.max() >= self.num_players:
            raise ValueError(f"seats must be in 0..{self.num_players - 1}")
        waits = actions == WAIT
        if not waits.any():
            self._check_actions(actions, None)
        elif not waits.all():
            acting = np.flatnonzero(~waits)
            self._check_actions(actions[acting], acting)
        if self._terminal_obs is None:
            self._terminal_obs = np.zeros_like(self._obs_flat)
            self._until_moves = np.zeros(n, dtype=np.int64)
            self._until_final_status = np.zeros(n, dtype=np.int64)
            self._until_rewards = np.zeros(n, dtype=np.float32)
        self._until_seat_calls += 1
        previous = self._threads()
        try:
            self.game.kernels.batch_step_until_seat(
                self.states,
                self.game.tables,
                actions.astype(np.int64, copy=False),
                self._obs_flat,
                self.masks,
                self._seats(),
                seats.astype(np.int64, copy=False),
                random_opponents.astype(np.bool_, copy=False),
                self._until_seat_key,
                self._until_seat_calls,
                self._until_moves,
                self._until_final_status,
                self._until_rewards,
                self._terminal_obs,
            )
        finally:
            if previous is not None:
                numba.set_num_threads(previous)
        if np.any(self._until_moves < 0):
            row = int(np.flatnonzero(self._until_moves < 0)[0])
            raise RuntimeError(f"{self.env_id}: game {row} is running with no legal action (a kernel bug)")
        return self._until_moves, self._until_final_status, self._until_rewards, self._terminal_obs


def make(env_id: str, num_envs: int, **kwargs: Any) -> VectorEnv:
    """A :class:`VectorEnv` of ``num_envs`` games of ``env_id``: ``seed``, ``num_threads``,
    ``observations``, ``obs_dtype`` and the game's rule options as keyword arguments."""
    return VectorEnv(env_id, num_envs, **kwargs)
