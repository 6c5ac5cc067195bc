"""Time of the Daleks, step 3 of a Doctor turn, the dice: roll, re-roll, change facings.

All dice of both pools are rolled (dice slots 0-7: the Doctor being helped, 8-15: the
helper). The Challenge is met when its symbols are shown by different dice; the
adventure then resolves at once, whenever that happens. Otherwise each Doctor in turn
(the one being helped first) manipulates its own pool until it stops: card Re-roll
icons (NUMBER: up to n dice of the colour, ANY: any of them, ALL: every one; chosen
die by die, then committed), two Sonic tokens to re-roll one die, discarding a Black
die to re-roll all its other dice; then Change Face icons (one die of the colour to
the symbol) and three Sonic tokens to set one die to any symbol. Once a Doctor has
changed a facing it re-rolls no more (the rulebook's order: re-roll, then change). A
Fixed Point forbids card and Sonic re-rolls (discarding a Black die still works); Time
Locked forbids card and Sonic face changes. Each card icon once per turn.

Any Adventure window (ruling): after the first roll, after every re-roll by a Doctor
of the adventure and after each Doctor's manipulation, every other Doctor, in turn
order after the active one, may play its Any Adventure / Anytime cards on either pool;
every Doctor holding a card (or a usable Companion ability) is asked and may pass, so that
being asked tells nothing about its hand (``rules.hidden_options``).
"""

from __future__ import annotations

from ....core.jit import njit
from ..components.challenge import challenge_met, roll_die
from ..components.players import add_sonic
from ..content import ABILITY_EFFECT, ABILITY_FIELDS, BLACK, E_REROLL, NUM_COLOURS, NUM_SYMBOLS, T_ABILITIES, T_NUM_ABILITIES, T_NUM_PLAYERS
from ..layout import (
    A_ABILITY,
    A_BLACK_REROLL,
    A_COMMIT,
    A_DONE,
    A_SELECT,
    A_SONIC_FACE,
    A_SONIC_REROLL,
    ACTIVE,
    ADV_CONDITIONS,
    DIE_COLOUR,
    DIE_FACE,
    FACE_CHANGED,
    HELPER,
    MANIPULATOR,
    MAX_DICE,
    POOL,
    POOL_DICE,
    S_MANIPULATE,
    S_RESOLVE,
    S_WINDOW,
    SEL_ABILITY,
    SEL_MASK,
    SEL_SEAT,
    SONIC,
    STAGE,
    WINDOW_LEFT,
    WINDOW_RETURN,
    WINDOW_SEAT,
)
from .abilities import CTX_MANIP, CTX_WINDOW, activate, complete_selection, reroll_die, select_die, selectable, usable

COND_FIXED_POINT = 1
COND_TIME_LOCKED = 2


@njit
def own_pool(state, seat):
    """0 for the Doctor whose adventure it is, 1 for its helper, -1 for a bystander."""
    if seat == state[ACTIVE]:
        return 0
    if seat == state[HELPER]:
        return 1
    return -1


@njit
def next_window(state, tables):
    n = tables[T_NUM_PLAYERS]
    while state[WINDOW_LEFT] > 0:
        k = n - state[WINDOW_LEFT]
        state[WINDOW_LEFT] -= 1
        seat = (state[ACTIVE] + k) % n
        if seat != state[HELPER]:
            state[WINDOW_SEAT] = seat
            state[STAGE] = S_WINDOW
            return
    state[WINDOW_SEAT] = -1
    state[STAGE] = state[WINDOW_RETURN]


@njit
def open_window(state, tables, ret):
    state[WINDOW_RETURN] = ret
    state[WINDOW_LEFT] = tables[T_NUM_PLAYERS] - 1
    next_window(state, tables)


@njit
def roll(state, tables):
    for pool in range(2):
        d = pool * POOL_DICE
        for c in range(NUM_COLOURS):
            for _ in range(state[POOL + pool * NUM_COLOURS + c]):
                state[DIE_COLOUR + d] = c
                d += 1
        while d < (pool + 1) * POOL_DICE:
            state[DIE_COLOUR + d] = -1
            d += 1
    for d in range(MAX_DICE):
        if state[DIE_COLOUR + d] >= 0:
            state[DIE_FACE + d] = roll_die(state, state[DIE_COLOUR + d])
        else:
            state[DIE_FACE + d] = 0
    state[FACE_CHANGED] = 0
    if challenge_met(state):
        state[STAGE] = S_RESOLVE
        return
    state[MANIPULATOR] = 0
    open_window(state, tables, S_MANIPULATE)


@njit
def manipulator_seat(state):
    return state[ACTIVE] if state[MANIPULATOR] == 0 else state[HELPER]


