"""Keys to the TARDIS in words: the whole state as a dictionary (``describe``), table talk for an
action in the mover's frame (absolute squares and compass) and its inverse."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...core.state import CURRENT_PLAYER, REWARDS, RUNNING, STATUS, STATUS_NAMES, TERMINATED
from . import board, layout
from .content import (
    CARD_NAMES,
    GRID,
    NUM_CARD_TYPES,
    NUM_TILES,
    TILE_KINDS,
    compass,
    square_name,
)

if TYPE_CHECKING:
    from .game import KeysToTheTardis

PHASE_NAMES = {
    layout.PHASE_PLAY: "play_card",
    layout.PHASE_BONUS: "key_tile_bonus",
    layout.PHASE_MOVE: "move",
    layout.PHASE_OVER: "game_over",
}

FRAME_DIRECTION_NAMES = ("forward", "right", "back", "left", "forward-right", "back-right", "back-left", "forward-left")


def describe(game: KeysToTheTardis, state: np.ndarray) -> dict:
    """The whole state in the game's words (this is the full, omniscient view).

    Keys: ``num_players``, ``turn``, ``phase``, ``status``, ``current_player``,
    ``extra_turn_pending``, ``winner``, ``rewards``, ``grid`` (square ->
    colour, kind, open, revealed, barrier, cookie, pawn), ``tunnels`` (square
    pairs), ``players`` (per seat: side, pawn square, Pandorica turns left,
    bonus squares used, hand by card), ``deck_size``, ``discard`` (by card),
    ``last_action`` (seat, text, squares touched, teleported).
    """
    n = game.num_players
    colours = game.components.colours
    pawns = {int(state[layout.PAWN + s]): game.agent_names[s] for s in range(n) if state[layout.PAWN + s] >= 0}
    grid = {}
    tile_colours, tile_kinds = board.tile_colours(state), board.tile_kinds(state)
    facts = {
        name: board.tile_facts(state, at)
        for name, at in (
            ("open", layout.DOORS_OPEN),
            ("revealed", layout.KINDS_REVEALED),
            ("barrier", layout.TIME_BARRIERS),
            ("cookie", layout.JAM_COOKIES),
        )
    }
    for t in range(NUM_TILES):
        colour = int(tile_colours[t])
        grid[square_name(t)] = {
            "colour": colours[colour] if colour >= 0 else None,
            "kind": TILE_KINDS[int(tile_kinds[t])],
            **{name: bool(on[t]) for name, on in facts.items()},
            "pawn": pawns.get(t),
        }
    tunnels = []
    for k, o in enumerate(board.tunnel_orientations(state).tolist()):
        if o:
            r, c = divmod(k, GRID - 1)
            a, b = (r * GRID + c, (r + 1) * GRID + c + 1) if o == 1 else (r * GRID + c + 1, (r + 1) * GRID + c)
            tunnels.append([square_name(a), square_name(b)])
    players = {}
    for s in range(n):
        used = [square_name(t) for t in range(NUM_TILES) if (int(state[layout.BONUS_USED + s]) >> t) & 1]
        pawn = int(state[layout.PAWN + s])
        players[game.agent_names[s]] = {
            "pawn": square_name(pawn) if pawn >= 0 else None,
            "pandorica_turns": int(state[layout.PANDORICA + s]),
            "bonus_used": used,
            "hand": game.hand(state, s),
            "hand_size": int(state[layout.HAND + NUM_CARD_TYPES * s : layout.HAND + NUM_CARD_TYPES * (s + 1)].sum()),
        }
    status = int(state[STATUS])
    last = None
    if state[layout.LAST_SEAT] >= 0:
        seat = int(state[layout.LAST_SEAT])
        last = {
            "player": game.agent_names[seat],
            "squares": [square_name(int(t)) for t in (state[layout.LAST_TILE], state[layout.LAST_TILE2]) if t >= 0],
            "teleported": bool(state[layout.LAST_TELEPORTED]),
        }
    return game.with_ending(
        state,
        {
            "num_players": n,
            "turn": int(state[layout.TURN]),
            "phase": PHASE_NAMES[int(state[layout.PHASE])],
            "status": STATUS_NAMES[status],
            "current_player": game.agent_names[int(state[CURRENT_PLAYER])] if status == RUNNING else None,
            "extra_turn_pending": bool(state[layout.EXTRA_TURN_PENDING]),
            "winner": game.agent_names[int(state[layout.WINNER])] if status == TERMINATED else None,
            "rewards": {game.agent_names[s]: int(state[REWARDS + s]) for s in range(n)},
            "grid": grid,
            "tunnels": tunnels,
            "players": players,
            "deck_size": int(state[layout.DECK_SIZE]),
            "discard": {CARD_NAMES[c]: int(state[layout.DISCARD + c]) for c in range(NUM_CARD_TYPES) if state[layout.DISCARD + c]},
            "last_action": last,
        },
    )


def action_to_string(game: KeysToTheTardis, state: np.ndarray, action: int) -> str:
    """Table talk for ``action`` of the player to move (absolute squares and compass)."""
    if not 0 <= action < layout.NUM_ACTIONS:
        raise ValueError(f"{game.spec.env_id}: action {action} is outside 0..{layout.NUM_ACTIONS - 1}")
    seat = int(state[CURRENT_PLAYER])
    side = game.sides[seat]
    colours = game.components.colours

    def square(rel: int) -> str:
        return square_name(int(board.rel_to_abs(side, rel)))

    def verb(rel: int) -> str:
        return "close" if board.on_tile(state, layout.DOORS_OPEN, board.rel_to_abs(side, rel)) else "open"

    def direction(d: int) -> str:
        return compass(*[int(x) for x in board.abs_direction(side, d)])

    if action < layout.A_SONIC:
        t = action - layout.A_KEY
        colour = int(board.tile_colour(state, board.rel_to_abs(side, t)))
        name = colours[colour] if colour >= 0 else "no"
        return f"play {name} key: {verb(t)} {square(t)}"
    if action < layout.A_UNBAR:
        return f"play sonic screwdriver: {verb(action - layout.A_SONIC)} {square(action - layout.A_SONIC)}"
    if action < layout.A_BARRIER:
        return f"play sonic screwdriver: remove barrier {square(action - layout.A_UNBAR)}"
    if action < layout.A_COOKIE:
        return f"play time barrier on {square(action - layout.A_BARRIER)}"
    if action < layout.A_TUNNEL:
        return f"play jam cookie on {square(action - layout.A_COOKIE)}"
    if action < layout.A_PANDORICA:
        k, o = divmod(action - layout.A_TUNNEL, 2)
        a, b = board.tunnel_tiles(side, k, o)
        a, b = sorted((int(a), int(b)))
        return f"play time tunnel {square_name(a)}-{square_name(b)}"
    if action < layout.A_CYBERMAN:
        j = action - layout.A_PANDORICA
        return f"play pandorica on {_opponent(game, seat, j)}"
    if action < layout.A_DISCARD:
        j, d = divmod(action - layout.A_CYBERMAN, 8)
        return f"play cyberman assault: push {_opponent(game, seat, j)} {direction(d)}"
    if action < layout.A_BONUS:
        return f"discard {CARD_NAMES[action - layout.A_DISCARD]}"
    if action < layout.A_BONUS_DECLINE:
        return f"key tile: {verb(action - layout.A_BONUS)} {square(action - layout.A_BONUS)}"
    if action == layout.A_BONUS_DECLINE:
        return "key tile: decline"
    if action < layout.A_ENTER:
        return f"move {direction(action - layout.A_MOVE)}"
    if action < layout.A_LEAVE:
        return f"enter {square(action - layout.A_ENTER)}"
    if action == layout.A_LEAVE:
        return "leave the grid"
    return "stay"


def _opponent(game: KeysToTheTardis, seat: int, j: int) -> str:
    if j + 1 >= game.num_players:
        return f"opponent {j + 1}"
    return game.agent_names[(seat + j + 1) % game.num_players]


def string_to_action(game: KeysToTheTardis, state: np.ndarray, text: str) -> int:
    """Inverse of :meth:`action_to_string` in the current state; the
    open/close word may be either (``play red key: c4`` also works)."""
    wanted = " ".join(str(text).lower().split())
    relaxed = wanted.replace(": open ", ": ").replace(": close ", ": ")
    for action in range(layout.NUM_ACTIONS):
        said = game.action_to_string(state, action)
        if said == wanted or said.replace(": open ", ": ").replace(": close ", ": ") == relaxed:
            return action
    raise ValueError(f"{game.spec.env_id}: unknown action {text!r}; e.g. 'play red key: open c4', 'move north', 'stay'")
