"""Drawing Dr. Who Chess: a text board (ansi) and an RGB image (rgb_array)."""

from __future__ import annotations

import numpy as np

from ...core.render import Canvas, ending_line

LIGHT = (232, 220, 190)
DARK = (160, 120, 85)
TARDIS_BLUE = (20, 60, 160)
PIECE_RGB = ((250, 250, 250), (20, 20, 20))
DOCTOR_RGB = (200, 60, 40)

PLAY_HELP = """\
Board: upper case White, lower case Black (K king, Q queen, R rook, B bishop, N knight, P pawn);
C Dr. Who, D the TARDIS. Actions in UCI: e2e4 moves the piece on e2 to e4, e7e8n promotes to a knight,
e1g1 castles. A move to or from the TARDIS square enters or leaves it.
  Cd4e5   step Dr. Who from d4 to e5 (either player may move him)
  Dd4e5   move the TARDIS from d4 to e5
  D<3 D>3 time travel 3 plies backward / forward (Dr. Who and one of your pieces inside)
  Ee5     put the piece you kick out of the TARDIS on e5
  end     end the turn without the optional TARDIS move or time travel
SAN (Nf3, O-O) is understood too."""


def render_ansi(game, state: np.ndarray) -> str:
    """The board with rank 8 on top: FEN letters (upper case White), ``C`` Dr.
    Who, ``D`` the TARDIS (``[D]`` around it on the grid), then the TARDIS's
    contents, the clocks, the last turn and whose move it is."""
    info = game.describe(state)
    lines = [f"Dr. Who Chess{'' if game.doctor else ' (classic)'} - ply {info['ply']} - {info['phase']}"]
    for k, row in enumerate(info["board"]):
        cells = " ".join(ch for ch in row)
        lines.append(f"{8 - k} | {cells}")
    lines.append("    a b c d e f g h")
    if game.doctor:
        t = info["tardis"]
        where = t["square"] if t["on_board"] else f"away in time, due at ply {t['returns_at_ply']} on {t['square']}"
        inside = ["Dr. Who (C)"] if t["doctor"] == "inside" else []
        if t["passenger"]:
            inside.append(f"{t['passenger']} (evictable from ply {t['evictable_from_ply']})")
        lines.append(f"TARDIS (D): {where}; inside: {', '.join(inside) or 'nobody'}")
        lines.append(
            f"Dr. Who/TARDIS may move from ply {t['cooldown_until_ply']}; time travel from ply "
            f"{t['travel_allowed_from_ply']}; backward travels used: white {t['backward_travels']['white']}, "
            f"black {t['backward_travels']['black']}"
        )
        if t["evicted"]:
            lines.append(f"Evicted, waiting for a square: {t['evicted']}")
    lines.append(
        f"castling {info['castling']}, en passant {info['en_passant'] or '-'}, "
        f"halfmove clock {info['halfmove_clock']}, move {info['fullmove_number']}"
    )
    last = info["last_turn"]
    if last:
        words = last["kind"]
        if "from" in last:
            words += f" {last['piece']} {last['from']}-{last['to']}"
            if last["captured"]:
                words += f" takes {last['captured']}"
            if last["promotion"]:
                words += f" = {last['promotion']}"
            if last["evicted_to"]:
                words += f", evicted piece to {last['evicted_to']}"
        elif "to" in last:
            words += f" to {last['to']}"
        else:
            words += f" {last['plies']} plies"
        if "follow_up" in last:
            f = last["follow_up"]
            words += f", then {f['kind']} " + (f"to {f['to']}" if "to" in f else f"{f['plies']} plies")
        lines.append(f"Last turn: {words}")
    if info["status"] != "running":
        lines.append(ending_line(info, f"Game over: {info['reason']}, winner {info['winner'] or 'none (draw)'}"))
    else:
        lines.append(f"To move: {info['side_to_move']}{' (in check)' if info['check'] else ''}")
    return "\n".join(lines)


CELL = 48
MARGIN = 20


def render_rgb(game, state: np.ndarray) -> np.ndarray:
    """The board as an image: White pieces light, Black dark, letters on the
    discs; the TARDIS a blue box (with ``C`` while Dr. Who is inside and the
    passenger's letter), Dr. Who a red disc; a strip below with the side to
    move and the TARDIS's cool-down."""
    info = game.describe(state)
    width = 2 * MARGIN + 8 * CELL
    height = 2 * MARGIN + 8 * CELL + 40
    canvas = Canvas(height, width)
    tardis = info.get("tardis")
    for k, row in enumerate(info["board"]):
        rank = 7 - k
        for file, ch in enumerate(row):
            top, left = MARGIN + k * CELL, MARGIN + file * CELL
            canvas.rect(top, left, CELL, CELL, LIGHT if (rank + file) % 2 else DARK)
            if ch == ".":
                continue
            if ch == "D":
                canvas.rect(top + 4, left + 4, CELL - 8, CELL - 8, TARDIS_BLUE)
                label = ("C" if tardis and tardis["doctor"] == "inside" else "") + (
                    game_letter(tardis["passenger"]) if tardis and tardis["passenger"] else ""
                )
                canvas.text(top + 14, left + 10, (label or "D").upper(), (240, 240, 240), scale=3)
            elif ch == "C":
                canvas.disc(top + CELL / 2, left + CELL / 2, CELL * 0.38, DOCTOR_RGB)
                canvas.text(top + 16, left + 19, "C", (250, 250, 250), scale=3)
            else:
                white = ch.isupper()
                canvas.disc(top + CELL / 2, left + CELL / 2, CELL * 0.38, PIECE_RGB[0 if white else 1])
                canvas.text(top + 16, left + 19, ch.upper(), PIECE_RGB[1 if white else 0], scale=3)
    bottom = MARGIN + 8 * CELL + 10
    status = info["side_to_move"].upper() if info["status"] == "running" else (info["reason"] or "OVER").upper()
    canvas.text(bottom, MARGIN, f"PLY {info['ply']} {status}", (230, 230, 230), scale=2)
    return canvas.array


def game_letter(piece_name: str) -> str:
    """Letter of a described piece ('white knight' -> 'N')."""
    colour, kind = piece_name.split()
    letter = {"pawn": "P", "knight": "N", "bishop": "B", "rook": "R", "queen": "Q", "king": "K"}[kind]
    return letter if colour == "white" else letter.lower()
