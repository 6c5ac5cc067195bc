"""TARDIS Run bound to its options: tables, state checks, words and drawing hooks."""

from __future__ import annotations

import numpy as np

from ...core.game import Game, GameSpec, Kernels
from ...core.options import Option
from ...core.state import CURRENT_PLAYER, REWARDS, RUNNING, STATUS, STATUS_NAMES, TERMINATED
from . import ENV_ID, batch, check, heuristic, hidden, rules
from .content import Board, build_tables, load_board
from .rules import (
    BLACK_PADDLE_OWNER,
    DECLINE_EXTRA,
    DOCTORS,
    LAST_CAPTURES,
    LAST_EXTRA,
    LAST_EXTRA_CAPTURES,
    LAST_EXTRA_TO,
    LAST_FACES,
    LAST_FROM,
    LAST_OUTCOME,
    LAST_PLAYER,
    LAST_RANK,
    LAST_SEALS,
    LAST_TO,
    LAST_USED_BLACK,
    MONSTERS,
    NUM_ACTIONS,
    NUM_PIECES,
    NUM_PLANES,
    OBS_ARROW_SHIFT,
    OBS_TELEPORT_SHIFT,
    PENDING_PROGRESS,
    PHASE,
    PHASE_CHOOSE,
    PHASE_EXTRA_MOVE,
    PHASE_OVER,
    PROGRESS,
    ROLL,
    STATE_SIZE,
    TAKE_EXTRA,
    TURN,
    WINNER,
)

SIDE_NAMES = ("monsters", "doctors")
PHASE_NAMES = {PHASE_CHOOSE: "choose_piece", PHASE_EXTRA_MOVE: "extra_move", PHASE_OVER: "game_over"}
OUTCOME_NAMES = {
    rules.OUT_NONE: None,
    rules.OUT_MOVED: "moved",
    rules.OUT_CANCELLED: "cancelled",
    rules.OUT_ESCAPED: "escaped",
    rules.OUT_CLAIMED: "claimed the black paddle",
    rules.OUT_STOLE: "stole the black paddle",
    rules.OUT_SENT_HOME: "sent home",
    rules.OUT_ROLLED_ONLY: "rolled only",
}
EXTRA_NAMES = {
    rules.EXTRA_NONE: None,
    rules.EXTRA_PENDING: "pending",
    rules.EXTRA_TAKEN: "taken",
    rules.EXTRA_DECLINED: "declined",
    rules.EXTRA_CANCELLED: "cancelled",
}
PADDLE_NAMES = ("white 1 seal (a)", "white 1 seal (b)", "white 2 seals (a)", "white 2 seals (b)", "black")

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


def _action_names() -> list[str]:
    names = []
    for rank in range(NUM_PIECES):
        names.append(f"move piece {rank + 1}")
        names.append(f"move piece {rank + 1} with black paddle")
    names += ["roll", "take extra move", "decline extra move"]
    assert len(names) == NUM_ACTIONS
    return names


ACTION_NAMES = _action_names()


class TardisRun(Game):
    """TARDIS Run; see :mod:`tardis_envs.tardis_run_v0` for the documentation page."""

    spec = SPEC
    kernels = Kernels.of(rules, batch, hidden, check, heuristic)
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
        """The whole state in the game's words.

        Keys: ``board``, ``track_length``, ``turn``, ``phase``, ``status``,
        ``current_player``, ``black_paddle_owner``, ``winner``, ``rewards``,
        ``pieces`` (per side, most advanced first: ``progress``, ``square`` or
        None, ``where`` home/track/escaped), ``pending_extra_move`` (square and
        target while an extra move is offered) and ``last_roll`` (who, which
        piece, each paddle's face, the seals counted, the outcome, squares,
        captures, the extra move) or None before the first roll.
        """
        escaped = self.track_length + 1
        pieces = {}
        for seat, side in enumerate(SIDE_NAMES):
            listed = []
            for p in self.progress(state, seat):
                where = "home" if p == 0 else "escaped" if p == escaped else "track"
                listed.append({"progress": p, "square": self.square(seat, p), "where": where})
            pieces[side] = listed
        owner = int(state[BLACK_PADDLE_OWNER])
        status = int(state[STATUS])
        winner = int(state[WINNER])
        out = {
            "board": self.board.name,
            "track_length": self.track_length,
            "turn": int(state[TURN]),
            "phase": PHASE_NAMES[int(state[PHASE])],
            "status": STATUS_NAMES[status],
            "current_player": SIDE_NAMES[int(state[CURRENT_PLAYER])] if status == RUNNING else None,
            "black_paddle_owner": SIDE_NAMES[owner] if owner >= 0 else None,
            "winner": SIDE_NAMES[winner] if status == TERMINATED and winner >= 0 else None,
            "rewards": {side: int(state[REWARDS + s]) for s, side in enumerate(SIDE_NAMES)},
            "pieces": pieces,
            "pending_extra_move": None,
            "last_roll": None,
        }
        if state[PHASE] == PHASE_EXTRA_MOVE:
            seat = int(state[CURRENT_PLAYER])
            square = self.square(seat, int(state[PENDING_PROGRESS]))
            assert square is not None  # an extra move waits on a track square
            kind = "shortcut" if self.tables[rules.T_SHORTCUT + square] else "teleport"
            out["pending_extra_move"] = {"square": square, "target": int(rules.extra_target(self.tables, square)), "kind": kind}
        if state[LAST_PLAYER] >= 0:
            faces = []
            for i, name in enumerate(PADDLE_NAMES):
                face = int(state[LAST_FACES + i])
                if face < 0:
                    continue
                if i < 4:
                    shown = f"{int(rules.WHITE_SEALS[i])} seal(s)" if face == 1 else "blank"
                else:
                    shown = "1 seal" if face == 1 else "2x"
                faces.append({"paddle": name, "face": shown})
            rank = int(state[LAST_RANK])
            out["last_roll"] = {
                "player": SIDE_NAMES[int(state[LAST_PLAYER])],
                "piece": None if rank < 0 else rank + 1,
                "used_black_paddle": bool(state[LAST_USED_BLACK]),
                "paddles": faces,
                "seals": int(state[LAST_SEALS]),
                "outcome": OUTCOME_NAMES[int(state[LAST_OUTCOME])],
                "from_square": int(state[LAST_FROM]) if state[LAST_FROM] >= 0 else None,
                "to_square": int(state[LAST_TO]) if state[LAST_TO] >= 0 else None,
                "captures": int(state[LAST_CAPTURES]),
                "extra_move": EXTRA_NAMES[int(state[LAST_EXTRA])],
                "extra_move_to": int(state[LAST_EXTRA_TO]) if state[LAST_EXTRA_TO] >= 0 else None,
                "extra_move_captures": int(state[LAST_EXTRA_CAPTURES]),
            }
        return self.with_ending(state, out)

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
