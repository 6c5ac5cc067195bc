"""Ghosts of Gallifrey duel rules as numba kernels over one flat ``int64`` state.

A fight between two combatants (seat 0 and seat 1) in exchanges. In each
exchange both commit a choice without seeing the other's: seat 0 decides
first, its choice is kept hidden in ``PENDING``, then seat 1 decides and
both are revealed and resolved together.

The state words, the action numbers and the observation entries are described in
:mod:`.layout`, the observation in :mod:`.observe`.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit
from ...core.masks import store_entries
from ...core.rewards import clear_rewards, reward_win
from ...core.rng import rng_below, rng_ppm, rng_shuffle
from ...core.state import CURRENT_PLAYER, RNG_KEY, RUNNING, STATUS, TERMINATED, TRUNCATED
from .content import (
    C_ACQUIRED,
    C_ASPECT,
    C_EDGES,
    C_FAULT,
    C_MODIFIER,
    C_NUM_ACQUIRED,
    C_WAR,
    DECK_SIZE,
    S_FLUX,
    S_MODIFIER,
    SCENE_FIELDS,
    STASIS,
    T_CARD_ESCALATION,
    T_CARD_MODIFIER,
    T_FORCED_PPM,
    T_MAX_EXCHANGES,
    T_MODE,
    T_NUM_CHARACTERS,
    T_NUM_SCENES,
    T_PAIR,
    T_SCENE,
    T_SCENES,
    T_THREAT,
    T_VORTEX,
)
from .layout import (
    CARD_DRAW,
    CARD_NONE,
    DECK,
    DECK_POS,
    DEFEAT_KILLED,
    DEFEAT_NONE,
    DEFEAT_OUT_OF_ACTION,
    DEFEAT_RESTRAINED,
    DEFEAT_SUBDUED,
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
    LAST_ATTACKER,
    LAST_FIELDS,
    LAST_OUTCOME,
    LAST_WINNER,
    MODE_CONTEST,
    MODE_DRAMATIC,
    NUM_ACTIONS,
    OUTCOME_CONTINUES,
    OUTCOME_DECIDED,
    PENDING,
    PHASE,
    PHASE_CHOOSE,
    PHASE_OVER,
    RESTRAIN,
    SCENE,
    SIDE,
    SIDE_FIELDS,
    SOURCE_DRAWN,
    SOURCE_NONE,
    SOURCE_REVERSED,
    SOURCE_UPRIGHT,
    SUBDUE,
    WINNER,
    WOUND,
    action_attack,
    action_card,
    action_condition,
    action_defence,
    action_edge,
    character_base,
    last,
    side,
)


# --- rules helpers ----------------------------------------------------------------
@njit
def out_of_action_at(stasis):
    """Injuries that put a character out of action: its Stasis."""
    return stasis


@njit
def killed_at(stasis):
    """Fewest injuries that kill: more than 1.5 x Stasis (3 -> 5, 4 -> 7)."""
    return (3 * stasis) // 2 + 1


@njit
def base_aspect(state, tables, seat, aspect):
    return tables[character_base(tables, state[SIDE + SIDE_FIELDS * seat + F_CHARACTER]) + C_ASPECT + aspect]


@njit
def effective_aspect(state, tables, seat, aspect):
    """Aspect level with the character's and the scene's modifiers (never below 0)."""
    c = character_base(tables, state[SIDE + SIDE_FIELDS * seat + F_CHARACTER])
    return aspect_level(tables, c, T_SCENES + state[SCENE] * SCENE_FIELDS + S_MODIFIER, aspect)


@njit
def aspect_level(tables, character, scene_modifiers, aspect):
    """:func:`effective_aspect` of the character record at ``character`` in the scene whose
    modifiers start at ``scene_modifiers`` (both offsets into ``tables``)."""
    level = tables[character + C_ASPECT + aspect] + tables[character + C_MODIFIER + aspect]
    return max(level + tables[scene_modifiers + aspect], 0)


@njit
def card_levels(state, tables, seat, card, reversed_):
    """Levels a card adds to the Aspect used: the Flux card (and The Vortex) one
    step stronger, the drawer's War card one step better, its Fault card one
    step worse."""
    m = tables[T_CARD_MODIFIER + card]
    if reversed_:
        m = -m
    if card == state[FLUX] or card == tables[T_VORTEX]:
        if m > 0:
            m += 1
        elif m < 0:
            m -= 1
    c = character_base(tables, state[SIDE + SIDE_FIELDS * seat + F_CHARACTER])
    if card == tables[c + C_WAR]:
        m += 1
    if card == tables[c + C_FAULT]:
        m -= 1
    return m


@njit
def contest_attacker(state):
    return attacker_in_exchange(state[EXCHANGE])


@njit
def attacker_in_exchange(exchange):
    """Contest mode: the seat that attacks in exchange ``exchange`` (from 0), the seats taking turns."""
    return exchange & 1


# --- opening ----------------------------------------------------------------------
@njit
def _begin_exchange(state, tables):
    """The GM may insist on a draw for each side (``forced_draw_p``)."""
    ppm = tables[T_FORCED_PPM]
    for s in range(2):
        state[side(s, F_FORCED)] = 1 if ppm > 0 and rng_ppm(state, RNG_KEY, ppm) == 1 else 0
    state[CURRENT_PLAYER] = 0
    state[PENDING] = -1


@njit
def set_fight(state, tables, character0, character1, scene):
    """Seat the two characters (roster indices), each with its Edges, and set the scene with its
    Flux card: a fight's public setting."""
    state[side(0, F_CHARACTER)] = character0
    state[side(1, F_CHARACTER)] = character1
    for s in range(2):
        state[side(s, F_EDGES_LEFT)] = tables[character_base(tables, state[side(s, F_CHARACTER)]) + C_EDGES]
    state[SCENE] = scene
    state[FLUX] = tables[T_SCENES + scene * SCENE_FIELDS + S_FLUX]


