"""TARDIS Run boards: YAML data -> validated ``Board`` -> integer tables for the kernels.

A board file (see ``content/board_default.yaml``) has ``name``, ``rows``,
``columns`` (the track snakes through the rows), ``shortcuts`` (a list of
``{from, to}`` arrow squares) and ``teleports`` (a list of linked square pairs).
Every problem is reported as a ``ValueError`` naming the file and the key.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ...core.options import read_yaml

CONTENT_DIR = Path(__file__).parent / "content"
SHIPPED_BOARDS = {"default": CONTENT_DIR / "board_default.yaml"}

MAX_SQUARES = 120  # largest track a board may have (tables are fixed-size)


@dataclass(frozen=True)
class Board:
    name: str
    rows: int
    columns: int
    shortcuts: tuple[tuple[int, int], ...]  # (arrow square, target square)
    teleports: tuple[tuple[int, int], ...]  # linked pairs

    @property
    def track_length(self) -> int:
        return self.rows * self.columns

    def cell_of_square(self, square: int) -> tuple[int, int]:
        """(row, column), both 0-based from the first row's left end, of a track square."""
        row, offset = divmod(square - 1, self.columns)
        col = offset if row % 2 == 0 else self.columns - 1 - offset
        return row, col


def _fail(source: str, key: str, problem: str) -> ValueError:
    return ValueError(f"board file {source!r}: {key}: {problem}")


def parse_board(data: object, source: str) -> Board:
    if not isinstance(data, dict):
        raise _fail(source, "(top level)", "must be a mapping with rows, columns, shortcuts, teleports")
    allowed = {"name", "rows", "columns", "shortcuts", "teleports"}
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise _fail(source, unknown[0], f"unknown key; allowed keys: {', '.join(sorted(allowed))}")
    for key in ("rows", "columns"):
        value = data.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise _fail(source, key, f"must be a positive integer, got {value!r}")
    rows, columns = data["rows"], data["columns"]
    length = rows * columns
    if not 4 <= length <= MAX_SQUARES:
        raise _fail(source, "rows x columns", f"track of {length} squares; allowed 4..{MAX_SQUARES}")

    def square(value: object, key: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= length:
            raise _fail(source, key, f"square {value!r} is not on the track 1..{length}")
        return value

    shortcuts = []
    for i, entry in enumerate(data.get("shortcuts") or []):
        if not isinstance(entry, dict) or set(entry) != {"from", "to"}:
            raise _fail(source, f"shortcuts[{i}]", "must be a mapping {from: square, to: square}")
        a, b = square(entry["from"], f"shortcuts[{i}].from"), square(entry["to"], f"shortcuts[{i}].to")
        if a == b:
            raise _fail(source, f"shortcuts[{i}]", "an arrow cannot point to its own square")
        shortcuts.append((a, b))
    teleports = []
    for i, entry in enumerate(data.get("teleports") or []):
        if not isinstance(entry, (list, tuple)) or len(entry) != 2:
            raise _fail(source, f"teleports[{i}]", "must be a pair [square, square]")
        a, b = square(entry[0], f"teleports[{i}][0]"), square(entry[1], f"teleports[{i}][1]")
        if a == b:
            raise _fail(source, f"teleports[{i}]", "a teleport cannot link a square to itself")
        teleports.append((a, b))
    arrow_squares = [a for a, _ in shortcuts]
    teleport_squares = [s for pair in teleports for s in pair]
    for squares, key in ((arrow_squares, "shortcuts"), (teleport_squares, "teleports")):
        if len(set(squares)) != len(squares):
            raise _fail(source, key, "a square appears twice (one extra move per square)")
    both = sorted(set(arrow_squares) & set(teleport_squares))
    if both:
        raise _fail(source, "shortcuts/teleports", f"square {both[0]} is both an arrow and a teleport")
    name = data.get("name", Path(source).stem)
    return Board(str(name), rows, columns, tuple(shortcuts), tuple(teleports))


@lru_cache(maxsize=32)
def load_board(board: str) -> Board:
    """A shipped board by name (``"default"``) or a board YAML file by path."""
    path = SHIPPED_BOARDS.get(board)
    if path is None:
        path = Path(board)
        if not path.exists():
            raise ValueError(
                f"tardis_run_v0: option 'board' got {board!r}: neither a shipped board ({', '.join(SHIPPED_BOARDS)}) nor an existing file"
            )
    return parse_board(read_yaml(path, "board file"), str(board))


# --- integer tables handed to the kernels -------------------------------------------
T_TRACK_LENGTH = 0
T_MAX_TURNS = 1
T_SHORTCUT = 2  # MAX_SQUARES + 2 words indexed by square: arrow target, 0 = none
T_TELEPORT = T_SHORTCUT + MAX_SQUARES + 2  # same, teleport partner
# The board as each seat observes it, for the observation's arrow and teleport planes: per
# seat a count, then (kind 0 arrow / 1 teleport, column, target column - column) per marked
# square, columns in that seat's progress (the board never changes, so observe copies these)
T_BOARD_VIEW = T_TELEPORT + MAX_SQUARES + 2
BOARD_VIEW_SIZE = 1 + 3 * 2 * MAX_SQUARES
TABLES_SIZE = T_BOARD_VIEW + 2 * BOARD_VIEW_SIZE


def build_tables(board: Board, max_turns: int) -> np.ndarray:
    tables = np.zeros(TABLES_SIZE, dtype=np.int64)
    length = board.track_length
    tables[T_TRACK_LENGTH] = length
    tables[T_MAX_TURNS] = max_turns
    for a, b in board.shortcuts:
        tables[T_SHORTCUT + a] = b
    for a, b in board.teleports:
        tables[T_TELEPORT + a] = b
        tables[T_TELEPORT + b] = a
    for seat in range(2):  # 0 Monsters (progress runs from square L down), 1 Doctors

        def column(square: int, seat: int = seat) -> int:
            return square if seat == 1 else length + 1 - square

        at = T_BOARD_VIEW + seat * BOARD_VIEW_SIZE
        count = 0
        for col in range(1, length + 1):
            square = column(col)
            for kind, table in enumerate((T_SHORTCUT, T_TELEPORT)):
                target = tables[table + square]
                if target != 0:
                    tables[at + 1 + 3 * count : at + 4 + 3 * count] = (kind, col, column(target) - col)
                    count += 1
        tables[at] = count
    return tables
