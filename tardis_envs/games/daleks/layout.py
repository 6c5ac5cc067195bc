"""Named offsets of Time of the Daleks' flat state, its stages and its action encoding.

Every rules file (setup, prepare, travel, adventure, dice, resolve, daleks) works over
the same ``int64`` state through these names; nothing here is code.

State (after the shared header of :mod:`tardis_envs.core.state`)
----------------------------------------------------------------
Places of cards: a Timey-Wimey card is in the deck (``PLACE_DECK``), the discard pile
(``PLACE_DISCARD``), a seat's hand (``0..3``) or installed on a seat's console
(``PLACE_INSTALLED + seat``). Decks hold no order: a draw takes a uniformly random card
among those in the deck, which is what drawing from a shuffled deck gives (and no
order can leak). Companions, Locations, Dilemmas and Time Anomalies use the same
places (``PLACE_REMOVED``: out of this game, e.g. advanced cards in the first game).

Location slots: slot 0 is Earth (three Time Zones); slots 1.. hold a Location tile (two
Time Zones) or a Location Time Anomaly (one). A zone ``slot * 3 + z`` has a Dilemma
(id or -1), whether it is face up, and its Dalek markers.
"""

from __future__ import annotations

from ...core.state import HEADER_SIZE, MAX_PLAYERS
from .content import MAX_ABILITIES, NUM_ANOMALIES, NUM_CARDS, NUM_COLOURS, NUM_COMPANIONS, NUM_DILEMMAS, NUM_LOCATIONS, NUM_SYMBOLS

# the version of this layout (``Game.layout_version``); a saved state of an earlier one is upgraded
LAYOUT_VERSION = 1

MAX_SLOTS = 14  # Earth + a Location per Doctor (4) + one per Dalek marker (6) + Location anomalies
ZONES_PER_SLOT = 3
MAX_ZONES = MAX_SLOTS * ZONES_PER_SLOT
COMPANION_SPACES = 3  # Companion spaces on a TARDIS Console (ruling: the example shows three)
EQUIPMENT_SLOTS = 2  # Equipment slots on a TARDIS Console (ruling)
HAND_LIMIT = 4
SONIC_LIMIT = 5
MAX_DALEKS = 6  # five Dalek markers and Davros; a seventh loses the game
MAX_DICE = 16  # dice slots of an adventure: 0..7 the Doctor being helped, 8..15 the helper
POOL_DICE = 8
MAX_OBLIGATIONS = 24
MARKER_SLOTS = 5

PLACE_DECK = -1
PLACE_DISCARD = -2
PLACE_REMOVED = -3
PLACE_INSTALLED = 4  # + seat
PLACE_DRAWN = -4  # a Location tile drawn for the travel choice, not yet placed or discarded
PLACE_GIVING = -4  # a played Transfer card on its way to the Doctor it is given to

SLOT_EMPTY = 0
SLOT_EARTH = 1
SLOT_TILE = 2
SLOT_ANOMALY = 3

# anomaly states
AS_DECK = 0
AS_DISCARD = 1
AS_REMOVED = 2
AS_LOCATION = 3
AS_TASK = 4