@njit
def init(state, tables):
    n = tables[T_NUM_CHARACTERS]
    fixed = tables[T_PAIR]
    character0 = fixed if fixed >= 0 else rng_below(state, RNG_KEY, n)
    fixed = tables[T_PAIR + 1]
    character1 = fixed if fixed >= 0 else rng_below(state, RNG_KEY, n)
    scene = tables[T_SCENE] if tables[T_SCENE] >= 0 else rng_below(state, RNG_KEY, tables[T_NUM_SCENES])
    set_fight(state, tables, character0, character1, scene)
    for i in range(DECK_SIZE):
        state[DECK + i] = i
    rng_shuffle(state, RNG_KEY, state[DECK : DECK + DECK_SIZE], DECK_SIZE)
    state[DECK_POS] = 0
    state[WINNER] = -1
    state[LAST_WINNER] = -1
    state[LAST_ATTACKER] = -1
    for s in range(2):
        state[last(s, L_ACTION)] = -1
        state[last(s, L_CARD)] = -1
    state[PHASE] = PHASE_CHOOSE
    _begin_exchange(state, tables)


# The legal-mask entries of four card choices, ``card * 2 + edge`` for edge 0 and 1, as the
# bytes of a word (byte ``2 * c + e`` is 1 when card choice ``c`` is in the 4-bit set): the
# first or last eight entries of a block of 16 (see ``legal_mask``), before the Edge.
CARD_PAIR_ENTRIES = np.array([sum(0x0101 << (16 * c) for c in range(4) if choices >> c & 1) for choices in range(16)], dtype=np.uint64)
EVERY_ENTRY = np.uint64(0x0101010101010101)
NO_EDGE_ENTRIES = np.uint64(0x0001000100010001)  # the even entries: edge 0


