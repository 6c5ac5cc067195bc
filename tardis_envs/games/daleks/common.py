"""Time of the Daleks: the small pieces every phase uses (cards, Companions, Locations,
Dalek markers, obligations, the adventure's conditions, matching dice to a Challenge,
the end of the game). Kernels only; offsets in :mod:`.layout`."""

from __future__ import annotations

from ...core.jit import njit
from ...core.rng import rng_below
from ...core.state import MAX_PLAYERS, REWARDS, RNG_KEY, STATUS, TERMINATED, TRUNCATED
from .content import (
    AN_CONDITIONS,
    AN_IMPRISON_COLOUR,
    AN_ONGOING,
    ANOMALY_FIELDS,
    COMPANION_DECK,
    COMPANION_FIELDS,
    DICE_SUPPLY,
    DIE_FACES,
    DILEMMA_FIELDS,
    DL_CONDITIONS,
    NUM_ANOMALIES,
    NUM_CARDS,
    NUM_COLOURS,
    NUM_COMPANIONS,
    NUM_DILEMMAS,
    NUM_EARTH_ZONES,
    NUM_LOCATIONS,
    NUM_SYMBOLS,
    T_ANOMALIES,
    T_COMPANIONS,
    T_DILEMMAS,
    T_FIRST_GAME,
    T_NUM_PLAYERS,
    T_TRACK,
    T_ZONES,
    ZONE_FIELDS,
)
from .layout import (
    ADV_CONDITIONS,
    ADV_SLOT,
    ADV_ZONE,
    ANOMALY_SLOT,
    ANOMALY_STATE,
    AS_TASK,
    AT_SLOT,
    AT_ZONE,
    BUILDER,
    CARD_PLACE,
    CHALLENGE,
    COMPANION,
    COMPANION_PLACE,
    COMPANION_SPACES,
    DALEKS_PLACED,
    DIE_COLOUR,
    DIE_FACE,
    DILEMMA_PLACE,
    DILEMMA_SEEN,
    EQUIPMENT,
    EQUIPMENT_SLOTS,
    FACE_CHANGED,
    HELP_MODE,
    HELPER,
    LOCATION_PLACE,
    MANIPULATOR,
    MAX_DALEKS,
    MAX_DICE,
    MAX_OBLIGATIONS,
    MAX_SLOTS,
    OBL_COUNT,
    OBLIGATIONS,
    PART_TIME,
    PLACE_DECK,
    PLACE_DISCARD,
    PLACE_DRAWN,
    PLACE_INSTALLED,
    POOL,
    S_OVER,
    SEL_ABILITY,
    SEL_LEFT,
    SEL_MASK,
    SLOT_ANOMALY,
    SLOT_EARTH,
    SLOT_EMPTY,
    SLOT_ID,
    SLOT_KIND,
    SONIC,
    SONIC_LIMIT,
    STAGE,
    TARDIS,
    TASK_IMPRISONED,
    WIN_DOCTORS,
    WINNER,
    ZONE_DALEKS,
    ZONE_DILEMMA,
    ZONE_FACE_UP,
    ZONES_PER_SLOT,
)

COND_FIXED_POINT = 1
COND_TIME_LOCKED = 2
COND_TIME_BREACH = 4
ONGOING_EXTRA_SHIP = 1
ONGOING_BREACH = 2
ONGOING_FIXED = 3
ONGOING_LOCKED = 4


# --- players ----------------------------------------------------------------------
@njit
def clear_adventure(state):
    """No adventure in progress: no zone, Challenge, help, dice pools or dice (what the
    observation and ``describe()["adventure"]`` show of an adventure is its own, never a
    finished one's)."""
    state[ADV_SLOT] = -1
    state[ADV_ZONE] = 0
    for s in range(NUM_SYMBOLS):
        state[CHALLENGE + s] = 0
    state[ADV_CONDITIONS] = 0
    state[HELPER] = -1
    state[HELP_MODE] = 0
    for c in range(2 * NUM_COLOURS):
        state[POOL + c] = 0
    state[BUILDER] = 0
    for d in range(MAX_DICE):
        state[DIE_COLOUR + d] = -1
        state[DIE_FACE + d] = 0
    state[FACE_CHANGED] = 0
    state[MANIPULATOR] = 0
    state[SEL_ABILITY] = -1
    state[SEL_LEFT] = 0
    state[SEL_MASK] = 0


@njit
def num_players(tables):
    return tables[T_NUM_PLAYERS]


@njit
def add_sonic(state, seat, n):
    v = state[SONIC + seat] + n
    if v > SONIC_LIMIT:
        v = SONIC_LIMIT
    if v < 0:
        v = 0
    state[SONIC + seat] = v


@njit
def move_tardis(state, tables, seat, n):
    v = state[TARDIS + seat] + n
    if v > tables[T_TRACK]:
        v = tables[T_TRACK]  # Gallifrey is the goal: movement stops there
    if v < 0:
        v = 0
    state[TARDIS + seat] = v


