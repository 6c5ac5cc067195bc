"""Time of the Daleks: the observation of one seat (a flat ``float32`` vector).

Seats appear relative to the observer: block 0 is the observer, blocks 1-3 the next
seats in turn order (empty when absent). Everything on the table is public (track,
consoles, Locations, face-up Dilemmas, Dalek markers, dice, decks' sizes and discard
piles); the observer sees its own hand only, other hands by size, and a face-down
Dilemma only as "face down". See ``tardis_envs.time_of_the_daleks_v2`` for the table
of segments.
"""

from __future__ import annotations

from ...core.jit import njit
from ...core.observation import put
from ...core.state import CURRENT_PLAYER, RUNNING, STATUS
from .components.cards import hand_size
from .content import (
    AN_IMPRISON_COUNT,
    AN_PROGRESS_NEEDED,
    ANOMALY_FIELDS,
    MAX_ABILITIES,
    NUM_ANOMALIES,
    NUM_CARDS,
    NUM_COLOURS,
    NUM_COMPANIONS,
    NUM_DILEMMAS,
    NUM_LOCATIONS,
    NUM_SYMBOLS,
    T_ANOMALIES,
    T_MAX_ROUNDS,
    T_NUM_PLAYERS,
    T_TRACK,
)
from .layout import (
    ACTIVE,
    ADV_CONDITIONS,
    ANOMALY_STATE,
    AT_SLOT,
    AT_ZONE,
    CARD_PLACE,
    CHALLENGE,
    COMPANION,
    COMPANION_PLACE,
    COMPANION_SPACES,
    DIE_COLOUR,
    DIE_FACE,
    DILEMMA_PLACE,
    DILEMMA_SEEN,
    DOCTOR,
    DRAWN,
    FACE_CHANGED,
    HELP_MODE,
    HELPER,
    LAST_RESULT,
    LAST_TARDIS_DIE,
    LOCATION_PLACE,
    MANIPULATOR,
    MARKER,
    MARKER_SLOTS,
    MAX_DICE,
    MAX_SLOTS,
    OBL_COUNT,
    OBLIGATIONS,
    PART_TIME,
    PLACE_DECK,
    PLACE_DISCARD,
    PLACE_INSTALLED,
    POOL,
    ROUND,
    SEL_LEFT,
    SEL_MASK,
    SHIP,
    SLOT_ID,
    SLOT_KIND,
    SONIC,
    STAGE,
    STAGE_NAMES,
    TARDIS,
    TASK_IMPRISONED,
    TASK_PROGRESS,
    USED,
    ZONE_DALEKS,
    ZONE_DILEMMA,
    ZONE_FACE_UP,
    ZONES_PER_SLOT,
)

TRACK_CELLS = 25  # track spaces 0..24 (the longest track option)
NUM_STAGES = len(STAGE_NAMES)
NUM_OBLIGATION_KINDS = 6

