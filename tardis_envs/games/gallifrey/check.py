"""Ghosts of Gallifrey duel: ``check_state``, every word of a state from outside against
its range and the game's invariants (the contract in :mod:`tardis_envs.core.state`)."""

from __future__ import annotations

from ...core.game import EarlierLayout
from ...core.jit import njit
from ...core.state import CURRENT_PLAYER, RUNNING, STATUS, VALID, first_outside
from .content import C_EDGES, DECK_SIZE, S_FLUX, SCENE_FIELDS, T_NUM_CHARACTERS, T_NUM_SCENES, T_PAIR, T_SCENE, T_SCENES
from .layout import (
    DECK,
    DECK_POS,
    DEFEAT_KILLED,
    EXCHANGE,
    F_ACQUIRED_USED,
    F_CHARACTER,
    F_DEFEAT,
    F_EDGES_LEFT,
    F_FORCED,
    F_INJURIES,
    FLUX,
    KILL,
    L_ACTION,
    L_ATTACK,
    L_CARD,
    L_CONDITION,
    L_DEFENCE,
    L_EDGE,
    L_FORCED,
    L_INJURIES,
    L_LEVELS,
    L_SOURCE,
    LAST,
    LAST_ATTACKER,
    LAST_FIELDS,
    LAST_OUTCOME,
    LAST_WINNER,
    NUM_ACTIONS,
    OUTCOME_CONTINUES,
    PENDING,
    PHASE,
    PHASE_OVER,
    SCENE,
    SIDE,
    SIDE_FIELDS,
    SOURCE_NONE,
    SOURCE_REVERSED,
    WINNER,
    character_base,
)

MAX_INJURIES = 99  # far above any fight's: a side is out of action at its Stasis (at most 10) and the fight ends
MAX_CARD_LEVELS = 4  # a card's +-2, one step for the Flux card, one for the War or Fault card
MAX_VALUE = 40  # an attack or defence value: an Aspect (1..10) with its modifiers and a card

(
    BAD_PHASE,
    PHASE_VS_STATUS,
    BAD_EXCHANGE,
    BAD_SCENE,
    BAD_FLUX,
    BAD_WINNER,
    BAD_PENDING,
    PENDING_VS_TURN,
    BAD_CHARACTER,
    BAD_INJURIES,
    BAD_EDGES_LEFT,
    BAD_FLAG,
    BAD_DEFEAT,
    BAD_UNUSED,
    BAD_DECK,
    BAD_DECK_POS,
    BAD_LAST_ACTION,
    BAD_LAST_CARD,
    BAD_LAST_SOURCE,
    BAD_LAST_LEVELS,
    BAD_LAST_VALUE,
    BAD_LAST_CONDITION,
    BAD_LAST_OUTCOME,
    BAD_LAST_SEAT,
) = range(1, 25)

PROBLEMS = (
    ("valid", "-"),
    ("phase", "0 (choose) or 1 (over)"),
    ("phase", "1 (over) exactly when the status is not running"),
    ("exchange", "a count >= 0"),
    ("scene", "a scene of the roster (the one the options fix, if they fix one)"),
    ("Flux card", "the scene's Flux card"),
    ("winner", "-1 (none or a draw), 0 or 1"),
    ("pending choice", f"-1 (none) or an action 0..{NUM_ACTIONS - 1}"),
    ("pending choice", "in a running fight, a choice exactly while the second seat is to choose"),
    ("character", "a character of the roster (the one the options fix, if they fix one)"),
    ("injuries", f"0..{MAX_INJURIES}"),
    ("Edges left", "0 .. the character's Edges"),
    ("flag (Acquired card used, draw forced, Edge used, forced)", "0 or 1"),
    ("defeat", f"0 (none) .. {DEFEAT_KILLED} (killed)"),
    ("unused word", "0"),
    ("Time Deck", f"each of the {DECK_SIZE} cards exactly once"),
    ("deck position", f"0..{DECK_SIZE}"),
    ("last exchange's action", f"-1 (none) or 0..{NUM_ACTIONS - 1}"),
    ("last exchange's card", f"-1 (none) or a card 0..{DECK_SIZE - 1}, a card exactly when its source is not none"),
    ("last exchange's card source", f"0 (none) .. {SOURCE_REVERSED}"),
    ("last exchange's card levels", f"-{MAX_CARD_LEVELS}..{MAX_CARD_LEVELS}"),
    ("last exchange's attack, defence or injuries", f"-{MAX_VALUE}..{MAX_VALUE} (injuries 0..{MAX_INJURIES})"),
    ("last exchange's defeat condition", f"0 (restrain) .. {KILL} (kill)"),
    ("last exchange's outcome", f"0 .. {OUTCOME_CONTINUES}"),
    ("last exchange's winner or attacker", "-1 (none), 0 or 1"),
)


