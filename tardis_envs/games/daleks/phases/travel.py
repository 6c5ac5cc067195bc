"""Time of the Daleks, step 2 of a Doctor turn: Travel.

Stay at the current Location (its Time Zone, or its other zone, while an unsolved
Dilemma is there; a Dilemma laid face down since is flipped), or move. Earth and Time Anomaly Locations are reached without the TARDIS
die; anywhere else needs it: a TARDIS face lets the Doctor go to any open Time Zone in
play, or draw two Location tiles, keep one (the other is discarded) and pick its zone;
a question mark draws one Location and the Doctor picks its zone. A new Location gets
two face-down Dilemmas; the Dilemma of the zone the Doctor lands in is flipped. The
First Doctor may draw a Location instead of rolling, then draws a Timey-Wimey card.
Ruling: a zone whose Dilemma was solved holds no adventure and cannot be travelled to.
While Into the Dalek is in play, moving to a Location that is not a Time Anomaly costs
two Sonic Charge tokens or one Timey-Wimey card (a Doctor who cannot pay stays, goes
to a Time Anomaly, or moves between Earth's zones when already on Earth: that is no move
to a Location and costs nothing). A Doctor with nowhere to go waits on the console (no adventure).
"""

from __future__ import annotations

from ....core.jit import njit
from ....core.rng import rng_below
from ....core.state import RNG_KEY
from ..components.cards import can_pay_tax, draw_card
from ..components.challenge import set_challenge
from ..components.locations import arrive, draw_location, location_available, place_location, zone_open
from ..components.players import clear_adventure
from ..content import DOCTOR_FIELDS, DOCTOR_FIRST_TRAVEL, T_DOCTORS, T_TARDIS_FACES
from ..layout import (
    A_DONE,
    A_DRAW_TWO,
    A_FIRST_DOCTOR,
    A_GOTO,
    A_KEEP,
    A_ROLL_TARDIS,
    A_STAY,
    ACTIVE,
    ADV_SLOT,
    ADV_ZONE,
    AT_SLOT,
    AT_ZONE,
    DOCTOR,
    DRAWN,
    LAST_CHALLENGE_ZONE,
    LAST_TARDIS_DIE,
    LOCATION_PLACE,
    MAX_SLOTS,
    OB_TAX,
    PLACE_DISCARD,
    S_FINISH,
    S_RECRUIT,
    S_TRAVEL_CHOOSE,
    S_TRAVEL_KEEP,
    SLOT_ANOMALY,
    SLOT_EARTH,
    SLOT_KIND,
    STAGE,
    ZONES_PER_SLOT,
)
from .anomalies import travel_tax_active
from .obligations import push_obligation


@njit
def start_adventure(state, tables):
    seat = state[ACTIVE]
    slot = state[AT_SLOT + seat]
    z = state[AT_ZONE + seat]
    clear_adventure(state)
    state[ADV_SLOT] = slot
    state[ADV_ZONE] = z
    state[LAST_CHALLENGE_ZONE] = slot * ZONES_PER_SLOT + z
    set_challenge(state, tables, slot, z)
    state[STAGE] = S_RECRUIT


@njit
def go(state, tables, seat, slot, z):
    moving = slot != state[AT_SLOT + seat]
    if moving and state[SLOT_KIND + slot] != SLOT_ANOMALY and travel_tax_active(state, tables):
        push_obligation(state, seat, OB_TAX, 2)
    arrive(state, tables, seat, slot, z)
    start_adventure(state, tables)


@njit
def can_leave(state, tables, seat):
    return not travel_tax_active(state, tables) or can_pay_tax(state, seat)


