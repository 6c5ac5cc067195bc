"""Keys to the TARDIS: the words of the flat ``int64`` state, the action numbers and the
observation segments every kernel module shares (no rules here).

Notation
--------
The 7x7 grid is indexed ``tile = row * 7 + col`` with row 0 the south edge
row (rank 1) and col 0 the west edge (file a); the Control Tile is the centre
(``d4``). Seats sit at board *sides* (``0`` south, ``1`` west, ``2`` north,
``3`` east; two players: south and north; three: south, west, north). Each
seat also has a *frame*: the grid rotated so that its own edge row is row 0
and its goal row is row 6. Observations and actions are in the frame of the
seat they belong to (:func:`rel_to_abs`, :func:`abs_to_rel`), so a policy
always starts at the bottom and heads up; notation and ``describe()`` use
absolute squares and compass directions.

State layout (after the shared header)
--------------------------------------
======================  ====================================================
``DOORS_OPEN``          the open doors (the Control Tile counts as open)
``KINDS_REVEALED``      the tiles whose kind is public (first opening, or option)
``TIME_BARRIERS``       the tiles under a Time Barrier
``JAM_COOKIES``         the tiles under a Jam Cookie
``COLOUR_TILES`` + c    the doors of colour ``c`` (0 red, 1 blue, 2 green,
                        3 yellow); the Control Tile has none
``KIND_TILES`` + k      the tiles of kind ``k`` (``KIND_*``; hidden from
                        observations until revealed)
``TUNNELS`` + o - 1     the grid corners ``k = r * 6 + c`` (between tiles
                        (r, c) and (r+1, c+1)) holding a Time Tunnel of
                        orientation ``o``: 1 joins (r, c)-(r+1, c+1), 2 joins
                        (r, c+1)-(r+1, c) (:func:`tunnel_at`)
``PAWN`` + s            seat ``s``'s pawn tile, -1 off the grid
``PANDORICA`` + s       own turns left trapped in the Pandorica
``BONUS_USED`` + s      bitmask over tiles: Key / Extra Turn bonus used there
``HAND`` + 10 s + c     cards of type ``c`` (``CARD_*``) in seat ``s``'s hand
``DECK`` + w            the draw pile, 16 cards a word (4 bits each, card
                        ``i`` in word ``i // 16``, bits ``4 * (i % 16)``; top
                        card last, :func:`deck_card`); ``DECK_SIZE`` cards
``DISCARD`` + c         discard pile by card type (cards of a type are alike)
``PHASE``, ``TURN``, ``EXTRA_TURN_PENDING``, ``WINNER``, ``LAST_*``
======================  ====================================================

The board's facts are sets of tiles, one word each with bit ``t`` for tile ``t``
(:func:`.board.on_tile`, :func:`.board.tile_colour`, :func:`.board.tile_kind`): a step reads two
cache lines of board, and the legal mask and the observation work on whole sets with a few
word operations. The Time Tunnels are two sets of grid corners and the draw pile 16 cards a
word: the state is 107 words (856 bytes), and 8,192 games' rows fit in a 32 MB L3 cache.

Actions (``NUM_ACTIONS = 421``; ``t`` is a tile in the mover's frame)
----------------------------------------------------------------------
=====================  ======================================================
``A_KEY + t``          play the Key of tile t's colour: toggle that door
``A_SONIC + t``        Sonic Screwdriver: toggle the door on t
``A_UNBAR + t``        Sonic Screwdriver: remove the Time Barrier on t
``A_BARRIER + t``      Time Barrier on t
``A_COOKIE + t``       Jam Cookie on the revealed Dalek door t
``A_TUNNEL + 2k + o``  Time Tunnel at frame corner k (o = 0: (r,c)-(r+1,c+1),
                       o = 1: (r,c+1)-(r+1,c))
``A_PANDORICA + j``    Pandorica on the pawn of seat (mover + j + 1) % n
``A_CYBERMAN + 8j + d``  Cyberman Assault: push seat (mover + j + 1) % n's
                       pawn one step in frame direction d
``A_DISCARD + c``      discard a card of type c without effect
``A_BONUS + t``        Key Tile bonus: toggle the door on t
``A_BONUS_DECLINE``    decline the Key Tile bonus
``A_MOVE + d``         step in frame direction d (0 forward, 1 right, 2 back,
                       3 left, 4-7 diagonals through a Time Tunnel:
                       forward-right, back-right, back-left, forward-left)
``A_ENTER + c``        enter the grid onto column c of the own edge row
``A_LEAVE``            step off the grid from the own edge row
``A_STAY``             end the turn without moving
=====================  ======================================================
"""

from __future__ import annotations

import numpy as np

from ...core.state import HEADER_SIZE, MAX_PLAYERS
from .content import GRID, NUM_CARD_TYPES, NUM_COLOURS, NUM_TILES

# the version of this layout (``Game.layout_version``); a saved state of an earlier one is upgraded
# 2: the board's facts as sets of tiles and the draw pile packed 16 cards a word (1: a word per
# tile and fact, a word per card; check.py upgrades a state saved so)
LAYOUT_VERSION = 2

KIND_PLAIN = 0
KIND_DALEK = 1
KIND_KEY_TILE = 2
KIND_EXTRA_TURN = 3
KIND_TELEPORT = 4
KIND_CONTROL = 5
NUM_KINDS = 6

