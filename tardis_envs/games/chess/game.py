"""Dr. Who Chess bound to its options: FEN, UCI/SAN notation, describe, state checks."""

from __future__ import annotations

import numpy as np

from ...core.game import Game, GameSpec, Kernels
from ...core.observation import PLANE_BITS, PLANE_CONSTANT, PLANE_ONE_ENTRY
from ...core.options import Option
from ...core.state import CURRENT_PLAYER, RUNNING, STATUS, VARIANT
from . import ENV_ID, batch, check, heuristic, hidden, layout, notation, observe, rules
from .content import (
    CASTLING_LETTERS,
    START_FEN,
    build_tables,
    en_passant_field,
    piece_letter,
    square_name,
)
from .layout import (
    BLACK,
    EMPTY,
    LAYOUT_VERSION,
    NUM_CHESS_ACTIONS,
    WHITE,
)
from .notation import SIDE_NAMES, decode_chess_action


def _check_fen(value: str) -> str | None:
    return None if value.strip() else "an empty FEN; use 'startpos' or a FEN string"


SPEC = GameSpec(
    env_id=ENV_ID,
    name="Dr. Who Chess",
    version=1,
    rulebook="Dr. Who Chess",
    min_players=2,
    max_players=2,
    chance=False,
    hidden_information=False,
    status="complete",
    utility="zero_sum",
    throughput_target=1e6,
    first_run_seconds=60,
    kernel_peer="openspiel_chess",
    bench_variants={"classic": {"doctor": False}},
    options={
        "doctor": Option(True, "play with Dr. Who and the TARDIS (False: classic FIDE chess)", kind=bool),
        "max_plies": Option(512, "turns (plies) before the game is truncated as a draw", kind=int, minimum=1),
        "fen": Option("startpos", "start position: 'startpos' or a FEN (variant: with the TARDIS field)", kind=str, check=_check_fen),
        "history_planes": Option(
            layout.HISTORY - 1,
            "earlier positions the observation shows (0..10; fewer planes, same rules)",
            kind=int,
            minimum=0,
            maximum=layout.HISTORY - 1,
            observation_only=True,
        ),
        "threat_planes": Option(
            False, "add eight observation planes: attackers, pieces en prise, moves that mate at once", kind=bool, observation_only=True
        ),
    },
)