@njit
def travel_mask(state, tables, out):
    seat = state[ACTIVE]
    here = state[AT_SLOT + seat]
    here_zone = here * ZONES_PER_SLOT + state[AT_ZONE + seat]
    any_legal = False
    if here >= 0 and zone_open(state, here, state[AT_ZONE + seat]):
        out[A_STAY] = 1
        any_legal = True
    leave = can_leave(state, tables, seat)
    for slot in range(MAX_SLOTS):
        kind = state[SLOT_KIND + slot]
        if slot == here and kind != SLOT_EARTH:  # staying at the Location: its other Time Zone, no die
            for z in range(ZONES_PER_SLOT):
                if slot * ZONES_PER_SLOT + z != here_zone and zone_open(state, slot, z):
                    out[A_GOTO + slot * ZONES_PER_SLOT + z] = 1
                    any_legal = True
            continue
        if kind != SLOT_EARTH and kind != SLOT_ANOMALY:
            continue
        if kind == SLOT_EARTH and slot != here and not leave:  # another Earth zone is no new Location: no tax
            continue
        for z in range(ZONES_PER_SLOT):
            if slot * ZONES_PER_SLOT + z != here_zone and zone_open(state, slot, z):
                out[A_GOTO + slot * ZONES_PER_SLOT + z] = 1
                any_legal = True
    if leave and location_available(state):
        out[A_ROLL_TARDIS] = 1
        any_legal = True
        if tables[T_DOCTORS + state[DOCTOR + seat] * DOCTOR_FIELDS + DOCTOR_FIRST_TRAVEL]:
            out[A_FIRST_DOCTOR] = 1
    if not any_legal:
        out[A_DONE] = 1  # nowhere to go: wait on the console this turn


@njit
def travel_apply(state, tables, action):
    seat = state[ACTIVE]
    if action == A_STAY:
        arrive(state, tables, seat, state[AT_SLOT + seat], state[AT_ZONE + seat])  # a refilled Earth zone is flipped
        start_adventure(state, tables)
    elif action == A_DONE:
        state[AT_SLOT + seat] = -1
        state[STAGE] = S_FINISH
    elif action < A_ROLL_TARDIS:
        zone = action - A_GOTO
        go(state, tables, seat, zone // ZONES_PER_SLOT, zone % ZONES_PER_SLOT)
    elif action == A_ROLL_TARDIS:
        tardis_face = rng_below(state, RNG_KEY, 6) < tables[T_TARDIS_FACES]
        state[LAST_TARDIS_DIE] = 1 if tardis_face else 0
        if tardis_face:
            state[STAGE] = S_TRAVEL_CHOOSE
        else:  # the TARDIS decides: one new Location
            state[DRAWN] = draw_location(state, tables)
            state[DRAWN + 1] = -1
            state[STAGE] = S_TRAVEL_KEEP
    else:  # A_FIRST_DOCTOR
        state[DRAWN] = draw_location(state, tables)
        state[DRAWN + 1] = -1
        draw_card(state, tables, seat)
        state[STAGE] = S_TRAVEL_KEEP


@njit
def choose_mask(state, tables, out):
    seat = state[ACTIVE]
    here_zone = state[AT_SLOT + seat] * ZONES_PER_SLOT + state[AT_ZONE + seat]
    for slot in range(MAX_SLOTS):
        for z in range(ZONES_PER_SLOT):
            if slot * ZONES_PER_SLOT + z != here_zone and zone_open(state, slot, z):
                out[A_GOTO + slot * ZONES_PER_SLOT + z] = 1
    if location_available(state):
        out[A_DRAW_TWO] = 1


@njit
def choose_apply(state, tables, action):
    if action == A_DRAW_TWO:
        state[DRAWN] = draw_location(state, tables)
        state[DRAWN + 1] = draw_location(state, tables)
        state[STAGE] = S_TRAVEL_KEEP
        return
    zone = action - A_GOTO
    go(state, tables, state[ACTIVE], zone // ZONES_PER_SLOT, zone % ZONES_PER_SLOT)


@njit
def keep_mask(state, tables, out):
    for j in range(2):
        if state[DRAWN + j] >= 0:
            out[A_KEEP + 2 * j] = 1
            out[A_KEEP + 2 * j + 1] = 1


@njit
def keep_apply(state, tables, action):
    j = (action - A_KEEP) // 2
    z = (action - A_KEEP) % 2
    kept = state[DRAWN + j]
    other = state[DRAWN + 1 - j]
    if other >= 0:
        state[LOCATION_PLACE + other] = PLACE_DISCARD
    state[DRAWN] = -1
    state[DRAWN + 1] = -1
    slot = place_location(state, tables, kept)
    go(state, tables, state[ACTIVE], slot, z)
