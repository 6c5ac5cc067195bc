"""Keys to the TARDIS rules as numba kernels over one flat ``int64`` state.

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
(:func:`on_tile`, :func:`tile_colour`, :func:`tile_kind`): 14 words where one
word per tile and fact took 294, so a step reads two cache lines of board
instead of 37, and the legal mask and the observation work on whole sets with
a few word operations. The Time Tunnels are two sets of grid corners and the
draw pile 16 cards a word: the state is 107 words (856 bytes), where it was
541, and 8,192 games' rows fit in a 32 MB L3 cache. A state saved under the
earlier layout still loads (``KeysToTheTardis._from_earlier_layout``).

Turn: draw (automatic; an empty deck is refilled by shuffling the
discards), play exactly one card (``PHASE_PLAY``), then move or stay
(``PHASE_MOVE``), then possibly toggle a door with a Key Tile bonus
(``PHASE_BONUS``). A phase whose only legal action is "stay"/"decline" is
skipped.

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

from ...core.jit import njit, njit_alloc, stack_empty
from ...core.observation import put
from ...core.rewards import clear_rewards, reward_win
from ...core.rng import rng_shuffle
from ...core.state import CURRENT_PLAYER, HEADER_SIZE, MAX_PLAYERS, RNG_KEY, RUNNING, STATUS, TERMINATED, TRUNCATED
from .content import (
    CENTRE,
    GRID,
    NUM_CARD_TYPES,
    NUM_COLOURS,
    NUM_TILES,
    T_CARD_COUNT,
    T_HAND_SIZE,
    T_MAX_TURNS,
    T_NUM_PLAYERS,
    T_PANDORICA_TURNS,
    T_REVEAL_TILES,
    T_SEAT_SIDE,
    T_TILE_COUNT,
)

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
OBS_SIZE = S_MY_TURN + 1


# --- geometry ---------------------------------------------------------------
def _frame_tables():
    """The four frames as lookup tables (the kernels read them per tile, so a table
    beats the arithmetic and its branch on the side): ``REL_TO_ABS[side, t]``,
    ``ABS_TO_REL[side, t]`` and ``ABS_DIRECTION[side, d] = (d_row, d_col)``.

    Frame tile (r, c) is board tile (r, c) for the south, (6 - c, r) for the west,
    (6 - r, 6 - c) for the north and (c, 6 - r) for the east; a frame direction
    (dr, dc) turns with the frame: (-dc, dr) west, (-dr, -dc) north, (dc, -dr) east.
    """
    rel_to_abs = np.zeros((4, NUM_TILES), dtype=np.int64)
    abs_to_rel = np.zeros((4, NUM_TILES), dtype=np.int64)
    direction = np.zeros((4, 8, 2), dtype=np.int64)
    for side in range(4):
        for tile in range(NUM_TILES):
            r, c = divmod(tile, GRID)
            row, col = ((r, c), (GRID - 1 - c, r), (GRID - 1 - r, GRID - 1 - c), (c, GRID - 1 - r))[side]
            rel_to_abs[side, tile] = row * GRID + col
            abs_to_rel[side, row * GRID + col] = tile
        for d in range(8):
            dr, dc = DIRECTIONS[d]
            direction[side, d] = ((dr, dc), (-dc, dr), (-dr, -dc), (dc, -dr))[side]
    return rel_to_abs, abs_to_rel, direction


REL_TO_ABS, ABS_TO_REL, ABS_DIRECTION = _frame_tables()


@njit
def rel_to_abs(side, tile):
    """Absolute tile of ``tile`` given in the frame of board side ``side``."""
    return REL_TO_ABS[side, tile]


@njit
def abs_to_rel(side, tile):
    return ABS_TO_REL[side, tile]


@njit
def abs_direction(side, d):
    """(d_row, d_col) on the board of frame direction ``d`` of side ``side``."""
    return ABS_DIRECTION[side, d, 0], ABS_DIRECTION[side, d, 1]


@njit
def neighbour(tile, dr, dc):
    r = tile // GRID + dr
    c = tile % GRID + dc
    if r < 0 or r >= GRID or c < 0 or c >= GRID:
        return -1
    return r * GRID + c


@njit
def corner_of(a, b):
    """(corner, orientation 1 or 2) of the diagonal between tiles a and b."""
    ra, ca, rb, cb = a // GRID, a % GRID, b // GRID, b % GRID
    corner = min(ra, rb) * (GRID - 1) + min(ca, cb)
    if (rb - ra) == (cb - ca):
        return corner, 1
    return corner, 2


@njit
def seat_side(tables, seat):
    return tables[T_SEAT_SIDE + seat]


# --- the board's facts: sets of tiles, one word each ---------------------------------
ALL_TILES = (1 << NUM_TILES) - 1


@njit
def tile_bit(tile):
    """The word with only tile ``tile``'s bit set."""
    return np.int64(1) << np.int64(tile)


