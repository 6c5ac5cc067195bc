"""Every tardis_envs game as an OpenSpiel game (``pip install -e ".[openspiel]"``).

    import pyspiel
    from tardis_envs import openspiel as tardis_openspiel

    game = tardis_openspiel.load_game("tardis_run_v0")                 # rule options as keywords
    game = pyspiel.load_game("keys_to_the_tardis_v0(num_players=3)")  # the same, by name, after the import

Importing this module registers each env id as a Python game of ``pyspiel``
(the short name is the env id; its parameters are the game's rule options with
their defaults). OpenSpiel's algorithms (MCTS, ISMCTS, CFR on small variants,
exploitability tools, the test utilities) then run on the same numba kernels as
the PettingZoo envs: the adapter holds a :class:`tardis_envs.core.chance.Position`
and no rule is written twice.

What OpenSpiel sees (``GameType``)
    sequential; chance explicit (every die, paddle, card draw, shuffle step and the
    opening deal is a chance node with its exact odds, see
    :mod:`tardis_envs.core.chance`), deterministic for Dr. Who Chess; perfect
    information for TARDIS Run and Dr. Who Chess, imperfect for Keys to the
    TARDIS, the Ghosts of Gallifrey duel (a committed choice stays hidden) and
    Time of the Daleks; zero-sum for the two-player games, general-sum for Keys
    (the winner +1 and every other player -1; with 3-4 players the sum is not
    constant) and for Time of the Daleks (a Dalek win gives every Doctor -1, a Doctors'
    win +1 to each Doctor on Gallifrey and 0 to the others, so team-mates' utilities
    can differ and OpenSpiel's "identical" would be untrue); utilities in
    [-1, 1]; terminal rewards; ``max_game_length`` = the game's decision limit.
    Chance outcomes are numbered within a draw: ``0..n-1`` for a draw of ``n``
    (the face of a die, the card taken, the Fisher–Yates swap), ``0/1`` for a coin.

Game strings
    ``str(game)`` is ``env_id(option=value,...)`` and ``pyspiel.load_game(str(game))``
    gives the same game back. A text option holding ``%``, ``,``, ``=``, ``(`` or ``)``
    (``pair="The Doctor, Dalek"``, ``doctors="First Doctor, Fourth Doctor"``) stands there
    percent-encoded (``pair=The Doctor%2C Dalek``); the adapter decodes every text
    option it is given, so either spelling loads.

Observations
    ``observation_tensor(player)`` is the env's observation of that seat (same
    layout, documented in the game's page); ``observation_string`` lists its
    non-zero entries as ``index:value``. For the perfect-information games the
    information state is the history (``information_state_string``) and its
    tensor is the observation tensor (the observation holds the whole state,
    repetition history included for chess). For the imperfect-information games
    ``information_state_string(player)`` is the seat's own perfect-recall record:
    every change of its observation (as a digest) and its own actions, in order;
    an information-state *tensor* is not offered there: a perfect-recall record
    grows with the game and the envs' fixed-size observation is not one.

Resampling
    ``state.resample_from_infostate(player, sampler)`` (imperfect-information
    games, decision nodes) redeals what ``player`` cannot see with the game's
    ``resample_hidden`` kernel (other hands, face-down tiles, deck order, a hidden
    committed choice; each game's ``hidden.py`` says what exactly). The result has
    the same observation and information state for ``player``; it is what
    OpenSpiel's ISMCTS bot needs.
"""

from __future__ import annotations

import hashlib
import urllib.parse
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError('tardis_envs.openspiel needs OpenSpiel: pip install -e ".[openspiel]"') from exc

import tardis_envs

from .core.chance import OPENING, Position, game_of
from .core.state import RNG_COUNTER, RNG_KEY


def game_for(env_id: str, options: tuple):
    """The rules of ``env_id`` bound to ``options`` (sorted ``(key, value)`` pairs), built once
    per variant (:func:`tardis_envs.core.chance.game_of`)."""
    return game_of(tardis_envs.env_module(env_id).Game, options)


_UTILITY = {"zero_sum": pyspiel.GameType.Utility.ZERO_SUM, "general_sum": pyspiel.GameType.Utility.GENERAL_SUM}


def _options_key(options: dict) -> tuple:
    return tuple(sorted(options.items()))


