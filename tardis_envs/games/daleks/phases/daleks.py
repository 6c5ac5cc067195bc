"""Time of the Daleks: the Dalek turn, after the last Doctor's turn of a round.

The Dalek Ship moves one space (one more while The Parting of the Ways is in play),
drawing a Time Anomaly card for each marker it lands on or passes. The Daleks win if
the Ship is on Gallifrey or three Dalek markers are on Earth; otherwise every Doctor
whose TARDIS is on Gallifrey wins (rewards: +1 to each Doctor on Gallifrey, 0 to the
others; a Dalek win gives every Doctor -1). A seventh Dalek marker ends the game at
once, whenever it is needed. ``max_rounds`` rounds without a result truncate the game.
"""

from __future__ import annotations

from ....core.jit import njit
from ..components.challenge import ONGOING_EXTRA_SHIP, task_ongoing
from ..components.dalek_markers import daleks_on_earth
from ..components.players import end_game, truncate
from ..content import T_MAX_ROUNDS, T_NUM_PLAYERS, T_TRACK
from ..layout import ACTIVE, ROUND, S_DALEK_CHECK, S_TURN_START, SHIP, STAGE, TARDIS, WIN_DOCTORS, WIN_EARTH, WIN_SHIP
from .anomalies import move_ship


@njit
def dalek_turn(state, tables):
    state[STAGE] = S_DALEK_CHECK
    spaces = 2 if task_ongoing(state, tables, ONGOING_EXTRA_SHIP) else 1
    move_ship(state, tables, spaces)


@njit
def dalek_check(state, tables):
    if state[SHIP] >= tables[T_TRACK]:
        end_game(state, tables, WIN_SHIP)
        return
    if daleks_on_earth(state) >= 3:
        end_game(state, tables, WIN_EARTH)
        return
    for p in range(tables[T_NUM_PLAYERS]):
        if state[TARDIS + p] >= tables[T_TRACK]:
            end_game(state, tables, WIN_DOCTORS)
            return
    state[ROUND] += 1
    if state[ROUND] >= tables[T_MAX_ROUNDS]:
        truncate(state)
        return
    state[ACTIVE] = 0
    state[STAGE] = S_TURN_START
