"""TARDIS Run in words: the action names, the names of phases, roll outcomes and paddles,
and ``describe``, the whole state as a dictionary (what ``Game.describe`` returns)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...core.state import CURRENT_PLAYER, REWARDS, RUNNING, STATUS, STATUS_NAMES, TERMINATED
from . import content, layout, rules

if TYPE_CHECKING:
    from .game import TardisRun

SIDE_NAMES = ("monsters", "doctors")
PHASE_NAMES = {layout.PHASE_CHOOSE: "choose_piece", layout.PHASE_EXTRA_MOVE: "extra_move", layout.PHASE_OVER: "game_over"}
OUTCOME_NAMES = {
    layout.OUT_NONE: None,
    layout.OUT_MOVED: "moved",
    layout.OUT_CANCELLED: "cancelled",
    layout.OUT_ESCAPED: "escaped",
    layout.OUT_CLAIMED: "claimed the black paddle",
    layout.OUT_STOLE: "stole the black paddle",
    layout.OUT_SENT_HOME: "sent home",
    layout.OUT_ROLLED_ONLY: "rolled only",
}
EXTRA_NAMES = {
    layout.EXTRA_NONE: None,
    layout.EXTRA_PENDING: "pending",
    layout.EXTRA_TAKEN: "taken",
    layout.EXTRA_DECLINED: "declined",
    layout.EXTRA_CANCELLED: "cancelled",
}
PADDLE_NAMES = ("white 1 seal (a)", "white 1 seal (b)", "white 2 seals (a)", "white 2 seals (b)", "black")


def _action_names() -> list[str]:
    names = []
    for rank in range(layout.NUM_PIECES):
        names.append(f"move piece {rank + 1}")
        names.append(f"move piece {rank + 1} with black paddle")
    names += ["roll", "take extra move", "decline extra move"]
    assert len(names) == layout.NUM_ACTIONS
    return names


ACTION_NAMES = _action_names()


def describe(game: TardisRun, state: np.ndarray) -> dict:
    """The whole state of ``game`` in the game's words (``Game.describe``).

    Keys: ``board``, ``track_length``, ``turn``, ``phase``, ``status``,
    ``current_player``, ``black_paddle_owner``, ``winner``, ``rewards``,
    ``pieces`` (per side, most advanced first: ``progress``, ``square`` or
    None, ``where`` home/track/escaped), ``pending_extra_move`` (square and
    target while an extra move is offered) and ``last_roll`` (who, which
    piece, each paddle's face, the seals counted, the outcome, squares,
    captures, the extra move) or None before the first roll.
    """
    escaped = game.track_length + 1
    pieces = {}
    for seat, side in enumerate(SIDE_NAMES):
        listed = []
        for p in game.progress(state, seat):
            where = "home" if p == 0 else "escaped" if p == escaped else "track"
            listed.append({"progress": p, "square": game.square(seat, p), "where": where})
        pieces[side] = listed
    owner = int(state[layout.BLACK_PADDLE_OWNER])
    status = int(state[STATUS])
    winner = int(state[layout.WINNER])
    out = {
        "board": game.board.name,
        "track_length": game.track_length,
        "turn": int(state[layout.TURN]),
        "phase": PHASE_NAMES[int(state[layout.PHASE])],
        "status": STATUS_NAMES[status],
        "current_player": SIDE_NAMES[int(state[CURRENT_PLAYER])] if status == RUNNING else None,
        "black_paddle_owner": SIDE_NAMES[owner] if owner >= 0 else None,
        "winner": SIDE_NAMES[winner] if status == TERMINATED and winner >= 0 else None,
        "rewards": {side: int(state[REWARDS + s]) for s, side in enumerate(SIDE_NAMES)},
        "pieces": pieces,
        "pending_extra_move": None,
        "last_roll": None,
    }
    if state[layout.PHASE] == layout.PHASE_EXTRA_MOVE:
        seat = int(state[CURRENT_PLAYER])
        square = game.square(seat, int(state[layout.PENDING_PROGRESS]))
        assert square is not None  # an extra move waits on a track square
        kind = "shortcut" if game.tables[content.T_SHORTCUT + square] else "teleport"
        out["pending_extra_move"] = {"square": square, "target": int(rules.extra_target(game.tables, square)), "kind": kind}
    if state[layout.LAST_PLAYER] >= 0:
        faces = []
        for i, name in enumerate(PADDLE_NAMES):
            face = int(state[layout.LAST_FACES + i])
            if face < 0:
                continue
            if i < 4:
                shown = f"{int(layout.WHITE_SEALS[i])} seal(s)" if face == 1 else "blank"
            else:
                shown = "1 seal" if face == 1 else "2x"
            faces.append({"paddle": name, "face": shown})
        rank = int(state[layout.LAST_RANK])
        out["last_roll"] = {
            "player": SIDE_NAMES[int(state[layout.LAST_PLAYER])],
            "piece": None if rank < 0 else rank + 1,
            "used_black_paddle": bool(state[layout.LAST_USED_BLACK]),
            "paddles": faces,
            "seals": int(state[layout.LAST_SEALS]),
            "outcome": OUTCOME_NAMES[int(state[layout.LAST_OUTCOME])],
            "from_square": int(state[layout.LAST_FROM]) if state[layout.LAST_FROM] >= 0 else None,
            "to_square": int(state[layout.LAST_TO]) if state[layout.LAST_TO] >= 0 else None,
            "captures": int(state[layout.LAST_CAPTURES]),
            "extra_move": EXTRA_NAMES[int(state[layout.LAST_EXTRA])],
            "extra_move_to": int(state[layout.LAST_EXTRA_TO]) if state[layout.LAST_EXTRA_TO] >= 0 else None,
            "extra_move_captures": int(state[layout.LAST_EXTRA_CAPTURES]),
        }
    return game.with_ending(state, out)
