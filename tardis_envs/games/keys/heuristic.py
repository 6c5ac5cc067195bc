"""Keys to the TARDIS heuristic: plan the cheapest way across, and block the leader.

The agent scores a position by route lengths: for each seat a shortest path
(Dijkstra over the 49 tiles, diagonal edges through Time Tunnels, Teleport
tiles leading to the Control Tile) from its pawn to its goal row, where
entering a tile costs one step plus what it takes to get through: a closed
door costs a card (less when the agent holds a Key of that colour or a
Sonic Screwdriver), a known Dalek door needs a Jam Cookie, a barrier needs a
Sonic Screwdriver, another pawn costs a wait. Routes are planned only from
public information and the agent's own hand: tiles whose kind was hidden
before the decision are treated as unknown even inside the look-ahead.

Score = -(own route) + weight x (shortest opponent route), with the weight
doubled when an opponent is ahead; a Pandorica adds its turns to the trapped
pawn's route. Every legal card play (or bonus toggle) is tried on a copy of
the state with the game's own ``step`` and the best score is played; moves
go to the step that shortens the route most, preferring unused Extra Turn and
Key tiles.

The same route lengths feed a learned value, searched by the ``az`` agents'
``search=turn`` (:func:`choose_learned`): every line of the mover's whole turn
(each card, each move, the Key Tile bonus) is played in ``redeals`` worlds redealt from what the mover may know
(``resample_hidden``), and each line's end is valued by a table of
``LEAF_FEATURES`` weights: the logistic of the table over the seat's route
length, the nearest opponent's, its hand, the Pandorica turns and whether an
extra turn comes (:func:`leaf_features`; the extra turn itself is not searched),
read as its chance of winning (a won game 1, a lost
one 0, one out of turns one half). The action of the highest mean chance is
played. Within a world the rest of the turn is chosen knowing that world's
hidden door kinds, but a door's kind is revealed when it opens, before the mover
steps onto it, so the card decides blind and the move sees what the card
revealed, as in the game; only the Key Tile bonus's door is chosen before its
kind shows, and an extra turn's card (drawn when the turn ends) is known in a
world sooner than in the game. The table is fitted by :mod:`agents.training.leaf_table`.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit, njit_alloc, njit_parallel, njit_parallel_alloc, prange, stack_empty
from ...core.rng import rng_new_key
from ...core.state import CURRENT_PLAYER, HEADER_SIZE, RNG_COUNTER, RNG_KEY, RUNNING, STATUS, TERMINATED, copy_state
from .board import abs_to_rel, corner_of, neighbour, on_tile, seat_side, tile_colour, tile_kind, tunnel_at
from .content import CENTRE, GRID, NUM_CARD_TYPES, NUM_TILES, T_NUM_PLAYERS
from .hidden import resample_hidden
from .layout import (
    A_LEAVE,
    A_MOVE,
    A_STAY,
    BONUS_USED,
    CARD_COOKIE,
    CARD_KEY,
    CARD_SONIC,
    DIRECTIONS,
    DOORS_OPEN,
    HAND,
    JAM_COOKIES,
    KIND_DALEK,
    KIND_EXTRA_TURN,
    KIND_KEY_TILE,
    KIND_TELEPORT,
    KIND_TILES,
    KINDS_REVEALED,
    NUM_ACTIONS,
    PANDORICA,
    PAWN,
    PHASE,
    PHASE_MOVE,
    TIME_BARRIERS,
    TURN,
    WINNER,
)
from .rules import legal_mask, step

INF = 1e9
# Weights (an argument of the kernels): index -> meaning.
W_DOOR_IN_HAND = 0  # extra cost of a closed door the agent can open from its hand
W_DOOR = 1  # ... of a closed door it cannot open yet
W_UNKNOWN = 2  # extra risk of a door whose kind is hidden (a Dalek door?)
W_DALEK = 3  # a known Dalek door without a cookie in hand
W_BARRIER = 4  # a barrier without a Sonic Screwdriver in hand
W_PAWN = 5  # a tile another pawn stands on
W_BLOCK = 6  # weight of the nearest opponent's route in the score
W_BONUS_TILE = 7  # value of stepping on an unused Extra Turn / Key tile
DEFAULT_WEIGHTS = np.array([0.6, 1.6, 0.4, 8.0, 4.0, 1.5, 0.45, 0.6])


@njit
def enter_cost(state, tables, seat, tile, known, own, weights):
    """Cost of stepping onto ``tile`` for ``seat``; ``own``: use the seat's hand."""
    if tile == CENTRE:
        return INF
    hand = HAND + NUM_CARD_TYPES * seat
    sonic = own and state[hand + CARD_SONIC] > 0
    cost = 1.0
    for s in range(tables[T_NUM_PLAYERS]):
        if s != seat and state[PAWN + s] == tile:
            cost += weights[W_PAWN]
    if on_tile(state, TIME_BARRIERS, tile) == 1:
        cost += 1.0 if sonic else weights[W_BARRIER]
    if known[tile] == 1 and on_tile(state, KIND_TILES + KIND_DALEK, tile) == 1 and on_tile(state, JAM_COOKIES, tile) == 0:
        cookie = own and state[hand + CARD_COOKIE] > 0
        return cost + (1.5 if cookie else weights[W_DALEK])
    if on_tile(state, DOORS_OPEN, tile) == 0:
        key = own and state[hand + CARD_KEY + tile_colour(state, tile)] > 0
        cost += weights[W_DOOR_IN_HAND] if (key or sonic) else weights[W_DOOR]
        if known[tile] == 0:
            cost += weights[W_UNKNOWN]
    elif known[tile] == 0:
        cost += weights[W_UNKNOWN]  # opened inside the look-ahead: kind not yet seen
    return cost