O_ROUND = 0
O_SHIP = O_ROUND + 1  # one-hot over the track
O_MARKERS = O_SHIP + TRACK_CELLS  # a Time Anomaly marker on the space
O_TARDIS = O_MARKERS + TRACK_CELLS  # 4 relative seats x one-hot track
# per relative seat
SB_PRESENT = 0
SB_DOCTOR = 1  # 4
SB_SONIC = 5
SB_HAND = 6
SB_ON_CONSOLE = 7
SB_COMPANION = 8  # 27
SB_PART_TIME = SB_COMPANION + NUM_COMPANIONS  # 27
SB_EQUIPMENT = SB_PART_TIME + NUM_COMPANIONS  # 30
SB_ACTIVE = SB_EQUIPMENT + NUM_CARDS
SB_HELPER = SB_ACTIVE + 1
SB_DECIDES = SB_HELPER + 1
SEAT_BLOCK = SB_DECIDES + 1
O_SEATS = O_TARDIS + 4 * TRACK_CELLS
O_HAND = O_SEATS + 4 * SEAT_BLOCK  # own hand, one-hot over the 30 cards
# per slot
LB_KIND = 0  # 4: empty, Earth, tile, anomaly
LB_TILE = 4  # 20
LB_ANOMALY = LB_TILE + NUM_LOCATIONS  # 8
LB_ZONES = LB_ANOMALY + NUM_ANOMALIES
ZB_DILEMMA = 0  # 25: face-up Dilemma
ZB_FACE_DOWN = ZB_DILEMMA + NUM_DILEMMAS
ZB_DALEKS = ZB_FACE_DOWN + 1  # markers / 3
ZB_DOCTORS = ZB_DALEKS + 1  # 4 relative seats
ZONE_BLOCK = ZB_DOCTORS + 4
SLOT_BLOCK = LB_ZONES + ZONES_PER_SLOT * ZONE_BLOCK
O_SLOTS = O_HAND + NUM_CARDS
O_CARD_DISCARD = O_SLOTS + MAX_SLOTS * SLOT_BLOCK  # 30
O_DECKS = O_CARD_DISCARD + NUM_CARDS  # 3: card deck / 30, Location deck / 20, Dilemma deck / 25
O_DILEMMA_DISCARD = O_DECKS + 3  # 25
O_COMPANION_DECK = O_DILEMMA_DISCARD + NUM_DILEMMAS  # 27: still in its deck
O_COMPANION_OUT = O_COMPANION_DECK + NUM_COMPANIONS  # 27: discarded (out of the game)
O_ANOMALIES = O_COMPANION_OUT + NUM_COMPANIONS  # 8 x (5 states, progress / needed, imprisoned / 3)
ANOMALY_BLOCK = 7
O_CHALLENGE = O_ANOMALIES + NUM_ANOMALIES * ANOMALY_BLOCK  # 6: symbols / 4
O_CONDITIONS = O_CHALLENGE + NUM_SYMBOLS  # 3
O_HELP = O_CONDITIONS + 3  # 3: none, afar, come
O_POOLS = O_HELP + 3  # 2 x 4 dice gathered / 8
O_DICE = O_POOLS + 2 * NUM_COLOURS  # 16 x (present, colour 4, face 6, chosen)
DIE_BLOCK = 12
O_FACE_CHANGED = O_DICE + MAX_DICE * DIE_BLOCK  # 2
O_MANIPULATOR = O_FACE_CHANGED + 2  # 2
O_SEL_LEFT = O_MANIPULATOR + 2
O_DRAWN = O_SEL_LEFT + 1  # 2 x 20: Location tiles drawn for the travel choice
O_STAGE = O_DRAWN + 2 * NUM_LOCATIONS  # NUM_STAGES
O_OBLIGATION = O_STAGE + NUM_STAGES  # 6: kind of the obligation being answered
O_TARDIS_DIE = O_OBLIGATION + NUM_OBLIGATION_KINDS  # 2: question mark, TARDIS
O_RESULT = O_TARDIS_DIE + 2  # 2: last adventure succeeded / failed
O_USED = O_RESULT + 2  # MAX_ABILITIES: ability rows used this turn
OBS_SIZE = O_USED + MAX_ABILITIES


@njit
def rel(tables, player, seat):
    n = tables[T_NUM_PLAYERS]
    return (seat - player + n) % n


