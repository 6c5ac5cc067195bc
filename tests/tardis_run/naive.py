"""A slow, obvious TARDIS Run written from the rulebook and the rulings of tardis_run_v0's docstring in plain Python.

It shares no code with the kernels: positions are lists of progress values,
squares are recomputed from scratch, and the rules are spelled out in the
order the rulebook gives them. Tests compare the kernels against it.
"""

from dataclasses import dataclass, field


@dataclass
class Position:
    length: int
    shortcuts: dict  # square -> target
    teleports: dict  # square -> partner
    progress: list = field(default_factory=lambda: [[0] * 4, [0] * 4])  # [seat][piece]
    owner: int = -1
    to_move: int = 0
    pending: int | None = None  # progress of the piece offered an extra move
    winner: int | None = None

    def square(self, seat, p):
        if 1 <= p <= self.length:
            return p if seat == 1 else self.length + 1 - p
        return None

    def on_square(self, square):
        return [(s, i) for s in (0, 1) for i in range(4) if self.square(s, self.progress[s][i]) == square]

    def canonical(self):
        return ([sorted(p, reverse=True) for p in self.progress], self.owner, self.to_move, self.pending, self.winner)


def legal_actions(pos):
    if pos.winner is not None:
        return []
    if pos.pending is not None:
        return [9, 10]
    mine = sorted(pos.progress[pos.to_move], reverse=True)
    actions, seen = [], set()
    for rank, p in enumerate(mine):
        if p == pos.length + 1 or p in seen:
            continue
        seen.add(p)
        actions.append(2 * rank)
        if pos.owner == pos.to_move:
            actions.append(2 * rank + 1)
    return actions or [8]


def _land(pos, seat, piece, square):
    """Move piece onto square with the stacking rules; False if cancelled."""
    there = pos.on_square(square)
    if len(there) >= 2:
        return False
    for s, i in there:
        if s != seat:
            pos.progress[s][i] = 0  # capture: sent home
    pos.progress[seat][piece] = square if seat == 1 else pos.length + 1 - square
    return True


def _pass_turn(pos):
    pos.pending = None
    pos.to_move = 1 - pos.to_move


def apply_roll(pos, rank, seals):
    """The chosen piece (rank among the mover's pieces, most advanced first) rolls ``seals``."""
    seat = pos.to_move
    order = sorted(range(4), key=lambda i: -pos.progress[seat][i])
    piece = order[rank] if rank >= 0 else None
    if seals == 0:
        if pos.owner != seat:
            pos.owner = seat
            if all(p == pos.length + 1 for p in pos.progress[seat]):
                pos.winner = seat
                return
        elif piece is not None:
            pos.progress[seat][piece] = 0
        _pass_turn(pos)
        return
    if piece is None:
        _pass_turn(pos)
        return
    new = pos.progress[seat][piece] + seals
    if new > pos.length:
        pos.progress[seat][piece] = pos.length + 1
        if pos.owner == seat and all(p == pos.length + 1 for p in pos.progress[seat]):
            pos.winner = seat
            return
        _pass_turn(pos)
        return
    square = pos.square(seat, new)
    if not _land(pos, seat, piece, square):
        _pass_turn(pos)
        return
    if square in pos.shortcuts or square in pos.teleports:
        pos.pending = new
        return
    _pass_turn(pos)


def apply_extra(pos, take):
    seat = pos.to_move
    if take:
        piece = pos.progress[seat].index(pos.pending)
        square = pos.square(seat, pos.pending)
        target = pos.shortcuts.get(square, pos.teleports.get(square))
        _land(pos, seat, piece, target)
    _pass_turn(pos)