@njit
def route_length(state, tables, seat, known, own, weights):
    """Shortest route cost from ``seat``'s pawn to its goal row (INF if none)."""
    side = seat_side(tables, seat)
    dist = stack_empty(NUM_TILES, np.float64)  # scratch in the frame: the observation calls it too
    done = stack_empty(NUM_TILES, np.int8)
    for t in range(NUM_TILES):
        dist[t] = INF
        done[t] = 0
    pawn = state[PAWN + seat]
    if pawn >= 0:
        dist[pawn] = 0.0
    else:
        for t in range(NUM_TILES):
            if abs_to_rel(side, t) // GRID == 0:
                dist[t] = enter_cost(state, tables, seat, t, known, own, weights)
    best = INF
    for _ in range(NUM_TILES):
        u = -1
        du = INF
        for t in range(NUM_TILES):
            if done[t] == 0 and dist[t] < du:
                du = dist[t]
                u = t
        if u < 0:
            break
        done[u] = 1
        if u != CENTRE and abs_to_rel(side, u) // GRID == GRID - 1:
            best = du if du < best else best
            continue
        if on_tile(state, KIND_TILES + KIND_TELEPORT, u) == 1 and known[u] == 1 and u != pawn and dist[CENTRE] > du:
            dist[CENTRE] = du  # arriving on a Teleport tile jumps to the Control Tile
        for d in range(8):
            v = neighbour(u, DIRECTIONS[d, 0], DIRECTIONS[d, 1])
            if v < 0 or done[v] == 1:
                continue
            if d >= 4:  # diagonal: only through a Time Tunnel
                corner, orientation = corner_of(u, v)
                if tunnel_at(state, corner) != orientation:
                    continue
            c = du + enter_cost(state, tables, seat, v, known, own, weights)
            if c < dist[v]:
                dist[v] = c
    return best + state[PANDORICA + seat]


@njit
def routes(state, tables, seat, known, weights):
    """(``seat``'s own route length, its hand included; the nearest opponent's, from public
    information), each capped at 30 steps where no route is open."""
    mine = route_length(state, tables, seat, known, True, weights)
    nearest = INF
    for s in range(tables[T_NUM_PLAYERS]):
        if s != seat:
            other = route_length(state, tables, s, known, False, weights)
            nearest = other if other < nearest else nearest
    if nearest >= INF:
        nearest = 30.0
    if mine >= INF:
        mine = 30.0
    return mine, nearest


@njit
def score(state, tables, seat, known, weights):
    if state[STATUS] == TERMINATED:
        return INF if state[WINNER] == seat else -INF
    mine, nearest = routes(state, tables, seat, known, weights)
    block = weights[W_BLOCK] * (2.0 if nearest < mine else 1.0)
    return -mine + block * nearest


@njit
def write_revealed_kinds(state, known):
    """``known[t]``: 1 where tile ``t``'s kind is public in ``state``, else 0."""
    for t in range(NUM_TILES):
        known[t] = on_tile(state, KINDS_REVEALED, t)


