"""The PettingZoo AEC base class shared by every game, and the ``env()`` factory.

The env class only moves arrays between PettingZoo and the game's kernels:
the state is one flat ``int64`` array (:mod:`tardis_envs.core.state`), the
legal-action mask is recomputed by a kernel after each step, and observations
are written by a kernel into a fresh array on ``observe``: ``float32`` fractions,
or with ``obs_dtype="compact"`` their integer numerators in the game's smallest
integer dtype (:mod:`tardis_envs.core.observation`; the Box bounds are then the
numerator bounds, and ``env.unwrapped.game.observation_denominators`` turns
them back into the float observation bit for bit), or with ``obs_dtype="packed"``
(Dr. Who Chess) one ``int64`` word a plane, which
``env.unwrapped.game.float_observations(obs, env.unwrapped.obs_dtype)`` unpacks.

Illegal actions (``illegal_action`` option):

* ``"terminate"`` (default, the PettingZoo classic convention): the offender
  gets -1, every other seat 0, the game ends, and a warning names the action.
  In a cooperative game (Time of the Daleks) the team shares the outcome: every
  seat gets -1, as the OpenSpiel adapter's identical utilities say.
  This is done here rather than by ``TerminateIllegalWrapper`` so that the
  unwrapped env behaves the same and a step costs one observation less.
* ``"raise"``: ``ValueError`` naming the action, the phase and the legal
  actions; the state is left untouched.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .game import Game
from .observation import resolve_obs_dtype
from .rng import seed_to_key
from .state import CURRENT_PLAYER, REWARDS, RUNNING, STATUS, TERMINATED, TRUNCATED

ILLEGAL_ACTION_MODES = ("terminate", "raise")
RENDER_MODES = ("ansi", "rgb_array", "human")


def illegal_message(game: Game, state: np.ndarray, agent: str, action: int, mask: np.ndarray, where: str = "", most: int = 0) -> str:
    """'<env>: illegal action A by AGENT[ in phase P]; legal actions: a (words), ...' (the first
    ``most`` of them when ``most`` > 0)."""
    legal = [int(a) for a in np.flatnonzero(mask)]
    shown = legal[:most] if most else legal
    words = ", ".join(f"{a} ({game.action_to_string(state, a)})" for a in shown) + (" ..." if len(shown) < len(legal) else "")
    return f"{game.spec.env_id}: illegal action {action} by {agent}{where}; legal actions: {words}"


def illegal_ending(game: Game, offenders: int = 1) -> str:
    """The end of an illegal-action warning: how the game ends and who gets what."""
    if game.spec.cooperative:
        return ". The game ends; every seat gets -1 (the team shares the outcome)."
    return f". The game ends; {'each' if offenders > 1 else 'the'} offender gets -1."


def check_env_arguments(env_id: str, render_mode: str | None, illegal_action: str) -> None:
    """The env arguments every game shares, refused with the allowed values."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"{env_id}: render_mode {render_mode!r} is not supported; use one of {RENDER_MODES} or None")
    if illegal_action not in ILLEGAL_ACTION_MODES:
        raise ValueError(f"{env_id}: illegal_action {illegal_action!r}; expected one of {ILLEGAL_ACTION_MODES}")


def observation_space_of(game: Game, obs_dtype) -> tuple[np.dtype, spaces.Dict]:
    """The observation dtype ``obs_dtype`` names and every agent's observation space."""
    dtype = resolve_obs_dtype(game, obs_dtype)
    low, high = game.observation_space_bounds(dtype)
    space = spaces.Dict(
        {
            "observation": spaces.Box(low=low, high=high, shape=game.observation_shape_of(dtype), dtype=dtype.type),
            "action_mask": spaces.Box(low=0, high=1, shape=(game.num_actions,), dtype=np.int8),
        }
    )
    return dtype, space


def render_state(game: Game, state: np.ndarray, render_mode: str | None) -> str | np.ndarray | None:
    """``render()`` of every env: text, an image, or printed text (``human``)."""
    if render_mode is None:
        warnings.warn("render() called without a render_mode; pass render_mode='ansi' or 'rgb_array' to env()", stacklevel=3)
        return None
    if render_mode == "rgb_array":
        return game.render_rgb(state)
    text = game.render_ansi(state)
    if render_mode == "human":
        print(text)
        return None
    return text


