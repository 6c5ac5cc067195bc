"""TARDIS Run bound to its options: tables, state checks, words and drawing hooks."""

from __future__ import annotations

import numpy as np

from ...core.game import Game, GameSpec, Kernels
from ...core.options import Option
from ...core.state import CURRENT_PLAYER
from . import ENV_ID, batch, check, heuristic, hidden, observe, rules
from .content import Board, build_tables, load_board
from .layout import (
    BLACK_PADDLE_OWNER,
    DECLINE_EXTRA,
    DOCTORS,
    LAYOUT_VERSION,
    MONSTERS,
    NUM_ACTIONS,
    NUM_PIECES,
    NUM_PLANES,
    OBS_ARROW_SHIFT,
    OBS_TELEPORT_SHIFT,
    PHASE,
    PHASE_OVER,
    PROGRESS,
    ROLL,
    STATE_SIZE,
    TAKE_EXTRA,
    TURN,
)
from .notation import ACTION_NAMES, SIDE_NAMES, describe

SPEC = GameSpec(
    env_id=ENV_ID,
    name="TARDIS Run",
    version=0,
    rulebook="TARDIS Run (Rev 4)",
    min_players=2,
    max_players=2,
    chance=True,
    hidden_information=False,
    status="complete",
    utility="zero_sum",
    throughput_target=20e6,
    first_run_seconds=15,
    options={
        "board": Option("default", "a shipped board name ('default') or a path to a board YAML file", kind=str),
        "max_turns": Option(1000, "turns (plies) before the game is truncated as a draw", kind=int, minimum=1),
    },
)


class TardisRun(Game):
    """TARDIS Run; see :mod:`tardis_envs.tardis_run_v0` for the documentation page."""

    spec = SPEC
    kernels = Kernels.of(rules, observe, batch, hidden, check, heuristic)
    layout_version = LAYOUT_VERSION
    earlier_layouts = check.EARLIER_LAYOUTS
    game_over = (PHASE, PHASE_OVER)

    def _build(self) -> None:
        self.board: Board = load_board(self.options["board"])
        self.track_length = self.board.track_length
        self.tables = build_tables(self.board, self.options["max_turns"])
        self.num_players = 2
        self.agent_names = SIDE_NAMES
        self.num_actions = NUM_ACTIONS
        self.observation_shape = (NUM_PLANES, self.track_length + 2)
        self.observation_low = -1.0
        self.observation_high = 1.0
        self.state_size = STATE_SIZE
        self.max_game_length = 2 * self.options["max_turns"]  # each turn: a roll and maybe an extra move
        self.max_chance_outcomes = 2  # each paddle is a coin

    def _observation_denominators(self) -> np.ndarray:
        # the shortcut and teleport shifts are squares / track length; every other plane is one-hot
        denominators = np.ones(self.observation_shape, dtype=np.int64)
        denominators[[OBS_ARROW_SHIFT, OBS_TELEPORT_SHIFT]] = self.track_length
        return denominators.ravel()

    # --- state checks ---------------------------------------------------------------
    def progress(self, state: np.ndarray, seat: int) -> list[int]:
        return [int(v) for v in state[PROGRESS + NUM_PIECES * seat : PROGRESS + NUM_PIECES * (seat + 1)]]

    def square(self, seat: int, progress: int) -> int | None:
        if not 1 <= progress <= self.track_length:
            return None
        return progress if seat == DOCTORS else self.track_length + 1 - progress

    # --- position builder ---------------------------------------------------------------
    def position(
        self,
        monsters: list[int] | None = None,
        doctors: list[int] | None = None,
        black_paddle_owner: int | str | None = None,
        to_move: int | str = "monsters",
        turn: int = 0,
        key: int = 0,
    ) -> np.ndarray:
        """Build a position from each side's piece progress (0 home .. L+1 escaped).

        ``monsters``/``doctors`` list up to four progress values (missing pieces
        are at home); ``black_paddle_owner`` and ``to_move`` take a seat or a side
        name. The result is validated like ``set_state``.
        """

        def seat_of(value: int | str, what: str) -> int:
            if isinstance(value, str):
                if value not in SIDE_NAMES:
                    raise ValueError(
                        f"{self.spec.env_id}: position({what}={value!r}): expected a side, "
                        f"{' or '.join(repr(n) for n in SIDE_NAMES)}, or a seat 0..1"
                    )
                return SIDE_NAMES.index(value)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= int(value) <= 1:
                raise ValueError(f"{self.spec.env_id}: position({what}={value!r}): expected a seat 0..1 or a side name")
            return int(value)

        state = self.new_state(key)
        for seat, prog in ((MONSTERS, monsters or []), (DOCTORS, doctors or [])):
            if len(prog) > NUM_PIECES:
                raise ValueError(f"{self.spec.env_id}: a side has {NUM_PIECES} pieces, got {len(prog)} values")
            values = sorted(list(prog) + [0] * (NUM_PIECES - len(prog)), reverse=True)
            state[PROGRESS + NUM_PIECES * seat : PROGRESS + NUM_PIECES * (seat + 1)] = values
        state[BLACK_PADDLE_OWNER] = -1 if black_paddle_owner is None else seat_of(black_paddle_owner, "black_paddle_owner")
        state[CURRENT_PLAYER] = seat_of(to_move, "to_move")
        state[TURN] = turn
        return self.check_state(state)

    # --- words ---------------------------------------------------------------
    def action_names(self) -> list[str]:
        return ACTION_NAMES

    def describe(self, state: np.ndarray) -> dict:
        """The whole state in the game's words: :func:`.notation.describe`."""
        return describe(self, state)

    # --- drawing ---------------------------------------------------------------
    def chance_words(self, state: np.ndarray) -> str | None:
        from .render import roll_words

        return roll_words(self.describe(state)["last_roll"])

    def render_ansi(self, state: np.ndarray) -> str:
        from .render import render_ansi

        return render_ansi(self, state)

    def render_rgb(self, state: np.ndarray) -> np.ndarray:
        from .render import render_rgb

        return render_rgb(self, state)


__all__ = ["TardisRun", "SPEC", "ACTION_NAMES", "SIDE_NAMES", "ROLL", "TAKE_EXTRA", "DECLINE_EXTRA"]
