"""Dr. Who Chess in words: moves in UCI, SAN and table talk (Dr. Who's and the TARDIS's
actions too) and back, and the whole state as a dictionary (``describe``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np

from ...core.state import CURRENT_PLAYER, REWARDS, RUNNING, STATUS, STATUS_NAMES, TERMINATED
from . import layout, rules
from .content import (
    CASTLING_LETTERS,
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

if TYPE_CHECKING:
    from .game import TimelordChess

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


def action_to_string(game: TimelordChess, state: np.ndarray, action: int) -> str:
    """UCI for chess moves (``e2e4``, ``e7e8q``; entering the TARDIS is a move
    to its square, leaving it a move from it) and the TARDIS extensions:
    ``Cd4e5`` Dr. Who's step, ``Dd4e5`` a TARDIS move, ``D<3``/``D>3`` time
    travel 3 plies backward/forward, ``Ee5`` the evicted piece to e5,
    ``end`` ending the turn without a follow-up; ``#<index>`` for a move
    plane that leaves the board."""
    action = int(action)
    if not 0 <= action < game.num_actions:
        raise ValueError(f"{game.spec.env_id}: action {action} is outside 0..{game.num_actions - 1}")
    colour = int(state[CURRENT_PLAYER])
    if action < NUM_CHESS_ACTIONS:
        decoded = decode_chess_action(action, colour)
        if decoded is None:
            return f"#{action}"  # a plane that leaves the board
        frm, to, promotion = decoded
        move = game._legal_moves(state).get(action)
        if move is not None:
            return game.move_uci(move)
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


def string_to_action(game: TimelordChess, state: np.ndarray, text: str) -> int:
    """Inverse of :meth:`action_to_string` for every action (case and
    surrounding blanks ignored); also accepts SAN of a legal chess move
    (``Nf3``, ``O-O``, ``exd8=Q+``) and ``#<index>``."""
    raw = str(text).strip()
    wanted = raw.lower()
    colour = int(state[CURRENT_PLAYER])
    action = _parse_notation(game, state, wanted, colour)
    if action is not None and 0 <= action < game.num_actions:
        return action
    bare = raw.rstrip("+#!?")
    if state[STATUS] == RUNNING:
        for legal in game.legal_actions(state):
            if int(legal) < NUM_CHESS_ACTIONS and game.san(state, int(legal)).rstrip("+#") == bare:
                return int(legal)
    if re.fullmatch(r"([KQRBN][a-h]?[1-8]?x?[a-h][1-8]|[a-h](x[a-h])?[1-8](=?[QRBN])?|O-O(-O)?)", bare):
        # SAN is read against the legal moves only: say so rather than "unknown"
        side = SIDE_NAMES[int(state[CURRENT_PLAYER])]
        raise ValueError(f"{game.spec.env_id}: no legal move of {side} matches the SAN {text!r} now")
    raise ValueError(
        f"{game.spec.env_id}: unknown action {text!r}; write UCI (e2e4, e7e8n), SAN (Nf3), "
        + ("Cd4e5 (Dr. Who), Dd4e5 (TARDIS), D<3 / D>3 (time travel), Ee5 (eviction), end, " if game.doctor else "")
        + f"or #<index> (0..{game.num_actions - 1})"
    )


def _parse_notation(game: TimelordChess, state: np.ndarray, wanted: str, colour: int) -> int | None:
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
    if not game.doctor:
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


def san(game: TimelordChess, state: np.ndarray, action: int) -> str:
    """Standard algebraic notation of a legal action. TARDIS marks follow
    the rulebook: a piece entering writes ``N-`` (``N-!`` kicking a piece
    out), a piece leaving ``N-e5``/``N-xe5``; ``C-e5``/``Cxe5``/``C-`` for
    Dr. Who, ``D-e5`` a TARDIS move, ``D-<3``/``D->3`` time travel, ``E-e5`` an
    eviction square; ``=Q`` after ``D-e8``/``E-e8`` when a carried or evicted
    pawn becomes a queen."""
    return _san(game, state, int(action), None)


def _origins_by_target(state: np.ndarray, moves: dict[int, int]) -> dict[tuple[int, int], list[int]]:
    """The squares the legal board moves start from, by (destination, moving piece's code):
    the pieces of one kind that reach one square, which SAN tells apart (moves out of the
    TARDIS have no board square to start from and need no such telling apart)."""
    block = int(layout.blocker_square(state))
    origins: dict[tuple[int, int], list[int]] = {}
    for move in moves.values():
        frm = layout.move_from(move)
        if frm != block:
            origins.setdefault((layout.move_to(move), int(state[layout.BOARD + frm])), []).append(frm)
    return origins


