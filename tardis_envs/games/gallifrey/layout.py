"""Ghosts of Gallifrey duel: the words of the flat ``int64`` state, the action numbers
and the observation entries every kernel module shares (no rules here).

State layout (after the shared header of :mod:`tardis_envs.core.state`)
------------------------------------------------------------------------
==========================  ==================================================
``PHASE``                   ``PHASE_CHOOSE`` or ``PHASE_OVER``
``EXCHANGE``                exchanges resolved so far
``SCENE``, ``FLUX``         the scene (roster of ``scenes.yaml``) and its Flux card
``WINNER``                  winning seat; -1 before the end and for a draw
``PENDING``                 seat 0's hidden choice this exchange (-1 none)
``SIDE + 8*s + F_*``        per seat: character, injuries, Edges left, whether
                            the Acquired card was used, whether the GM insists
                            on a draw this exchange, the defeat suffered
                            (``DEFEAT_*``)
``DECK`` (36), ``DECK_POS`` the Time Deck in draw order; cards before
                            ``DECK_POS`` are drawn (reshuffled when empty)
``LAST + 12*s + L_*``       the last exchange, per seat: its action, the card
                            (id, source, effective levels), attack and defence
                            values, injuries taken, Edge used, the defeat
                            condition after escalation, forced or not
``LAST_OUTCOME``, ...       the result of the last exchange and its winner
==========================  ==================================================

Actions (``NUM_ACTIONS = 256``): ``a = attack*128 + defence*64 + condition*16
+ card*2 + edge`` where ``attack`` 0 Dynamism / 1 Memory, ``defence`` 0 Stasis
/ 1 Foresight, ``condition`` 0 restrain .. 3 kill, ``card`` 0 none, 1 draw a
Time Card, ``2 + 2*i + r`` the Acquired card ``i`` upright (r = 0) or
reversed (r = 1), ``edge`` 1 declares an Edge. In ``contest`` mode the
attacker's ``defence`` and the defender's ``attack`` must be 0 (unused).
"""

from __future__ import annotations

from ...core.jit import njit
from ...core.state import HEADER_SIZE
from .content import CHARACTER_FIELDS, DECK_SIZE, T_CHARACTERS

# the version of this layout (``Game.layout_version``); a saved state of an earlier one is upgraded
LAYOUT_VERSION = 1

MODE_CONTEST, MODE_DRAMATIC, MODE_CLIMACTIC = 0, 1, 2
RESTRAIN, SUBDUE, WOUND, KILL = 0, 1, 2, 3
# defeat suffered (0: none): restrained, subdued, out of action (wounded), killed
DEFEAT_NONE, DEFEAT_RESTRAINED, DEFEAT_SUBDUED, DEFEAT_OUT_OF_ACTION, DEFEAT_KILLED = 0, 1, 2, 3, 4
CARD_NONE, CARD_DRAW = 0, 1
SOURCE_NONE, SOURCE_DRAWN, SOURCE_UPRIGHT, SOURCE_REVERSED = 0, 1, 2, 3
OUTCOME_NONE, OUTCOME_DECIDED, OUTCOME_CONTINUES = 0, 1, 2

NUM_ACTIONS = 256
PHASE_CHOOSE, PHASE_OVER = 0, 1

# --- state layout ---------------------------------------------------------------
PHASE = HEADER_SIZE
EXCHANGE = PHASE + 1
SCENE = EXCHANGE + 1
FLUX = SCENE + 1
WINNER = FLUX + 1
PENDING = WINNER + 1
SIDE = PENDING + 1
F_CHARACTER, F_INJURIES, F_EDGES_LEFT, F_ACQUIRED_USED, F_FORCED, F_DEFEAT = range(6)
SIDE_FIELDS = 8
DECK = SIDE + 2 * SIDE_FIELDS
DECK_POS = DECK + DECK_SIZE
LAST = DECK_POS + 1
L_ACTION, L_CARD, L_SOURCE, L_LEVELS, L_ATTACK, L_DEFENCE, L_INJURIES, L_EDGE, L_CONDITION, L_FORCED = range(10)
LAST_FIELDS = 12
LAST_OUTCOME = LAST + 2 * LAST_FIELDS
LAST_WINNER = LAST_OUTCOME + 1
LAST_ATTACKER = LAST_WINNER + 1  # contest: the attacking seat of the last exchange
STATE_SIZE = LAST_ATTACKER + 1


