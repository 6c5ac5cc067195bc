"""Drawing Keys to the TARDIS: a text grid (ansi) and an RGB image (rgb_array)."""

from __future__ import annotations

import numpy as np

from ...core.render import Canvas, ending_line, text_grid
from .content import GRID, NUM_TILES, square_name

KIND_LETTER = {"plain": "", "dalek": "Dk", "key_tile": "K", "extra_turn": "X", "teleport": "T", "control": "CTRL"}
COLOUR_RGB = {"red": (200, 60, 60), "blue": (60, 110, 210), "green": (60, 160, 80), "yellow": (220, 190, 50), None: (235, 140, 40)}
PAWN_RGB = ((250, 250, 250), (40, 220, 220), (190, 80, 230), (150, 255, 80))  # south, west, north, east

PLAY_HELP = """\
A turn: you draw a card, play one card (or discard one), then may move your pawn one step.
Reach the far edge row of the grid to win.
  play red/blue/green/yellow key: open X / close X   toggle the door on X (a key of its colour)
  play sonic screwdriver: open X / close X            toggle any door
  play sonic screwdriver: remove barrier X            take the Time Barrier off X
  play time barrier on X       block X: nobody enters it, and it cannot be opened or closed
  play time tunnel X-Y         link two diagonal neighbours for the rest of the game
  play jam cookie on X         open the revealed Dalek door on X for good
  play pandorica on P          trap player P's pawn for its next two turns
  play cyberman assault: push P D    push player P's pawn one step in direction D
  discard <card>               give up a card instead of playing it
  key tile: open X / close X / decline    a Key tile's bonus: toggle one other door of any colour
  enter X / move D / leave the grid / stay    your pawn's optional step after the card
Closed doors show only their colour; a door's kind shows once it has been opened."""


def hand_words(hand: dict[str, int]) -> str:
    """A hand by card (``describe()["players"][seat]["hand"]``) in words."""
    return ", ".join(f"{n} x {card}" if n > 1 else card for card, n in hand.items() if n) or "no cards"


def seat_lines(game, state: np.ndarray, seat: int) -> list[str]:
    """What only ``seat`` sees: its own hand (the board shows every other hand's size only)."""
    name = game.agent_names[seat]
    return [f"Your hand ({name}): {hand_words(game.describe(state)['players'][name]['hand'])}"]


LEGEND = (
    "Legend: R/B/G/Y door colour (* the Control Tile), # closed, . open; kind ? hidden, Dk Dalek door, "
    "K TARDIS Key tile, X Extra Turn, T Teleport, CTRL Control Tile; B Time Barrier, J Jam Cookie, @S/@N/@W/@E a pawn"
)


def render_ansi(game, state: np.ndarray) -> str:
    """The grid with north at the top. Each cell: colour initial, ``#`` closed or
    ``.`` open, the kind where revealed (``?`` hidden), ``B`` barrier, ``J`` Jam
    Cookie, and a pawn's seat initial; tunnels are listed below."""
    info = game.describe(state)
    rows = []
    for r in range(GRID - 1, -1, -1):
        cells = []
        for c in range(GRID):
            t = info["grid"][square_name(r * GRID + c)]
            colour = (t["colour"] or "*")[0].upper()
            kind = KIND_LETTER[t["kind"]] if t["revealed"] else "?"
            marks = ("B" if t["barrier"] else "") + ("J" if t["cookie"] else "")
            pawn = f"@{t['pawn'][0].upper()}" if t["pawn"] else ""
            cells.append([f"{colour}{'.' if t['open'] else '#'}{kind}", f"{marks}{pawn}"])
        rows.append(cells)
    lines = [f"Keys to the TARDIS - turn {info['turn']} - {info['phase']} - {info['num_players']} players"]
    lines.append("     " + "".join(f"{f:^7}" for f in "abcdefg"))
    grid = text_grid(rows, width=6)
    for k, line in enumerate(grid):
        rank = GRID - (k - 1) // 3 if k % 3 == 1 else None
        lines.append((f"  {rank}  " if rank else "     ") + line)
    if info["tunnels"]:
        lines.append("Time Tunnels: " + ", ".join(f"{a}-{b}" for a, b in info["tunnels"]))
    for name, p in info["players"].items():
        where = p["pawn"] or "off the grid"
        trapped = f", Pandorica {p['pandorica_turns']}" if p["pandorica_turns"] else ""
        lines.append(f"{name:>6}: pawn {where}{trapped}; {p['hand_size']} cards")
    lines.append(f"Deck {info['deck_size']} cards; discard pile {sum(info['discard'].values())} cards")
    lines.append(LEGEND)
    if info["status"] != "running":
        lines.append(ending_line(info, f"Game over: {info['status']}, winner {info['winner'] or 'none'}"))
    else:
        lines.append(f"To move: {info['current_player']}")
    return "\n".join(lines)