# --- Timey-Wimey cards ------------------------------------------------------------------
@njit
def hand_size(state, seat):
    n = 0
    for c in range(NUM_CARDS):
        if state[CARD_PLACE + c] == seat:
            n += 1
    return n


@njit
def can_pay_one(state, seat):
    """A Sonic Charge token or a Timey-Wimey card to discard."""
    return state[SONIC + seat] >= 1 or hand_size(state, seat) >= 1


@njit
def can_pay_tax(state, seat):
    return state[SONIC + seat] >= 2 or hand_size(state, seat) >= 1


@njit
def draw_card(state, tables, seat):
    """A uniformly random card of the deck to ``seat``'s hand; an empty deck is
    refilled from the discard pile first (ruling). Returns the card or -1."""
    c = draw_from(state, tables, CARD_PLACE, NUM_CARDS)
    if c >= 0:
        state[CARD_PLACE + c] = seat
    return c


@njit
def equipment_slot_of(state, seat, card):
    for e in range(EQUIPMENT_SLOTS):
        if state[EQUIPMENT + seat * EQUIPMENT_SLOTS + e] == card:
            return e
    return -1


@njit
def discard_card(state, card):
    """Any card (hand or console) to the discard pile."""
    place = state[CARD_PLACE + card]
    if place >= PLACE_INSTALLED:
        seat = place - PLACE_INSTALLED
        e = equipment_slot_of(state, seat, card)
        if e >= 0:
            state[EQUIPMENT + seat * EQUIPMENT_SLOTS + e] = -1
    state[CARD_PLACE + card] = PLACE_DISCARD


# --- Companions ------------------------------------------------------------------------
@njit
def companion_count(state, seat):
    n = 0
    for k in range(COMPANION_SPACES):
        if state[COMPANION + seat * COMPANION_SPACES + k] >= 0:
            n += 1
    return n


@njit
def free_space(state, seat):
    for k in range(COMPANION_SPACES):
        if state[COMPANION + seat * COMPANION_SPACES + k] < 0:
            return k
    return -1


@njit
def add_companion(state, seat, companion, part_time):
    k = free_space(state, seat)
    state[COMPANION + seat * COMPANION_SPACES + k] = companion
    state[PART_TIME + seat * COMPANION_SPACES + k] = part_time
    state[COMPANION_PLACE + companion] = seat


@njit
def remove_companion(state, seat, companion, to_place):
    """Off the console: ``PLACE_DECK`` dismisses (back into its deck), ``PLACE_DISCARD`` discards."""
    for k in range(COMPANION_SPACES):
        if state[COMPANION + seat * COMPANION_SPACES + k] == companion:
            state[COMPANION + seat * COMPANION_SPACES + k] = -1
            state[PART_TIME + seat * COMPANION_SPACES + k] = 0
    state[COMPANION_PLACE + companion] = to_place


@njit
def companion_deck(tables, companion):
    return tables[T_COMPANIONS + companion * COMPANION_FIELDS + COMPANION_DECK]


@njit
def draw_companion(state, tables, deck):
    """A uniformly random Companion of ``deck`` (0 Earth, 1 Alien), or -1: Companion
    decks are never refilled (rulebook)."""
    n = 0
    for k in range(NUM_COMPANIONS):
        if state[COMPANION_PLACE + k] == PLACE_DECK and companion_deck(tables, k) == deck:
            n += 1
    if n == 0:
        return -1
    pick = rng_below(state, RNG_KEY, n)
    for k in range(NUM_COMPANIONS):
        if state[COMPANION_PLACE + k] == PLACE_DECK and companion_deck(tables, k) == deck:
            if pick == 0:
                return k
            pick -= 1
    return -1


@njit
def deck_has_companion(state, tables, deck):
    for k in range(NUM_COMPANIONS):
        if state[COMPANION_PLACE + k] == PLACE_DECK and companion_deck(tables, k) == deck:
            return True
    return False


# --- Locations and Dilemmas --------------------------------------------------------------
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


# --- Dalek markers ----------------------------------------------------------------------
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
def end_game(state, tables, winner_kind):
    """Finish the game: Dalek wins give every Doctor -1; a Doctors' win gives +1 to each
    Doctor on Gallifrey and 0 to the others (a solo Doctor: +1)."""
    state[STATUS] = TERMINATED
    state[STAGE] = S_OVER
    state[WINNER] = winner_kind
    n = tables[T_NUM_PLAYERS]
    for p in range(MAX_PLAYERS):
        state[REWARDS + p] = 0
    for p in range(n):
        if winner_kind == WIN_DOCTORS:
            state[REWARDS + p] = 1 if state[TARDIS + p] >= tables[T_TRACK] else 0
        else:
            state[REWARDS + p] = -1
    state[OBL_COUNT] = 0


