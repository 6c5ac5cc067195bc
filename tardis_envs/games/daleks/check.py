"""Time of the Daleks: ``check_state``, every word of a state from outside against its
range and the game's invariants (the contract in :mod:`tardis_envs.core.state`).

Ranges come from :mod:`.layout` and the tables (player count, track length, abilities);
the invariants tie the words that name one another: Equipment slots and Companion
spaces to the places of the cards and Companions, Locations and Dilemmas to the slots
and zones that hold them, Location Time Anomalies to their slots, at most six Dalek
markers on the board, one Doctor card per seat.
"""

from __future__ import annotations

from ...core.game import EarlierLayout
from ...core.jit import njit
from ...core.state import MAX_PLAYERS, RUNNING, STATUS, VALID, first_outside
from .content import (
    DICE_SUPPLY,
    MAX_ABILITIES,
    NUM_ANOMALIES,
    NUM_CARDS,
    NUM_COLOURS,
    NUM_COMPANIONS,
    NUM_DILEMMAS,
    NUM_DOCTORS,
    NUM_LOCATIONS,
    NUM_SYMBOLS,
    T_NUM_ABILITIES,
    T_NUM_PLAYERS,
    T_TRACK,
)
from .layout import (
    ACTIVE,
    ADV_CONDITIONS,
    ADV_SLOT,
    ADV_ZONE,
    ANOMALY_SLOT,
    ANOMALY_STATE,
    AS_LOCATION,
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
    DOCTOR,
    DRAWN,
    EQUIPMENT,
    EQUIPMENT_SLOTS,
    FACE_CHANGED,
    FAIL_DILEMMA,
    FAIL_SEAT,
    GIVE_CARD,
    HELP_COME,
    HELP_MODE,
    HELPER,
    LAST_ANOMALY,
    LAST_CHALLENGE_ZONE,
    LAST_RESULT,
    LAST_RESULT_SEAT,
    LAST_TARDIS_DIE,
    LOCATION_PLACE,
    MANIPULATOR,
    MARKER,
    MARKER_SLOTS,
    MAX_DALEKS,
    MAX_DICE,
    MAX_OBLIGATIONS,
    MAX_SLOTS,
    MAX_ZONES,
    OB_HAND_LIMIT,
    OBL_COUNT,
    OBLIGATIONS,
    PART_TIME,
    PLACE_DISCARD,
    PLACE_DRAWN,
    PLACE_GIVING,
    PLACE_INSTALLED,
    PLACE_REMOVED,
    POOL,
    RECRUIT_ALIEN,
    RECRUIT_PENDING,
    RETURN_STAGE,
    ROUND,
    S_OVER,
    SEL_ABILITY,
    SEL_LEFT,
    SEL_MASK,
    SEL_SEAT,
    SHIP,
    SLOT_ANOMALY,
    SLOT_EARTH,
    SLOT_ID,
    SLOT_KIND,
    SLOT_TILE,
    SONIC,
    SONIC_LIMIT,
    STAGE,
    STAGE_NAMES,
    STALLED,
    TARDIS,
    TASK_IMPRISONED,
    TASK_PROGRESS,
    USED,
    WIN_SEVENTH,
    WINDOW_LEFT,
    WINDOW_RETURN,
    WINDOW_SEAT,
    WINNER,
    ZONE_DALEKS,
    ZONE_DILEMMA,
    ZONE_FACE_UP,
    ZONES_PER_SLOT,
)

NUM_STAGES = len(STAGE_NAMES)
MAX_COUNT = 1 << 20  # a counter no game reaches (rounds, Dalek markers placed, task progress)
MAX_AMOUNT = 64  # an obligation's amount, a Challenge's symbols
MAX_CONDITIONS = 1 << 3  # COND_* bits
SEL_BITS = 1 << MAX_DICE