# OpenSpiel's game strings (``name(key=value,...)``) have no quoting: a text option holding
# one of these characters (``pair="The Doctor, Dalek"``) is written percent-encoded there.
GAME_STRING_SPECIALS = "%,=()"


def encode_option(value: Any) -> Any:
    """A text option as it stands in a game string: ``%``, ``,``, ``=``, ``(`` and ``)``
    percent-encoded (``"The Doctor, Dalek"`` -> ``"The Doctor%2C Dalek"``); other values as they are."""
    if not isinstance(value, str):
        return value
    return "".join(f"%{ord(c):02X}" if c in GAME_STRING_SPECIALS else c for c in value)


def decode_option(value: Any) -> Any:
    """The inverse of :func:`encode_option` (a text without ``%`` comes back unchanged)."""
    return urllib.parse.unquote(value) if isinstance(value, str) else value


def game_type(env_id: str) -> pyspiel.GameType:
    """The ``pyspiel.GameType`` this module registers for ``env_id``."""
    game = game_for(env_id, ())
    spec = game.spec
    perfect = not spec.hidden_information
    return pyspiel.GameType(
        short_name=env_id,
        long_name=f"tardis_envs {spec.name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if spec.chance else pyspiel.GameType.ChanceMode.DETERMINISTIC),
        information=(pyspiel.GameType.Information.PERFECT_INFORMATION if perfect else pyspiel.GameType.Information.IMPERFECT_INFORMATION),
        utility=_UTILITY[game.spec.utility],
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=spec.max_players,
        min_num_players=spec.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=perfect,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={key: option.default for key, option in spec.options.items()},
    )