@njit
def on_tile(state, facts, tile):
    """1 if tile ``tile`` is in the set ``state[facts]`` (``DOORS_OPEN``, ``KIND_TILES + k``, ...), else 0."""
    return (state[facts] >> np.int64(tile)) & 1


@njit
def set_on_tile(state, facts, tile, value):
    """Put tile ``tile`` into the set ``state[facts]`` (``value`` 1) or take it out (0)."""
    bit = tile_bit(tile)
    state[facts] = (state[facts] & ~bit) | (np.int64(value != 0) * bit)


@njit
def tile_colour(state, tile):
    """The door colour of ``tile`` (0..3), -1 for the Control Tile."""
    colour = -1
    for c in range(NUM_COLOURS):
        colour += (c + 1) * on_tile(state, COLOUR_TILES + c, tile)
    return colour


@njit
def tile_kind(state, tile):
    """The kind of ``tile`` (``KIND_*``)."""
    kind = 0
    for k in range(1, NUM_KINDS):
        kind += k * on_tile(state, KIND_TILES + k, tile)
    return kind


@njit
def set_tile_kind(state, tile, kind):
    for k in range(NUM_KINDS):
        set_on_tile(state, KIND_TILES + k, tile, k == kind)


@njit
def set_tile_colour(state, tile, colour):
    """``colour`` -1: no colour (the Control Tile)."""
    for c in range(NUM_COLOURS):
        set_on_tile(state, COLOUR_TILES + c, tile, c == colour)


@njit
def tunnel_at(state, corner):
    """The orientation of the Time Tunnel at grid corner ``corner``: 0 none, 1 or 2."""
    k = np.int64(corner)
    return ((state[TUNNELS] >> k) & 1) + 2 * ((state[TUNNELS + 1] >> k) & 1)


@njit
def set_tunnel(state, corner, orientation):
    """A Time Tunnel of ``orientation`` (1 or 2) at grid corner ``corner``; 0 none."""
    bit = np.int64(1) << np.int64(corner)
    state[TUNNELS] &= ~bit
    state[TUNNELS + 1] &= ~bit
    if orientation > 0:
        state[TUNNELS + orientation - 1] |= bit


def tunnel_orientations(states: np.ndarray) -> np.ndarray:
    """``[..., NUM_CORNERS]`` the orientation at every grid corner (Python side)."""
    corners = np.arange(NUM_CORNERS)
    return ((states[..., TUNNELS, None] >> corners) & 1) + 2 * ((states[..., TUNNELS + 1, None] >> corners) & 1)


def tile_facts(states: np.ndarray, facts: int | np.ndarray) -> np.ndarray:
    """``[..., NUM_TILES]`` array of 0/1: tile ``t`` in the set ``states[..., facts]``
    (Python side: ``describe``, position building, tests; ``states`` one state or a batch;
    ``facts`` one index, or an array of them for a leading axis of sets)."""
    return (states[..., facts, None] >> np.arange(NUM_TILES)) & 1


def tile_colours(states: np.ndarray) -> np.ndarray:
    """``[..., NUM_TILES]`` door colours, -1 on the Control Tile (:func:`tile_colour` for arrays)."""
    colours = np.full(states.shape[:-1] + (NUM_TILES,), -1, dtype=np.int64)
    for c in range(NUM_COLOURS):
        colours += (c + 1) * tile_facts(states, COLOUR_TILES + c)
    return colours


@njit
def all_if(condition):
    """Every bit set when ``condition`` holds, none otherwise: ``set & all_if(c)``
    keeps a set of tiles or empties it without a branch."""
    return -np.int64(condition)