# --- decoding -------------------------------------------------------------------
@njit
def action_attack(a):
    return (a >> 7) & 1


@njit
def action_defence(a):
    return (a >> 6) & 1


@njit
def action_condition(a):
    return (a >> 4) & 3


@njit
def action_card(a):
    return (a >> 1) & 7


@njit
def action_edge(a):
    return a & 1


@njit
def make_action(attack, defence, condition, card, edge):
    return attack * 128 + defence * 64 + condition * 16 + card * 2 + edge


# --- where things are -----------------------------------------------------
@njit
def character_base(tables, character):
    return T_CHARACTERS + character * CHARACTER_FIELDS


@njit
def side(seat, field):
    return SIDE + SIDE_FIELDS * seat + field


@njit
def last(seat, field):
    return LAST + LAST_FIELDS * seat + field


# --- observation --------------------------------------------------------------------
O_OWN_ASPECTS = 0  # 4 base Aspects / 10
O_OWN_EFFECTIVE = 4  # 4 with modifiers / 10
O_OPP_ASPECTS = 8
O_OPP_EFFECTIVE = 12
O_INJURIES = 16  # own, opponent: injuries / 16
O_OUT_AT = 18  # own, opponent: Stasis (out of action) / 16
O_KILLED_AT = 20  # own, opponent: killed at / 16
O_EDGES = 22  # own, opponent Edges left / 3
O_ACQUIRED = 24  # 3 slots x (held, modifier / 2, escalation / 2)
O_ACQUIRED_USED = 33  # own, opponent
O_FORCED = 35  # the GM insists that I draw this exchange
O_FLUX = 36  # 36 one-hot
O_WAR = O_FLUX + DECK_SIZE  # own War card one-hot
O_FAULT = O_WAR + DECK_SIZE  # own Fault card one-hot
O_DECK = O_FAULT + DECK_SIZE  # 36: 1 while the card is still in the deck
O_DECK_SIZE = O_DECK + DECK_SIZE  # cards left / 36
O_MODE = O_DECK_SIZE + 1  # 3 one-hot
O_THREAT = O_MODE + 3  # 3 one-hot
O_EXCHANGE = O_THREAT + 3  # exchanges / max_exchanges
O_SEAT = O_EXCHANGE + 1  # 1 for seat 1 (decides second, not seeing seat 0's choice)
O_ATTACKER = O_SEAT + 1  # contest: 1 if I attack this exchange
O_LAST = O_ATTACKER + 1  # 2 blocks (own, opponent) of LAST_BLOCK
LB_ATTACK = 0  # 2 one-hot
LB_DEFENCE = 2  # 2 one-hot
LB_CONDITION = 4  # 4 one-hot (after escalation)
LB_SOURCE = 8  # 4 one-hot: none, drawn, acquired upright, reversed
LB_LEVELS = 12  # card levels / 3
LB_ATTACK_VALUE = 13  # / 16
LB_DEFENCE_VALUE = 14  # / 16
LB_INJURIES = 15  # injuries taken / 16
LB_EDGE = 16
LB_FORCED = 17
LB_CARD = 18  # 36 one-hot
LAST_BLOCK = LB_CARD + DECK_SIZE
O_OUTCOME = O_LAST + 2 * LAST_BLOCK  # 3 one-hot: none, decided, continues
O_LAST_WINNER = O_OUTCOME + 3  # 2: I won it, the opponent won it
OBS_SIZE = O_LAST_WINNER + 2