(
    BAD_STAGE,
    STAGE_VS_STATUS,
    BAD_SEAT,
    BAD_COUNT,
    BAD_WINNER,
    BAD_SHIP,
    BAD_DOCTOR,
    SAME_DOCTOR,
    BAD_SONIC,
    BAD_SLOT_OR_ZONE,
    BAD_COMPANION,
    BAD_FLAG,
    BAD_EQUIPMENT,
    BAD_CARD_PLACE,
    EQUIPMENT_VS_PLACES,
    BAD_COMPANION_PLACE,
    COMPANIONS_VS_PLACES,
    BAD_LOCATION_PLACE,
    BAD_DILEMMA_PLACE,
    BAD_ANOMALY,
    BAD_SLOT_KIND,
    BAD_SLOT_ID,
    BAD_ZONE_DILEMMA,
    TOO_MANY_DALEKS,
    BAD_CHALLENGE,
    BAD_HELP,
    BAD_POOL,
    BAD_DIE,
    BAD_SELECTION,
    BAD_WINDOW,
    BAD_RECRUIT,
    BAD_FAIL,
    BAD_GIVE_CARD,
    BAD_DRAWN,
    BAD_OBLIGATION,
    BAD_LAST,
    EMPTY_SEAT_IN_USE,
    BAD_TARDIS,
    BAD_MARKER,
) = range(1, 40)

PROBLEMS = (
    ("valid", "-"),
    ("stage", f"a stage 0..{NUM_STAGES - 1}"),
    ("stage", f"{S_OVER} (over) exactly when the status is not running"),
    ("seat (active, helper, chooser, window, fail cost)", "a seat of the game (-1 where none may be)"),
    ("count (round, Dalek markers placed)", f"0..{MAX_COUNT}"),
    ("winner", f"0 (none) .. {WIN_SEVENTH}"),
    ("Dalek Ship's space", "a space of the Web of Time, 0 (Skaro) .. Gallifrey's"),
    ("Doctor card", f"a Doctor 0..{NUM_DOCTORS - 1} for each seat of the game"),
    ("Doctor card", "a different Doctor for each seat"),
    ("Sonic tokens", f"0..{SONIC_LIMIT}"),
    ("Doctor's place", f"on the console (-1) or a slot 0..{MAX_SLOTS - 1} in play, zone 0..{ZONES_PER_SLOT - 1}"),
    ("Companion space", f"-1 (empty) or a Companion 0..{NUM_COMPANIONS - 1}"),
    ("flag", "0 or 1"),
    ("Equipment slot", f"-1 (empty) or a card 0..{NUM_CARDS - 1}"),
    ("Timey-Wimey card's place", "deck (-1), discard (-2), a seat's hand or console, or on its way as a Transfer card (-4)"),
    ("Equipment slots", "the cards whose place is that seat's console, each once"),
    ("Companion's place", "deck (-1), discard (-2), out of the game (-3) or a seat's console"),
    ("Companion spaces", "the Companions whose place is that seat's console, each once"),
    ("Location's place", "deck (-1), discard (-2), drawn (-4) or the slot that holds it"),
    ("Dilemma's place", "deck (-1), discard (-2), out of the game (-3) or the zone that holds it"),
    ("Time Anomaly", "a state 0..4, its slot holding it while it is a Location, task counters >= 0"),
    ("slot kind", "0 (empty) .. 3 (anomaly); slot 0 is Earth"),
    ("slot's Location or anomaly", "-1 for Earth or an empty slot, else the Location tile or Time Anomaly whose place is that slot"),
    ("zone's Dilemma", f"-1 (none) or a Dilemma 0..{NUM_DILEMMAS - 1} whose place is that zone"),
    ("Dalek markers", f"0 or more a zone, at most {MAX_DALEKS} in all"),
    ("Challenge or conditions", f"0..{MAX_AMOUNT} symbols of each kind, condition bits 0..{MAX_CONDITIONS - 1}"),
    ("help", "a helper seat or -1, and a way of helping 0..2"),
    ("dice pool", "0 .. the supply of dice of a colour; the builder and manipulator 0 or 1"),
    ("die", f"colour -1 (no die) .. {NUM_COLOURS - 1}, face 0..{NUM_SYMBOLS - 1}, facing-changed bits 0..3"),
    ("dice selection", "an ability row or -1, dice left 0..16, a 16-bit set of dice"),
    ("Any Adventure window", "the seat asked and the seats still to ask"),
    ("recruit", f"-3 (alien deck), -2 (Earth deck), 0 or a Companion 0..{NUM_COMPANIONS - 1}"),
    ("fail cost", f"-1 (none) or a Dilemma 0..{NUM_DILEMMAS - 1}"),
    ("Transfer card", f"-1 (none) or a card 0..{NUM_CARDS - 1}"),
    ("drawn Location", f"-1 (none) or a Location 0..{NUM_LOCATIONS - 1} whose place is drawn"),
    ("obligation", f"count 0..{MAX_OBLIGATIONS}; each queued one a seat, a kind 0..{OB_HAND_LIMIT}, an amount 0..{MAX_AMOUNT}"),
    ("last chance event or adventure", "TARDIS die -1..1, anomaly -1..7, result 0..2, a seat or -1, a zone or -1"),
    ("word of a seat not in the game", "the opening's words for a seat no one plays"),
    ("TARDIS's space", "a space of the Web of Time, 0 (Skaro) .. Gallifrey's"),
    ("Time Anomaly marker", "-1 (gone) or a space of the Web of Time, 0 (Skaro) .. Gallifrey's"),
)


