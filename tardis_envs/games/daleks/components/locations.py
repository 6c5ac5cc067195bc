"""Time of the Daleks: Locations and their zones on the board, the Dilemmas drawn to them, and
where a Doctor arrives. Kernels only; offsets in :mod:`.layout`."""

from __future__ import annotations

from ....core.jit import njit
from ....core.rng import rng_below
from ....core.state import RNG_KEY
from ..content import NUM_ANOMALIES, NUM_DILEMMAS, NUM_EARTH_ZONES, NUM_LOCATIONS
from ..layout import (
    ANOMALY_SLOT,
    ANOMALY_STATE,
    AT_SLOT,
    AT_ZONE,
    DILEMMA_PLACE,
    DILEMMA_SEEN,
    LOCATION_PLACE,
    MAX_SLOTS,
    PLACE_DECK,
    PLACE_DISCARD,
    PLACE_DRAWN,
    SLOT_ANOMALY,
    SLOT_EARTH,
    SLOT_EMPTY,
    SLOT_ID,
    SLOT_KIND,
    ZONE_DALEKS,
    ZONE_DILEMMA,
    ZONE_FACE_UP,
    ZONES_PER_SLOT,
)


@njit
def zone_record(state, slot, z):
    """Index of a zone's record in the zone table (Earth 0..2, tile t: 3 + 2t + z)."""
    if state[SLOT_KIND + slot] == SLOT_EARTH:
        return z
    return NUM_EARTH_ZONES + 2 * state[SLOT_ID + slot] + z


@njit
def zones_in_slot(state, slot):
    kind = state[SLOT_KIND + slot]
    if kind == SLOT_EARTH:
        return 3
    if kind == SLOT_ANOMALY:
        return 1
    if kind == SLOT_EMPTY:
        return 0
    return 2


@njit
def free_slot(state):
    for s in range(1, MAX_SLOTS):
        if state[SLOT_KIND + s] == SLOT_EMPTY:
            return s
    return -1


@njit
def draw_from(state, tables, place, count):
    """A uniformly random index ``i < count`` with ``state[place + i] == PLACE_DECK``,
    refilling from the discards when none is left (Locations and Dilemmas reshuffle);
    -1 if there is none at all."""
    n = 0
    for i in range(count):
        if state[place + i] == PLACE_DECK:
            n += 1
    if n == 0:
        for i in range(count):
            if state[place + i] == PLACE_DISCARD:
                state[place + i] = PLACE_DECK
                n += 1
        if n == 0:
            return -1
    pick = rng_below(state, RNG_KEY, n)
    for i in range(count):
        if state[place + i] == PLACE_DECK:
            if pick == 0:
                return i
            pick -= 1
    return -1


@njit
def location_available(state):
    for i in range(NUM_LOCATIONS):
        if state[LOCATION_PLACE + i] == PLACE_DECK or state[LOCATION_PLACE + i] == PLACE_DISCARD:
            return True
    return False


@njit
def draw_location(state, tables):
    t = draw_from(state, tables, LOCATION_PLACE, NUM_LOCATIONS)
    if t >= 0:
        state[LOCATION_PLACE + t] = PLACE_DRAWN
    return t


@njit
def fill_zone(state, tables, zone):
    """A face-down Dilemma from the deck into an empty zone (if any Dilemma is left)."""
    d = draw_from(state, tables, DILEMMA_PLACE, NUM_DILEMMAS)
    if d < 0:
        return
    state[DILEMMA_PLACE + d] = zone
    state[ZONE_DILEMMA + zone] = d
    state[ZONE_FACE_UP + zone] = 0
    state[DILEMMA_SEEN + d] = 0


@njit
def place_location(state, tables, tile):
    """Put a drawn Location tile into a free slot with two face-down Dilemmas; returns the slot."""
    slot = free_slot(state)
    state[SLOT_KIND + slot] = 2
    state[SLOT_ID + slot] = tile
    state[LOCATION_PLACE + tile] = slot
    for z in range(ZONES_PER_SLOT):
        zone = slot * ZONES_PER_SLOT + z
        state[ZONE_DILEMMA + zone] = -1
        state[ZONE_FACE_UP + zone] = 0
        state[ZONE_DALEKS + zone] = 0
    for z in range(2):
        fill_zone(state, tables, slot * ZONES_PER_SLOT + z)
    return slot


@njit
def clear_slot(state, slot):
    """Discard a Location (tile or anomaly) and the Dilemmas on it."""
    kind = state[SLOT_KIND + slot]
    if kind == 2:
        state[LOCATION_PLACE + state[SLOT_ID + slot]] = PLACE_DISCARD
    for z in range(ZONES_PER_SLOT):
        zone = slot * ZONES_PER_SLOT + z
        d = state[ZONE_DILEMMA + zone]
        if d >= 0:
            state[DILEMMA_PLACE + d] = PLACE_DISCARD
        state[ZONE_DILEMMA + zone] = -1
        state[ZONE_FACE_UP + zone] = 0
        state[ZONE_DALEKS + zone] = 0
    state[SLOT_KIND + slot] = SLOT_EMPTY
    state[SLOT_ID + slot] = -1


@njit
def zone_open(state, slot, z):
    """A zone a Doctor may travel to: a Time Anomaly Location, or a zone with an
    unsolved Dilemma (ruling: a solved zone has no adventure left)."""
    kind = state[SLOT_KIND + slot]
    if kind == SLOT_ANOMALY:
        return z == 0
    if kind == SLOT_EMPTY or z >= zones_in_slot(state, slot):
        return False
    return state[ZONE_DILEMMA + slot * ZONES_PER_SLOT + z] >= 0


@njit
def arrive(state, tables, seat, slot, z):
    """Move a Doctor marker to a zone and flip its Dilemma face up."""
    state[AT_SLOT + seat] = slot
    state[AT_ZONE + seat] = z
    zone = slot * ZONES_PER_SLOT + z
    if state[ZONE_DILEMMA + zone] >= 0:
        state[ZONE_FACE_UP + zone] = 1
        state[DILEMMA_SEEN + state[ZONE_DILEMMA + zone]] = 1


@njit
def anomaly_at(state, slot):
    for a in range(NUM_ANOMALIES):
        if state[ANOMALY_STATE + a] == 3 and state[ANOMALY_SLOT + a] == slot:
            return a
    return -1