@njit
def truncate(state):
    state[STATUS] = TRUNCATED
    state[STAGE] = S_OVER
    state[OBL_COUNT] = 0


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


# --- obligations -------------------------------------------------------------------------
@njit
def push_obligation(state, seat, kind, amount):
    n = state[OBL_COUNT]
    if n >= MAX_OBLIGATIONS:
        return
    state[OBLIGATIONS + 3 * n] = seat
    state[OBLIGATIONS + 3 * n + 1] = kind
    state[OBLIGATIONS + 3 * n + 2] = amount
    state[OBL_COUNT] = n + 1


@njit
def pop_obligation(state):
    n = state[OBL_COUNT]
    for i in range(3, 3 * n):
        state[OBLIGATIONS + i - 3] = state[OBLIGATIONS + i]
    state[OBL_COUNT] = n - 1


# --- the adventure -------------------------------------------------------------------------
@njit
def task_ongoing(state, tables, effect):
    for a in range(NUM_ANOMALIES):
        if state[ANOMALY_STATE + a] == AS_TASK and tables[T_ANOMALIES + a * ANOMALY_FIELDS + AN_ONGOING] == effect:
            return True
    return False


@njit
def conditions_here(state, tables, slot, z):
    """Fixed Point / Time Locked / Time Breach bits in force for an adventure at this
    zone (its Dilemma or Location anomaly, and Task anomalies in play); none in the first game."""
    if tables[T_FIRST_GAME]:
        return 0
    bits = 0
    if state[SLOT_KIND + slot] == SLOT_ANOMALY:
        a = state[SLOT_ID + slot]
        bits |= tables[T_ANOMALIES + a * ANOMALY_FIELDS + AN_CONDITIONS]
    else:
        d = state[ZONE_DILEMMA + slot * ZONES_PER_SLOT + z]
        if d >= 0:
            bits |= tables[T_DILEMMAS + d * DILEMMA_FIELDS + DL_CONDITIONS]
    if task_ongoing(state, tables, ONGOING_BREACH):
        bits |= COND_TIME_BREACH
    if task_ongoing(state, tables, ONGOING_FIXED):
        bits |= COND_FIXED_POINT
    if task_ongoing(state, tables, ONGOING_LOCKED):
        bits |= COND_TIME_LOCKED
    return bits


@njit
def set_challenge(state, tables, slot, z):
    """The Challenge: the zone's symbols plus its Dilemma's (a Location anomaly: its own)."""
    for s in range(NUM_SYMBOLS):
        state[CHALLENGE + s] = 0
    if state[SLOT_KIND + slot] == SLOT_ANOMALY:
        a = state[SLOT_ID + slot]
        for s in range(NUM_SYMBOLS):
            state[CHALLENGE + s] = tables[T_ANOMALIES + a * ANOMALY_FIELDS + 3 + s]
    else:
        rec = zone_record(state, slot, z)
        for s in range(NUM_SYMBOLS):
            state[CHALLENGE + s] = tables[T_ZONES + rec * ZONE_FIELDS + s]
        d = state[ZONE_DILEMMA + slot * ZONES_PER_SLOT + z]
        if d >= 0:
            for s in range(NUM_SYMBOLS):
                state[CHALLENGE + s] += tables[T_DILEMMAS + d * DILEMMA_FIELDS + s]
    state[ADV_CONDITIONS] = conditions_here(state, tables, slot, z)


@njit
def challenge_met(state):
    """Every symbol of the Challenge is shown by a different die (both pools together)."""
    for s in range(NUM_SYMBOLS):
        need = state[CHALLENGE + s]
        if need == 0:
            continue
        have = 0
        for d in range(MAX_DICE):
            if state[DIE_COLOUR + d] >= 0 and state[DIE_FACE + d] == s:
                have += 1
        if have < need:
            return False
    return True


@njit
def imprisoned(state, tables, colour):
    n = 0
    for a in range(NUM_ANOMALIES):
        if state[ANOMALY_STATE + a] == AS_TASK and tables[T_ANOMALIES + a * ANOMALY_FIELDS + AN_IMPRISON_COLOUR] == colour:
            n += state[TASK_IMPRISONED + a]
    return n


@njit
def supply_left(state, tables, colour, pool):
    """Dice of ``colour`` still on the table for ``pool`` to take: the physical dice
    less those imprisoned and those already in either pool."""
    return DICE_SUPPLY[colour] - imprisoned(state, tables, colour) - state[POOL + colour] - state[POOL + NUM_COLOURS + colour] + 0 * pool


@njit
def roll_die(state, colour):
    return DIE_FACES[colour, rng_below(state, RNG_KEY, 6)]


@njit
def doctor_at(state, tables, slot):
    """1 if any Doctor marker is on this slot."""
    for p in range(tables[T_NUM_PLAYERS]):
        if state[AT_SLOT + p] == slot:
            return True
    return False