# --- legal actions (threat level trivial: restrain/subdue; dangerous: subdue/wound; deadly: wound/kill)
@njit
def legal_mask(state, tables, out):
    """Each part of a choice is legal on its own, so the mask is the product of
    the legal Aspects (contest: the role's only), the two conditions of the
    Threat Level, the cards (no card unless the GM insists; the Acquired
    cards held, unless used) and the Edge (with Edges left)."""
    if state[STATUS] != RUNNING:
        out[:] = 0
        return
    seat = state[CURRENT_PLAYER]
    attacks = 2
    defences = 2
    if tables[T_MODE] == MODE_CONTEST:
        if seat == contest_attacker(state):
            defences = 1
        else:
            attacks = 1
    low = tables[T_THREAT]
    cards = 1 << CARD_DRAW  # bit set of the legal card choices (no array: a hot path)
    if state[side(seat, F_FORCED)] == 0:
        cards |= 1 << CARD_NONE
    if state[side(seat, F_ACQUIRED_USED)] == 0:
        held = tables[character_base(tables, state[side(seat, F_CHARACTER)]) + C_NUM_ACQUIRED]
        cards |= ((1 << (2 * held)) - 1) << 2  # choices 2 .. 2 + 2 * held - 1
    # The 16 actions of one (attack, defence, condition) are ``card * 2 + edge``, and
    # which of them are legal is the same for every legal (attack, defence, condition):
    # that row of 16 entries, as the bytes of two words, is stored into each such block
    # (two word stores), zeros elsewhere.
    edge_entries = EVERY_ENTRY if state[side(seat, F_EDGES_LEFT)] > 0 else NO_EDGE_ENTRIES
    row_low = CARD_PAIR_ENTRIES[cards & 15] & edge_entries
    row_high = CARD_PAIR_ENTRIES[(cards >> 4) & 15] & edge_entries
    for block in range(NUM_ACTIONS // 16):
        attack = block >> 3
        defence = (block >> 2) & 1
        condition = block & 3
        legal = np.uint64((attack < attacks) & (defence < defences) & (condition >= low) & (condition < low + 2))
        store_entries(out, 16 * block, row_low * legal)
        store_entries(out, 16 * block + 8, row_high * legal)


@njit
def step_and_mask(state, tables, action, mask):
    """``step``, then ``legal_mask`` into ``mask`` (the batched API's kernel)."""
    step(state, tables, action)
    legal_mask(state, tables, mask)


# --- resolution ----------------------------------------------------------------------
@njit
def _draw(state):
    if state[DECK_POS] >= DECK_SIZE:
        rng_shuffle(state, RNG_KEY, state[DECK : DECK + DECK_SIZE], DECK_SIZE)
        state[DECK_POS] = 0
    card = state[DECK + state[DECK_POS]]
    state[DECK_POS] += 1
    return card


@njit
def _take_card(state, tables, seat, a):
    """Resolve the card part of a choice: returns (levels, escalation) and records it."""
    choice = action_card(a)
    card = -1
    source = SOURCE_NONE
    levels = 0
    if choice == CARD_DRAW:
        card = _draw(state)
        source = SOURCE_DRAWN
        levels = card_levels(state, tables, seat, card, False)
    elif choice >= 2:
        c = character_base(tables, state[side(seat, F_CHARACTER)])
        card = tables[c + C_ACQUIRED + (choice - 2) // 2]
        reversed_ = (choice - 2) % 2 == 1
        source = SOURCE_REVERSED if reversed_ else SOURCE_UPRIGHT
        levels = card_levels(state, tables, seat, card, reversed_)
        state[side(seat, F_ACQUIRED_USED)] = 1
    state[last(seat, L_CARD)] = card
    state[last(seat, L_SOURCE)] = source
    state[last(seat, L_LEVELS)] = levels
    escalation = tables[T_CARD_ESCALATION + card] if card >= 0 else 0
    return levels, escalation


@njit
def rulebook_injuries(condition, winner_value, loser_value):
    """Injuries a defeat causes in contest and dramatic combat: restraint 0,
    subdual 1, wounding the difference of the scores, killing the winner's score."""
    if condition == RESTRAIN:
        return 0
    if condition == SUBDUE:
        return 1
    if condition == WOUND:
        return max(winner_value - loser_value, 0)
    return winner_value


@njit
def climactic_cap(condition, stasis):
    """Most injuries a fighter's condition may bring the opponent to in
    climactic combat (restraint at 1, subdual at 3, wounding just short of
    death, killing without limit)."""
    if condition == RESTRAIN:
        return 1
    if condition == SUBDUE:
        return 3
    if condition == WOUND:
        return killed_at(stasis) - 1
    return 1 << 30


@njit
def injury_defeat(injuries, stasis):
    if injuries >= killed_at(stasis):
        return DEFEAT_KILLED
    if injuries >= out_of_action_at(stasis):
        return DEFEAT_OUT_OF_ACTION
    return DEFEAT_NONE


@njit
def _add_injuries(state, seat, n):
    state[side(seat, F_INJURIES)] += n
    state[last(seat, L_INJURIES)] += n


@njit
def _edge_tie(state):
    """Tie-break by declared Edges: returns the winning seat or -1; spends what was used."""
    e0 = action_edge(state[last(0, L_ACTION)]) == 1 and state[side(0, F_EDGES_LEFT)] > 0
    e1 = action_edge(state[last(1, L_ACTION)]) == 1 and state[side(1, F_EDGES_LEFT)] > 0
    if e0:
        state[side(0, F_EDGES_LEFT)] -= 1
        state[last(0, L_EDGE)] = 1
    if e1:
        state[side(1, F_EDGES_LEFT)] -= 1
        state[last(1, L_EDGE)] = 1
    if e0 and not e1:
        return 0
    if e1 and not e0:
        return 1
    return -1


@njit
def _defeat_one(state, tables, loser, winner, winner_value, loser_value, condition):
    """Contest/dramatic: ``loser`` is defeated under ``winner``'s condition."""
    _add_injuries(state, loser, rulebook_injuries(condition, winner_value, loser_value))
    stasis = base_aspect(state, tables, loser, STASIS)
    state[side(loser, F_DEFEAT)] = max(condition + 1, injury_defeat(state[side(loser, F_INJURIES)], stasis))


@njit
def _finish(state, winner):
    state[PHASE] = PHASE_OVER
    state[STATUS] = TERMINATED
    state[WINNER] = winner
    reward_win(state, winner, 2)


@njit
def _reveal(state, tables, seat, a):
    """Record ``seat``'s revealed choice: its card, condition (escalated) and
    attack and defence values (Aspect + modifiers + the card's levels)."""
    for f in range(LAST_FIELDS):
        state[last(seat, f)] = 0
    state[last(seat, L_ACTION)] = a
    state[last(seat, L_FORCED)] = state[side(seat, F_FORCED)]
    levels, escalation = _take_card(state, tables, seat, a)
    # an escalation card raises the severity of the defeat by one or two steps
    state[last(seat, L_CONDITION)] = min(action_condition(a) + escalation, KILL)
    state[last(seat, L_ATTACK)] = effective_aspect(state, tables, seat, action_attack(a)) + levels
    state[last(seat, L_DEFENCE)] = effective_aspect(state, tables, seat, 2 + action_defence(a)) + levels


@njit
def _resolve(state, tables, first, second):
    """Both choices revealed: play out the exchange (no arrays allocated: this
    runs in every batched step)."""
    mode = tables[T_MODE]
    _reveal(state, tables, 0, first)
    _reveal(state, tables, 1, second)
    winner = -1
    outcome = OUTCOME_CONTINUES
    if mode == MODE_CONTEST or mode == MODE_DRAMATIC:
        if mode == MODE_CONTEST:
            r = contest_attacker(state)
            state[LAST_ATTACKER] = r
            score0 = state[last(0, L_ATTACK)] if r == 0 else state[last(0, L_DEFENCE)]
            score1 = state[last(1, L_ATTACK)] if r == 1 else state[last(1, L_DEFENCE)]
        else:
            score0 = state[last(0, L_ATTACK)] + state[last(0, L_DEFENCE)]
            score1 = state[last(1, L_ATTACK)] + state[last(1, L_DEFENCE)]
        if score0 != score1:
            winner = 0 if score0 > score1 else 1
        else:
            winner = _edge_tie(state)
        if winner >= 0:
            loser = 1 - winner
            if mode == MODE_DRAMATIC:
                # injuries in both directions: the attacking Aspect against the defending one
                win_value = state[last(winner, L_ATTACK)]
                lose_value = state[last(loser, L_DEFENCE)]
            else:
                win_value = score0 if winner == 0 else score1
                lose_value = score1 if winner == 0 else score0
            _defeat_one(state, tables, loser, winner, win_value, lose_value, state[last(winner, L_CONDITION)])
            outcome = OUTCOME_DECIDED
            # dramatic: the winner may still be injured when the loser's attack got through its
            # defence (even out of action): it is still the winner
            loser_attack = state[last(loser, L_ATTACK)]
            winner_defence = state[last(winner, L_DEFENCE)]
            if mode == MODE_DRAMATIC and loser_attack > winner_defence:
                _add_injuries(state, winner, rulebook_injuries(state[last(loser, L_CONDITION)], loser_attack, winner_defence))
                stasis = base_aspect(state, tables, winner, STASIS)
                state[side(winner, F_DEFEAT)] = injury_defeat(state[side(winner, F_INJURIES)], stasis)
        elif mode == MODE_DRAMATIC:
            outcome = OUTCOME_DECIDED  # equal totals and no Edge to break them: a draw
    else:
        for s in range(2):
            o = 1 - s
            condition = state[last(s, L_CONDITION)]
            margin = state[last(s, L_ATTACK)] - state[last(o, L_DEFENCE)]
            if margin == 0 and action_edge(state[last(s, L_ACTION)]) == 1 and state[side(s, F_EDGES_LEFT)] > 0:
                # an Edge turns an evenly matched attack into a hit
                state[side(s, F_EDGES_LEFT)] -= 1
                state[last(s, L_EDGE)] = 1
                margin = 1
            if margin > 0:
                stasis = base_aspect(state, tables, o, STASIS)
                before = state[side(o, F_INJURIES)]
                after = min(before + margin, max(before, climactic_cap(condition, stasis)))
                _add_injuries(state, o, after - before)
                hurt = injury_defeat(after, stasis)
                if hurt == DEFEAT_NONE and condition == RESTRAIN and after >= 1:
                    hurt = DEFEAT_RESTRAINED
                if hurt == DEFEAT_NONE and condition == SUBDUE and after >= 3:
                    hurt = DEFEAT_SUBDUED
                state[side(o, F_DEFEAT)] = max(state[side(o, F_DEFEAT)], hurt)
        down0 = state[side(0, F_DEFEAT)] != DEFEAT_NONE
        down1 = state[side(1, F_DEFEAT)] != DEFEAT_NONE
        if down0 or down1:
            outcome = OUTCOME_DECIDED
            winner = -1 if down0 and down1 else (1 if down0 else 0)
        # Stasis 10 heals all injuries moments after they are inflicted
        for s in range(2):
            if state[side(s, F_DEFEAT)] == DEFEAT_NONE and base_aspect(state, tables, s, STASIS) >= 10:
                state[side(s, F_INJURIES)] = 0
    state[LAST_OUTCOME] = outcome
    state[LAST_WINNER] = winner
    state[EXCHANGE] += 1
    if outcome == OUTCOME_DECIDED:
        _finish(state, winner)
    elif state[EXCHANGE] >= tables[T_MAX_EXCHANGES]:
        state[PHASE] = PHASE_OVER
        state[STATUS] = TRUNCATED
    else:
        _begin_exchange(state, tables)


@njit
def step(state, tables, action):
    clear_rewards(state)
    if state[CURRENT_PLAYER] == 0:
        state[PENDING] = action  # hidden until seat 1 has chosen
        state[CURRENT_PLAYER] = 1
        return
    first = state[PENDING]
    state[PENDING] = -1
    _resolve(state, tables, first, action)