class TimelordChess(Game):
    """Dr. Who Chess; see :mod:`tardis_envs.timelord_chess_v1` for the documentation page."""

    spec = SPEC
    kernels = Kernels.of(rules, observe, batch, hidden, check, heuristic)
    layout_version = LAYOUT_VERSION
    earlier_layouts = check.EARLIER_LAYOUTS
    game_over = (layout.PHASE, layout.PHASE_OVER)

    def _build(self) -> None:
        self.doctor = self.options["doctor"]
        fen = self.options["fen"]
        self.start_fen = START_FEN if fen == "startpos" else fen
        try:
            self.tables = self._tables(self.start_fen)
        except ValueError as exc:
            raise ValueError(f"{self.spec.env_id}: option 'fen': {exc}") from None
        self._check_waiting_side(self.tables_state(), "option 'fen': " + repr(self.start_fen))
        self.num_players = 2
        self.agent_names = SIDE_NAMES
        self.num_actions = layout.NUM_ACTIONS if self.doctor else NUM_CHESS_ACTIONS
        threats = layout.NUM_THREAT_PLANES if self.options["threat_planes"] else 0
        self.observation_shape = (layout.NUM_PLANES - layout.planes_left_out(self.options["history_planes"]) + threats, 8, 8)
        self.observation_low = -1.0
        self.observation_high = 1.0
        self.state_size = layout.STATE_SIZE
        # a turn is at most three decisions: a move, an eviction square, a follow-up
        self.max_game_length = (3 if self.doctor else 1) * self.options["max_plies"]

    def _tables(self, fen: str) -> np.ndarray:
        tables = build_tables(self.doctor, self.options["max_plies"], fen)
        tables[layout.T_HISTORY_PLANES] = self.options["history_planes"]
        tables[layout.T_THREAT_PLANES] = int(self.options["threat_planes"])
        return tables

    def _observation_denominators(self) -> np.ndarray:
        """Per plane (observe.py): plies out of ``max_plies``, the fifty-move count out of
        100, repetitions out of 2, the TARDIS's plies away and the history depth out of 10,
        the passenger's turns out of 7, the cool-down out of 5, the travel ban out of 2,
        backward travels out of 2, the evicted piece's kind out of 6; threat planes:
        attackers out of 8, least attacker and pieces en prise out of 10. The rest are 0/1."""
        shift = layout.planes_left_out(self.options["history_planes"])
        d = np.ones(self.observation_shape, dtype=np.int64)
        planes = {
            layout.P_PLY: max(self.options["max_plies"], 1),
            layout.P_HALFMOVE: 100,
            layout.P_REPETITION: 2,
            layout.P_TARDIS_AWAY: layout.MAX_TRAVEL,
            layout.P_PASSENGER_TURNS: layout.KICK_OUT_PLIES,
            layout.P_COOLDOWN: layout.COOLDOWN_PLIES,
            layout.P_TRAVEL_BAN: layout.TRAVEL_BAN_PLIES,
            layout.P_BACKWARD_TRAVELS: layout.MAX_BACKWARD_TRAVELS,
            layout.P_BACKWARD_TRAVELS + 1: layout.MAX_BACKWARD_TRAVELS,
            layout.P_HISTORY_DEPTH: layout.MAX_TRAVEL,
            layout.P_EVICTED: 6,
        }
        for plane, denominator in planes.items():
            d[plane - shift] = denominator
        if self.options["threat_planes"]:
            first = layout.NUM_PLANES - shift
            d[first : first + 6] = np.array([8, 8, 10, 10, 10, 10]).reshape(6, 1, 1)
        return d.ravel()

    packed_unavailable_reason = "with threat_planes=True the threat planes hold a value per square, which no 64-bit word holds"

    def _packed_plane_kinds(self) -> np.ndarray | None:
        """Packed planes (``obs_dtype="packed"``): the piece, en-passant, TARDIS, Dr. Who and
        passenger planes are bits, the TARDIS-away plane holds its one square's value, and
        the rest are constant planes (colour, ply, castling rights, clocks, counters, phase).
        Not with ``threat_planes``."""
        if self.options["threat_planes"]:
            return None
        shift = layout.planes_left_out(self.options["history_planes"])
        kinds = np.full(self.observation_shape[0], PLANE_CONSTANT, dtype=np.int64)
        kinds[: layout.P_COLOUR - shift] = PLANE_BITS  # the positions' piece planes
        bit_planes = [
            layout.P_EN_PASSANT,
            layout.P_TARDIS,
            layout.P_TARDIS_PREV,
            layout.P_DOCTOR,
            *range(layout.P_PASSENGER, layout.P_PASSENGER + 12),
        ]
        kinds[np.array(bit_planes) - shift] = PLANE_BITS
        kinds[layout.P_TARDIS_AWAY - shift] = PLANE_ONE_ENTRY
        return kinds

    def move_squares_layout(self) -> dict:
        """What the ``move_squares`` policy (agents/training/policies.py) needs to know of the
        observation and the actions: each action's from and to squares in the mover's frame
        (-1 for actions that move no piece between squares: Dr. Who, the TARDIS, time
        travel, eviction, end turn) and, per piece kind P N B R Q K, the planes showing the
        mover's piece of that kind (on the board, or inside the TARDIS on its square)."""
        move_from = [-1] * self.num_actions
        move_to = [-1] * self.num_actions
        for action in range(NUM_CHESS_ACTIONS):
            squares = decode_chess_action(action, 0)
            if squares is not None:
                move_from[action], move_to[action] = squares[0], squares[1]
        passenger = layout.P_PASSENGER - layout.planes_left_out(self.options["history_planes"])
        return {
            "channels": self.observation_shape[0],
            "squares": 64,
            "move_from": move_from,
            "move_to": move_to,
            "piece_planes": [[kind, passenger + kind] if self.doctor else [kind] for kind in range(6)],
        }

    # --- FEN ---------------------------------------------------------------
    def from_fen(self, fen: str) -> np.ndarray:
        """A fresh state (game start, no history) from a FEN under this game's options."""
        try:
            tables = self._tables(fen)
        except ValueError as exc:
            raise ValueError(f"{self.spec.env_id}: {exc}") from None
        state = np.zeros(layout.STATE_SIZE, dtype=np.int64)
        state[VARIANT] = self.variant
        rules.init(state, tables)
        self._check_waiting_side(state, f"FEN {fen!r}")
        return state

    def variant_key(self) -> bytes:
        """The rules (Dr. Who or classic), not the start position: a state from any FEN fits
        an env of the same rules."""
        return repr(("doctor", self.options["doctor"])).encode()

    def tables_state(self) -> np.ndarray:
        state = np.zeros(layout.STATE_SIZE, dtype=np.int64)
        rules.init(state, self.tables)
        return state

    def _check_waiting_side(self, state: np.ndarray, what: str) -> None:
        """A position where the side not to move is in check cannot arise in a game."""
        waiting = 1 - int(state[CURRENT_PLAYER])
        if rules.in_check(state, waiting):
            side = "white" if waiting == WHITE else "black"
            raise ValueError(
                f"{self.spec.env_id}: {what}: {side} is in check but it is not {side}'s move (the side to move could capture the king)"
            )

    def fen(self, state: np.ndarray) -> str:
        """FEN of the position (the variant appends the TARDIS field)."""
        rows = []
        for rank in range(7, -1, -1):
            row, empty = "", 0
            for file in range(8):
                code = int(state[layout.BOARD + rank * 8 + file])
                if code == EMPTY:
                    empty += 1
                    continue
                if empty:
                    row += str(empty)
                    empty = 0
                row += piece_letter(code)
            rows.append(row + (str(empty) if empty else ""))
        castling = "".join(letter for letter, bit in CASTLING_LETTERS if state[layout.CASTLING] & bit) or "-"
        ep = int(state[layout.EP_SQUARE])
        fields = [
            "/".join(rows),
            "w" if state[CURRENT_PLAYER] == WHITE else "b",
            castling,
            en_passant_field(ep, int(state[layout.EP_SQUARE_FAR])),
            str(int(state[layout.HALFMOVE])),
            str(int(state[layout.FULLMOVE])),
        ]
        if self.doctor:
            doctor_sq = int(state[layout.DOCTOR_SQ])
            passenger = int(state[layout.PASSENGER])
            fields.append(
                f"D:{square_name(int(state[layout.TARDIS_SQ]))}/C:{'in' if doctor_sq < 0 else square_name(doctor_sq)}"
                f"/P:{piece_letter(passenger) if passenger else '-'}"
            )
        return " ".join(fields)

    # --- actions ---------------------------------------------------------------
    def _legal_moves(self, state: np.ndarray) -> dict[int, int]:
        """Legal chess actions -> move words (empty outside the move phase). The last state's
        answer is kept: naming each legal move (a move list, SAN with its check marks) asks
        for the same state's moves once per move."""
        key = state.tobytes()
        last = getattr(self, "_last_legal_moves", None)
        if last is not None and last[0] == key:
            return last[1]
        moves: dict[int, int] = {}
        if state[STATUS] == RUNNING and state[layout.PHASE] == layout.PHASE_MOVE:
            out = np.empty(layout.MAX_MOVES, dtype=np.int64)
            n = rules.legal_chess_moves(state, out)
            colour = int(state[CURRENT_PLAYER])
            moves = {
                int(rules.encode_move(layout.move_from(m), layout.move_to(m), layout.move_promotion(m), colour)): int(m) for m in out[:n]
            }
        self._last_legal_moves = (key, moves)  # one tuple: a reader sees a key with its own moves
        return moves

    @staticmethod
    def move_uci(move: int) -> str:
        """UCI of a move word (promotions as a lower-case letter)."""
        promotion = layout.move_promotion(move)
        suffix = piece_letter(promotion | (BLACK << 3)) if promotion else ""
        return f"{square_name(layout.move_from(move))}{square_name(layout.move_to(move))}{suffix}"

    def perft(self, state: np.ndarray, depth: int) -> int:
        """Legal move paths of ``depth`` plies from ``state`` (classic chess; the last ply
        counted in bulk, and through draws by the fifty-move rule or repetition, as the
        published counts are)."""
        return int(rules.perft(state, depth))

    def legal_uci(self, state: np.ndarray) -> dict[int, str]:
        """The legal chess moves as action -> UCI, in one kernel call."""
        return {action: self.move_uci(move) for action, move in self._legal_moves(state).items()}

    # --- words (notation.py) ---------------------------------------------------------
    def action_to_string(self, state: np.ndarray, action: int) -> str:
        """:func:`.notation.action_to_string`."""
        return notation.action_to_string(self, state, action)

    def string_to_action(self, state: np.ndarray, text: str) -> int:
        """:func:`.notation.string_to_action`."""
        return notation.string_to_action(self, state, text)

    def san(self, state: np.ndarray, action: int) -> str:
        """:func:`.notation.san`."""
        return notation.san(self, state, action)

    def describe(self, state: np.ndarray) -> dict:
        """:func:`.notation.describe`."""
        return notation.describe(self, state)

    # --- drawing ---------------------------------------------------------------
    def render_ansi(self, state: np.ndarray) -> str:
        from .render import render_ansi

        return render_ansi(self, state)

    def render_rgb(self, state: np.ndarray) -> np.ndarray:
        from .render import render_rgb

        return render_rgb(self, state)


__all__ = ["TimelordChess", "SPEC", "SIDE_NAMES", "decode_chess_action"]
