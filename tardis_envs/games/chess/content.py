"""Dr. Who Chess positions: FEN (with the TARDIS extension) <-> integer tables.

A position is written in Forsyth-Edwards Notation. Classic chess uses the six
standard fields. The variant appends one field describing the TARDIS::

    rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 D:d4/C:in/P:-

``D:<square>`` is the TARDIS (``D:-`` none), ``C:in`` or ``C:<square>`` is
Dr. Who inside it or on a square, ``P:<piece>`` the chess piece inside
(FEN letter, ``-`` none). Without the field the variant starts with the
TARDIS on d4 and Dr. Who inside (the rulebook's setup).

``configs/chess/`` and the ``fen`` option feed these into the game.
"""

from __future__ import annotations

import numpy as np

from .layout import (
    BISHOP,
    BLACK,
    DOCTOR,
    EMPTY,
    KING,
    KNIGHT,
    PAWN,
    QUEEN,
    ROOK,
    T_DOCTOR,
    T_MAX_PLIES,
    T_SIZE,
    T_START_BOARD,
    T_START_CASTLING,
    T_START_DOCTOR_SQ,
    T_START_EP,
    T_START_EP_FAR,
    T_START_FULLMOVE,
    T_START_HALFMOVE,
    T_START_PASSENGER,
    T_START_SIDE,
    T_START_TARDIS,
    WHITE,
)

START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
TARDIS_START = "D:d4/C:in/P:-"
PIECE_LETTERS = {PAWN: "p", KNIGHT: "n", BISHOP: "b", ROOK: "r", QUEEN: "q", KING: "k"}
LETTER_TYPES = {v: k for k, v in PIECE_LETTERS.items()}
CASTLING_LETTERS = (("K", 1), ("Q", 2), ("k", 4), ("q", 8))
FILES = "abcdefgh"


def square_name(sq: int) -> str:
    return f"{FILES[sq & 7]}{(sq >> 3) + 1}"


def parse_square(text: str) -> int:
    text = text.strip().lower()
    if len(text) != 2 or text[0] not in FILES or text[1] not in "12345678":
        raise ValueError(f"{text!r} is not a square (a1..h8)")
    return (int(text[1]) - 1) * 8 + FILES.index(text[0])


def piece_letter(code: int) -> str:
    if code == DOCTOR:
        return "C"
    letter = PIECE_LETTERS[code & 7]
    return letter.upper() if (code >> 3) == WHITE else letter


def parse_piece(letter: str) -> int:
    if letter.lower() not in LETTER_TYPES:
        raise ValueError(f"{letter!r} is not a piece letter (PNBRQK, lower case for Black)")
    return LETTER_TYPES[letter.lower()] | ((BLACK if letter.islower() else WHITE) << 3)


def last_rank(code: int) -> int:
    """The rank (0..7) where a pawn of ``code``'s colour promotes."""
    return 7 if (code >> 3) == WHITE else 0


def en_passant_field(ep: int, ep_far: int) -> str:
    """The FEN en-passant field: ``-``, the target square, or after a three-square
    advance both passed squares, the one behind the pawn first (``a3a2``)."""
    if ep < 0:
        return "-"
    return square_name(ep) + (square_name(ep_far) if ep_far >= 0 else "")


def parse_en_passant(fen: str, field: str, doctor: bool) -> tuple[int, int]:
    """(target, far target) from the FEN field; the far target and the targets of an
    advance from the first rank exist only in the variant."""
    if field == "-":
        return -1, -1
    if len(field) not in (2, 4) or (len(field) == 4 and not doctor):
        raise ValueError(
            f"FEN {fen!r}: en-passant field {field!r} must be '-' or a square"
            + (" (or two, after a three-square advance: 'a3a2')" if doctor else "")
        )
    ep = parse_square(field[:2])
    ranks = (2, 5, 1, 6) if doctor else (2, 5)
    if (ep >> 3) not in ranks:
        names = "3 or 6 (2 or 7 after an advance from the first rank)" if doctor else "3 or 6"
        raise ValueError(f"FEN {fen!r}: en-passant square {field[:2]} must be on rank {names}")
    if len(field) == 2:
        return ep, -1
    ep_far = parse_square(field[2:])
    behind = ep - 8 if (ep >> 3) == 2 else ep + 8
    if (ep >> 3) not in (2, 5) or ep_far != behind:
        raise ValueError(
            f"FEN {fen!r}: en-passant field {field!r}: after a three-square advance the targets are "
            "the squares on ranks 3 and 2 (or 6 and 7) of one file, the one behind the pawn first"
        )
    return ep, ep_far


class Position:
    """A parsed FEN: board codes, side, castling bits, en passant, clocks, TARDIS."""

    def __init__(self, board, side, castling, ep, ep_far, halfmove, fullmove, tardis, doctor_sq, passenger):
        self.board, self.side, self.castling, self.ep, self.ep_far = board, side, castling, ep, ep_far
        self.halfmove, self.fullmove = halfmove, fullmove
        self.tardis, self.doctor_sq, self.passenger = tardis, doctor_sq, passenger