class TardisAECEnv(AECEnv, EzPickle):
    """AEC env over one game's numba kernels. Subclasses set ``game_class``."""

    game_class: ClassVar[type[Game]]
    metadata: ClassVar[dict] = {"render_modes": list(RENDER_MODES), "is_parallelizable": False, "render_fps": 2}

    def __init__(self, render_mode: str | None = None, illegal_action: str = "terminate", obs_dtype: str = "float32", **options: Any):
        EzPickle.__init__(self, render_mode=render_mode, illegal_action=illegal_action, obs_dtype=obs_dtype, **options)
        super().__init__()
        check_env_arguments(self.game_class.spec.env_id, render_mode, illegal_action)
        self.game = self.game_class(**options)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        game = self.game
        self.possible_agents = list(game.agent_names)
        self.agent_name_mapping = {name: seat for seat, name in enumerate(self.possible_agents)}
        self.obs_dtype, self._observation_space = observation_space_of(game, obs_dtype)
        self._action_space: spaces.Discrete = spaces.Discrete(game.num_actions)
        self.observation_spaces = {a: self._observation_space for a in self.possible_agents}
        self.action_spaces = {a: self._action_space for a in self.possible_agents}
        self._mask = np.zeros(game.num_actions, dtype=np.int8)
        self._no_actions = np.zeros(game.num_actions, dtype=np.int8)
        self._obs_shape = game.observation_shape_of(self.obs_dtype)
        self._obs_size = int(np.prod(self._obs_shape))
        self._seed_source = np.random.default_rng()
        self._state = game.new_state(seed_to_key(None))
        self._reset_bookkeeping()

    # --- spaces -----------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # --- lifecycle ---------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game. ``seed`` fixes every chance event of the game.

        Without a seed the next key comes from a Python generator that was
        itself seeded by the last explicit seed (or by OS entropy), so a
        seeded env followed by unseeded resets is still reproducible.
        ``options`` is accepted for API compatibility and ignored: rule options
        are fixed when the env is made.
        """
        if seed is not None:
            key = seed_to_key(seed)
            self._seed_source = np.random.default_rng(key)
        else:
            key = int(self._seed_source.integers(0, 2**63 - 1))
        self._state = self.game.new_state(key)
        self._reset_bookkeeping()

    def _reset_bookkeeping(self) -> None:
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self._sync()

    def _sync(self) -> None:
        """Read the header of the state into PettingZoo's dicts after a change."""
        state = self._state
        self.game.kernels.legal_mask(state, self.game.tables, self._mask)
        self.agent_selection = self.possible_agents[int(state[CURRENT_PLAYER])]
        status = int(state[STATUS])
        if status != RUNNING:
            for seat, agent in enumerate(self.possible_agents):
                if agent in self.rewards:
                    self.rewards[agent] = float(state[REWARDS + seat])
                    self.terminations[agent] = status == TERMINATED
                    self.truncations[agent] = status == TRUNCATED

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:
            index = int(action)  # type: ignore[arg-type]  # None and non-numbers fall to -1
        except (TypeError, ValueError):
            index = -1
        if not 0 <= index < self.game.num_actions or not self._mask[index]:
            self._illegal(agent, index)
            return
        self._cumulative_rewards[agent] = 0.0
        self.game.kernels.step(self._state, self.game.tables, index)
        for a in self.rewards:
            self.rewards[a] = 0.0
        self._sync()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _illegal(self, agent: str, action: int) -> None:
        phase = self.game.describe(self._state).get("phase", "?")
        message = illegal_message(self.game, self._state, agent, action, self._mask, f" in phase {phase!r}")
        if self.illegal_action == "raise":
            raise ValueError(message)
        warnings.warn(message + illegal_ending(self.game), stacklevel=3)
        self._cumulative_rewards[agent] = 0.0
        # The kernels see a finished game too (empty masks, batched semantics).
        self.game.end_by_illegal_action(self._state, self.agent_name_mapping[agent])
        self.terminations = {a: True for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.rewards = {a: float(self._state[REWARDS + self.agent_name_mapping[a]]) for a in self.agents}
        self._accumulate_rewards()
        self._mask[:] = 0

    # --- observations ---------------------------------------------------------------
    def observe(self, agent: str) -> dict:
        seat = self.agent_name_mapping[agent]
        flat = np.empty(self._obs_size, dtype=self.obs_dtype)
        self.game.kernels.observe(self._state, self.game.tables, seat, flat)
        mine = agent == self.agent_selection and int(self._state[STATUS]) == RUNNING
        mask = self._mask.copy() if mine else self._no_actions.copy()
        return {"observation": flat.reshape(self._obs_shape), "action_mask": mask}

    # --- state, words, drawing ---------------------------------------------------------
    def get_state(self) -> np.ndarray:
        """A copy of the complete game state, generator included."""
        return self._state.copy()

    def set_state(self, state: np.ndarray) -> None:
        """Restore a state from :meth:`get_state` exactly (validated first)."""
        self._state = self.game.check_state(state)
        self._reset_bookkeeping()
        self.rewards = {a: 0.0 for a in self.agents}

    def describe(self) -> dict:
        return self.game.describe(self._state)

    def action_to_string(self, action: int) -> str:
        return self.game.action_to_string(self._state, int(action))

    def string_to_action(self, text: str) -> int:
        return self.game.string_to_action(self._state, text)

    def legal_actions(self) -> list[int]:
        """Legal actions of the agent to move (empty once the game is over)."""
        return [int(a) for a in np.flatnonzero(self._mask)]

    def render(self) -> str | np.ndarray | None:
        return render_state(self.game, self._state, self.render_mode)

    def close(self) -> None:
        pass


# Attributes the AEC loop reads on every step (agent_iter, last, step). PettingZoo's
# BaseWrapper finds them through __getattr__ on each wrapper in turn, which cost
# three quarters of a wrapped step here (measured: raw env 107k, wrapped 27k
# agent-steps/s). The subclasses below serve them as properties read straight
# from the unwrapped env; the wrappers' checks (order, bounds) are unchanged.
_HOT_ATTRIBUTES = ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos", "_cumulative_rewards", "num_agents")
_GUARDED = {"rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents", "agents"}


def _forwarding_property(name: str, guarded: bool) -> property:
    def get(self):
        if guarded and not self.__dict__.get("_has_reset", True):
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.__dict__["_raw_env"], name)

    def set_(self, value):
        setattr(self.__dict__["_raw_env"], name, value)

    return property(get, set_)