@njit_alloc
def revealed_kinds(state):
    """1 for each tile whose kind is public in ``state``, else 0."""
    known = np.empty(NUM_TILES, dtype=np.int64)
    write_revealed_kinds(state, known)
    return known


@njit_parallel_alloc  # with the runtime: each state's revealed kinds are an array it frees
def route_leads(states, tables, weights, out):
    """Each state's route lead for the seat to move, in the heuristic's steps: the
    nearest opponent's route length less the mover's own (:func:`routes`, over the kinds public
    in that state). What the heuristic judges a position by, read as a value (the guided
    search's leaves in ``benchmarks/leaf_values.py``)."""
    for i in prange(states.shape[0]):
        state = states[i]
        mine, nearest = routes(state, tables, state[CURRENT_PLAYER], revealed_kinds(state), weights)
        out[i] = nearest - mine


@njit_alloc
def choose(state, tables, weights):
    """The heuristic's action for the player to move."""
    seat = state[CURRENT_PLAYER]
    known = revealed_kinds(state)  # the kinds public now (the look-ahead may open doors)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    legal_mask(state, tables, mask)
    scratch = state.copy()
    best_action = -1
    best_value = -np.inf
    moving = state[PHASE] == PHASE_MOVE
    for action in range(NUM_ACTIONS):
        if mask[action] == 0:
            continue
        copy_state(scratch, state)
        step(scratch, tables, action)
        value = score(scratch, tables, seat, known, weights)
        if moving and A_MOVE <= action < A_LEAVE and scratch[STATUS] == RUNNING:
            tile = scratch[PAWN + seat]
            if tile >= 0:
                kind = tile_kind(state, tile)
                fresh = (state[BONUS_USED + seat] >> np.int64(tile)) & 1 == 0
                if fresh and (kind == KIND_EXTRA_TURN or kind == KIND_KEY_TILE):
                    value += weights[W_BONUS_TILE]
        if moving and action == A_STAY:
            value -= 1e-6  # move when it is as good as staying
        if value > best_value:
            best_value = value
            best_action = action
    return best_action


@njit_parallel
def choose_batch(states, tables, weights, out):
    for i in prange(states.shape[0]):
        out[i] = choose(states[i], tables, weights)


# --- the turn search over a learned value (az agents' search=turn) ---------------------------
# What the learned value reads of a position, from the seat whose turn just ended: the route
# lengths the heuristic plans (in tens of steps, capped at 30 steps), its hand and the Pandorica
# turns. The value is a logistic regression of the games' outcomes on them
# (agents.training.leaf_table), a table of LEAF_FEATURES weights.
LEAF_FEATURE_NAMES = (
    "bias",
    "own route",
    "nearest opponent's route",
    "nearest opponent's lead, where it leads",
    "own route, squared",
    "nearest opponent's route, squared",
    "keys in hand",
    "sonic screwdrivers in hand",
    "time barriers in hand",
    "time tunnels in hand",
    "jam cookies in hand",
    "pandoricas in hand",
    "cyberman assaults in hand",
    "own pandorica turns",
    "opponents' pandorica turns",
    "own pawn off the board",
    "an extra turn to come",
)
LEAF_FEATURES = len(LEAF_FEATURE_NAMES)
LEARNED_SEARCH = "turn"  # the az agents' search over LEAF_FEATURES (agents.alphazero.LeafSearch)


@njit
def leaf_features(state, tables, seat, weights, out):
    """Writes into ``out`` what the learned value reads of ``state`` for ``seat`` (the names in
    ``LEAF_FEATURE_NAMES``), from what ``seat`` may know: its own hand and the public board."""
    known = stack_empty(NUM_TILES, np.int64)  # scratch in the frame: called at every leaf
    write_revealed_kinds(state, known)
    mine, nearest = routes(state, tables, seat, known, weights)
    out[0] = 1.0
    out[1] = mine / 10.0
    out[2] = nearest / 10.0
    out[3] = min(nearest - mine, 0.0) / 10.0
    out[4] = mine * mine / 100.0
    out[5] = nearest * nearest / 100.0
    hand = HAND + NUM_CARD_TYPES * seat
    out[6] = state[hand + CARD_KEY] + state[hand + CARD_KEY + 1] + state[hand + CARD_KEY + 2] + state[hand + CARD_KEY + 3]
    for c in range(CARD_SONIC, NUM_CARD_TYPES):  # the other card types, in CARD_NAMES order
        out[7 + c - CARD_SONIC] = state[hand + c]
    out[13] = state[PANDORICA + seat]
    trapped = 0.0
    for s in range(tables[T_NUM_PLAYERS]):
        if s != seat:
            trapped += state[PANDORICA + s]
    out[14] = trapped
    out[15] = 1.0 if state[PAWN + seat] < 0 else 0.0
    out[16] = 1.0 if state[STATUS] == RUNNING and state[CURRENT_PLAYER] == seat else 0.0


