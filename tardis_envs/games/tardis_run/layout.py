"""TARDIS Run: the words of the flat ``int64`` state, the action numbers and the
observation planes every kernel module shares (no rules here).


Notation
--------
Seats: ``MONSTERS = 0`` (moves first) and ``DOCTORS = 1``. Each side has four
pieces. A piece's *progress* ``p`` counts squares from its own home:
``p = 0`` is home (off the track, safe, any number of pieces), ``1..L`` is on
the track of ``L`` squares, ``L + 1`` means escaped. Both sides run the same
track in opposite directions: a Doctor at progress ``p`` stands on square
``p``, a Monster on square ``L + 1 - p`` (:func:`square_of`).

Pieces are kept sorted by progress, most advanced first, after every change,
so ``rank 0`` is always a side's leading piece and equal ranks are
interchangeable; the legal mask offers only the first of each group.

State layout (after the shared header of :mod:`tardis_envs.core.state`)
------------------------------------------------------------------------
=======================  ====================================================
``PROGRESS`` + 4*s + r   progress of seat ``s``'s rank-``r`` piece
``BLACK_PADDLE_OWNER``   seat holding the black paddle, -1 while unclaimed
``PHASE``                ``PHASE_CHOOSE``, ``PHASE_EXTRA_MOVE``, ``PHASE_OVER``
``PENDING_PROGRESS``     progress of the piece that may take an extra move
``TURN``                 completed turns (plies); ``max_turns`` truncates
``WINNER``               winning seat, -1 before the end
``LAST_*``               the last roll: seat, rank, whether the black paddle
                         was rolled, each paddle's face (-1 not rolled, 1 seal
                         side up, 0 blank / "2x" up), the seals counted, the
                         outcome, squares from/to, captures, and the same for
                         the extra move
=======================  ====================================================

Actions (``NUM_ACTIONS = 11``)
------------------------------
``2*rank + b`` (0..7)  choose the rank-``rank`` piece, then roll the four white
                       paddles, and the black one too if ``b == 1`` (only when
                       holding it)
``ROLL`` (8)           roll without a piece: only when all four pieces have
                       escaped but the black paddle is elsewhere
``TAKE_EXTRA`` (9)     take the optional shortcut / teleport move
``DECLINE_EXTRA`` (10) stay where the roll ended
"""

from __future__ import annotations

import numpy as np

from ...core.state import HEADER_SIZE

# the version of this layout (``Game.layout_version``); a saved state of an earlier one is upgraded
LAYOUT_VERSION = 1

MONSTERS = 0
DOCTORS = 1
NUM_SEATS = 2
NUM_PIECES = 4

# --- state layout ---------------------------------------------------------------
PROGRESS = HEADER_SIZE
BLACK_PADDLE_OWNER = PROGRESS + NUM_SEATS * NUM_PIECES
PHASE = BLACK_PADDLE_OWNER + 1
PENDING_PROGRESS = PHASE + 1
TURN = PENDING_PROGRESS + 1
WINNER = TURN + 1
LAST_PLAYER = WINNER + 1
LAST_RANK = LAST_PLAYER + 1
LAST_USED_BLACK = LAST_RANK + 1
LAST_FACES = LAST_USED_BLACK + 1  # 5 words: white paddles 0..3, then black
LAST_SEALS = LAST_FACES + 5
LAST_OUTCOME = LAST_SEALS + 1
LAST_FROM = LAST_OUTCOME + 1  # squares; 0 = home, -1 = escaped/none
LAST_TO = LAST_FROM + 1
LAST_CAPTURES = LAST_TO + 1
LAST_EXTRA = LAST_CAPTURES + 1
LAST_EXTRA_TO = LAST_EXTRA + 1
LAST_EXTRA_CAPTURES = LAST_EXTRA_TO + 1
STATE_SIZE = LAST_EXTRA_CAPTURES + 1

PHASE_CHOOSE = 0
PHASE_EXTRA_MOVE = 1
PHASE_OVER = 2

# Outcome of a roll (LAST_OUTCOME).
OUT_NONE = 0
OUT_MOVED = 1
OUT_CANCELLED = 2
OUT_ESCAPED = 3
OUT_CLAIMED = 4  # zero seals, black paddle was unclaimed
OUT_STOLE = 5  # zero seals, black paddle taken from the opponent
OUT_SENT_HOME = 6  # zero seals while holding the black paddle
OUT_ROLLED_ONLY = 7  # all pieces out, no zero: nothing happens
# Extra move (LAST_EXTRA).
EXTRA_NONE = 0
EXTRA_PENDING = 1
EXTRA_TAKEN = 2
EXTRA_DECLINED = 3
EXTRA_CANCELLED = 4

# --- actions ---------------------------------------------------------------
ROLL = 8
TAKE_EXTRA = 9
DECLINE_EXTRA = 10
NUM_ACTIONS = 11

# The four white paddles' seal counts (face up), then the black paddle's.
WHITE_SEALS = np.array([1, 1, 2, 2], dtype=np.int64)
NUM_PADDLES = 5

# --- observation planes (each L + 2 columns in the observer's progress) -------------
OBS_OWN_PIECE = 0  # planes 0..3: own rank-r piece, one-hot column
OBS_OPPONENT_PIECE = 4  # planes 4..7: opponent's rank-r piece, one-hot column
OBS_ARROW = 8
OBS_ARROW_SHIFT = 9
OBS_TELEPORT = 10
OBS_TELEPORT_SHIFT = 11
OBS_HOLD_BLACK = 12
OBS_OPPONENT_HOLDS_BLACK = 13
OBS_EXTRA_PENDING = 14
OBS_PENDING_PIECE = 15
NUM_PLANES = 16