def _fast(wrapper_class: type, guarded: bool, **methods: Callable) -> type:
    namespace: dict[str, Any] = {name: _forwarding_property(name, guarded and name in _GUARDED) for name in _HOT_ATTRIBUTES}
    namespace.update(methods)

    def __init__(self, env):
        self.__dict__["_raw_env"] = env.unwrapped
        wrapper_class.__init__(self, env)

    namespace["__init__"] = __init__
    namespace["__doc__"] = f"{wrapper_class.__name__} whose hot attributes skip the __getattr__ chain."
    return type(wrapper_class.__name__, (wrapper_class,), namespace)


def _step_in_bounds(self, action) -> None:
    """The wrapper's assertion with ``Discrete.contains`` spelt out: gymnasium's
    version builds ``np.iinfo`` on every call, a sixth of a wrapped step."""
    raw = self.__dict__["_raw_env"]
    agent = raw.agent_selection
    dead = raw.terminations[agent] or raw.truncations[agent]
    if action is None:
        ok = dead
    elif isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        ok = 0 <= action < raw.game.num_actions
    elif isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
        ok = 0 <= int(action) < raw.game.num_actions
    else:
        ok = False
    if not ok:  # raised, not asserted: the check holds under python -O too
        raise ActionOutOfBounds(
            f"{raw.game.spec.env_id}: action {action!r} by {agent} is not in the action space Discrete({raw.game.num_actions})"
            + ("" if dead else "; a live agent must act (None is only for a finished agent)")
        )
    self.env.step(action)


class ActionOutOfBounds(ValueError, AssertionError):
    """An action outside the action space, refused by ``env()``'s bounds wrapper: an
    ``AssertionError`` as PettingZoo's ``AssertOutOfBoundsWrapper`` raises, and a
    ``ValueError`` like every other bad input (the command line reports it in one line)."""


FastAssertOutOfBoundsWrapper = _fast(wrappers.AssertOutOfBoundsWrapper, guarded=False, step=_step_in_bounds)


def _last(self, observe: bool = True):
    """``AECEnv.last`` answered by the unwrapped env in one call (the wrappers in
    between add nothing to it); before ``reset`` it fails as the wrapper would."""
    if not self.__dict__.get("_has_reset", True):
        raise AttributeError("agent_selection cannot be accessed before reset")
    return self.__dict__["_raw_env"].last(observe)


FastOrderEnforcingWrapper = _fast(wrappers.OrderEnforcingWrapper, guarded=True, last=_last)


def make_env_factory(raw_env_class: type[TardisAECEnv]):
    """Build the ``env()`` of a game: ``raw_env`` wrapped as PettingZoo classic does."""

    def env(**kwargs: Any) -> AECEnv:
        wrapped = raw_env_class(**kwargs)
        if wrapped.illegal_action == "terminate":
            # In "raise" mode our own ValueError (naming phase and legal actions)
            # must reach the user instead of the wrapper's bare AssertionError.
            wrapped = FastAssertOutOfBoundsWrapper(wrapped)
        return FastOrderEnforcingWrapper(wrapped)

    env.__doc__ = (
        f"{raw_env_class.game_class.spec.name} as a wrapped PettingZoo AEC env "
        "(AssertOutOfBoundsWrapper in terminate mode, OrderEnforcingWrapper); keyword arguments are rule options, "
        "`render_mode` and `illegal_action`."
    )
    return env