@njit
def _seat_or_none(value, n):
    return -1 <= value < n


@njit
def check_state(state, tables):
    """``(0, -1)`` for a valid Time of the Daleks state, else ``(code, index)`` (``PROBLEMS``)."""
    n = tables[T_NUM_PLAYERS]
    track = tables[T_TRACK]
    code, index = _check_turn(state, n, track)
    if code != VALID:
        return code, index
    code, index = _check_consoles(state, n, track)
    if code != VALID:
        return code, index
    code, index = _check_board(state)
    if code != VALID:
        return code, index
    return _check_adventure(state, tables, n)


@njit
def _check_turn(state, n, track):
    """Stage, seats, counters and the Web of Time."""
    if not 0 <= state[STAGE] < NUM_STAGES:
        return BAD_STAGE, STAGE
    if (state[STAGE] == S_OVER) != (state[STATUS] != RUNNING):
        return STAGE_VS_STATUS, STAGE
    for at in (RETURN_STAGE, WINDOW_RETURN):
        if not 0 <= state[at] < NUM_STAGES:
            return BAD_STAGE, at
    if not 0 <= state[ACTIVE] < n:
        return BAD_SEAT, ACTIVE
    for at in (ROUND, DALEKS_PLACED):
        if not 0 <= state[at] <= MAX_COUNT:
            return BAD_COUNT, at
    if not 0 <= state[WINNER] <= WIN_SEVENTH:
        return BAD_WINNER, WINNER
    if not 0 <= state[SHIP] <= track:
        return BAD_SHIP, SHIP
    i = first_outside(state, MARKER, MARKER_SLOTS, -1, track)
    if i >= 0:
        return BAD_MARKER, i
    if not 0 <= state[STALLED] <= 1:
        return BAD_FLAG, STALLED
    return VALID, -1


