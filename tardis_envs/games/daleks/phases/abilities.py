"""Time of the Daleks: using the abilities of Doctors, Companions and Timey-Wimey cards.

An ability row (``content.ability_rows``) is one effect a card can use. Whether seat
``p`` may use row ``r`` now depends on the moment (``CTX_*``): the Prepare step, building
a dice pool, manipulating rolled dice, or an Any Adventure window of a bystander; on
who holds the card (Doctor card, Companion on the console, Equipment installed, Event
or Transfer in hand); on the once-per-turn flag of its group; on the Sonic it costs;
and on the effect (dice of the right colour present, a Fixed Point or Time Locked
Challenge, a Task anomaly to advance ...).
"""

from __future__ import annotations

from ....core.jit import njit
from ....core.state import RUNNING, STATUS
from ..components.cards import discard_card
from ..components.challenge import challenge_met, roll_die, supply_left
from ..components.dalek_markers import daleks_fighting
from ..components.players import add_sonic
from ..content import (
    ABILITY_COLOUR,
    ABILITY_COST,
    ABILITY_COUNT,
    ABILITY_COUNT2,
    ABILITY_EFFECT,
    ABILITY_EFFECT2,
    ABILITY_FIELDS,
    ABILITY_GROUP,
    ABILITY_MODE,
    ABILITY_OWNER,
    ABILITY_OWNER_KIND,
    ABILITY_SYMBOL,
    ABILITY_TIMING,
    ABILITY_WITH_DOCTOR,
    BLACK,
    CARD_COST,
    CARD_FIELDS,
    CARD_TYPE,
    COLOUR_ANY,
    COLOUR_COLOURED,
    CT_EQUIPMENT,
    CT_TRANSFER,
    E_ADD_DIE,
    E_CHANGE_FACE,
    E_FOCUS,
    E_FREE_DIE,
    E_PROGRESS,
    E_REMOVE_DALEK,
    E_REROLL,
    E_SWAP_RANDOM_CARD,
    E_TRADE_EQUIPMENT,
    NUM_COLOURS,
    OWN_CARD,
    OWN_COMPANION,
    OWN_DOCTOR,
    RM_ALL,
    T_ABILITIES,
    T_CARDS,
    T_NUM_ABILITIES,
    T_NUM_PLAYERS,
    TM_ADVENTURE,
    TM_ANY_ADVENTURE,
    TM_ANYTIME,
    TM_PASSIVE,
    TM_PREPARE,
)
from ..layout import (
    ADV_CONDITIONS,
    AT_SLOT,
    AT_ZONE,
    CARD_PLACE,
    COMPANION_PLACE,
    DIE_COLOUR,
    DIE_FACE,
    DOCTOR,
    FACE_CHANGED,
    GIVE_CARD,
    MAX_DICE,
    PLACE_GIVING,
    PLACE_INSTALLED,
    POOL,
    POOL_DICE,
    RETURN_STAGE,
    S_GIVE,
    S_RESOLVE,
    S_SELECT,
    SEL_ABILITY,
    SEL_LEFT,
    SEL_MASK,
    SEL_SEAT,
    SONIC,
    STAGE,
    USED,
)
from .anomalies import apply_effect, first_task

CTX_PREPARE = 0
CTX_POOL = 1
CTX_MANIP = 2
CTX_WINDOW = 3
COND_FIXED_POINT = 1
COND_TIME_LOCKED = 2


@njit
def ability_field(tables, r, f):
    return tables[T_ABILITIES + r * ABILITY_FIELDS + f]


@njit
def card_field(tables, c, f):
    return tables[T_CARDS + c * CARD_FIELDS + f]


@njit
def from_hand(tables, r):
    """A row of an Event or Transfer card: played from the hand (and discarded / given)."""
    return (
        ability_field(tables, r, ABILITY_OWNER_KIND) == OWN_CARD
        and card_field(tables, ability_field(tables, r, ABILITY_OWNER), CARD_TYPE) != CT_EQUIPMENT
    )


@njit
def holds(state, tables, seat, r):
    kind = ability_field(tables, r, ABILITY_OWNER_KIND)
    owner = ability_field(tables, r, ABILITY_OWNER)
    if kind == OWN_DOCTOR:
        return state[DOCTOR + seat] == owner
    if kind == OWN_COMPANION:
        return state[COMPANION_PLACE + owner] == seat
    if card_field(tables, owner, CARD_TYPE) == CT_EQUIPMENT:
        return state[CARD_PLACE + owner] == PLACE_INSTALLED + seat
    return state[CARD_PLACE + owner] == seat


@njit
def sonic_cost(tables, r):
    """Sonic paid to use the row: its own cost, plus the card's cost when played from hand."""
    cost = ability_field(tables, r, ABILITY_COST)
    if from_hand(tables, r):
        cost += card_field(tables, ability_field(tables, r, ABILITY_OWNER), CARD_COST)
    return cost