@njit
def write_frame_plane(out, start, tiles, side):
    """``out[start + t]`` = 1 where frame tile ``t`` of board side ``side`` is in the
    set ``tiles``, else 0: a plane of the observation or a block of actions, whole."""
    for t in range(NUM_TILES):
        out[start + t] = (tiles >> REL_TO_ABS[side, t]) & 1


def tile_kinds(states: np.ndarray) -> np.ndarray:
    """``[..., NUM_TILES]`` tile kinds (:func:`tile_kind` for arrays)."""
    kinds = np.zeros(states.shape[:-1] + (NUM_TILES,), dtype=np.int64)
    for k in range(1, NUM_KINDS):
        kinds += k * tile_facts(states, KIND_TILES + k)
    return kinds


@njit
def pawn_on(state, tables, tile):
    for s in range(tables[T_NUM_PLAYERS]):
        if state[PAWN + s] == tile:
            return s
    return -1


@njit
def pawn_tiles(state, tables):
    """The tiles under a pawn, as bits of one word (bit ``tile``)."""
    occupied = np.int64(0)
    for s in range(tables[T_NUM_PLAYERS]):
        if state[PAWN + s] >= 0:
            occupied |= np.int64(1) << state[PAWN + s]
    return occupied


@njit
def standable(state, tables, tile):
    """A pawn may stop here: an open door, not an uncookied Dalek door, no
    barrier, no other pawn, never the Control Tile (reached only by teleport)."""
    if tile < 0 or tile == CENTRE:
        return False
    if on_tile(state, DOORS_OPEN, tile) == 0 or on_tile(state, TIME_BARRIERS, tile) == 1:
        return False
    if on_tile(state, KIND_TILES + KIND_DALEK, tile) == 1 and on_tile(state, JAM_COOKIES, tile) == 0:
        return False
    return pawn_on(state, tables, tile) < 0


@njit
def step_target(state, tables, tile, dr, dc):
    """Tile reached from ``tile`` by one step (dr, dc), if a pawn may go there.

    Orthogonal steps need only a standable target; diagonal steps need a Time
    Tunnel across that corner with both ends open.
    """
    target = neighbour(tile, dr, dc)
    if target < 0:
        return -1
    if dr != 0 and dc != 0:
        corner, orientation = corner_of(tile, target)
        if tunnel_at(state, corner) != orientation:
            return -1
        if on_tile(state, DOORS_OPEN, tile) == 0 or on_tile(state, DOORS_OPEN, target) == 0:
            return -1
    if not standable(state, tables, target):
        return -1
    return target


@njit
def can_toggle(state, tables, tile):
    """A door may be opened or closed: not the Control Tile, no barrier;
    closing also needs no pawn on it and no Jam Cookie."""
    return ((toggleable_doors(state, pawn_tiles(state, tables)) >> np.int64(tile)) & 1) == 1


@njit
def toggleable_doors(state, occupied):
    """The tiles whose door may be toggled (:func:`can_toggle`) as one set, with the
    pawns' tiles given as a set (:func:`pawn_tiles`): not the Control Tile, no
    barrier, and closed, or open with no Jam Cookie and no pawn on it."""
    closable = ~state[JAM_COOKIES] & ~occupied
    return ~tile_bit(CENTRE) & ~state[TIME_BARRIERS] & (~state[DOORS_OPEN] | closable) & ALL_TILES


@njit
def toggle(state, tile):
    """Open a closed door (revealing its kind) or close an open one."""
    bit = tile_bit(tile)
    if state[DOORS_OPEN] & bit:
        state[DOORS_OPEN] &= ~bit
    else:
        state[DOORS_OPEN] |= bit
        state[KINDS_REVEALED] |= bit


@njit
def on_goal_row(tables, seat, tile):
    return tile >= 0 and tile != CENTRE and abs_to_rel(seat_side(tables, seat), tile) // GRID == GRID - 1


@njit
def tunnel_tiles(side, k, o):
    """Absolute end tiles of frame corner ``k`` with orientation ``o`` (0 or 1)."""
    r = k // (GRID - 1)
    c = k % (GRID - 1)
    if o == 0:
        return rel_to_abs(side, r * GRID + c), rel_to_abs(side, (r + 1) * GRID + c + 1)
    return rel_to_abs(side, r * GRID + c + 1), rel_to_abs(side, (r + 1) * GRID + c)