@njit
def _check_consoles(state, n, track):
    """Each seat's Doctor, TARDIS, Sonic, place, Companions and Equipment, and the places of
    the cards and Companions those name."""
    for p in range(MAX_PLAYERS):
        if p >= n:  # a seat no one plays keeps the opening's words
            if state[DOCTOR + p] != -1 or state[TARDIS + p] != 0 or state[SONIC + p] != 0 or state[AT_SLOT + p] != -1:
                return EMPTY_SEAT_IN_USE, DOCTOR + p
            if state[AT_ZONE + p] != 0:
                return EMPTY_SEAT_IN_USE, AT_ZONE + p
            i = first_outside(state, COMPANION + p * COMPANION_SPACES, COMPANION_SPACES, -1, -1)
            if i < 0:
                i = first_outside(state, PART_TIME + p * COMPANION_SPACES, COMPANION_SPACES, 0, 0)
            if i < 0:
                i = first_outside(state, EQUIPMENT + p * EQUIPMENT_SLOTS, EQUIPMENT_SLOTS, -1, -1)
            if i >= 0:
                return EMPTY_SEAT_IN_USE, i
            continue
        if not 0 <= state[DOCTOR + p] < NUM_DOCTORS:
            return BAD_DOCTOR, DOCTOR + p
        for q in range(p):
            if state[DOCTOR + q] == state[DOCTOR + p]:
                return SAME_DOCTOR, DOCTOR + p
        if not 0 <= state[TARDIS + p] <= track:
            return BAD_TARDIS, TARDIS + p
        if not 0 <= state[SONIC + p] <= SONIC_LIMIT:
            return BAD_SONIC, SONIC + p
        if not -1 <= state[AT_SLOT + p] < MAX_SLOTS:
            return BAD_SLOT_OR_ZONE, AT_SLOT + p
        if not 0 <= state[AT_ZONE + p] < ZONES_PER_SLOT:
            return BAD_SLOT_OR_ZONE, AT_ZONE + p
        if state[AT_SLOT + p] >= 0 and state[SLOT_KIND + state[AT_SLOT + p]] == 0:
            return BAD_SLOT_OR_ZONE, AT_SLOT + p
        i = first_outside(state, PART_TIME + p * COMPANION_SPACES, COMPANION_SPACES, 0, 1)
        if i >= 0:
            return BAD_FLAG, i
        for k in range(COMPANION_SPACES):
            at = COMPANION + p * COMPANION_SPACES + k
            companion = state[at]
            if not -1 <= companion < NUM_COMPANIONS:
                return BAD_COMPANION, at
            if companion >= 0 and state[COMPANION_PLACE + companion] != p:
                return COMPANIONS_VS_PLACES, at
            for other in range(k):
                if companion >= 0 and state[COMPANION + p * COMPANION_SPACES + other] == companion:
                    return COMPANIONS_VS_PLACES, at
        for e in range(EQUIPMENT_SLOTS):
            at = EQUIPMENT + p * EQUIPMENT_SLOTS + e
            card = state[at]
            if not -1 <= card < NUM_CARDS:
                return BAD_EQUIPMENT, at
            if card >= 0 and state[CARD_PLACE + card] != PLACE_INSTALLED + p:
                return EQUIPMENT_VS_PLACES, at
            if e > 0 and card >= 0 and state[at - 1] == card:
                return EQUIPMENT_VS_PLACES, at
    giving = state[GIVE_CARD]
    if not -1 <= giving < NUM_CARDS:
        return BAD_GIVE_CARD, GIVE_CARD
    for c in range(NUM_CARDS):
        place = state[CARD_PLACE + c]
        if place == PLACE_GIVING:
            if c != giving:
                return BAD_CARD_PLACE, CARD_PLACE + c
        elif not (PLACE_DISCARD <= place < n or PLACE_INSTALLED <= place < PLACE_INSTALLED + n):
            return BAD_CARD_PLACE, CARD_PLACE + c
        elif place >= PLACE_INSTALLED:  # installed: in one of that seat's Equipment slots
            held = False
            for e in range(EQUIPMENT_SLOTS):
                held = held or state[EQUIPMENT + (place - PLACE_INSTALLED) * EQUIPMENT_SLOTS + e] == c
            if not held:
                return EQUIPMENT_VS_PLACES, CARD_PLACE + c
    for k in range(NUM_COMPANIONS):
        place = state[COMPANION_PLACE + k]
        if not PLACE_REMOVED <= place < n:
            return BAD_COMPANION_PLACE, COMPANION_PLACE + k
        if place >= 0:
            held = False
            for s in range(COMPANION_SPACES):
                held = held or state[COMPANION + place * COMPANION_SPACES + s] == k
            if not held:
                return COMPANIONS_VS_PLACES, COMPANION_PLACE + k
    return VALID, -1


