"""Drawing TARDIS Run: a text board (ansi) and an RGB image (rgb_array)."""

from __future__ import annotations

import numpy as np

from ...core.render import Canvas, ending_line, text_grid
from . import layout
from .content import T_SHORTCUT, T_TELEPORT
from .layout import BLACK_PADDLE_OWNER, DOCTORS, MONSTERS

PIECE_LETTER = {MONSTERS: "M", DOCTORS: "D"}
PIECE_COLOR = {MONSTERS: (214, 64, 56), DOCTORS: (70, 140, 235)}

LEGEND = "Legend: >n a shortcut arrow to square n, Tn a teleport to square n; M Monster, D Doctor"

PLAY_HELP = """\
Each turn you pick a piece; the paddles are dropped and that piece moves by the seals they show.
  move piece N          move your piece N: pieces are numbered from your most advanced (1) back;
                        a piece at home enters the track at your entry square
  ... with black paddle roll the black paddle too (once you hold it): "1 seal" adds one, "2x"
                        doubles the white seals; zero seals while you hold it sends the piece home
  roll                  drop the paddles with no piece to move (all your pieces have escaped;
                        zero seals wins you the black paddle and the game)
  take extra move       your move ended on a shortcut arrow (>n) or a teleport (Tn): follow it to n
  decline extra move    stay on the square your move ended on
Zero seals without the black paddle claims it (nothing moves). Landing on one opposing piece
sends it home; a square holds at most two pieces. Escape with all four pieces while you hold
the black paddle to win."""


def _occupants(game, state) -> dict[int, list[int]]:
    occupants: dict[int, list[int]] = {}
    for seat in (MONSTERS, DOCTORS):
        for p in game.progress(state, seat):
            square = game.square(seat, p)
            if square is not None:
                occupants.setdefault(square, []).append(seat)
    return occupants


def _counts(game, state, seat) -> tuple[int, int]:
    prog = game.progress(state, seat)
    return sum(p == 0 for p in prog), sum(p == game.track_length + 1 for p in prog)


def roll_words(last: dict | None) -> str | None:
    """The last paddle drop in words (``describe()["last_roll"]``), or None."""
    if last is None:
        return None
    faces = ", ".join(f"{p['paddle']}: {p['face']}" for p in last["paddles"])
    piece = f"piece {last['piece']}" if last["piece"] else "no piece"
    text = f"{last['player']} ({piece}) -> {last['seals']} seals [{faces}]: {last['outcome']}"
    if last["captures"]:
        text += ", captured"
    if last["extra_move"]:
        to = f" to {last['extra_move_to']}" if last["extra_move"] == "taken" and last.get("extra_move_to") else ""
        text += f"; extra move (shortcut arrow or teleport) {last['extra_move']}{to}"
    return text


def render_ansi(game, state: np.ndarray) -> str:
    """Rows of the snaking track, first row at the bottom (the Doctors' side).

    Each cell shows its square number, ``>n`` for a shortcut arrow to square n,
    ``Tn`` for a teleport to square n, and the pieces on it (M Monster, D
    Doctor); a legend line says so under the board.
    """
    info = game.describe(state)
    board = game.board
    occupants = _occupants(game, state)
    rows = []
    for row in range(board.rows):
        cells = [[" "] for _ in range(board.columns)]
        for col in range(board.columns):
            offset = col if row % 2 == 0 else board.columns - 1 - col
            square = row * board.columns + offset + 1
            mark = ""
            if game.tables[T_SHORTCUT + square]:
                mark = f">{int(game.tables[T_SHORTCUT + square])}"
            elif game.tables[T_TELEPORT + square]:
                mark = f"T{int(game.tables[T_TELEPORT + square])}"
            pieces = "".join(PIECE_LETTER[s] for s in sorted(occupants.get(square, [])))
            cells[col] = [f"{square:>2} {mark}", f" {pieces}"]
        rows.append(cells)
    lines = []
    m_home, m_out = _counts(game, state, MONSTERS)
    d_home, d_out = _counts(game, state, DOCTORS)
    lines.append(f"TARDIS Run - {board.name} - turn {info['turn']} - {info['phase']}")
    lines.append(f"Monsters: home {m_home}, escaped {m_out} (enter at {board.track_length}, exit past 1)")
    lines += text_grid(rows[::-1], width=6)
    lines.append(f"Doctors:  home {d_home}, escaped {d_out} (enter at 1, exit past {board.track_length})")
    owner = info["black_paddle_owner"] or "nobody"
    lines.append(f"Black paddle: {owner}")
    last = roll_words(info["last_roll"])
    if last is not None:
        lines.append("Last roll: " + last)
    if info["pending_extra_move"]:
        pend = info["pending_extra_move"]
        way = "follow the shortcut arrow" if pend["kind"] == "shortcut" else "take the teleport"
        lines.append(
            f"{info['current_player']} may {way} from {pend['square']} to {pend['target']} "
            f"(take extra move) or stay on {pend['square']} (decline extra move)"
        )
    lines.append(LEGEND)
    if info["status"] != "running":
        lines.append(ending_line(info, f"Game over: {info['status']}, winner {info['winner'] or 'none'}"))
    elif info["current_player"]:
        lines.append(f"To move: {info['current_player']}")
    return "\n".join(lines)


