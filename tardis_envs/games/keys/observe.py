"""Keys to the TARDIS observation kernel: the board's planes and the card counts in the
observer's frame (the segments in :mod:`.layout`); other seats' hands only as sizes, a tile's
kind only once it is public."""

from __future__ import annotations

from ...core.jit import njit
from ...core.observation import put
from ...core.state import CURRENT_PLAYER, RUNNING, STATUS
from .board import abs_direction, abs_to_rel, neighbour, seat_side, target_seat, tunnel_at, write_frame_plane
from .content import GRID, NUM_CARD_TYPES, NUM_COLOURS, NUM_TILES, T_CARD_COUNT, T_PANDORICA_TURNS
from .layout import (
    BONUS_USED,
    COLOUR_TILES,
    DECK_SIZE,
    DISCARD,
    DOORS_OPEN,
    EXTRA_TURN_PENDING,
    HAND,
    JAM_COOKIES,
    KIND_TILES,
    KINDS_REVEALED,
    NUM_CORNERS,
    NUM_KINDS,
    P_BARRIER,
    P_BONUS_USED,
    P_COLOUR,
    P_COOKIE,
    P_KIND,
    P_KIND_UNKNOWN,
    P_OPEN,
    P_OPPONENT_PAWN,
    P_OWN_PAWN,
    P_TUNNEL,
    PANDORICA,
    PAWN,
    PHASE,
    S_DECK,
    S_DISCARD,
    S_EXTRA_TURN,
    S_HAND,
    S_MY_TURN,
    S_OFF_GRID,
    S_OPPONENT_HAND,
    S_PANDORICA,
    S_PHASE,
    S_SEAT_PRESENT,
    TIME_BARRIERS,
)


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