@njit
def _check_board(state):
    """Slots, zones, Locations, Dilemmas, Time Anomalies and Dalek markers."""
    for slot in range(MAX_SLOTS):
        kind = state[SLOT_KIND + slot]
        if not 0 <= kind <= SLOT_ANOMALY or (slot == 0) != (kind == SLOT_EARTH):
            return BAD_SLOT_KIND, SLOT_KIND + slot
        held = state[SLOT_ID + slot]
        if kind == SLOT_TILE:
            if not 0 <= held < NUM_LOCATIONS or state[LOCATION_PLACE + held] != slot:
                return BAD_SLOT_ID, SLOT_ID + slot
        elif kind == SLOT_ANOMALY:
            if not 0 <= held < NUM_ANOMALIES or state[ANOMALY_STATE + held] != AS_LOCATION or state[ANOMALY_SLOT + held] != slot:
                return BAD_SLOT_ID, SLOT_ID + slot
        elif held != -1:
            return BAD_SLOT_ID, SLOT_ID + slot
    for t in range(NUM_LOCATIONS):
        place = state[LOCATION_PLACE + t]
        if place == PLACE_DRAWN:
            if state[DRAWN] != t and state[DRAWN + 1] != t:
                return BAD_LOCATION_PLACE, LOCATION_PLACE + t
        elif not PLACE_DISCARD <= place < MAX_SLOTS:
            return BAD_LOCATION_PLACE, LOCATION_PLACE + t
        elif place >= 0 and (state[SLOT_KIND + place] != SLOT_TILE or state[SLOT_ID + place] != t):
            return BAD_LOCATION_PLACE, LOCATION_PLACE + t
    for j in range(2):
        drawn = state[DRAWN + j]
        if not -1 <= drawn < NUM_LOCATIONS or (drawn >= 0 and state[LOCATION_PLACE + drawn] != PLACE_DRAWN):
            return BAD_DRAWN, DRAWN + j
    for zone in range(MAX_ZONES):
        d = state[ZONE_DILEMMA + zone]
        if not -1 <= d < NUM_DILEMMAS or (d >= 0 and state[DILEMMA_PLACE + d] != zone):
            return BAD_ZONE_DILEMMA, ZONE_DILEMMA + zone
    for d in range(NUM_DILEMMAS):
        place = state[DILEMMA_PLACE + d]
        if not PLACE_REMOVED <= place < MAX_ZONES or (place >= 0 and state[ZONE_DILEMMA + place] != d):
            return BAD_DILEMMA_PLACE, DILEMMA_PLACE + d
    i = first_outside(state, ZONE_FACE_UP, MAX_ZONES, 0, 1)
    if i < 0:
        i = first_outside(state, DILEMMA_SEEN, NUM_DILEMMAS, 0, 1)
    if i >= 0:
        return BAD_FLAG, i
    daleks = 0
    for zone in range(MAX_ZONES):
        if not 0 <= state[ZONE_DALEKS + zone] <= MAX_DALEKS:
            return TOO_MANY_DALEKS, ZONE_DALEKS + zone
        daleks += state[ZONE_DALEKS + zone]
    if daleks > MAX_DALEKS:
        return TOO_MANY_DALEKS, -1
    for a in range(NUM_ANOMALIES):
        status = state[ANOMALY_STATE + a]
        if not 0 <= status <= AS_TASK:
            return BAD_ANOMALY, ANOMALY_STATE + a
        slot = state[ANOMALY_SLOT + a]
        if not -1 <= slot < MAX_SLOTS:
            return BAD_ANOMALY, ANOMALY_SLOT + a
        if status == AS_LOCATION and (slot < 0 or state[SLOT_KIND + slot] != SLOT_ANOMALY or state[SLOT_ID + slot] != a):
            return BAD_ANOMALY, ANOMALY_SLOT + a
        for at in (TASK_PROGRESS + a, TASK_IMPRISONED + a):
            if not 0 <= state[at] <= MAX_COUNT:
                return BAD_ANOMALY, at
    return VALID, -1


