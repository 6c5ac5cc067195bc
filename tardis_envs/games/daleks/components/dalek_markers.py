"""Time of the Daleks: the Dalek markers on Earth, at Locations and in the fight. Kernels only;
offsets in :mod:`.layout`."""

from __future__ import annotations

from ....core.jit import njit
from ..layout import DALEKS_PLACED, MAX_DALEKS, MAX_SLOTS, SLOT_EARTH, SLOT_KIND, ZONE_DALEKS, ZONES_PER_SLOT
from .players import end_game


@njit
def daleks_in_play(state):
    n = 0
    for zone in range(MAX_SLOTS * ZONES_PER_SLOT):
        n += state[ZONE_DALEKS + zone]
    return n


@njit
def daleks_on_earth(state):
    return state[ZONE_DALEKS + 0] + state[ZONE_DALEKS + 1] + state[ZONE_DALEKS + 2]


@njit
def daleks_at_location(state, slot):
    n = 0
    for z in range(ZONES_PER_SLOT):
        n += state[ZONE_DALEKS + slot * ZONES_PER_SLOT + z]
    return n


@njit
def daleks_fighting(state, slot, z):
    """Dalek markers that exterminate dice at this zone: the whole Location, except
    on Earth, where only the Doctor's own Time Zone counts."""
    if state[SLOT_KIND + slot] == SLOT_EARTH:
        return state[ZONE_DALEKS + z]
    return daleks_at_location(state, slot)


@njit
def place_dalek(state, tables, zone):
    """A Dalek marker on ``zone``; a seventh marker ends the game (the Daleks win)."""
    if daleks_in_play(state) >= MAX_DALEKS:
        end_game(state, tables, 4)
        return
    state[ZONE_DALEKS + zone] += 1
    state[DALEKS_PLACED] += 1


@njit
def remove_dalek_at(state, slot, z):
    """Remove one marker from the Location (Earth: from zone ``z`` only)."""
    if state[SLOT_KIND + slot] == SLOT_EARTH:
        if state[ZONE_DALEKS + z] > 0:
            state[ZONE_DALEKS + z] -= 1
        return
    for zz in range(ZONES_PER_SLOT):
        zone = slot * ZONES_PER_SLOT + zz
        if state[ZONE_DALEKS + zone] > 0:
            state[ZONE_DALEKS + zone] -= 1
            return