def _san(game: TimelordChess, state: np.ndarray, action: int, origins: dict[tuple[int, int], list[int]] | None) -> str:
    """:func:`san`, given the position's :func:`_origins_by_target` when naming all of its moves."""
    moves = game._legal_moves(state)
    colour = int(state[CURRENT_PLAYER])
    if action not in moves:
        text = game.action_to_string(state, action)
        if action >= NUM_CHESS_ACTIONS and game.doctor:
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
                if _queens(int(state[layout.PASSENGER]), parse_square(text[2:4])):
                    text += "=Q"
            elif text.startswith("E"):
                text = "E-" + text[1:]
                if _queens(int(state[layout.EVICTED]), parse_square(text[2:4])):
                    text += "=Q"
        else:
            return text
        return text + _check_suffix(game, state, action)
    move = moves[action]
    frm, to = layout.move_from(move), layout.move_to(move)
    flag, promotion = layout.move_flag(move), layout.move_promotion(move)
    block = int(layout.blocker_square(state))
    if flag == layout.FLAG_CASTLE:
        text = "O-O" if to > frm else "O-O-O"
    elif game.doctor and to == block:
        code = int(state[layout.BOARD + frm])
        text = piece_letter(code).upper() + ("-!" if flag == layout.FLAG_KICK else "-")
        if promotion:
            text += "=" + piece_letter(promotion)
    else:
        from_inside = game.doctor and frm == block
        code = int(state[layout.PASSENGER]) if from_inside else int(state[layout.BOARD + frm])
        capture = flag == layout.FLAG_EN_PASSANT or state[layout.BOARD + to] != EMPTY
        letter = piece_letter(code).upper()
        if from_inside:
            text = letter + "-" + ("x" if capture else "") + square_name(to)
        elif code & 7 == PAWN:
            text = (square_name(frm)[0] + "x" if capture else "") + square_name(to)
        else:
            if origins is None:
                origins = _origins_by_target(state, moves)
            # a piece has one action from a square to another (only pawns promote)
            rivals = [r for r in origins[(to, code)] if r != frm]
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
    return text + _check_suffix(game, state, action)


def _queens(code: int, sq: int) -> bool:
    """Does a pawn put on ``sq`` by the TARDIS (carried or evicted) become a queen?"""
    return code != EMPTY and (code & 7) == PAWN and (sq >> 3) == last_rank(code)


def _check_suffix(game: TimelordChess, state: np.ndarray, action: int) -> str:
    after = state.copy()
    rules.step(after, game.tables, action)
    while after[STATUS] == RUNNING and after[layout.PHASE] != layout.PHASE_MOVE:
        # a kick-out or follow-up is pending: judge the check after the first choice
        mask = np.zeros(game.num_actions, dtype=np.int8)
        rules.legal_mask(after, game.tables, mask)
        choice = A_END_TURN if mask[A_END_TURN] else int(np.flatnonzero(mask)[0])
        rules.step(after, game.tables, choice)
    if after[STATUS] == TERMINATED and after[layout.REASON] == layout.REASON_CHECKMATE:
        return "#"
    # a check that also ends the game in a draw (the fifty-move rule, bare
    # material) is still written as one, as SAN does
    if rules.in_check(after, int(after[CURRENT_PLAYER])):
        return "+"
    return ""


# --- describe ---------------------------------------------------------------


def describe(game: TimelordChess, state: np.ndarray) -> dict:
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
    origins = _origins_by_target(state, game._legal_moves(state))
    out = {
        "fen": game.fen(state),
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
            {"uci": game.action_to_string(state, int(a)), "san": _san(game, state, int(a), origins)} for a in game.legal_actions(state)
        ],
        "last_turn": _last_turn(game, state),
    }
    if game.doctor:
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
            "passenger": _piece_name(passenger) if passenger else None,
            "passenger_entered_ply": entered if passenger else None,
            "evictable_from_ply": entered + layout.KICK_OUT_PLIES if passenger else None,
            "cooldown_until_ply": int(state[layout.COOLDOWN_UNTIL]),
            "travel_allowed_from_ply": max(
                0, int(state[layout.LAST_TRAVEL_PLY]) + layout.TRAVEL_BAN_PLIES + 1, int(state[layout.COOLDOWN_UNTIL])
            ),
            "backward_travels": {side: int(state[layout.BACKWARD_TRAVELS + s]) for s, side in enumerate(SIDE_NAMES)},
            "history_plies": int(state[layout.HIST_COUNT]) - 1,
            "evicted": _piece_name(evicted) if evicted else None,
        }
    return game.with_ending(state, out)


def _piece_name(code: int) -> str:
    if code == DOCTOR:
        return "doctor"
    return f"{SIDE_NAMES[code >> 3]} {PIECE_NAMES[code & 7]}"


def _last_turn(game: TimelordChess, state: np.ndarray) -> dict | None:
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
                "piece": _piece_name(int(state[layout.LAST_PIECE])),
                "captured": _piece_name(captured) if captured else None,
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