class TardisGame(pyspiel.Game):
    """One registered game bound to rule options (``params``: option -> value)."""

    env_id: str = ""  # set by the subclass registered for each env id

    def __init__(self, params: dict | None = None):
        env_id = self.env_id
        options = {k: decode_option(v.item() if hasattr(v, "item") else v) for k, v in dict(params or {}).items()}
        self.tardis = game_for(env_id, _options_key(options))  # validates the options, naming a bad key
        self.options = dict(self.tardis.options)
        game = self.tardis
        zero_sum = self.tardis.spec.utility == "zero_sum"
        info = pyspiel.GameInfo(
            num_distinct_actions=game.num_actions,
            max_chance_outcomes=game.max_chance_outcomes,
            num_players=game.num_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if zero_sum else None,
            max_game_length=game.max_game_length,
        )
        # the parameters OpenSpiel writes into str(game): text options encoded, so that
        # pyspiel.load_game(str(game)) gives this game back
        super().__init__(game_type(env_id), info, {k: encode_option(v) for k, v in self.options.items()})
        self.perfect_information = not game.spec.hidden_information
        self._opening = Position.initial(game)

    def new_initial_state(self) -> "TardisState":
        return TardisState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> "TardisObserver":
        if params:
            raise ValueError(f"{self.env_id}: observation parameters are not supported, got {params}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return TardisObserver(self, perfect_recall)


class TardisState(pyspiel.State):
    """A node of the game tree: a :class:`Position` plus each seat's perfect-recall record."""

    def __init__(self, game: TardisGame):
        super().__init__(game)
        self.position = game._opening.clone()
        # per seat: its observation digests (on change) and own actions, for the information state
        self.records: tuple[tuple[str, ...], ...] = tuple(() for _ in range(game.tardis.num_players))

    @property
    def tardis(self):
        return self.position.game

    # --- the game tree -------------------------------------------------------------
    def current_player(self) -> int:
        return self.position.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        return self.position.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.position.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        mover = self.position.current_player()
        self.position.apply_action(action)
        if not self.get_game().perfect_information:
            self._record(mover, action)

    def is_terminal(self) -> bool:
        return self.position.is_terminal()

    def returns(self) -> list[float]:
        return [float(r) for r in self.position.returns()]

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            shape = self.position.shape if self.position.is_chance_node() else 0
            return f"chance outcome {action}" + (f" of {shape}" if shape > 0 else " (coin)" if shape < 0 else "")
        state = self.position.state
        if state is None:
            return f"action {action}"
        return self.tardis.action_to_string(state, int(action))

    def __str__(self) -> str:
        if self.position.state is None:
            if self.position.move == OPENING:
                return f"{self.get_game().env_id}: dealing the opening (chance outcomes so far: {list(self.position.forced)})"
            return self.tardis.render_ansi(self.position.base) + f"\n(chance pending after move {self.position.move})"
        return self.tardis.render_ansi(self.position.state)

    # --- what a seat sees --------------------------------------------------------------
    def seen_state(self) -> np.ndarray | None:
        """The state a seat's observation is read from (before the pending move at a chance
        node; ``None`` while the opening is dealt)."""
        if self.position.state is not None:
            return self.position.state
        return None if self.position.move == OPENING else self.position.base

    def observation_array(self, player: int) -> np.ndarray:
        game = self.tardis
        seen = self.seen_state()
        if seen is None:
            return np.zeros(int(np.prod(game.observation_shape)), dtype=np.float32)
        return game.observation(seen, player).reshape(-1)

    def _record(self, mover: int, action: int) -> None:
        records: list[tuple[str, ...]] = list(self.records)
        for seat in range(len(records)):
            digest = hashlib.blake2b(self.observation_array(seat).tobytes(), digest_size=8).hexdigest()
            entries = records[seat]
            if mover == seat:
                entries = entries + (f"a{action}",)
            if _last_view(entries) != digest:  # a view is recorded when it changes
                entries = entries + (f"o{digest}",)
            records[seat] = entries
        self.records = tuple(records)

    def information_state_text(self, player: int) -> str:
        if self.get_game().perfect_information:
            return self.history_str()
        return " ".join(self.records[player])

    # --- resampling the hidden information ---------------------------------------------
    def resample_from_infostate(self, player_id: int, probability_sampler: Any = None) -> "TardisState":
        """A state of ``player_id``'s information set, drawn by redealing what it cannot see."""
        if self.position.state is None:
            raise ValueError(f"{self.get_game().env_id}: resample_from_infostate at a chance node (resample at a decision node)")
        out = self.clone()
        if self.get_game().perfect_information or self.position.is_terminal():
            return out
        draw = probability_sampler() if callable(probability_sampler) else np.random.random()
        state = self.position.state.copy()
        state[RNG_KEY] = int(draw * (1 << 53)) ^ int(state[RNG_KEY])
        state[RNG_COUNTER] = 0
        self.tardis.kernels.resample_hidden(state, self.tardis.tables, int(player_id))
        out.position = Position(self.tardis, state)
        return out


def _last_view(entries: tuple) -> str:
    for e in reversed(entries):
        if e.startswith("o"):
            return e[1:]
    return ""


class TardisObserver:
    """OpenSpiel's ``PyObserver``: the env's observation, or the information state."""

    def __init__(self, game: TardisGame, perfect_recall: bool):
        self.game = game
        self.perfect_recall = perfect_recall
        size = int(np.prod(game.tardis.observation_shape))
        if perfect_recall and not game.perfect_information:
            size = 0  # no information-state tensor for imperfect-information games (see the module docstring)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor} if size else {}

    def set_from(self, state: TardisState, player: int) -> None:
        if self.tensor.size:
            self.tensor[:] = state.observation_array(player)

    def string_from(self, state: TardisState, player: int) -> str:
        if self.perfect_recall:
            return state.information_state_text(player)
        seen = state.observation_array(player)
        nonzero = np.flatnonzero(seen)
        return " ".join(f"{i}:{seen[i]:g}" for i in nonzero)


# one subclass per env id: pyspiel's registry keeps the class as the game's factory
GAME_CLASSES = {env_id: type(f"TardisGame_{env_id}", (TardisGame,), {"env_id": env_id}) for env_id in tardis_envs.ENV_IDS}


def load_game(env_id: str, **rule_options: Any) -> TardisGame:
    """``env_id`` as an OpenSpiel game with these rule options (defaults otherwise)."""
    tardis_envs.check_env_id(env_id)
    return GAME_CLASSES[env_id](rule_options)


for _env_id, _cls in GAME_CLASSES.items():
    if _env_id not in pyspiel.registered_names():
        pyspiel.register_game(game_type(_env_id), _cls)

__all__ = ["load_game", "game_type", "TardisGame", "TardisState", "TardisObserver"]