@njit
def _check_adventure(state, tables, n):
    """The adventure under way (zone, Challenge, help, dice, selections, windows), the
    queued obligations and the record of the last chance event."""
    i = first_outside(state, USED, MAX_ABILITIES, 0, 1)
    if i >= 0:
        return BAD_FLAG, i
    slot = state[ADV_SLOT]
    if not -1 <= slot < MAX_SLOTS or not -1 <= state[ADV_ZONE] < ZONES_PER_SLOT:
        return BAD_SLOT_OR_ZONE, ADV_SLOT if not -1 <= slot < MAX_SLOTS else ADV_ZONE
    i = first_outside(state, CHALLENGE, NUM_SYMBOLS, 0, MAX_AMOUNT)
    if i >= 0:
        return BAD_CHALLENGE, i
    if not 0 <= state[ADV_CONDITIONS] < MAX_CONDITIONS:
        return BAD_CHALLENGE, ADV_CONDITIONS
    if not _seat_or_none(state[HELPER], n):
        return BAD_HELP, HELPER
    if not 0 <= state[HELP_MODE] <= HELP_COME:
        return BAD_HELP, HELP_MODE
    for pool in range(2):
        for c in range(NUM_COLOURS):
            at = POOL + pool * NUM_COLOURS + c
            if not 0 <= state[at] <= DICE_SUPPLY[c]:
                return BAD_POOL, at
    for at in (BUILDER, MANIPULATOR):
        if not 0 <= state[at] <= 1:
            return BAD_POOL, at
    if not 0 <= state[FACE_CHANGED] <= 3:  # a bit a pool: its first change of facing is made
        return BAD_DIE, FACE_CHANGED
    i = first_outside(state, DIE_COLOUR, MAX_DICE, -1, NUM_COLOURS - 1)
    if i < 0:
        i = first_outside(state, DIE_FACE, MAX_DICE, 0, NUM_SYMBOLS - 1)
    if i >= 0:
        return BAD_DIE, i
    if not -1 <= state[SEL_ABILITY] < tables[T_NUM_ABILITIES]:
        return BAD_SELECTION, SEL_ABILITY
    if not 0 <= state[SEL_LEFT] <= MAX_DICE:
        return BAD_SELECTION, SEL_LEFT
    if not 0 <= state[SEL_MASK] < SEL_BITS:
        return BAD_SELECTION, SEL_MASK
    for at in (SEL_SEAT, WINDOW_SEAT, FAIL_SEAT, LAST_RESULT_SEAT):
        if not _seat_or_none(state[at], n):
            return BAD_SEAT, at
    if not 0 <= state[WINDOW_LEFT] < max(n, 1):
        return BAD_WINDOW, WINDOW_LEFT
    if not RECRUIT_ALIEN <= state[RECRUIT_PENDING] < NUM_COMPANIONS or state[RECRUIT_PENDING] == -1:
        return BAD_RECRUIT, RECRUIT_PENDING
    if not -1 <= state[FAIL_DILEMMA] < NUM_DILEMMAS:
        return BAD_FAIL, FAIL_DILEMMA
    count = state[OBL_COUNT]
    if not 0 <= count <= MAX_OBLIGATIONS:
        return BAD_OBLIGATION, OBL_COUNT
    for k in range(count):
        at = OBLIGATIONS + 3 * k
        if not 0 <= state[at] < n:
            return BAD_OBLIGATION, at
        if not 0 <= state[at + 1] <= OB_HAND_LIMIT:
            return BAD_OBLIGATION, at + 1
        if not 0 <= state[at + 2] <= MAX_AMOUNT:
            return BAD_OBLIGATION, at + 2
    if not -1 <= state[LAST_TARDIS_DIE] <= 1:
        return BAD_LAST, LAST_TARDIS_DIE
    if not -1 <= state[LAST_ANOMALY] < NUM_ANOMALIES:
        return BAD_LAST, LAST_ANOMALY
    if not 0 <= state[LAST_RESULT] <= 2:
        return BAD_LAST, LAST_RESULT
    if not -1 <= state[LAST_CHALLENGE_ZONE] < MAX_ZONES:
        return BAD_LAST, LAST_CHALLENGE_ZONE
    return VALID, -1


# no state was ever stored in another layout of this game
EARLIER_LAYOUTS: tuple[EarlierLayout, ...] = ()