CELL = 48
MARGIN = 20


def render_rgb(game, state: np.ndarray) -> np.ndarray:
    """The grid, north up: closed doors dark with a colour border, open doors in
    their colour with the kind letter once revealed, barriers as a grey bar, Jam
    Cookies as a brown dot, tunnels as white lines, pawns as discs by seat."""
    info = game.describe(state)
    size = 2 * MARGIN + GRID * CELL
    canvas = Canvas(size + 40, size)
    for t in range(NUM_TILES):
        r, c = divmod(t, GRID)
        top, left = MARGIN + (GRID - 1 - r) * CELL, MARGIN + c * CELL
        tile = info["grid"][square_name(t)]
        rgb = COLOUR_RGB[tile["colour"]]
        if tile["open"]:
            canvas.rect(top + 1, left + 1, CELL - 2, CELL - 2, rgb)
        else:
            canvas.rect(top + 1, left + 1, CELL - 2, CELL - 2, (40, 40, 48))
            canvas.frame(top + 1, left + 1, CELL - 2, CELL - 2, rgb, 3)
        if tile["revealed"] and tile["kind"] != "plain":
            canvas.text(top + 6, left + 6, KIND_LETTER[tile["kind"]][:2], (15, 15, 15) if tile["open"] else (220, 220, 220), 2)
        if tile["barrier"]:
            canvas.rect(top + CELL // 2 - 3, left + 4, 6, CELL - 8, (150, 150, 150))
        if tile["cookie"]:
            canvas.disc(top + CELL - 10, left + CELL - 10, 5, (120, 70, 30))
    for a, b in info["tunnels"]:
        (ca, ra), (cb, rb) = ("abcdefg".index(a[0]), int(a[1]) - 1), ("abcdefg".index(b[0]), int(b[1]) - 1)
        for k in range(CELL):
            y = MARGIN + (GRID - 1 - ra) * CELL + CELL // 2 - (rb - ra) * k
            x = MARGIN + ca * CELL + CELL // 2 + (cb - ca) * k
            canvas.rect(int(y) - 1, int(x) - 1, 3, 3, (255, 255, 255))
    for seat, (name, p) in enumerate(info["players"].items()):
        color = PAWN_RGB[game.sides[seat]]
        if p["pawn"]:
            col, row = "abcdefg".index(p["pawn"][0]), int(p["pawn"][1]) - 1
            canvas.disc(MARGIN + (GRID - 1 - row) * CELL + CELL / 2, MARGIN + col * CELL + CELL / 2, CELL * 0.28, (0, 0, 0))
            canvas.disc(MARGIN + (GRID - 1 - row) * CELL + CELL / 2, MARGIN + col * CELL + CELL / 2, CELL * 0.24, color)
        x = canvas.text(size + 8, MARGIN + seat * 90, name[:5].upper(), color, 2)
        canvas.text(size + 22, MARGIN + seat * 90, f"{p['hand_size']}", color, 2)
    return canvas.array