@njit
def target_seat(tables, mover, j):
    """Seat of opponent ``j`` (0-based, in turn order after the mover), or -1."""
    n = tables[T_NUM_PLAYERS]
    if j + 1 >= n:
        return -1
    return (mover + j + 1) % n


# --- the draw pile: 16 cards a word ---------------------------------------------------
@njit
def deck_card(state, i):
    """Card ``i`` of the draw pile (0 the bottom)."""
    shift = np.int64(CARD_BITS * (i % CARDS_PER_WORD))
    return (state[DECK + i // CARDS_PER_WORD] >> shift) & CARD_MASK


@njit
def set_deck_card(state, i, card):
    """Card ``i`` of the draw pile becomes ``card`` (0 also leaves a slot past the pile empty)."""
    shift = np.int64(CARD_BITS * (i % CARDS_PER_WORD))
    word = DECK + i // CARDS_PER_WORD
    state[word] = (state[word] & ~(np.int64(CARD_MASK) << shift)) | (np.int64(card) << shift)


@njit
def lay_deck(state, cards, size):
    """The draw pile becomes ``cards[:size]`` (bottom first), the slots past it empty (0)."""
    for w in range(DECK_WORDS):
        state[DECK + w] = 0
    for i in range(size):
        state[DECK + i // CARDS_PER_WORD] |= np.int64(cards[i]) << np.int64(CARD_BITS * (i % CARDS_PER_WORD))
    state[DECK_SIZE] = size


def deck_cards(states: np.ndarray) -> np.ndarray:
    """``[..., MAX_CARDS]`` every slot of the draw pile (Python side; the pile is the first
    ``DECK_SIZE``, the rest 0)."""
    words = states[..., DECK : DECK + DECK_WORDS, None]
    cards = (words >> (CARD_BITS * np.arange(CARDS_PER_WORD))) & CARD_MASK
    return cards.reshape(states.shape[:-1] + (MAX_CARDS,))


def set_deck_cards(state: np.ndarray, cards) -> None:
    """The draw pile of ``state`` becomes ``cards`` (bottom first; Python side of :func:`lay_deck`)."""
    cards = np.asarray(cards, dtype=np.int64).reshape(-1)
    lay_deck(state, cards, cards.size)


# --- turn flow ---------------------------------------------------------------
@njit
def draw(state, tables, seat):
    if state[DECK_SIZE] == 0:  # shuffle the discards into a new deck
        pile = stack_empty(MAX_CARDS, np.int64)
        size = 0
        for c in range(NUM_CARD_TYPES):
            for _ in range(state[DISCARD + c]):
                pile[size] = c
                size += 1
            state[DISCARD + c] = 0
        rng_shuffle(state, RNG_KEY, pile, size)
        lay_deck(state, pile, size)
    top = state[DECK_SIZE] - 1
    card = deck_card(state, top)
    set_deck_card(state, top, 0)
    state[DECK_SIZE] = top
    state[HAND + NUM_CARD_TYPES * seat + card] += 1


@njit
def win(state, tables, seat):
    state[STATUS] = TERMINATED
    state[PHASE] = PHASE_OVER
    state[WINNER] = seat
    reward_win(state, seat, tables[T_NUM_PLAYERS])


@njit
def start_turn(state, tables):
    draw(state, tables, state[CURRENT_PLAYER])
    state[PHASE] = PHASE_PLAY


@njit
def end_turn(state, tables):
    seat = state[CURRENT_PLAYER]
    if state[PANDORICA + seat] > 0:
        state[PANDORICA + seat] -= 1
        if state[PANDORICA + seat] == 0:
            state[DISCARD + CARD_PANDORICA] += 1
    state[TURN] += 1
    if state[TURN] >= tables[T_MAX_TURNS]:
        state[STATUS] = TRUNCATED
        state[PHASE] = PHASE_OVER
        return
    if state[EXTRA_TURN_PENDING] == 1:
        state[EXTRA_TURN_PENDING] = 0
    else:
        state[CURRENT_PLAYER] = (seat + 1) % tables[T_NUM_PLAYERS]
    start_turn(state, tables)


@njit
def any_move(state, tables):
    """Whether the mover has a pawn move other than staying put (no mask written:
    ``state[:0]`` is a view of nothing, never written with ``stop_at_first``)."""
    return pawn_moves(state, tables, state[:0], True)


@njit
def bonus_doors(state, tables):
    """The doors a Key Tile bonus may toggle: any that may be toggled but the one
    under the mover's own pawn."""
    doors = toggleable_doors(state, pawn_tiles(state, tables))
    pawn = state[PAWN + state[CURRENT_PLAYER]]
    if pawn >= 0:
        doors &= ~tile_bit(pawn)
    return doors


@njit
def any_bonus(state, tables):
    return bonus_doors(state, tables) != 0


@njit
def arrive(state, tables, seat, tile, own_step):
    """Put seat's pawn on ``tile``: win on the goal row, teleport, bonuses.

    Returns True if a Key Tile bonus decision follows.
    """
    state[PAWN + seat] = tile
    if on_goal_row(tables, seat, tile):
        win(state, tables, seat)
        return False
    kind = tile_kind(state, tile)
    if kind == KIND_TELEPORT:
        if pawn_on(state, tables, CENTRE) < 0:
            state[PAWN + seat] = CENTRE
            state[LAST_TELEPORTED] = 1
        return False
    if not own_step:
        return False  # forced moves give no Key or Extra Turn bonus
    bit = np.int64(1) << np.int64(tile)
    if (kind == KIND_KEY_TILE or kind == KIND_EXTRA_TURN) and (state[BONUS_USED + seat] & bit) == 0:
        state[BONUS_USED + seat] |= bit
        if kind == KIND_EXTRA_TURN:
            state[EXTRA_TURN_PENDING] = 1
            return False
        return True
    return False


@njit
def after_play(state, tables):
    if state[STATUS] != RUNNING:
        return
    if any_move(state, tables):
        state[PHASE] = PHASE_MOVE
    else:
        end_turn(state, tables)


@njit
def play_card(state, tables, seat, action):
    side = seat_side(tables, seat)
    hand = HAND + NUM_CARD_TYPES * seat
    if action < A_TUNNEL:
        tile = rel_to_abs(side, action % NUM_TILES)
        state[LAST_TILE] = tile
        if action < A_SONIC:
            card = CARD_KEY + tile_colour(state, tile)
            toggle(state, tile)
        elif action < A_UNBAR:
            card = CARD_SONIC
            toggle(state, tile)
        elif action < A_BARRIER:
            card = CARD_SONIC
            set_on_tile(state, TIME_BARRIERS, tile, 0)
            state[DISCARD + CARD_BARRIER] += 1
        elif action < A_COOKIE:
            state[hand + CARD_BARRIER] -= 1
            set_on_tile(state, TIME_BARRIERS, tile, 1)
            return
        else:
            state[hand + CARD_COOKIE] -= 1
            set_on_tile(state, JAM_COOKIES, tile, 1)
            set_on_tile(state, DOORS_OPEN, tile, 1)
            return
        state[hand + card] -= 1
        state[DISCARD + card] += 1
        return
    if action < A_PANDORICA:
        k = (action - A_TUNNEL) // 2
        a, b = tunnel_tiles(side, k, (action - A_TUNNEL) % 2)
        corner, orientation = corner_of(a, b)
        set_tunnel(state, corner, orientation)
        state[hand + CARD_TUNNEL] -= 1
        state[LAST_TILE] = a
        state[LAST_TILE2] = b
        return
    if action < A_CYBERMAN:
        target = target_seat(tables, seat, action - A_PANDORICA)
        state[PANDORICA + target] = tables[T_PANDORICA_TURNS]
        state[hand + CARD_PANDORICA] -= 1
        state[LAST_TILE] = state[PAWN + target]
        return
    if action < A_DISCARD:
        j = (action - A_CYBERMAN) // 8
        d = (action - A_CYBERMAN) % 8
        target = target_seat(tables, seat, j)
        dr, dc = abs_direction(side, d)
        start = state[PAWN + target]
        tile = step_target(state, tables, start, dr, dc)
        state[hand + CARD_CYBERMAN] -= 1
        state[DISCARD + CARD_CYBERMAN] += 1
        state[LAST_TILE] = start
        state[LAST_TILE2] = tile
        arrive(state, tables, target, tile, False)
        return
    card = action - A_DISCARD
    state[hand + card] -= 1
    state[DISCARD + card] += 1


@njit
def move_pawn(state, tables, seat, action):
    side = seat_side(tables, seat)
    if action == A_STAY:
        end_turn(state, tables)
        return
    if action == A_LEAVE:
        state[LAST_TILE] = state[PAWN + seat]
        state[PAWN + seat] = -1
        end_turn(state, tables)
        return
    if action < A_ENTER:
        dr, dc = abs_direction(side, action - A_MOVE)
        state[LAST_TILE] = state[PAWN + seat]
        tile = step_target(state, tables, state[PAWN + seat], dr, dc)
    else:
        tile = rel_to_abs(side, action - A_ENTER)
    state[LAST_TILE2] = tile
    bonus = arrive(state, tables, seat, tile, True)
    if state[STATUS] != RUNNING:
        return
    if bonus and any_bonus(state, tables):
        state[PHASE] = PHASE_BONUS
        return
    end_turn(state, tables)


# --- the kernel contract ---------------------------------------------------------------
@njit_alloc
def init(state, tables):
    n = tables[T_NUM_PLAYERS]
    state[CURRENT_PLAYER] = 0
    state[STATUS] = RUNNING
    reveal = tables[T_REVEAL_TILES]
    # 48 door tiles, shuffled around the Control Tile
    doors = np.zeros(NUM_TILES - 1, dtype=np.int64)  # colour * NUM_KINDS + kind
    count = 0
    for colour in range(NUM_COLOURS):
        for kind in range(NUM_KINDS - 1):
            for _ in range(tables[T_TILE_COUNT + kind]):
                doors[count] = colour * NUM_KINDS + kind
                count += 1
    rng_shuffle(state, RNG_KEY, doors, count)
    centre = tile_bit(CENTRE)
    state[DOORS_OPEN] = centre
    state[KINDS_REVEALED] = ALL_TILES if reveal else centre
    state[TIME_BARRIERS] = 0
    state[JAM_COOKIES] = 0
    for c in range(NUM_COLOURS):
        state[COLOUR_TILES + c] = 0
    for kind in range(NUM_KINDS):
        state[KIND_TILES + kind] = 0
    state[KIND_TILES + KIND_CONTROL] = centre
    k = 0
    for t in range(NUM_TILES):
        if t == CENTRE:
            continue
        state[COLOUR_TILES + doors[k] // NUM_KINDS] |= tile_bit(t)
        state[KIND_TILES + doors[k] % NUM_KINDS] |= tile_bit(t)
        k += 1
    state[TUNNELS] = 0
    state[TUNNELS + 1] = 0
    for s in range(MAX_PLAYERS):
        state[PAWN + s] = -1
        state[PANDORICA + s] = 0
        state[BONUS_USED + s] = 0
        for c in range(NUM_CARD_TYPES):
            state[HAND + NUM_CARD_TYPES * s + c] = 0
    pile = np.zeros(MAX_CARDS, dtype=np.int64)
    size = 0
    for c in range(NUM_CARD_TYPES):
        for _ in range(tables[T_CARD_COUNT + c]):
            pile[size] = c
            size += 1
    rng_shuffle(state, RNG_KEY, pile, size)
    lay_deck(state, pile, size)
    for c in range(NUM_CARD_TYPES):
        state[DISCARD + c] = 0
    for _ in range(tables[T_HAND_SIZE]):
        for s in range(n):
            draw(state, tables, s)
    state[TURN] = 0
    state[EXTRA_TURN_PENDING] = 0
    state[WINNER] = -1
    clear_last(state, -1, -1)
    start_turn(state, tables)


@njit
def clear_last(state, seat, action):
    state[LAST_SEAT] = seat
    state[LAST_ACTION] = action
    state[LAST_TILE] = -1
    state[LAST_TILE2] = -1
    state[LAST_TELEPORTED] = 0


@njit
def step(state, tables, action):
    clear_rewards(state)
    seat = state[CURRENT_PLAYER]
    clear_last(state, seat, action)
    phase = state[PHASE]
    if phase == PHASE_PLAY:
        play_card(state, tables, seat, action)
        after_play(state, tables)
    elif phase == PHASE_MOVE:
        move_pawn(state, tables, seat, action)
    else:  # PHASE_BONUS
        if action != A_BONUS_DECLINE:
            tile = rel_to_abs(seat_side(tables, seat), action - A_BONUS)
            state[LAST_TILE] = tile
            toggle(state, tile)
        end_turn(state, tables)


@njit
def play_mask(state, tables, out):
    seat = state[CURRENT_PLAYER]
    side = seat_side(tables, seat)
    hand = HAND + NUM_CARD_TYPES * seat
    sonic = state[hand + CARD_SONIC] > 0
    barrier = state[hand + CARD_BARRIER] > 0
    cookie = state[hand + CARD_COOKIE] > 0
    # The five tile actions of every tile, worked out for all tiles at once as sets of
    # tiles (words of bits), then written in the mover's frame
    barriers = state[TIME_BARRIERS]
    occupied = pawn_tiles(state, tables)
    toggleable = toggleable_doors(state, occupied)
    keys = np.int64(0)  # the doors whose Key is in the hand
    for c in range(NUM_COLOURS):
        keys |= state[COLOUR_TILES + c] & all_if(state[hand + CARD_KEY + c] > 0)
    dalek_doors = state[KIND_TILES + KIND_DALEK] & state[KINDS_REVEALED]
    write_frame_plane(out, A_KEY, toggleable & keys, side)
    write_frame_plane(out, A_SONIC, toggleable & all_if(sonic), side)
    write_frame_plane(out, A_UNBAR, barriers & all_if(sonic), side)
    write_frame_plane(out, A_BARRIER, ~tile_bit(CENTRE) & ~barriers & ~occupied & all_if(barrier), side)
    write_frame_plane(out, A_COOKIE, dalek_doors & ~state[JAM_COOKIES] & ~barriers & all_if(cookie), side)
    if state[hand + CARD_TUNNEL] > 0:
        for k in range(NUM_CORNERS):
            for o in range(2):
                a, b = tunnel_tiles(side, k, o)
                if a == CENTRE or b == CENTRE:
                    continue
                corner, _ = corner_of(a, b)
                if tunnel_at(state, corner) == 0:
                    out[A_TUNNEL + 2 * k + o] = 1
    for j in range(3):
        target = target_seat(tables, seat, j)
        if target < 0 or state[PAWN + target] < 0 or state[PANDORICA + target] > 0:
            continue
        if state[hand + CARD_PANDORICA] > 0:
            out[A_PANDORICA + j] = 1
        if state[hand + CARD_CYBERMAN] > 0:
            for d in range(8):
                dr, dc = abs_direction(side, d)
                if step_target(state, tables, state[PAWN + target], dr, dc) >= 0:
                    out[A_CYBERMAN + 8 * j + d] = 1
    for c in range(NUM_CARD_TYPES):
        if state[hand + c] > 0:
            out[A_DISCARD + c] = 1


@njit
def pawn_moves(state, tables, out, stop_at_first):
    """Marks in ``out`` the mover's pawn moves other than staying put (enter, step,
    leave); returns whether there is one. With ``stop_at_first`` it writes nothing
    and returns at the first."""
    seat = state[CURRENT_PLAYER]
    if state[PANDORICA + seat] > 0:
        return False
    side = seat_side(tables, seat)
    pawn = state[PAWN + seat]
    found = False
    if pawn < 0:
        for c in range(GRID):
            if standable(state, tables, rel_to_abs(side, c)):
                if stop_at_first:
                    return True
                out[A_ENTER + c] = 1
                found = True
        return found
    for d in range(8):
        dr, dc = abs_direction(side, d)
        if step_target(state, tables, pawn, dr, dc) >= 0:
            if stop_at_first:
                return True
            out[A_MOVE + d] = 1
            found = True
    if pawn != CENTRE and abs_to_rel(side, pawn) // GRID == 0:
        if not stop_at_first:
            out[A_LEAVE] = 1
        found = True
    return found


@njit
def move_mask(state, tables, out):
    out[A_STAY] = 1
    pawn_moves(state, tables, out, False)


@njit
def legal_mask(state, tables, out):
    out[:] = 0
    if state[STATUS] != RUNNING:
        return
    phase = state[PHASE]
    if phase == PHASE_PLAY:
        play_mask(state, tables, out)
    elif phase == PHASE_MOVE:
        move_mask(state, tables, out)
    else:
        write_frame_plane(out, A_BONUS, bonus_doors(state, tables), seat_side(tables, state[CURRENT_PLAYER]))
        out[A_BONUS_DECLINE] = 1


@njit
def step_and_mask(state, tables, action, mask):
    """``step``, then ``legal_mask`` into ``mask`` (the batched API's kernel)."""
    step(state, tables, action)
    legal_mask(state, tables, mask)


@njit
def observe(state, tables, player, out):
    """Flat observation in ``player``'s frame; see the module docstring of
    ``tardis_envs.keys_to_the_tardis_v0`` for every segment."""
    out[P_OWN_PAWN * NUM_TILES :] = 0.0  # the planes before are written whole below
    side = seat_side(tables, player)
    total_cards = 0
    for c in range(NUM_CARD_TYPES):
        total_cards += tables[T_CARD_COUNT + c]
    # the board's planes, each written whole from its set of tiles
    revealed = state[KINDS_REVEALED]
    write_frame_plane(out, P_OPEN * NUM_TILES, state[DOORS_OPEN], side)
    for c in range(NUM_COLOURS):
        write_frame_plane(out, (P_COLOUR + c) * NUM_TILES, state[COLOUR_TILES + c], side)
    for k in range(NUM_KINDS):
        write_frame_plane(out, (P_KIND + k) * NUM_TILES, state[KIND_TILES + k] & revealed, side)
    write_frame_plane(out, P_KIND_UNKNOWN * NUM_TILES, ~revealed, side)
    write_frame_plane(out, P_BARRIER * NUM_TILES, state[TIME_BARRIERS], side)
    write_frame_plane(out, P_COOKIE * NUM_TILES, state[JAM_COOKIES], side)
    write_frame_plane(out, P_BONUS_USED * NUM_TILES, state[BONUS_USED + player], side)
    # tunnels: visit the few corners that hold one rather than 4 diagonals per tile
    for corner in range(NUM_CORNERS):
        orientation = tunnel_at(state, corner)
        if orientation == 0:
            continue
        r = corner // (GRID - 1)
        c = corner % (GRID - 1)
        if orientation == 1:
            a = r * GRID + c
            b = (r + 1) * GRID + c + 1
        else:
            a = r * GRID + c + 1
            b = (r + 1) * GRID + c
        for end in range(2):
            here = a if end == 0 else b
            there = b if end == 0 else a
            for d in range(4):
                dr, dc = abs_direction(side, 4 + d)
                if neighbour(here, dr, dc) == there:
                    out[(P_TUNNEL + d) * NUM_TILES + abs_to_rel(side, here)] = 1.0
    if state[PAWN + player] >= 0:
        out[P_OWN_PAWN * NUM_TILES + abs_to_rel(side, state[PAWN + player])] = 1.0
    else:
        out[S_OFF_GRID] = 1.0
    put(out, S_PANDORICA, state[PANDORICA + player], tables[T_PANDORICA_TURNS])
    for j in range(3):
        other = target_seat(tables, player, j)
        if other < 0:
            continue
        out[S_SEAT_PRESENT + j] = 1.0
        if state[PAWN + other] >= 0:
            out[(P_OPPONENT_PAWN + j) * NUM_TILES + abs_to_rel(side, state[PAWN + other])] = 1.0
        else:
            out[S_OFF_GRID + 1 + j] = 1.0
        put(out, S_PANDORICA + 1 + j, state[PANDORICA + other], tables[T_PANDORICA_TURNS])
        size = 0
        for c in range(NUM_CARD_TYPES):
            size += state[HAND + NUM_CARD_TYPES * other + c]
        put(out, S_OPPONENT_HAND + j, size, 4)
    for c in range(NUM_CARD_TYPES):
        put(out, S_HAND + c, state[HAND + NUM_CARD_TYPES * player + c], 4)
        put(out, S_DISCARD + c, state[DISCARD + c], tables[T_CARD_COUNT + c])
    put(out, S_DECK, state[DECK_SIZE], total_cards)
    mine = state[STATUS] == RUNNING and state[CURRENT_PLAYER] == player
    if mine:
        out[S_MY_TURN] = 1.0
        out[S_PHASE + state[PHASE]] = 1.0
        out[S_EXTRA_TURN] = state[EXTRA_TURN_PENDING]
