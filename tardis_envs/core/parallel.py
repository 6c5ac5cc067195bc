"""PettingZoo's Parallel API for games whose seats act at the same moment (the duel).

Such a game's kernels take the simultaneous choices one seat after the other (seat 0
first), hiding each committed choice from the seats that follow, so a seat's
observation and legal actions are the same whatever the earlier seats chose. A
Parallel step therefore applies every live agent's action in seat order through the
same ``step`` kernel the AEC env uses: one rule implementation, two APIs.

Illegal actions follow the AEC env's ``illegal_action`` modes: ``"terminate"`` (each
offender gets -1, the others 0, the game ends, a warning names every illegal choice of
the step) or ``"raise"`` (``ValueError`` naming each illegal action and the legal ones;
the state is left untouched).
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import ParallelEnv

from .aec import RENDER_MODES, check_env_arguments, illegal_ending, illegal_message, observation_space_of, render_state
from .game import Game
from .rng import seed_to_key
from .state import CURRENT_PLAYER, REWARDS, RUNNING, STATUS, TERMINATED, TRUNCATED


class TardisParallelEnv(ParallelEnv, EzPickle):
    """Parallel env over one simultaneous game's kernels. Subclasses set ``game_class``."""

    game_class: ClassVar[type[Game]]
    metadata: ClassVar[dict] = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(self, render_mode: str | None = None, illegal_action: str = "terminate", obs_dtype: str = "float32", **options: Any):
        EzPickle.__init__(self, render_mode=render_mode, illegal_action=illegal_action, obs_dtype=obs_dtype, **options)
        check_env_arguments(self.game_class.spec.env_id, render_mode, illegal_action)
        self.game = game = self.game_class(**options)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.possible_agents = list(game.agent_names)
        self.agent_name_mapping = {name: seat for seat, name in enumerate(self.possible_agents)}
        self.obs_dtype, space = observation_space_of(game, obs_dtype)
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces: dict[str, spaces.Discrete] = {a: spaces.Discrete(game.num_actions) for a in self.possible_agents}
        self._seed_source = np.random.default_rng()
        self._state = game.new_state(seed_to_key(None))
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # --- views --------------------------------------------------------------------
    def _mask(self, seat: int) -> np.ndarray:
        """The seat's legal actions at the start of the joint step (its turn in seat order)."""
        mask = np.zeros(self.game.num_actions, dtype=np.int8)
        if self._state[STATUS] == RUNNING:
            view = self._state.copy()
            view[CURRENT_PLAYER] = seat
            self.game.kernels.legal_mask(view, self.game.tables, mask)
        return mask

    def _observe(self, agent: str) -> dict:
        seat = self.agent_name_mapping[agent]
        return {"observation": self.game.observation(self._state, seat, self.obs_dtype), "action_mask": self._mask(seat)}

    def observe(self, agent: str) -> dict:
        return self._observe(agent)

    # --- lifecycle ----------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None):
        """Start a new game (``seed`` fixes every chance event); ``options`` is ignored."""
        if seed is not None:
            key = seed_to_key(seed)
            self._seed_source = np.random.default_rng(key)
        else:
            key = int(self._seed_source.integers(0, 2**63 - 1))
        self._state = self.game.new_state(key)
        self.agents = list(self.possible_agents)
        return {a: self._observe(a) for a in self.agents}, {a: {} for a in self.agents}

    def step(self, actions: dict):
        if not self.agents:
            raise ValueError(f"{self.game.spec.env_id}: step() after the game ended; call reset()")
        missing = [a for a in self.agents if a not in actions]
        if missing:
            raise ValueError(f"{self.game.spec.env_id}: step() needs an action for every live agent; missing {missing}")
        masks = {a: self._mask(self.agent_name_mapping[a]) for a in self.agents}
        offences = {}
        for agent in self.agents:
            try:
                action = int(actions[agent])
            except (TypeError, ValueError):
                action = -1
            if not 0 <= action < self.game.num_actions or not masks[agent][action]:
                offences[agent] = action
        if offences:
            return self._illegal(offences, masks)
        state = self._state
        for agent in sorted(self.agents, key=self.agent_name_mapping.__getitem__):
            if state[STATUS] != RUNNING:
                break
            self.game.kernels.step(state, self.game.tables, int(actions[agent]))
        status = int(state[STATUS])
        rewards = {a: float(state[REWARDS + self.agent_name_mapping[a]]) for a in self.agents}
        terminations = {a: status == TERMINATED for a in self.agents}
        truncations = {a: status == TRUNCATED for a in self.agents}
        observations = {a: self._observe(a) for a in self.agents}
        infos: dict[str, dict] = {a: {} for a in self.agents}
        if status != RUNNING:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def _illegal(self, offences: dict[str, int], masks: dict[str, np.ndarray]):
        """Every illegal choice of the step is named; each offender gets -1."""
        message = "; ".join(
            illegal_message(self.game, self._state, agent, action, masks[agent], most=20) for agent, action in offences.items()
        )
        if self.illegal_action == "raise":
            raise ValueError(message)
        warnings.warn(message + illegal_ending(self.game, len(offences)), stacklevel=3)
        self.game.end_by_illegal_action(self._state, [self.agent_name_mapping[agent] for agent in offences])
        rewards = {a: float(self._state[REWARDS + self.agent_name_mapping[a]]) for a in self.agents}
        observations = {a: self._observe(a) for a in self.agents}
        done = {a: True for a in self.agents}
        infos: dict[str, dict] = {a: {} for a in self.agents}
        self.agents = []
        return observations, rewards, done, {a: False for a in done}, infos

    # --- state, words, drawing ------------------------------------------------------------
    def get_state(self) -> np.ndarray:
        return self._state.copy()

    def set_state(self, state: np.ndarray) -> None:
        self._state = self.game.check_state(state)
        self.agents = list(self.possible_agents) if self._state[STATUS] == RUNNING else []

    def describe(self) -> dict:
        return self.game.describe(self._state)

    def render(self) -> str | np.ndarray | None:
        return render_state(self.game, self._state, self.render_mode)

    def close(self) -> None:
        pass