@njit_parallel
def leaf_features_batch(states, tables, seats, weights, out):
    """:func:`leaf_features` of each state for its seat in ``seats`` (rows of ``out``)."""
    for i in prange(states.shape[0]):
        leaf_features(states[i], tables, seats[i], weights, out[i])


@njit
def learned_value(state, tables, seat, weights, table):
    """``seat``'s chance of winning ``state`` as the learned ``table`` judges it: 1 or 0 where the
    game is won or lost, one half where it ran out of turns, else the logistic of the table
    over :func:`leaf_features`."""
    if state[STATUS] == TERMINATED:
        return 1.0 if state[WINNER] == seat else 0.0
    if state[STATUS] != RUNNING:
        return 0.5
    features = stack_empty(LEAF_FEATURES, np.float64)
    leaf_features(state, tables, seat, weights, features)
    logit = 0.0
    for k in range(LEAF_FEATURES):
        logit += table[k] * features[k]
    return 1.0 / (1.0 + np.exp(-logit))


@njit
def turn_number(state):
    """The game's turn counter: it moves on when a turn ends, an extra turn's too."""
    return state[TURN]


@njit_alloc
def rest_of_turn(state, tables, seat, weights, table, turn):
    """The best learned value ``seat`` can reach by the end of its turn ``turn`` from ``state``
    (a redealt world), every action of the turn tried: the card, the move and the Key Tile
    bonus. An extra turn the line earns is not searched: the value reads that it comes."""
    if state[STATUS] != RUNNING or state[TURN] != turn:
        return learned_value(state, tables, seat, weights, table)
    mask = stack_empty(NUM_ACTIONS, np.int8)  # legal_mask clears it
    legal_mask(state, tables, mask)
    scratch = state.copy()
    best = -1.0
    for action in range(NUM_ACTIONS):
        if mask[action] == 0:
            continue
        copy_state(scratch, state)
        step(scratch, tables, action)
        value = rest_of_turn(scratch, tables, seat, weights, table, turn)
        if value > best:
            best = value
    return best


@njit_alloc
def turn_values(state, tables, weights, table, redeals, seed, out):
    """Writes into ``out`` each legal action's mean learned value for the player to move (-1
    where illegal): in each of ``redeals`` worlds redealt from what the mover may know
    (``resample_hidden``, the generator keyed by ``seed``), the action followed by the best rest
    of the mover's turn (:func:`rest_of_turn`)."""
    seat = state[CURRENT_PLAYER]
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    legal_mask(state, tables, mask)
    for action in range(NUM_ACTIONS):
        out[action] = 0.0 if mask[action] == 1 else -1.0
    generator = np.zeros(HEADER_SIZE, dtype=np.int64)
    generator[RNG_KEY] = seed
    world = state.copy()
    scratch = state.copy()
    for _ in range(redeals):
        copy_state(world, state)
        world[RNG_KEY] = rng_new_key(generator, RNG_KEY)
        world[RNG_COUNTER] = 0
        resample_hidden(world, tables, seat)
        for action in range(NUM_ACTIONS):
            if mask[action] == 0:
                continue
            copy_state(scratch, world)
            step(scratch, tables, action)
            out[action] += rest_of_turn(scratch, tables, seat, weights, table, state[TURN]) / redeals


@njit_alloc
def choose_learned(state, tables, weights, table, redeals, seed):
    """The turn search's action for the player to move: the legal action of the highest
    :func:`turn_values` (the first such action on ties)."""
    values = np.empty(NUM_ACTIONS, dtype=np.float64)
    turn_values(state, tables, weights, table, redeals, seed, values)
    best_action = -1
    best_value = -np.inf
    for action in range(NUM_ACTIONS):
        if values[action] >= 0.0 and values[action] > best_value:
            best_value = values[action]
            best_action = action
    return best_action


@njit_parallel
def choose_learned_batch(states, tables, weights, table, redeals, seeds, out):
    for i in prange(states.shape[0]):
        out[i] = choose_learned(states[i], tables, weights, table, redeals, seeds[i])