CELL = 56
MARGIN = 16


def render_rgb(game, state: np.ndarray) -> np.ndarray:
    """An image of the board: squares, arrows (yellow), teleports (purple),
    pieces as discs (Monsters red, Doctors blue), each side's home ("S")
    beside its entry square, escaped pieces ("OUT") and the last roll's
    paddles along the bottom, the black paddle's holder (frame colour) on top."""
    board = game.board
    width = 2 * MARGIN + (board.columns + 2) * CELL
    height = 2 * MARGIN + board.rows * CELL + 2 * CELL
    canvas = Canvas(height, width)
    occupants = _occupants(game, state)
    top0 = MARGIN + CELL  # first board row drawn below a header strip

    def cell_box(square: int) -> tuple[int, int]:
        row, col = board.cell_of_square(square)
        top = top0 + (board.rows - 1 - row) * CELL
        left = MARGIN + (col + 1) * CELL
        return top, left

    for square in range(1, board.track_length + 1):
        top, left = cell_box(square)
        canvas.rect(top + 1, left + 1, CELL - 2, CELL - 2, (200, 200, 190))
        if game.tables[T_SHORTCUT + square]:
            canvas.frame(top + 1, left + 1, CELL - 2, CELL - 2, (240, 200, 40), 4)
        if game.tables[T_TELEPORT + square]:
            canvas.frame(top + 1, left + 1, CELL - 2, CELL - 2, (150, 70, 200), 4)
        canvas.text(top + 6, left + 6, str(square), (60, 60, 60), scale=2)
        for k, seat in enumerate(sorted(occupants.get(square, []))):
            canvas.disc(top + CELL * 0.62, left + CELL * (0.32 + 0.36 * k), CELL * 0.16, PIECE_COLOR[seat])
    # homes beside each side's entry square; escaped pieces in the bottom strip
    bottom = top0 + board.rows * CELL + 12
    for seat in (MONSTERS, DOCTORS):
        home, out = _counts(game, state, seat)
        entry = 1 if seat == DOCTORS else board.track_length
        top, _ = cell_box(entry)
        _, col = board.cell_of_square(entry)
        left = MARGIN if col == 0 else MARGIN + (board.columns + 1) * CELL
        canvas.text(top + 4, left + 4, "S", PIECE_COLOR[seat], scale=2)
        for k in range(home):
            canvas.disc(top + 24 + 14 * (k // 2), left + 14 + 20 * (k % 2), 6, PIECE_COLOR[seat])
        out_left = width - MARGIN - 150 + 75 * seat
        canvas.text(bottom, out_left, "OUT", PIECE_COLOR[seat], scale=2)
        for k in range(out):
            canvas.disc(bottom + 22, out_left + 7 + 16 * k, 6, PIECE_COLOR[seat])
    # header: the turn, and who holds the black paddle
    info = game.describe(state)
    canvas.text(MARGIN, MARGIN, f"TURN {info['turn']}", (230, 230, 230), scale=2)
    owner = int(state[BLACK_PADDLE_OWNER])
    x = canvas.text(MARGIN, width - MARGIN - 130, "BLACK", (230, 230, 230), scale=2)
    canvas.rect(MARGIN - 4, x + 4, 20, 36, (10, 10, 10))
    canvas.frame(MARGIN - 4, x + 4, 20, 36, PIECE_COLOR[owner] if owner >= 0 else (120, 120, 120), 3)
    # the last roll's paddles
    for i in range(layout.NUM_PADDLES):
        face = int(state[layout.LAST_FACES + i])
        left = MARGIN + i * 48
        if face < 0:
            continue
        black = i == 4
        canvas.rect(bottom, left, 30, 40, (15, 15, 15) if black else (235, 235, 235))
        ink = (235, 235, 235) if black else (20, 20, 20)
        if black:
            canvas.text(bottom + 8, left + 8, "1" if face == 1 else "2x", ink, scale=2)
        elif face == 1:
            canvas.text(bottom + 8, left + 14, str(int(layout.WHITE_SEALS[i])), ink, scale=2)
    return canvas.array
