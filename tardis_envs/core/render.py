"""Drawing helpers shared by every game: boxed text grids and a tiny raster canvas.

``Canvas`` draws filled rectangles, discs, outlines and text in a built-in
3x5 pixel font (scaled), into an ``HxWx3 uint8`` array, with numpy only, so
``render_mode="rgb_array"`` needs no graphics library.
"""

from __future__ import annotations

import numpy as np

Color = tuple[int, int, int]

# 3x5 glyphs, rows top to bottom, '#' = ink.
_GLYPHS = {
    "0": "###|#.#|#.#|#.#|###",
    "1": ".#.|##.|.#.|.#.|###",
    "2": "###|..#|###|#..|###",
    "3": "###|..#|.##|..#|###",
    "4": "#.#|#.#|###|..#|..#",
    "5": "###|#..|###|..#|###",
    "6": "###|#..|###|#.#|###",
    "7": "###|..#|.#.|.#.|.#.",
    "8": "###|#.#|###|#.#|###",
    "9": "###|#.#|###|..#|###",
    "A": ".#.|#.#|###|#.#|#.#",
    "B": "##.|#.#|##.|#.#|##.",
    "C": "###|#..|#..|#..|###",
    "D": "##.|#.#|#.#|#.#|##.",
    "E": "###|#..|##.|#..|###",
    "F": "###|#..|##.|#..|#..",
    "G": "###|#..|#.#|#.#|###",
    "H": "#.#|#.#|###|#.#|#.#",
    "I": "###|.#.|.#.|.#.|###",
    "J": "..#|..#|..#|#.#|###",
    "K": "#.#|##.|#..|##.|#.#",
    "L": "#..|#..|#..|#..|###",
    "M": "#.#|###|###|#.#|#.#",
    "N": "##.|#.#|#.#|#.#|#.#",
    "O": "###|#.#|#.#|#.#|###",
    "P": "###|#.#|###|#..|#..",
    "Q": "###|#.#|#.#|###|..#",
    "R": "##.|#.#|##.|#.#|#.#",
    "S": "###|#..|###|..#|###",
    "T": "###|.#.|.#.|.#.|.#.",
    "U": "#.#|#.#|#.#|#.#|###",
    "V": "#.#|#.#|#.#|#.#|.#.",
    "W": "#.#|#.#|###|###|#.#",
    "X": "#.#|#.#|.#.|#.#|#.#",
    "Y": "#.#|#.#|.#.|.#.|.#.",
    "Z": "###|..#|.#.|#..|###",
    " ": "...|...|...|...|...",
    "-": "...|...|###|...|...",
    ">": "#..|.#.|..#|.#.|#..",
    "<": "..#|.#.|#..|.#.|..#",
    ":": "...|.#.|...|.#.|...",
    "+": "...|.#.|###|.#.|...",
    "x": "...|#.#|.#.|#.#|...",
    "/": "..#|..#|.#.|#..|#..",
    ".": "...|...|...|...|.#.",
    "?": "###|..#|.##|...|.#.",
    "*": "#.#|.#.|###|.#.|#.#",
    "'": ".#.|.#.|...|...|...",
    '"': "#.#|#.#|...|...|...",
    ",": "...|...|...|.#.|#..",
    "!": ".#.|.#.|.#.|...|.#.",
    "(": ".#.|#..|#..|#..|.#.",
    ")": ".#.|..#|..#|..#|.#.",
    "%": "#.#|..#|.#.|#..|#.#",
    "&": ".#.|#.#|.#.|#.#|.##",
    "=": "...|###|...|###|...",
}
# typographic marks drawn as their plain forms (content text uses curly apostrophes)
_SAME_AS = {"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"}
_FONT = {ch: np.array([[c == "#" for c in row] for row in g.split("|")], dtype=bool) for ch, g in _GLYPHS.items()}
_FONT.update({ch: _FONT[plain] for ch, plain in _SAME_AS.items()})


class Canvas:
    """An RGB image being drawn; ``array`` is the ``HxWx3 uint8`` result."""

    def __init__(self, height: int, width: int, background: Color = (24, 28, 40)):
        self.array = np.empty((height, width, 3), dtype=np.uint8)
        self.array[:] = background
        self._yy, self._xx = np.mgrid[0:height, 0:width]

    @property
    def height(self) -> int:
        return self.array.shape[0]

    @property
    def width(self) -> int:
        return self.array.shape[1]

    def rect(self, top: int, left: int, height: int, width: int, color: Color) -> None:
        t, lf = max(top, 0), max(left, 0)
        self.array[t : max(top + height, 0), lf : max(left + width, 0)] = color

    def frame(self, top: int, left: int, height: int, width: int, color: Color, thickness: int = 1) -> None:
        self.rect(top, left, thickness, width, color)
        self.rect(top + height - thickness, left, thickness, width, color)
        self.rect(top, left, height, thickness, color)
        self.rect(top, left + width - thickness, height, thickness, color)

    def disc(self, cy: float, cx: float, radius: float, color: Color) -> None:
        inside = (self._yy - cy) ** 2 + (self._xx - cx) ** 2 <= radius**2
        self.array[inside] = color

    def text(self, top: int, left: int, text: str, color: Color, scale: int = 2) -> int:
        """Draw ``text`` in capitals, digits and common punctuation (other characters as
        '?'); returns the x after it."""
        x = left
        for ch in text:
            glyph = _FONT.get(ch, _FONT.get(ch.upper(), _FONT["?"]))
            block = np.kron(glyph, np.ones((scale, scale), dtype=bool))
            h, w = block.shape
            t0, l0 = max(top, 0), max(x, 0)
            region = self.array[t0 : top + h, l0 : x + w]
            sub = block[t0 - top : t0 - top + region.shape[0], l0 - x : l0 - x + region.shape[1]]
            region[sub] = color
            x += w + scale
        return x


def text_grid(cells: list[list[list[str]]], width: int) -> list[str]:
    """A boxed grid of cells; each cell is a list of text lines (same count per row)."""
    lines = []
    border = "+" + "+".join("-" * width for _ in cells[0]) + "+"
    lines.append(border)
    for row in cells:
        height = max(len(cell) for cell in row)
        for k in range(height):
            parts = [(cell[k] if k < len(cell) else "").ljust(width)[:width] for cell in row]
            lines.append("|" + "|".join(parts) + "|")
        lines.append(border)
    return lines


def ending_line(info: dict, line: str, team: bool = False) -> str:
    """The last line of a finished game's text: ``line`` (the game's own words for its
    result), or the same sentence in every game when an illegal action ended it (``team``:
    a cooperative game, whose seats share the -1)."""
    offender = info.get("illegal_action_by")
    if not offender:
        return line
    if team:
        return f"Game over: illegal action by {offender} (every seat -1: the team shares the outcome)"
    each = " each" if ", " in offender else ""
    return f"Game over: illegal action by {offender} ({offender} -1{each}, the others 0)"