CARD_KEY = 0  # + colour
CARD_SONIC = 4
CARD_BARRIER = 5
CARD_TUNNEL = 6
CARD_COOKIE = 7
CARD_PANDORICA = 8
CARD_CYBERMAN = 9

NUM_CORNERS = (GRID - 1) * (GRID - 1)
MAX_CARDS = 128

# --- state layout ---------------------------------------------------------------
DOORS_OPEN = HEADER_SIZE
KINDS_REVEALED = DOORS_OPEN + 1
TIME_BARRIERS = KINDS_REVEALED + 1
JAM_COOKIES = TIME_BARRIERS + 1
COLOUR_TILES = JAM_COOKIES + 1
KIND_TILES = COLOUR_TILES + NUM_COLOURS
TUNNELS = KIND_TILES + NUM_KINDS
PAWN = TUNNELS + 2
PANDORICA = PAWN + MAX_PLAYERS
BONUS_USED = PANDORICA + MAX_PLAYERS
HAND = BONUS_USED + MAX_PLAYERS
CARD_BITS = 4  # a card type (0..9) in the packed draw pile
CARD_MASK = (1 << CARD_BITS) - 1
CARDS_PER_WORD = 64 // CARD_BITS
DECK_WORDS = MAX_CARDS // CARDS_PER_WORD
DECK = HAND + MAX_PLAYERS * NUM_CARD_TYPES
DECK_SIZE = DECK + DECK_WORDS
DISCARD = DECK_SIZE + 1
PHASE = DISCARD + NUM_CARD_TYPES
TURN = PHASE + 1
EXTRA_TURN_PENDING = TURN + 1
WINNER = EXTRA_TURN_PENDING + 1
LAST_SEAT = WINNER + 1  # seat of the last decision
LAST_ACTION = LAST_SEAT + 1  # its action (in that seat's frame)
LAST_TILE = LAST_ACTION + 1  # absolute tile it touched (-1 none)
LAST_TILE2 = LAST_TILE + 1  # second tile (tunnel end, pushed-to tile)
LAST_TELEPORTED = LAST_TILE2 + 1
STATE_SIZE = LAST_TELEPORTED + 1

PHASE_PLAY = 0
PHASE_BONUS = 1
PHASE_MOVE = 2
PHASE_OVER = 3

# --- actions ---------------------------------------------------------------
A_KEY = 0
A_SONIC = A_KEY + NUM_TILES
A_UNBAR = A_SONIC + NUM_TILES
A_BARRIER = A_UNBAR + NUM_TILES
A_COOKIE = A_BARRIER + NUM_TILES
A_TUNNEL = A_COOKIE + NUM_TILES
A_PANDORICA = A_TUNNEL + 2 * NUM_CORNERS
A_CYBERMAN = A_PANDORICA + 3
A_DISCARD = A_CYBERMAN + 3 * 8
A_BONUS = A_DISCARD + NUM_CARD_TYPES
A_BONUS_DECLINE = A_BONUS + NUM_TILES
A_MOVE = A_BONUS_DECLINE + 1
A_ENTER = A_MOVE + 8
A_LEAVE = A_ENTER + GRID
A_STAY = A_LEAVE + 1
NUM_ACTIONS = A_STAY + 1

# Frame directions: (d_row, d_col) for forward, right, back, left, then diagonals.
DIRECTIONS = np.array([[1, 0], [0, 1], [-1, 0], [0, -1], [1, 1], [-1, 1], [-1, -1], [1, -1]], dtype=np.int64)

# --- observation (flat; planes of 49 in the observer's frame, then scalars) ---------
P_OPEN = 0
P_COLOUR = 1  # 4 planes
P_KIND = 5  # 6 planes, only where the kind is public
P_KIND_UNKNOWN = 11
P_BARRIER = 12
P_COOKIE = 13
P_BONUS_USED = 14
P_OWN_PAWN = 15
P_OPPONENT_PAWN = 16  # 3 planes: the next seats in turn order
P_TUNNEL = 19  # 4 planes: a tunnel leaves this tile forward-right, back-right, back-left, forward-left
NUM_PLANES = 23
S_BASE = NUM_PLANES * NUM_TILES
S_HAND = S_BASE  # 10: own cards by type / 4
S_OPPONENT_HAND = S_HAND + NUM_CARD_TYPES  # 3: hand sizes / 4
S_DECK = S_OPPONENT_HAND + 3  # deck size / cards in the game
S_DISCARD = S_DECK + 1  # 10: discard pile by type / cards of that type
S_PANDORICA = S_DISCARD + NUM_CARD_TYPES  # 4: own, then opponents: turns left / pandorica_turns
S_OFF_GRID = S_PANDORICA + 4  # 4: own, then opponents: pawn off the grid
S_PHASE = S_OFF_GRID + 4  # 3: play, bonus, move (one-hot, only for the mover)
S_EXTRA_TURN = S_PHASE + 3
S_SEAT_PRESENT = S_EXTRA_TURN + 1  # 3: opponent j exists
S_MY_TURN = S_SEAT_PRESENT + 3
OBS_SIZE = S_MY_TURN + 1  # without the option route_lengths
# option route_lengths: 4 more scalars, own route then the next seats', in tenths of a step
S_ROUTE = OBS_SIZE
NUM_ROUTE_ENTRIES = 4
ROUTE_TENTHS = 300  # the denominator: a route of 30 steps or more (or none open) reads 1
