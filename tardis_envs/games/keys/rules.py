"""Keys to the TARDIS rules as numba kernels over one flat ``int64`` state.

Turn: draw (automatic; an empty deck is refilled by shuffling the
discards), play exactly one card (``PHASE_PLAY``), then move or stay
(``PHASE_MOVE``), then possibly toggle a door with a Key Tile bonus
(``PHASE_BONUS``). A phase whose only legal action is "stay"/"decline" is
skipped.

The state words, the action numbers and the observation segments are described in
:mod:`.layout`, the board helpers are in :mod:`.board`, the observation in :mod:`.observe`.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit, njit_alloc, stack_empty
from ...core.rewards import clear_rewards, reward_win
from ...core.rng import rng_shuffle
from ...core.state import CURRENT_PLAYER, MAX_PLAYERS, RNG_KEY, RUNNING, STATUS, TERMINATED, TRUNCATED
from .board import (
    ALL_TILES,
    abs_direction,
    abs_to_rel,
    all_if,
    corner_of,
    deck_card,
    lay_deck,
    on_goal_row,
    pawn_on,
    pawn_tiles,
    rel_to_abs,
    seat_side,
    set_deck_card,
    set_on_tile,
    set_tunnel,
    standable,
    step_target,
    target_seat,
    tile_bit,
    tile_colour,
    tile_kind,
    toggle,
    toggleable_doors,
    tunnel_at,
    tunnel_tiles,
    write_frame_plane,
)
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
    T_TILE_COUNT,
)
from .layout import (
    A_BARRIER,
    A_BONUS,
    A_BONUS_DECLINE,
    A_COOKIE,
    A_CYBERMAN,
    A_DISCARD,
    A_ENTER,
    A_KEY,
    A_LEAVE,
    A_MOVE,
    A_PANDORICA,
    A_SONIC,
    A_STAY,
    A_TUNNEL,
    A_UNBAR,
    BONUS_USED,
    CARD_BARRIER,
    CARD_COOKIE,
    CARD_CYBERMAN,
    CARD_KEY,
    CARD_PANDORICA,
    CARD_SONIC,
    CARD_TUNNEL,
    COLOUR_TILES,
    DECK_SIZE,
    DISCARD,
    DOORS_OPEN,
    EXTRA_TURN_PENDING,
    HAND,
    JAM_COOKIES,
    KIND_CONTROL,
    KIND_DALEK,
    KIND_EXTRA_TURN,
    KIND_KEY_TILE,
    KIND_TELEPORT,
    KIND_TILES,
    KINDS_REVEALED,
    LAST_ACTION,
    LAST_SEAT,
    LAST_TELEPORTED,
    LAST_TILE,
    LAST_TILE2,
    MAX_CARDS,
    NUM_CORNERS,
    NUM_KINDS,
    PANDORICA,
    PAWN,
    PHASE,
    PHASE_BONUS,
    PHASE_MOVE,
    PHASE_OVER,
    PHASE_PLAY,
    TIME_BARRIERS,
    TUNNELS,
    TURN,
    WINNER,
)


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