# --- state layout -----------------------------------------------------------------
STAGE = HEADER_SIZE
ACTIVE = STAGE + 1  # seat whose Doctor turn it is
ROUND = ACTIVE + 1
WINNER = ROUND + 1  # WIN_* below
SHIP = WINNER + 1
MARKER = SHIP + 1  # MARKER_SLOTS: spaces of the Time Anomaly markers still on the track (-1 gone)
DOCTOR = MARKER + MARKER_SLOTS  # MAX_PLAYERS: doctor card of each seat
TARDIS = DOCTOR + MAX_PLAYERS  # MAX_PLAYERS: TARDIS space
SONIC = TARDIS + MAX_PLAYERS
AT_SLOT = SONIC + MAX_PLAYERS  # -1: on the TARDIS Console (at no Location)
AT_ZONE = AT_SLOT + MAX_PLAYERS
COMPANION = AT_ZONE + MAX_PLAYERS  # MAX_PLAYERS x COMPANION_SPACES: companion id or -1
PART_TIME = COMPANION + MAX_PLAYERS * COMPANION_SPACES  # 1: recruited this adventure
EQUIPMENT = PART_TIME + MAX_PLAYERS * COMPANION_SPACES  # MAX_PLAYERS x EQUIPMENT_SLOTS: card id or -1
CARD_PLACE = EQUIPMENT + MAX_PLAYERS * EQUIPMENT_SLOTS  # NUM_CARDS
COMPANION_PLACE = CARD_PLACE + NUM_CARDS  # NUM_COMPANIONS: deck, discard, seat (console)
LOCATION_PLACE = COMPANION_PLACE + NUM_COMPANIONS  # NUM_LOCATIONS: deck, discard, or slot
DILEMMA_PLACE = LOCATION_PLACE + NUM_LOCATIONS  # NUM_DILEMMAS: deck, discard, removed, or zone
ANOMALY_STATE = DILEMMA_PLACE + NUM_DILEMMAS  # NUM_ANOMALIES: AS_*
ANOMALY_SLOT = ANOMALY_STATE + NUM_ANOMALIES  # slot of a Location anomaly
TASK_PROGRESS = ANOMALY_SLOT + NUM_ANOMALIES  # progress markers / dice freed
TASK_IMPRISONED = TASK_PROGRESS + NUM_ANOMALIES  # dice still imprisoned on it
SLOT_KIND = TASK_IMPRISONED + NUM_ANOMALIES  # MAX_SLOTS
SLOT_ID = SLOT_KIND + MAX_SLOTS
ZONE_DILEMMA = SLOT_ID + MAX_SLOTS  # MAX_ZONES
ZONE_FACE_UP = ZONE_DILEMMA + MAX_ZONES
ZONE_DALEKS = ZONE_FACE_UP + MAX_ZONES
USED = ZONE_DALEKS + MAX_ZONES  # MAX_ABILITIES: ability used this turn (by group)
# the adventure
ADV_SLOT = USED + MAX_ABILITIES
ADV_ZONE = ADV_SLOT + 1
CHALLENGE = ADV_ZONE + 1  # NUM_SYMBOLS
ADV_CONDITIONS = CHALLENGE + NUM_SYMBOLS  # COND_* bits in force
HELPER = ADV_CONDITIONS + 1  # seat or -1
HELP_MODE = HELPER + 1  # HELP_*
POOL = HELP_MODE + 1  # 2 x NUM_COLOURS: dice gathered before the roll (0 helped, 1 helper)
BUILDER = POOL + 2 * NUM_COLOURS  # whose pool is being built: 0 helped, 1 helper
DIE_COLOUR = BUILDER + 1  # MAX_DICE: colour or -1
DIE_FACE = DIE_COLOUR + MAX_DICE  # symbol shown
FACE_CHANGED = DIE_FACE + MAX_DICE  # 1 after the first change of facing (no more re-rolls)
MANIPULATOR = FACE_CHANGED + 1  # 0 helped, 1 helper: who manipulates dice now
SEL_ABILITY = MANIPULATOR + 1  # ability row being applied to chosen dice (-1 none)
SEL_LEFT = SEL_ABILITY + 1  # dice that may still be chosen
SEL_MASK = SEL_LEFT + 1  # chosen dice (bits)
SEL_SEAT = SEL_MASK + 1  # who chooses
WINDOW_SEAT = SEL_SEAT + 1  # bystander asked now (Any Adventure window)
WINDOW_LEFT = WINDOW_SEAT + 1  # bystanders still to ask after it (count)
RETURN_STAGE = WINDOW_LEFT + 1  # stage to return to after a window / a selection
RECRUIT_PENDING = RETURN_STAGE + 1  # what the paid recruit takes: RECRUIT_* or companion id
FAIL_SEAT = RECRUIT_PENDING + 1  # seat choosing a fail option
FAIL_DILEMMA = FAIL_SEAT + 1
GIVE_CARD = FAIL_DILEMMA + 1  # Transfer card waiting for a recipient
DRAWN = GIVE_CARD + 1  # 2 Location tiles drawn for the travel choice (-1 none)
OBL_COUNT = DRAWN + 2
OBLIGATIONS = OBL_COUNT + 1  # MAX_OBLIGATIONS x (seat, kind, amount)
# what chance did last (public)
LAST_TARDIS_DIE = OBLIGATIONS + 3 * MAX_OBLIGATIONS  # -1 none, 0 question mark, 1 TARDIS
LAST_ANOMALY = LAST_TARDIS_DIE + 1  # last anomaly drawn (-1)
LAST_RESULT = LAST_ANOMALY + 1  # 0 none, 1 success, 2 failure (of the last adventure)
LAST_RESULT_SEAT = LAST_RESULT + 1
LAST_CHALLENGE_ZONE = LAST_RESULT_SEAT + 1  # zone (slot*3+z) of the last adventure
DALEKS_PLACED = LAST_CHALLENGE_ZONE + 1  # Dalek markers placed this game (statistics)
STALLED = DALEKS_PLACED + 1  # 1 if a decision stage ever had no legal action (a bug; tests assert 0)
WINDOW_RETURN = STALLED + 1  # stage after the Any Adventure window
DILEMMA_SEEN = WINDOW_RETURN + 1  # NUM_DILEMMAS: 1 once turned face up (since it was last drawn)
STATE_SIZE = DILEMMA_SEEN + NUM_DILEMMAS

WIN_NONE = 0
WIN_DOCTORS = 1
WIN_SHIP = 2  # the Dalek Ship reached Gallifrey
WIN_EARTH = 3  # three Daleks on Earth
WIN_SEVENTH = 4  # a seventh Dalek marker was needed
WIN_NAMES = ("none", "doctors", "dalek ship on gallifrey", "three daleks on earth", "seventh dalek")