@njit
def observe(state, tables, player, out):
    out[:] = 0.0
    n = tables[T_NUM_PLAYERS]
    track = tables[T_TRACK]
    put(out, O_ROUND, state[ROUND], tables[T_MAX_ROUNDS])
    out[O_SHIP + state[SHIP]] = 1.0
    for j in range(MARKER_SLOTS):
        if state[MARKER + j] >= 0:
            out[O_MARKERS + state[MARKER + j]] = 1.0
    running = state[STATUS] == RUNNING
    decider = state[CURRENT_PLAYER]
    for seat in range(n):
        r = rel(tables, player, seat)
        out[O_TARDIS + r * TRACK_CELLS + min(state[TARDIS + seat], track)] = 1.0
        base = O_SEATS + r * SEAT_BLOCK
        out[base + SB_PRESENT] = 1.0
        out[base + SB_DOCTOR + state[DOCTOR + seat]] = 1.0
        put(out, base + SB_SONIC, state[SONIC + seat], 5)
        put(out, base + SB_HAND, hand_size(state, seat), 8)
        out[base + SB_ON_CONSOLE] = 1.0 if state[AT_SLOT + seat] < 0 else 0.0
        for k in range(COMPANION_SPACES):
            c = state[COMPANION + seat * COMPANION_SPACES + k]
            if c >= 0:
                out[base + SB_COMPANION + c] = 1.0
                if state[PART_TIME + seat * COMPANION_SPACES + k]:
                    out[base + SB_PART_TIME + c] = 1.0
        out[base + SB_ACTIVE] = 1.0 if state[ACTIVE] == seat else 0.0
        out[base + SB_HELPER] = 1.0 if state[HELPER] == seat else 0.0
        out[base + SB_DECIDES] = 1.0 if running and decider == seat else 0.0
    in_deck = 0
    for c in range(NUM_CARDS):
        place = state[CARD_PLACE + c]
        if place == player:
            out[O_HAND + c] = 1.0
        elif place >= PLACE_INSTALLED:
            out[O_SEATS + rel(tables, player, place - PLACE_INSTALLED) * SEAT_BLOCK + SB_EQUIPMENT + c] = 1.0
        elif place == PLACE_DISCARD:
            out[O_CARD_DISCARD + c] = 1.0
        elif place == PLACE_DECK:
            in_deck += 1
    put(out, O_DECKS, in_deck, NUM_CARDS)
    for slot in range(MAX_SLOTS):
        base = O_SLOTS + slot * SLOT_BLOCK
        kind = state[SLOT_KIND + slot]
        out[base + LB_KIND + kind] = 1.0
        if kind == 2:
            out[base + LB_TILE + state[SLOT_ID + slot]] = 1.0
        elif kind == 3:
            out[base + LB_ANOMALY + state[SLOT_ID + slot]] = 1.0
        if kind == 0:
            continue
        for z in range(ZONES_PER_SLOT):
            zone = slot * ZONES_PER_SLOT + z
            zb = base + LB_ZONES + z * ZONE_BLOCK
            d = state[ZONE_DILEMMA + zone]
            if d >= 0:
                if state[ZONE_FACE_UP + zone]:
                    out[zb + ZB_DILEMMA + d] = 1.0
                else:
                    out[zb + ZB_FACE_DOWN] = 1.0
            put(out, zb + ZB_DALEKS, state[ZONE_DALEKS + zone], 3)
    for seat in range(n):
        slot = state[AT_SLOT + seat]
        if slot >= 0:
            zb = O_SLOTS + slot * SLOT_BLOCK + LB_ZONES + state[AT_ZONE + seat] * ZONE_BLOCK
            out[zb + ZB_DOCTORS + rel(tables, player, seat)] = 1.0
    in_deck = 0
    for t in range(NUM_LOCATIONS):
        if state[LOCATION_PLACE + t] == PLACE_DECK:
            in_deck += 1
    put(out, O_DECKS + 1, in_deck, NUM_LOCATIONS)
    in_deck = 0
    for d in range(NUM_DILEMMAS):
        place = state[DILEMMA_PLACE + d]
        if place == PLACE_DECK:
            in_deck += 1
        elif place == PLACE_DISCARD and state[DILEMMA_SEEN + d]:
            out[O_DILEMMA_DISCARD + d] = 1.0  # a Dilemma discarded unseen stays unknown
    put(out, O_DECKS + 2, in_deck, NUM_DILEMMAS)
    for k in range(NUM_COMPANIONS):
        place = state[COMPANION_PLACE + k]
        if place == PLACE_DECK:
            out[O_COMPANION_DECK + k] = 1.0
        elif place == PLACE_DISCARD:
            out[O_COMPANION_OUT + k] = 1.0
    for a in range(NUM_ANOMALIES):
        base = O_ANOMALIES + a * ANOMALY_BLOCK
        out[base + state[ANOMALY_STATE + a]] = 1.0
        needed = tables[T_ANOMALIES + a * ANOMALY_FIELDS + AN_PROGRESS_NEEDED]
        if needed > 0:
            put(out, base + 5, state[TASK_PROGRESS + a], needed)
        if tables[T_ANOMALIES + a * ANOMALY_FIELDS + AN_IMPRISON_COUNT] > 0:
            put(out, base + 6, state[TASK_IMPRISONED + a], 3)
    if not running:
        return
    stage = state[STAGE]
    out[O_STAGE + stage] = 1.0
    for s in range(NUM_SYMBOLS):
        put(out, O_CHALLENGE + s, state[CHALLENGE + s], 4)
    for b in range(3):
        if (state[ADV_CONDITIONS] >> b) & 1:
            out[O_CONDITIONS + b] = 1.0
    out[O_HELP + state[HELP_MODE]] = 1.0
    for c in range(2 * NUM_COLOURS):
        put(out, O_POOLS + c, state[POOL + c], 8)
    for d in range(MAX_DICE):
        colour = state[DIE_COLOUR + d]
        if colour < 0:
            continue
        base = O_DICE + d * DIE_BLOCK
        out[base] = 1.0
        out[base + 1 + colour] = 1.0
        out[base + 5 + state[DIE_FACE + d]] = 1.0
        if (state[SEL_MASK] >> d) & 1:
            out[base + 11] = 1.0
    for p in range(2):
        if (state[FACE_CHANGED] >> p) & 1:
            out[O_FACE_CHANGED + p] = 1.0
    out[O_MANIPULATOR + state[MANIPULATOR]] = 1.0
    put(out, O_SEL_LEFT, min(state[SEL_LEFT], 8), 8)
    for j in range(2):
        if state[DRAWN + j] >= 0:
            out[O_DRAWN + j * NUM_LOCATIONS + state[DRAWN + j]] = 1.0
    if state[OBL_COUNT] > 0:
        out[O_OBLIGATION + state[OBLIGATIONS + 1]] = 1.0
    if state[LAST_TARDIS_DIE] >= 0:
        out[O_TARDIS_DIE + state[LAST_TARDIS_DIE]] = 1.0
    if state[LAST_RESULT] > 0:
        out[O_RESULT + state[LAST_RESULT] - 1] = 1.0
    for r in range(MAX_ABILITIES):
        out[O_USED + r] = state[USED + r]