@njit
def check_state(state, tables):
    """``(0, -1)`` for a valid duel state, else ``(code, index)`` (``PROBLEMS``)."""
    if not 0 <= state[PHASE] <= PHASE_OVER:
        return BAD_PHASE, PHASE
    if (state[PHASE] == PHASE_OVER) != (state[STATUS] != RUNNING):
        return PHASE_VS_STATUS, PHASE
    if state[EXCHANGE] < 0:
        return BAD_EXCHANGE, EXCHANGE
    scene = state[SCENE]
    if not 0 <= scene < tables[T_NUM_SCENES] or (tables[T_SCENE] >= 0 and scene != tables[T_SCENE]):
        return BAD_SCENE, SCENE
    if state[FLUX] != tables[T_SCENES + scene * SCENE_FIELDS + S_FLUX]:
        return BAD_FLUX, FLUX
    if not -1 <= state[WINNER] <= 1:
        return BAD_WINNER, WINNER
    pending = state[PENDING]
    if not -1 <= pending < NUM_ACTIONS:
        return BAD_PENDING, PENDING
    # (a fight ended by an illegal choice of the second seat keeps the first seat's)
    if state[STATUS] == RUNNING and (state[CURRENT_PLAYER] == 1) != (pending >= 0):
        return PENDING_VS_TURN, PENDING
    for s in range(2):
        at = SIDE + SIDE_FIELDS * s
        character = state[at + F_CHARACTER]
        if not 0 <= character < tables[T_NUM_CHARACTERS] or (tables[T_PAIR + s] >= 0 and character != tables[T_PAIR + s]):
            return BAD_CHARACTER, at + F_CHARACTER
        if not 0 <= state[at + F_INJURIES] <= MAX_INJURIES:
            return BAD_INJURIES, at + F_INJURIES
        if not 0 <= state[at + F_EDGES_LEFT] <= tables[character_base(tables, character) + C_EDGES]:
            return BAD_EDGES_LEFT, at + F_EDGES_LEFT
        for f in (F_ACQUIRED_USED, F_FORCED):
            if not 0 <= state[at + f] <= 1:
                return BAD_FLAG, at + f
        if not 0 <= state[at + F_DEFEAT] <= DEFEAT_KILLED:
            return BAD_DEFEAT, at + F_DEFEAT
        i = first_outside(state, at + F_DEFEAT + 1, SIDE_FIELDS - F_DEFEAT - 1, 0, 0)
        if i >= 0:
            return BAD_UNUSED, i
    seen = 0
    for i in range(DECK, DECK + DECK_SIZE):
        card = state[i]
        if not 0 <= card < DECK_SIZE or seen >> card & 1:
            return BAD_DECK, i
        seen |= 1 << card
    if not 0 <= state[DECK_POS] <= DECK_SIZE:
        return BAD_DECK_POS, DECK_POS
    for s in range(2):
        at = LAST + LAST_FIELDS * s
        if not -1 <= state[at + L_ACTION] < NUM_ACTIONS:
            return BAD_LAST_ACTION, at + L_ACTION
        if not -1 <= state[at + L_CARD] < DECK_SIZE:
            return BAD_LAST_CARD, at + L_CARD
        if not 0 <= state[at + L_SOURCE] <= SOURCE_REVERSED:
            return BAD_LAST_SOURCE, at + L_SOURCE
        if (state[at + L_CARD] >= 0) != (state[at + L_SOURCE] != SOURCE_NONE):
            return BAD_LAST_CARD, at + L_CARD
        if not -MAX_CARD_LEVELS <= state[at + L_LEVELS] <= MAX_CARD_LEVELS:
            return BAD_LAST_LEVELS, at + L_LEVELS
        for f in (L_ATTACK, L_DEFENCE):
            if not -MAX_VALUE <= state[at + f] <= MAX_VALUE:
                return BAD_LAST_VALUE, at + f
        if not 0 <= state[at + L_INJURIES] <= MAX_INJURIES:
            return BAD_LAST_VALUE, at + L_INJURIES
        for f in (L_EDGE, L_FORCED):
            if not 0 <= state[at + f] <= 1:
                return BAD_FLAG, at + f
        if not 0 <= state[at + L_CONDITION] <= KILL:
            return BAD_LAST_CONDITION, at + L_CONDITION
        i = first_outside(state, at + L_FORCED + 1, LAST_FIELDS - L_FORCED - 1, 0, 0)
        if i >= 0:
            return BAD_UNUSED, i
    if not 0 <= state[LAST_OUTCOME] <= OUTCOME_CONTINUES:
        return BAD_LAST_OUTCOME, LAST_OUTCOME
    for at in (LAST_WINNER, LAST_ATTACKER):
        if not -1 <= state[at] <= 1:
            return BAD_LAST_SEAT, at
    return VALID, -1


# no state was ever stored in another layout of this game
EARLIER_LAYOUTS: tuple[EarlierLayout, ...] = ()