@njit
def timing_fits(timing, ctx):
    if ctx == CTX_PREPARE:
        return timing == TM_PREPARE or timing == TM_ANYTIME
    if ctx == CTX_WINDOW:
        return timing == TM_ANY_ADVENTURE or timing == TM_ANYTIME
    return timing == TM_ADVENTURE or timing == TM_ANY_ADVENTURE or timing == TM_ANYTIME


@njit
def pool_of_die(d):
    return d // POOL_DICE


@njit
def die_fits(state, tables, r, d, own_pool):
    """Die ``d`` may be taken by row ``r`` (``own_pool`` -1: dice of either pool)."""
    colour = state[DIE_COLOUR + d]
    if colour < 0:
        return False
    if own_pool >= 0 and pool_of_die(d) != own_pool:
        return False
    want = ability_field(tables, r, ABILITY_COLOUR)
    if want == COLOUR_COLOURED:
        if colour == BLACK:
            return False
    elif want != COLOUR_ANY and want != colour:
        return False
    if ability_field(tables, r, ABILITY_EFFECT) == E_REROLL:
        return ((state[FACE_CHANGED] >> pool_of_die(d)) & 1) == 0
    return state[DIE_FACE + d] != ability_field(tables, r, ABILITY_SYMBOL)


@njit
def reach(tables, r, own_pool):
    """Dice a row acts on: any pool for Any Adventure / Anytime cards, else its owner's."""
    timing = ability_field(tables, r, ABILITY_TIMING)
    if timing == TM_ANY_ADVENTURE or timing == TM_ANYTIME:
        return -1
    return own_pool


@njit
def any_die_fits(state, tables, r, own_pool):
    restrict = reach(tables, r, own_pool)
    for d in range(MAX_DICE):
        if die_fits(state, tables, r, d, restrict):
            return True
    return False


@njit
def usable(state, tables, seat, r, ctx, pool):
    """Row ``r`` may be used by ``seat`` now (``pool``: the seat's own dice pool, or -1)."""
    if r >= tables[T_NUM_ABILITIES]:
        return False
    return holds(state, tables, seat, r) and usable_if_held(state, tables, seat, r, ctx, pool)


@njit
def usable_if_held(state, tables, seat, r, ctx, pool):
    """Row ``r`` could be used by ``seat`` now if ``seat`` held its card: everything
    :func:`usable` asks but who holds it (which asks whether a card in a hidden hand
    could give its holder a choice)."""
    if state[USED + ability_field(tables, r, ABILITY_GROUP)]:
        return False
    with_doctor = ability_field(tables, r, ABILITY_WITH_DOCTOR)
    if with_doctor >= 0 and state[DOCTOR + seat] != with_doctor:
        return False
    if state[SONIC + seat] < sonic_cost(tables, r):
        return False
    timing = ability_field(tables, r, ABILITY_TIMING)
    effect = ability_field(tables, r, ABILITY_EFFECT)
    if effect == E_TRADE_EQUIPMENT or effect == E_SWAP_RANDOM_CARD:
        return False  # their own actions (they need a target)
    if timing == TM_PASSIVE:
        if effect != E_FOCUS or ctx != CTX_POOL:
            return False
    elif not timing_fits(timing, ctx):
        return False
    if ctx == CTX_PREPARE:
        if effect == E_ADD_DIE or effect == E_FOCUS or effect == E_REROLL or effect == E_CHANGE_FACE:
            return False
        if effect == E_REMOVE_DALEK:
            slot = state[AT_SLOT + seat]
            return slot >= 0 and daleks_fighting(state, slot, state[AT_ZONE + seat]) > 0
        if effect == E_FREE_DIE:
            return first_task(state, tables, True) >= 0
        if effect == E_PROGRESS:
            return first_task(state, tables, False) >= 0
        return True
    if ctx == CTX_POOL:
        colour = ability_field(tables, r, ABILITY_COLOUR)
        if effect == E_ADD_DIE:
            return supply_left(state, tables, colour, pool) > 0
        if effect == E_FOCUS:
            return state[POOL + pool * NUM_COLOURS + BLACK] > 0 and supply_left(state, tables, colour, pool) > 0
        return False
    # rolled dice (manipulator or bystander)
    if effect == E_REROLL:
        if state[ADV_CONDITIONS] & COND_FIXED_POINT:
            return False
        return any_die_fits(state, tables, r, pool)
    if effect == E_CHANGE_FACE:
        if state[ADV_CONDITIONS] & COND_TIME_LOCKED:
            return False
        return any_die_fits(state, tables, r, pool)
    return False