@njit
def in_pool(state, d, pool):
    return state[DIE_COLOUR + d] >= 0 and d // POOL_DICE == pool


@njit
def manipulate_mask(state, tables, out):
    out[A_DONE] = 1
    seat = manipulator_seat(state)
    p = state[MANIPULATOR]
    for r in range(tables[T_NUM_ABILITIES]):
        if usable(state, tables, seat, r, CTX_MANIP, p):
            out[A_ABILITY + r] = 1
    rerolls = ((state[FACE_CHANGED] >> p) & 1) == 0
    sonic = state[SONIC + seat]
    dice = 0
    for d in range(MAX_DICE):
        if in_pool(state, d, p):
            dice += 1
    for d in range(MAX_DICE):
        if not in_pool(state, d, p):
            continue
        if rerolls and sonic >= 2 and not state[ADV_CONDITIONS] & COND_FIXED_POINT:
            out[A_SONIC_REROLL + d] = 1
        if sonic >= 3 and not state[ADV_CONDITIONS] & COND_TIME_LOCKED:
            for s in range(NUM_SYMBOLS):
                if s != state[DIE_FACE + d]:
                    out[A_SONIC_FACE + d * NUM_SYMBOLS + s] = 1
        if rerolls and dice > 1 and state[DIE_COLOUR + d] == BLACK:
            out[A_BLACK_REROLL + d] = 1


@njit
def after_dice_change(state):
    if challenge_met(state):
        state[STAGE] = S_RESOLVE


@njit
def after_reroll(state, tables):
    """A re-roll by a Doctor of the adventure that did not meet the Challenge opens an Any
    Adventure window (a re-roll whose dice are still to be chosen opens it once they are)."""
    if state[STAGE] == S_MANIPULATE:
        open_window(state, tables, S_MANIPULATE)


@njit
def manipulate_apply(state, tables, action):
    seat = manipulator_seat(state)
    p = state[MANIPULATOR]
    if action == A_DONE:
        if p == 0 and state[HELPER] >= 0:
            state[MANIPULATOR] = 1
            open_window(state, tables, S_MANIPULATE)
        else:
            open_window(state, tables, S_RESOLVE)
    elif action < A_SELECT:
        r = action - A_ABILITY
        activate(state, tables, seat, r, p, S_MANIPULATE)
        if tables[T_ABILITIES + r * ABILITY_FIELDS + ABILITY_EFFECT] == E_REROLL:
            after_reroll(state, tables)
    elif action < A_SONIC_FACE:
        add_sonic(state, seat, -2)
        reroll_die(state, action - A_SONIC_REROLL)
        after_dice_change(state)
        after_reroll(state, tables)
    elif action < A_BLACK_REROLL:
        d, s = divmod(action - A_SONIC_FACE, NUM_SYMBOLS)
        add_sonic(state, seat, -3)
        state[DIE_FACE + d] = s
        state[FACE_CHANGED] |= 1 << p
        after_dice_change(state)
    else:
        state[DIE_COLOUR + action - A_BLACK_REROLL] = -1
        for d in range(MAX_DICE):
            if in_pool(state, d, p):
                reroll_die(state, d)
        after_dice_change(state)
        after_reroll(state, tables)


@njit
def select_mask(state, tables, out):
    pool = own_pool(state, state[SEL_SEAT])
    for d in range(MAX_DICE):
        if selectable(state, tables, pool, d):
            out[A_SELECT + d] = 1
    r = state[SEL_ABILITY]
    if state[SEL_MASK] != 0 and tables[T_ABILITIES + r * ABILITY_FIELDS + ABILITY_EFFECT] == E_REROLL:
        out[A_COMMIT] = 1


@njit
def select_apply(state, tables, action):
    seat = state[SEL_SEAT]
    pool = own_pool(state, seat)
    r = state[SEL_ABILITY]
    reroll = tables[T_ABILITIES + r * ABILITY_FIELDS + ABILITY_EFFECT] == E_REROLL
    if action == A_COMMIT:
        complete_selection(state, tables, seat, pool)
    else:
        select_die(state, tables, seat, pool, action - A_SELECT)
    if reroll and pool >= 0 and state[SEL_ABILITY] < 0:  # a Doctor of the adventure re-rolled
        after_reroll(state, tables)


@njit
def window_mask(state, tables, out):
    out[A_DONE] = 1
    seat = state[WINDOW_SEAT]
    for r in range(tables[T_NUM_ABILITIES]):
        if usable(state, tables, seat, r, CTX_WINDOW, -1):
            out[A_ABILITY + r] = 1


@njit
def window_apply(state, tables, action):
    if action == A_DONE:
        next_window(state, tables)
    else:
        activate(state, tables, state[WINDOW_SEAT], action - A_ABILITY, -1, S_WINDOW)
