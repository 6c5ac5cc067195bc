"""Keys to the TARDIS observation kernel: the board's planes and the card counts in the
observer's frame (the segments in :mod:`.layout`); other seats' hands only as sizes, a tile's
kind only once it is public. With the option ``route_lengths`` four entries follow: the
heuristic's route lengths (:func:`.heuristic.route_length`), planned from the same public
information and the observer's own hand."""

from __future__ import annotations

import numpy as np

from ...core.jit import njit, stack_empty
from ...core.observation import put
from ...core.state import CURRENT_PLAYER, RUNNING, STATUS
from . import layout
from .board import abs_direction, abs_to_rel, neighbour, seat_side, target_seat, tunnel_at, write_frame_plane
from .content import GRID, NUM_CARD_TYPES, NUM_COLOURS, NUM_TILES, T_CARD_COUNT, T_PANDORICA_TURNS, T_ROUTE_LENGTHS
from .heuristic import DEFAULT_WEIGHTS, route_length, write_revealed_kinds


@njit
def observe(state, tables, player, out):
    """Flat observation in ``player``'s frame; see the module docstring of
    ``tardis_envs.keys_to_the_tardis_v0`` for every segment."""
    out[layout.P_OWN_PAWN * NUM_TILES :] = 0.0  # the planes before are written whole below
    side = seat_side(tables, player)
    total_cards = 0
    for c in range(NUM_CARD_TYPES):
        total_cards += tables[T_CARD_COUNT + c]
    # the board's planes, each written whole from its set of tiles
    revealed = state[layout.KINDS_REVEALED]
    write_frame_plane(out, layout.P_OPEN * NUM_TILES, state[layout.DOORS_OPEN], side)
    for c in range(NUM_COLOURS):
        write_frame_plane(out, (layout.P_COLOUR + c) * NUM_TILES, state[layout.COLOUR_TILES + c], side)
    for k in range(layout.NUM_KINDS):
        write_frame_plane(out, (layout.P_KIND + k) * NUM_TILES, state[layout.KIND_TILES + k] & revealed, side)
    write_frame_plane(out, layout.P_KIND_UNKNOWN * NUM_TILES, ~revealed, side)
    write_frame_plane(out, layout.P_BARRIER * NUM_TILES, state[layout.TIME_BARRIERS], side)
    write_frame_plane(out, layout.P_COOKIE * NUM_TILES, state[layout.JAM_COOKIES], side)
    write_frame_plane(out, layout.P_BONUS_USED * NUM_TILES, state[layout.BONUS_USED + player], side)
    # tunnels: visit the few corners that hold one rather than 4 diagonals per tile
    for corner in range(layout.NUM_CORNERS):
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
                    out[(layout.P_TUNNEL + d) * NUM_TILES + abs_to_rel(side, here)] = 1.0
    if state[layout.PAWN + player] >= 0:
        out[layout.P_OWN_PAWN * NUM_TILES + abs_to_rel(side, state[layout.PAWN + player])] = 1.0
    else:
        out[layout.S_OFF_GRID] = 1.0
    put(out, layout.S_PANDORICA, state[layout.PANDORICA + player], tables[T_PANDORICA_TURNS])
    for j in range(3):
        other = target_seat(tables, player, j)
        if other < 0:
            continue
        out[layout.S_SEAT_PRESENT + j] = 1.0
        if state[layout.PAWN + other] >= 0:
            out[(layout.P_OPPONENT_PAWN + j) * NUM_TILES + abs_to_rel(side, state[layout.PAWN + other])] = 1.0
        else:
            out[layout.S_OFF_GRID + 1 + j] = 1.0
        put(out, layout.S_PANDORICA + 1 + j, state[layout.PANDORICA + other], tables[T_PANDORICA_TURNS])
        size = 0
        for c in range(NUM_CARD_TYPES):
            size += state[layout.HAND + NUM_CARD_TYPES * other + c]
        put(out, layout.S_OPPONENT_HAND + j, size, 4)
    for c in range(NUM_CARD_TYPES):
        put(out, layout.S_HAND + c, state[layout.HAND + NUM_CARD_TYPES * player + c], 4)
        put(out, layout.S_DISCARD + c, state[layout.DISCARD + c], tables[T_CARD_COUNT + c])
    put(out, layout.S_DECK, state[layout.DECK_SIZE], total_cards)
    mine = state[STATUS] == RUNNING and state[CURRENT_PLAYER] == player
    if mine:
        out[layout.S_MY_TURN] = 1.0
        out[layout.S_PHASE + state[layout.PHASE]] = 1.0
        out[layout.S_EXTRA_TURN] = state[layout.EXTRA_TURN_PENDING]
    if tables[T_ROUTE_LENGTHS] == 1:
        write_route_lengths(state, tables, player, out)


@njit
def write_route_lengths(state, tables, player, out):
    """The option ``route_lengths``: the observer's route to its goal row, its own hand
    counted, then each next seat's from the public board alone (the heuristic plans an
    opponent's route that way), in tenths of the heuristic's steps out of 300. A route of
    30 steps or more, or none open, reads 1; an absent seat 0."""
    known = stack_empty(NUM_TILES, np.int64)
    write_revealed_kinds(state, known)
    for j in range(layout.NUM_ROUTE_ENTRIES):
        seat = player if j == 0 else target_seat(tables, player, j - 1)
        if seat < 0:
            continue
        length = route_length(state, tables, seat, known, j == 0, DEFAULT_WEIGHTS)
        tenths = min(int(length * 10.0 + 0.5), layout.ROUTE_TENTHS)  # a closed route (INF) too
        put(out, layout.S_ROUTE + j, tenths, layout.ROUTE_TENTHS)
