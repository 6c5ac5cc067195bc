"""Dr. Who Chess bound to its options: FEN, UCI/SAN notation, describe, state checks."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ...core.game import Game, GameSpec, Kernels
from ...core.observation import PLANE_BITS, PLANE_CONSTANT, PLANE_ONE_ENTRY
from ...core.options import Option
from ...core.state import CURRENT_PLAYER, REWARDS, RUNNING, STATUS, STATUS_NAMES, TERMINATED, VARIANT
from . import ENV_ID, batch, check, heuristic, hidden, layout, rules
from .content import (
    CASTLING_LETTERS,
    START_FEN,
    build_tables,
    en_passant_field,
    last_rank,
    parse_square,
    piece_letter,
    square_name,
)
from .layout import (
    A_DOCTOR,
    A_END_TURN,
    A_EVICT,
    A_TARDIS,
    A_TRAVEL,
    BLACK,
    DIR_DF,
    DIR_DR,
    DOCTOR,
    EMPTY,
    KNIGHT_DF,
    KNIGHT_DR,
    MAX_TRAVEL,
    NEIGHBOUR,
    NUM_CHESS_ACTIONS,
    PAWN,
    PROMOTION_PIECES,
    WHITE,
)
from .tardis import write_snapshot_squares

SIDE_NAMES = ("white", "black")
PHASE_NAMES = {
    layout.PHASE_MOVE: "move",
    layout.PHASE_EVICT: "evict",
    layout.PHASE_FOLLOW_UP: "follow_up",
    layout.PHASE_OVER: "game_over",
}
REASON_NAMES = {
    layout.REASON_NONE: None,
    layout.REASON_CHECKMATE: "checkmate",
    layout.REASON_STALEMATE: "stalemate",
    layout.REASON_INSUFFICIENT: "insufficient material",
    layout.REASON_FIFTY_MOVES: "fifty-move rule",
    layout.REASON_THREEFOLD: "threefold repetition",
    layout.REASON_MAX_PLIES: "max plies",
}
KIND_NAMES = {
    layout.KIND_NONE: None,
    layout.KIND_CHESS: "chess move",
    layout.KIND_DOCTOR: "doctor move",
    layout.KIND_TARDIS: "tardis move",
    layout.KIND_BACKWARD: "time travel backward",
    layout.KIND_FORWARD: "time travel forward",
}
PIECE_NAMES = {1: "pawn", 2: "knight", 3: "bishop", 4: "rook", 5: "queen", 6: "king", 7: "doctor"}


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


def decode_chess_action(action: int, colour: int) -> tuple[int, int, int] | None:
    """(from, to, under-promotion piece or 0) of a move-plane action, absolute
    squares; None when the plane leaves the board."""
    f_frame, plane = divmod(action, 73)
    df = dr = 0
    promotion = 0
    if plane < 56:
        d, dist = divmod(plane, 7)
        df, dr = int(DIR_DF[d]) * (dist + 1), int(DIR_DR[d]) * (dist + 1)
    elif plane < 64:
        df, dr = int(KNIGHT_DF[plane - 56]), int(KNIGHT_DR[plane - 56])
    else:
        k, p = divmod(plane - 64, 3)
        df, dr = k - 1, 1
        promotion = int(PROMOTION_PIECES[p])
    f, r = (f_frame & 7) + df, (f_frame >> 3) + dr
    if not (0 <= f < 8 and 0 <= r < 8):
        return None
    to_frame = r * 8 + f
    return f_frame ^ (56 * colour), to_frame ^ (56 * colour), promotion


# The state's layout before the history ring was packed (up to tardis_envs commit 519551a):
# each of the HISTORY entries was 64 words (square sq: piece code | piece id << 4) and the
# seven fields of the current entry, from SNAP_CASTLING on, in the same order.
EARLIER_SNAP_SIZE = 71
EARLIER_STATE_SIZE = layout.HIST + layout.HISTORY * EARLIER_SNAP_SIZE
_SNAP_FIELDS = layout.SNAP_SIZE - layout.SNAP_CASTLING


class TimelordChess(Game):
    """Dr. Who Chess; see :mod:`tardis_envs.timelord_chess_v1` for the documentation page."""

    spec = SPEC
    kernels = Kernels.of(rules, batch, hidden, check, heuristic)
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
            moves = {int(rules.encode_move(rules.move_from(m), rules.move_to(m), rules.move_promotion(m), colour)): int(m) for m in out[:n]}
        self._last_legal_moves = (key, moves)  # one tuple: a reader sees a key with its own moves
        return moves

    @staticmethod
    def move_uci(move: int) -> str:
        """UCI of a move word (promotions as a lower-case letter)."""
        promotion = rules.move_promotion(move)
        suffix = piece_letter(promotion | (BLACK << 3)) if promotion else ""
        return f"{square_name(rules.move_from(move))}{square_name(rules.move_to(move))}{suffix}"

    def perft(self, state: np.ndarray, depth: int) -> int:
        """Legal move paths of ``depth`` plies from ``state`` (classic chess; the last ply
        counted in bulk, and through draws by the fifty-move rule or repetition, as the
        published counts are)."""
        return int(rules.perft(state, depth))

    def legal_uci(self, state: np.ndarray) -> dict[int, str]:
        """The legal chess moves as action -> UCI, in one kernel call."""
        return {action: self.move_uci(move) for action, move in self._legal_moves(state).items()}

    def action_to_string(self, state: np.ndarray, action: int) -> str:
        """UCI for chess moves (``e2e4``, ``e7e8q``; entering the TARDIS is a move
        to its square, leaving it a move from it) and the TARDIS extensions:
        ``Cd4e5`` Dr. Who's step, ``Dd4e5`` a TARDIS move, ``D<3``/``D>3`` time
        travel 3 plies backward/forward, ``Ee5`` the evicted piece to e5,
        ``end`` ending the turn without a follow-up; ``#<index>`` for a move
        plane that leaves the board."""
        action = int(action)
        if not 0 <= action < self.num_actions:
            raise ValueError(f"{self.spec.env_id}: action {action} is outside 0..{self.num_actions - 1}")
        colour = int(state[CURRENT_PLAYER])
        if action < NUM_CHESS_ACTIONS:
            decoded = decode_chess_action(action, colour)
            if decoded is None:
                return f"#{action}"  # a plane that leaves the board
            frm, to, promotion = decoded
            move = self._legal_moves(state).get(action)
            if move is not None:
                return self.move_uci(move)
            suffix = piece_letter(promotion | (BLACK << 3)) if promotion else ""
            return f"{square_name(frm)}{square_name(to)}{suffix}"
        tardis = int(state[layout.TARDIS_SQ])
        if action < A_TARDIS:
            d = action - A_DOCTOR
            d = d if colour == WHITE else (4 - d) % 8
            doctor_sq = int(state[layout.DOCTOR_SQ])
            origin = doctor_sq if doctor_sq >= 0 else tardis
            target = int(NEIGHBOUR[origin, d]) if origin >= 0 else -1
            return f"C{square_name(origin)}{square_name(target)}" if target >= 0 else f"#{action}"
        if action < A_TRAVEL:
            to = (action - A_TARDIS) ^ (56 * colour)
            return f"D{square_name(tardis) if tardis >= 0 else '-'}{square_name(to)}"
        if action < A_EVICT:
            j = action - A_TRAVEL
            return f"D<{j + 1}" if j < MAX_TRAVEL else f"D>{j - MAX_TRAVEL + 1}"
        if action < A_END_TURN:
            d = action - A_EVICT
            d = d if colour == WHITE else (4 - d) % 8
            target = int(NEIGHBOUR[tardis, d]) if tardis >= 0 else -1
            return f"E{square_name(target)}" if target >= 0 else f"#{action}"
        return "end"

    def string_to_action(self, state: np.ndarray, text: str) -> int:
        """Inverse of :meth:`action_to_string` for every action (case and
        surrounding blanks ignored); also accepts SAN of a legal chess move
        (``Nf3``, ``O-O``, ``exd8=Q+``) and ``#<index>``."""
        raw = str(text).strip()
        wanted = raw.lower()
        colour = int(state[CURRENT_PLAYER])
        action = self._parse_notation(state, wanted, colour)
        if action is not None and 0 <= action < self.num_actions:
            return action
        bare = raw.rstrip("+#!?")
        if state[STATUS] == RUNNING:
            for legal in self.legal_actions(state):
                if int(legal) < NUM_CHESS_ACTIONS and self.san(state, int(legal)).rstrip("+#") == bare:
                    return int(legal)
        if re.fullmatch(r"([KQRBN][a-h]?[1-8]?x?[a-h][1-8]|[a-h](x[a-h])?[1-8](=?[QRBN])?|O-O(-O)?)", bare):
            # SAN is read against the legal moves only: say so rather than "unknown"
            side = SIDE_NAMES[int(state[CURRENT_PLAYER])]
            raise ValueError(f"{self.spec.env_id}: no legal move of {side} matches the SAN {text!r} now")
        raise ValueError(
            f"{self.spec.env_id}: unknown action {text!r}; write UCI (e2e4, e7e8n), SAN (Nf3), "
            + ("Cd4e5 (Dr. Who), Dd4e5 (TARDIS), D<3 / D>3 (time travel), Ee5 (eviction), end, " if self.doctor else "")
            + f"or #<index> (0..{self.num_actions - 1})"
        )

    def _parse_notation(self, state: np.ndarray, wanted: str, colour: int) -> int | None:
        if wanted.startswith("#") and wanted[1:].isdigit():
            return int(wanted[1:])
        squares = re.fullmatch(r"([a-h][1-8])([a-h][1-8])([qrbn]?)", wanted)
        if squares:
            frm, to = parse_square(squares.group(1)), parse_square(squares.group(2))
            promotion = {"": 0, "q": 0, "n": 2, "b": 3, "r": 4}[squares.group(3)]
            df, dr = abs((to & 7) - (frm & 7)), abs((to >> 3) - (frm >> 3))
            queen_line = df == 0 or dr == 0 or df == dr
            if frm == to or not (queen_line or {df, dr} == {1, 2}) or (promotion and (df > 1 or dr != 1)):
                return None
            return int(rules.encode_move(frm, to, promotion, colour))
        if not self.doctor:
            return None
        if wanted == "end":
            return A_END_TURN
        travel = re.fullmatch(r"d-?([<>])(\d+)", wanted)  # D<3 or the SAN D-<3
        if travel:
            k = int(travel.group(2))
            if not 1 <= k <= MAX_TRAVEL:
                return None
            return A_TRAVEL + (k - 1 if travel.group(1) == "<" else MAX_TRAVEL + k - 1)
        tardis = int(state[layout.TARDIS_SQ])
        move = re.fullmatch(r"d(?:[a-h][1-8]|-)([a-h][1-8])(?:=q)?", wanted)
        if move:
            return A_TARDIS + (parse_square(move.group(1)) ^ (56 * colour))
        doctor_sq = int(state[layout.DOCTOR_SQ])
        step = re.fullmatch(r"c([a-h][1-8])([a-h][1-8])", wanted)
        evict = re.fullmatch(r"e-?([a-h][1-8])(?:=q)?", wanted)
        if step or evict:
            origin = (doctor_sq if doctor_sq >= 0 else tardis) if step else tardis
            if step and parse_square(step.group(1)) != origin:
                return None
            found = step or evict
            assert found is not None
            target = parse_square(found.group(2 if step else 1))
            for d in range(8):
                if origin >= 0 and int(NEIGHBOUR[origin, d]) == target:
                    frame_d = d if colour == WHITE else (4 - d) % 8
                    return (A_DOCTOR if step else A_EVICT) + frame_d
        return None

    def san(self, state: np.ndarray, action: int) -> str:
        """Standard algebraic notation of a legal action. TARDIS marks follow
        the rulebook: a piece entering writes ``N-`` (``N-!`` kicking a piece
        out), a piece leaving ``N-e5``/``N-xe5``; ``C-e5``/``Cxe5``/``C-`` for
        Dr. Who, ``D-e5`` a TARDIS move, ``D-<3``/``D->3`` time travel, ``E-e5`` an
        eviction square; ``=Q`` after ``D-e8``/``E-e8`` when a carried or evicted
        pawn becomes a queen."""
        action = int(action)
        moves = self._legal_moves(state)
        colour = int(state[CURRENT_PLAYER])
        if action not in moves:
            text = self.action_to_string(state, action)
            if action >= NUM_CHESS_ACTIONS and self.doctor:
                if text.startswith("C"):
                    to = parse_square(text[3:5])
                    if to == int(state[layout.TARDIS_SQ]):
                        text = "C-"
                    else:
                        text = ("Cx" if state[layout.BOARD + to] != EMPTY else "C-") + text[3:5]
                elif text.startswith("D<") or text.startswith("D>"):
                    text = "D-" + text[1:]
                elif text.startswith("D"):
                    text = "D-" + text[3:5]
                    if self._queens(int(state[layout.PASSENGER]), parse_square(text[2:4])):
                        text += "=Q"
                elif text.startswith("E"):
                    text = "E-" + text[1:]
                    if self._queens(int(state[layout.EVICTED]), parse_square(text[2:4])):
                        text += "=Q"
            else:
                return text
            return text + self._check_suffix(state, action)
        move = moves[action]
        frm, to = rules.move_from(move), rules.move_to(move)
        flag, promotion = rules.move_flag(move), rules.move_promotion(move)
        block = int(rules.blocker_square(state))
        if flag == layout.FLAG_CASTLE:
            text = "O-O" if to > frm else "O-O-O"
        elif self.doctor and to == block:
            code = int(state[layout.BOARD + frm])
            text = piece_letter(code).upper() + ("-!" if flag == layout.FLAG_KICK else "-")
            if promotion:
                text += "=" + piece_letter(promotion)
        else:
            from_inside = self.doctor and frm == block
            code = int(state[layout.PASSENGER]) if from_inside else int(state[layout.BOARD + frm])
            capture = flag == layout.FLAG_EN_PASSANT or state[layout.BOARD + to] != EMPTY
            letter = piece_letter(code).upper()
            if from_inside:
                text = letter + "-" + ("x" if capture else "") + square_name(to)
            elif code & 7 == PAWN:
                text = (square_name(frm)[0] + "x" if capture else "") + square_name(to)
            else:
                rivals = [
                    rules.move_from(m)
                    for a, m in moves.items()
                    if a != action
                    and rules.move_to(m) == to
                    and rules.move_from(m) != block
                    and int(state[layout.BOARD + rules.move_from(m)]) == code
                ]
                disambiguation = ""
                if rivals:
                    if all((r & 7) != (frm & 7) for r in rivals):
                        disambiguation = square_name(frm)[0]
                    elif all((r >> 3) != (frm >> 3) for r in rivals):
                        disambiguation = square_name(frm)[1]
                    else:
                        disambiguation = square_name(frm)
                text = letter + disambiguation + ("x" if capture else "") + square_name(to)
            if promotion:
                text += "=" + piece_letter(promotion)
        del colour
        return text + self._check_suffix(state, action)

    @staticmethod
    def _queens(code: int, sq: int) -> bool:
        """Does a pawn put on ``sq`` by the TARDIS (carried or evicted) become a queen?"""
        return code != EMPTY and (code & 7) == PAWN and (sq >> 3) == last_rank(code)

    def _check_suffix(self, state: np.ndarray, action: int) -> str:
        after = state.copy()
        rules.step(after, self.tables, action)
        while after[STATUS] == RUNNING and after[layout.PHASE] != layout.PHASE_MOVE:
            # a kick-out or follow-up is pending: judge the check after the first choice
            mask = np.zeros(self.num_actions, dtype=np.int8)
            rules.legal_mask(after, self.tables, mask)
            choice = A_END_TURN if mask[A_END_TURN] else int(np.flatnonzero(mask)[0])
            rules.step(after, self.tables, choice)
        if after[STATUS] == TERMINATED and after[layout.REASON] == layout.REASON_CHECKMATE:
            return "#"
        # a check that also ends the game in a draw (the fifty-move rule, bare
        # material) is still written as one, as SAN does
        if rules.in_check(after, int(after[CURRENT_PLAYER])):
            return "+"
        return ""

    # --- describe ---------------------------------------------------------------
    def describe(self, state: np.ndarray) -> dict:
        """The whole state in the game's words.

        Keys: ``fen``, ``board`` (8 strings, rank 8 first; ``C`` Dr. Who,
        ``D`` the TARDIS), ``side_to_move``, ``phase``, ``status``,
        ``winner``, ``reason``, ``rewards``, ``check``, ``castling``,
        ``en_passant``, ``halfmove_clock``, ``fullmove_number``, ``ply``,
        ``repetitions``, ``legal_moves`` (each ``{"uci", "san"}``),
        ``last_turn`` (kind, from, to, piece, captured, promotion,
        eviction square, follow-up) and, in the variant, ``tardis``
        (square, on_board, returns_at_ply, previous_square, doctor,
        passenger, passenger_entered_ply, evictable_from_ply,
        cooldown_until_ply, travel_allowed_from_ply, backward_travels,
        history_plies, evicted).
        """
        status = int(state[STATUS])
        mover = int(state[CURRENT_PLAYER])
        winner = int(state[layout.WINNER])
        tardis = int(state[layout.TARDIS_SQ])
        absent = bool(state[layout.TARDIS_ABSENT])
        board = []
        for rank in range(7, -1, -1):
            row = ""
            for file in range(8):
                sq = rank * 8 + file
                code = int(state[layout.BOARD + sq])
                if sq == tardis and not absent:
                    row += "D"
                else:
                    row += piece_letter(code) if code else "."
            board.append(row)
        out = {
            "fen": self.fen(state),
            "board": board,
            "side_to_move": SIDE_NAMES[mover],
            "phase": PHASE_NAMES[int(state[layout.PHASE])],
            "status": STATUS_NAMES[status],
            "winner": SIDE_NAMES[winner] if status == TERMINATED and winner >= 0 else None,
            "reason": REASON_NAMES[int(state[layout.REASON])],
            "rewards": {side: int(state[REWARDS + s]) for s, side in enumerate(SIDE_NAMES)},
            "check": bool(rules.in_check(state, mover)),
            "castling": "".join(letter for letter, bit in CASTLING_LETTERS if state[layout.CASTLING] & bit) or "-",
            "en_passant": en_passant_field(int(state[layout.EP_SQUARE]), int(state[layout.EP_SQUARE_FAR])).strip("-") or None,
            "halfmove_clock": int(state[layout.HALFMOVE]),
            "fullmove_number": int(state[layout.FULLMOVE]),
            "ply": int(state[layout.PLY]),
            "repetitions": int(rules.repetitions(state)),
            "legal_moves": [
                {"uci": self.action_to_string(state, int(a)), "san": self.san(state, int(a))} for a in self.legal_actions(state)
            ],
            "last_turn": self._last_turn(state),
        }
        if self.doctor:
            doctor_sq = int(state[layout.DOCTOR_SQ])
            passenger = int(state[layout.PASSENGER])
            entered = int(state[layout.PASSENGER_ENTRY_PLY])
            evicted = int(state[layout.EVICTED])
            out["tardis"] = {
                "square": square_name(tardis),
                "on_board": not absent,
                "returns_at_ply": int(state[layout.TARDIS_RETURN_PLY]) if absent else None,
                "previous_square": square_name(int(state[layout.TARDIS_PREV_SQ])) if state[layout.TARDIS_PREV_SQ] >= 0 else None,
                "doctor": "inside" if doctor_sq < 0 else square_name(doctor_sq),
                "passenger": self._piece_name(passenger) if passenger else None,
                "passenger_entered_ply": entered if passenger else None,
                "evictable_from_ply": entered + layout.KICK_OUT_PLIES if passenger else None,
                "cooldown_until_ply": int(state[layout.COOLDOWN_UNTIL]),
                "travel_allowed_from_ply": max(
                    0, int(state[layout.LAST_TRAVEL_PLY]) + layout.TRAVEL_BAN_PLIES + 1, int(state[layout.COOLDOWN_UNTIL])
                ),
                "backward_travels": {side: int(state[layout.BACKWARD_TRAVELS + s]) for s, side in enumerate(SIDE_NAMES)},
                "history_plies": int(state[layout.HIST_COUNT]) - 1,
                "evicted": self._piece_name(evicted) if evicted else None,
            }
        return self.with_ending(state, out)

    @staticmethod
    def _piece_name(code: int) -> str:
        if code == DOCTOR:
            return "doctor"
        return f"{SIDE_NAMES[code >> 3]} {PIECE_NAMES[code & 7]}"

    def _last_turn(self, state: np.ndarray) -> dict | None:
        kind = int(state[layout.LAST_KIND])
        if kind == layout.KIND_NONE:
            return None

        def sq(value: int) -> str | None:
            return square_name(int(value)) if value >= 0 else None

        out: dict[str, Any] = {"kind": KIND_NAMES[kind]}
        if kind in (layout.KIND_CHESS, layout.KIND_DOCTOR):
            captured = int(state[layout.LAST_CAPTURED])
            promotion = int(state[layout.LAST_PROMOTION])
            out.update(
                {
                    "from": sq(state[layout.LAST_FROM]),
                    "to": sq(state[layout.LAST_TO]),
                    "piece": self._piece_name(int(state[layout.LAST_PIECE])),
                    "captured": self._piece_name(captured) if captured else None,
                    "promotion": PIECE_NAMES[promotion] if promotion else None,
                    "evicted_to": sq(state[layout.LAST_EVICT_SQ]),
                }
            )
        elif kind == layout.KIND_TARDIS:
            out["to"] = sq(state[layout.LAST_TO])
        else:
            out["plies"] = int(state[layout.LAST_TO])
        if state[layout.LAST_AUTO_PROMOTION] >= 0:
            out["queened_on"] = sq(state[layout.LAST_AUTO_PROMOTION])  # a carried or evicted pawn
        follow = int(state[layout.LAST_FOLLOW_KIND])
        if follow != layout.KIND_NONE:
            arg = int(state[layout.LAST_FOLLOW_ARG])
            out["follow_up"] = {"kind": KIND_NAMES[follow], **({"to": sq(arg)} if follow == layout.KIND_TARDIS else {"plies": arg})}
        return out

    # --- state checks ---------------------------------------------------------------
    def _from_earlier_layout(self, state: np.ndarray) -> np.ndarray:
        """A state of the layout before the history ring was packed (``EARLIER_STATE_SIZE``
        words: a word per square in each history entry), rewritten in the current layout;
        any other array as it is."""
        if state.ndim != 1 or state.shape[0] != EARLIER_STATE_SIZE or not np.issubdtype(state.dtype, np.integer):
            return state
        current = np.zeros(layout.STATE_SIZE, dtype=np.int64)
        current[: layout.HIST] = state[: layout.HIST]
        for entry in range(layout.HISTORY):
            earlier = state[layout.HIST + entry * EARLIER_SNAP_SIZE : layout.HIST + (entry + 1) * EARLIER_SNAP_SIZE].astype(np.int64)
            squares = earlier[:64]
            if ((squares < 0) | (squares >= 256 << 4)).any():
                raise ValueError(
                    f"{self.spec.env_id}: corrupt state (earlier layout): history entry {entry} has a square word out of range"
                )
            at = layout.HIST + entry * layout.SNAP_SIZE
            write_snapshot_squares(current, at, squares & 15, squares >> 4)
            current[at + layout.SNAP_CASTLING : at + layout.SNAP_SIZE] = earlier[64 : 64 + _SNAP_FIELDS]
        return current

    # --- drawing ---------------------------------------------------------------
    def render_ansi(self, state: np.ndarray) -> str:
        from .render import render_ansi

        return render_ansi(self, state)

    def render_rgb(self, state: np.ndarray) -> np.ndarray:
        from .render import render_rgb

        return render_rgb(self, state)


__all__ = ["TimelordChess", "SPEC", "SIDE_NAMES", "decode_chess_action"]