@njit
def spend(state, tables, seat, r):
    """Pay for row ``r``, mark its group used, and move a played card on: an Event to
    the discard pile, a Transfer to wait for its recipient (solo: the discard pile)."""
    add_sonic(state, seat, -sonic_cost(tables, r))
    state[USED + ability_field(tables, r, ABILITY_GROUP)] = 1
    if from_hand(tables, r):
        c = ability_field(tables, r, ABILITY_OWNER)
        discard_card(state, c)
        if card_field(tables, c, CARD_TYPE) == CT_TRANSFER and tables[T_NUM_PLAYERS] > 1:
            state[GIVE_CARD] = c
            state[CARD_PLACE + c] = PLACE_GIVING  # not in the discard pile a draw could reshuffle


@njit
def finish(state, tables, seat, ret):
    """After an ability: a played Transfer card is given first, then ``ret`` (or the
    resolution if the dice now meet the Challenge)."""
    if state[STATUS] != RUNNING:
        return
    if state[GIVE_CARD] >= 0:
        state[STAGE] = S_GIVE
        state[RETURN_STAGE] = ret
        state[SEL_SEAT] = seat
        return
    state[STAGE] = ret


@njit
def reroll_die(state, d):
    state[DIE_FACE + d] = roll_die(state, state[DIE_COLOUR + d])


@njit
def activate(state, tables, seat, r, pool, ret):
    """Use row ``r`` (already checked usable). Dice choices go through ``S_SELECT``."""
    spend(state, tables, seat, r)
    effect = ability_field(tables, r, ABILITY_EFFECT)
    if effect == E_ADD_DIE:
        colour = ability_field(tables, r, ABILITY_COLOUR)
        n = min(ability_field(tables, r, ABILITY_COUNT), supply_left(state, tables, colour, pool))
        state[POOL + pool * NUM_COLOURS + colour] += n
    elif effect == E_FOCUS:
        state[POOL + pool * NUM_COLOURS + BLACK] -= 1
        state[POOL + pool * NUM_COLOURS + ability_field(tables, r, ABILITY_COLOUR)] += 1
    elif effect == E_REROLL and ability_field(tables, r, ABILITY_MODE) == RM_ALL:
        restrict = reach(tables, r, pool)
        for d in range(MAX_DICE):
            if die_fits(state, tables, r, d, restrict):
                reroll_die(state, d)
        if challenge_met(state):
            ret = S_RESOLVE
    elif effect == E_REROLL or effect == E_CHANGE_FACE:
        state[SEL_ABILITY] = r
        state[SEL_LEFT] = ability_field(tables, r, ABILITY_COUNT) if effect == E_REROLL else 1
        state[SEL_MASK] = 0
        state[SEL_SEAT] = seat
        state[RETURN_STAGE] = ret
        state[STAGE] = S_SELECT
        return
    else:  # instant effects (Prepare): both of the card's effects
        apply_effect(state, tables, seat, effect, ability_field(tables, r, ABILITY_COUNT), state[AT_SLOT + seat], state[AT_ZONE + seat])
        if state[STATUS] == RUNNING:
            apply_effect(
                state,
                tables,
                seat,
                ability_field(tables, r, ABILITY_EFFECT2),
                ability_field(tables, r, ABILITY_COUNT2),
                state[AT_SLOT + seat],
                state[AT_ZONE + seat],
            )
    finish(state, tables, seat, ret)


@njit
def selection_pool(state, tables, seat, own_pool):
    return reach(tables, state[SEL_ABILITY], own_pool)


@njit
def complete_selection(state, tables, seat, own_pool):
    """Re-roll the chosen dice (or, for a face change, it was applied on choosing)."""
    r = state[SEL_ABILITY]
    if ability_field(tables, r, ABILITY_EFFECT) == E_REROLL:
        for d in range(MAX_DICE):
            if (state[SEL_MASK] >> d) & 1:
                reroll_die(state, d)
    state[SEL_ABILITY] = -1
    state[SEL_MASK] = 0
    ret = state[RETURN_STAGE]
    if challenge_met(state):
        ret = S_RESOLVE
    finish(state, tables, seat, ret)


@njit
def select_die(state, tables, seat, own_pool, d):
    r = state[SEL_ABILITY]
    if ability_field(tables, r, ABILITY_EFFECT) == E_CHANGE_FACE:
        state[DIE_FACE + d] = ability_field(tables, r, ABILITY_SYMBOL)
        state[FACE_CHANGED] |= 1 << pool_of_die(d)
        complete_selection(state, tables, seat, own_pool)
        return
    state[SEL_MASK] |= 1 << d
    state[SEL_LEFT] -= 1
    if state[SEL_LEFT] == 0 or not selectable_left(state, tables, own_pool):
        complete_selection(state, tables, seat, own_pool)


@njit
def selectable(state, tables, own_pool, d):
    if (state[SEL_MASK] >> d) & 1:
        return False
    r = state[SEL_ABILITY]
    return die_fits(state, tables, r, d, reach(tables, r, own_pool))


@njit
def selectable_left(state, tables, own_pool):
    for d in range(MAX_DICE):
        if selectable(state, tables, own_pool, d):
            return True
    return False