def parse_fen(fen: str, doctor: bool) -> Position:
    """Parse and validate a FEN; errors name the field that is wrong."""
    fields = str(fen).split()
    if len(fields) not in (4, 6, 7):
        raise ValueError(f"FEN {fen!r}: expected 6 fields (7 with the TARDIS field), got {len(fields)}")
    if len(fields) == 4:
        fields += ["0", "1"]
    rows = fields[0].split("/")
    if len(rows) != 8:
        raise ValueError(f"FEN {fen!r}: the board needs 8 ranks separated by '/', got {len(rows)}")
    board = [EMPTY] * 64
    for i, row in enumerate(rows):
        rank, file = 7 - i, 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
            else:
                if file >= 8:
                    raise ValueError(f"FEN {fen!r}: rank {rank + 1} ({row!r}) describes more than 8 squares")
                board[rank * 8 + file] = DOCTOR if ch == "C" else parse_piece(ch)
                file += 1
        if file != 8:
            raise ValueError(f"FEN {fen!r}: rank {rank + 1} ({row!r}) does not describe 8 squares")
    if fields[1] not in ("w", "b"):
        raise ValueError(f"FEN {fen!r}: side to move must be 'w' or 'b', got {fields[1]!r}")
    side = WHITE if fields[1] == "w" else BLACK
    castling = 0
    if fields[2] != "-":
        for ch in fields[2]:
            bits = dict(CASTLING_LETTERS)
            if ch not in bits:
                raise ValueError(f"FEN {fen!r}: castling field {fields[2]!r} may hold only K, Q, k, q or '-'")
            castling |= bits[ch]
    ep, ep_far = parse_en_passant(fen, fields[3], doctor)
    try:
        halfmove, fullmove = int(fields[4]), int(fields[5])
    except ValueError:
        raise ValueError(f"FEN {fen!r}: halfmove clock and move number must be integers") from None
    if halfmove < 0 or fullmove < 1:
        raise ValueError(f"FEN {fen!r}: halfmove clock must be >= 0 and move number >= 1")
    for colour, name in ((WHITE, "white"), (BLACK, "black")):
        kings = board.count(KING | (colour << 3))
        if kings != 1:
            raise ValueError(f"FEN {fen!r}: {name} must have exactly one king, found {kings}")
    for sq, c in enumerate(board):
        if c in (EMPTY, DOCTOR) or (c & 7) != PAWN:
            continue
        if (sq >> 3) == last_rank(c):
            raise ValueError(f"FEN {fen!r}: a pawn on {square_name(sq)} stands on its last rank (it would have promoted)")
        if not doctor and (sq >> 3) in (0, 7):
            raise ValueError(f"FEN {fen!r}: pawns cannot stand on the first or last rank in classic chess")
    # castling rights need the king and rook at home
    for letter, bit in CASTLING_LETTERS:
        colour = WHITE if letter.isupper() else BLACK
        king_sq, rook_sq = (4, 7 if letter in "Kk" else 0)
        king_sq += 56 * colour
        rook_sq += 56 * colour
        if castling & bit and (board[king_sq] != (KING | colour << 3) or board[rook_sq] != (ROOK | colour << 3)):
            raise ValueError(f"FEN {fen!r}: castling right {letter!r} needs the king and rook on their home squares")
    tardis, doctor_sq, passenger = -1, -1, EMPTY
    if doctor:
        extra = fields[6] if len(fields) == 7 else TARDIS_START
        parts = dict(p.split(":", 1) for p in extra.split("/") if ":" in p)
        if set(parts) != {"D", "C", "P"}:
            raise ValueError(f"FEN {fen!r}: the TARDIS field must look like 'D:d4/C:in/P:-', got {extra!r}")
        tardis = -1 if parts["D"] == "-" else parse_square(parts["D"])
        if tardis < 0:
            raise ValueError(f"FEN {fen!r}: the variant needs the TARDIS on a square")
        if board[tardis] != EMPTY:
            raise ValueError(f"FEN {fen!r}: the TARDIS square {parts['D']} holds a piece")
        doctor_sq = -1 if parts["C"] == "in" else parse_square(parts["C"])
        if doctor_sq >= 0:
            if board[doctor_sq] not in (EMPTY, DOCTOR):
                raise ValueError(f"FEN {fen!r}: Dr. Who's square {parts['C']} holds a piece")
            board[doctor_sq] = DOCTOR
        if board.count(DOCTOR) != (1 if doctor_sq >= 0 else 0):
            raise ValueError(f"FEN {fen!r}: Dr. Who ('C') must stand only on the square the TARDIS field names")
        passenger = EMPTY if parts["P"] == "-" else parse_piece(parts["P"])
        if (passenger & 7) == KING:
            raise ValueError(f"FEN {fen!r}: kings never enter the TARDIS")
        if (passenger & 7) == PAWN and (tardis >> 3) == last_rank(passenger):
            raise ValueError(f"FEN {fen!r}: a pawn inside the TARDIS on its last rank would have promoted")
    else:
        if len(fields) == 7:
            raise ValueError(f"FEN {fen!r}: the TARDIS field needs doctor=True")
        if DOCTOR in board:
            raise ValueError(f"FEN {fen!r}: 'C' (Dr. Who) needs doctor=True")
    return Position(board, side, castling, ep, ep_far, halfmove, fullmove, tardis, doctor_sq, passenger)


def build_tables(doctor: bool, max_plies: int, fen: str) -> np.ndarray:
    position = parse_fen(fen, doctor)
    tables = np.zeros(T_SIZE, dtype=np.int64)
    tables[T_DOCTOR] = int(doctor)
    tables[T_MAX_PLIES] = max_plies
    tables[T_START_SIDE] = position.side
    tables[T_START_CASTLING] = position.castling
    tables[T_START_EP] = position.ep
    tables[T_START_EP_FAR] = position.ep_far
    tables[T_START_HALFMOVE] = position.halfmove
    tables[T_START_FULLMOVE] = position.fullmove
    tables[T_START_TARDIS] = position.tardis
    tables[T_START_DOCTOR_SQ] = position.doctor_sq
    tables[T_START_PASSENGER] = position.passenger
    tables[T_START_BOARD : T_START_BOARD + 64] = position.board
    return tables