HELP_NONE = 0
HELP_AFAR = 1
HELP_COME = 2

RECRUIT_EARTH = -2
RECRUIT_ALIEN = -3

# obligations: a seat must choose what it loses before the game goes on
OB_PAY = 0  # one Sonic token or one card (recruit, call for help, come to help, helper's failure)
OB_TAX = 1  # two Sonic tokens or one card (Into the Dalek)
OB_DISCARD_CARD = 2  # a card from hand (fail costs, hand limit)
OB_DISCARD_COMPANION = 3
OB_DISMISS_COMPANION = 4
OB_HAND_LIMIT = 5  # discard down to four: one card per entry
OBLIGATION_NAMES = ("pay", "tax", "discard card", "discard companion", "dismiss companion", "hand limit")

# --- stages (decisions and automatic steps) ------------------------------------------
S_TURN_START = 0
S_PREPARE = 1
S_TRAVEL = 2
S_TRAVEL_CHOOSE = 3  # TARDIS face: any zone in play, or draw two
S_TRAVEL_KEEP = 4  # choose a drawn Location and its zone
S_RECRUIT = 5
S_RECRUIT_DRAW = 6  # automatic: after paying
S_CALL_HELP = 7
S_HELP_ANSWER = 8
S_POOL = 9  # focus, add dice (builder)
S_POOL_DISCARD = 10
S_EXTERMINATE = 11
S_ROLL = 12  # automatic
S_MANIPULATE = 13
S_SELECT = 14
S_WINDOW = 15
S_RESOLVE = 16  # automatic
S_FAIL_CHOICE = 17
S_FINISH = 18  # automatic
S_DALEK_TURN = 19  # automatic
S_GIVE = 20  # choose who receives a Transfer card
S_OVER = 21
S_END_TURN = 22  # automatic: pass the TARDIS die
S_DALEK_CHECK = 23  # automatic: the win checks of the Dalek turn
S_GATHER = 24  # automatic: gather the builder's starting dice
STAGE_NAMES = (
    "turn start",
    "prepare",
    "travel",
    "travel: choose",
    "travel: keep a location",
    "recruit",
    "recruit: draw",
    "call for help",
    "answer the call",
    "build the dice pool",
    "discard dice",
    "exterminate",
    "roll",
    "manipulate dice",
    "choose dice",
    "any adventure window",
    "resolve",
    "choose a fail cost",
    "finish",
    "dalek turn",
    "give a transfer card",
    "over",
    "end turn",
    "dalek turn: win checks",
    "gather dice",
)

# --- actions ----------------------------------------------------------------------
A_DONE = 0  # end prepare / stop manipulating / pass / don't recruit / no help
A_INSTALL = 1  # + card
A_UNINSTALL = A_INSTALL + NUM_CARDS  # + card
A_DISMISS = A_UNINSTALL + NUM_CARDS  # + companion
A_ABILITY = A_DISMISS + NUM_COMPANIONS  # + ability row
A_TRADE = A_ABILITY + MAX_ABILITIES  # + card on another console (Library Card)
A_SEAT = A_TRADE + NUM_CARDS  # + j: seat (mover + j + 1) % n (help, swap, give)
A_STAY = A_SEAT + 3
A_GOTO = A_STAY + 1  # + zone (slot * 3 + z)
A_ROLL_TARDIS = A_GOTO + MAX_ZONES
A_FIRST_DOCTOR = A_ROLL_TARDIS + 1
A_DRAW_TWO = A_FIRST_DOCTOR + 1
A_KEEP = A_DRAW_TWO + 1  # + j * 2 + z
A_RECRUIT_DECK = A_KEEP + 4  # + 0 earth, 1 alien
A_RECRUIT_LINK = A_RECRUIT_DECK + 2  # + companion
A_HELP_AFAR = A_RECRUIT_LINK + NUM_COMPANIONS
A_HELP_COME = A_HELP_AFAR + 1
A_DISCARD_DIE = A_HELP_COME + 1  # + colour
A_EXTERMINATE = A_DISCARD_DIE + NUM_COLOURS  # + pool * 4 + colour
A_SELECT = A_EXTERMINATE + 2 * NUM_COLOURS  # + die
A_COMMIT = A_SELECT + MAX_DICE
A_SONIC_REROLL = A_COMMIT + 1  # + die
A_SONIC_FACE = A_SONIC_REROLL + MAX_DICE  # + die * 6 + symbol
A_BLACK_REROLL = A_SONIC_FACE + MAX_DICE * NUM_SYMBOLS  # + black die discarded
A_FAIL_OPTION = A_BLACK_REROLL + MAX_DICE  # + option
A_PAY_SONIC = A_FAIL_OPTION + 2
A_DISCARD_CARD = A_PAY_SONIC + 1  # + card
A_LOSE_COMPANION = A_DISCARD_CARD + NUM_CARDS  # + companion
NUM_ACTIONS = A_LOSE_COMPANION + NUM_COMPANIONS
