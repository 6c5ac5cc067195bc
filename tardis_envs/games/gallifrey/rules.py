"""Ghosts of Gallifrey duel rules as numba kernels over one flat ``int64`` state.

A fight between two combatants (seat 0 and seat 1) in exchanges. In each
exchange both commit a choice without seeing the other's: seat 0 decides
first, its choice is kept hidden in ``PENDING``, then seat 1 decides and
both are revealed and resolved together.

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

import numpy as np

from ...core.jit import njit
from ...core.masks import ENTRIES_OF_BYTE, store_entries
from ...core.observation import put, put_entries
from ...core.rewards import clear_rewards, reward_win
from ...core.rng import rng_below, rng_ppm, rng_shuffle
from ...core.state import CURRENT_PLAYER, HEADER_SIZE, RNG_KEY, RUNNING, STATUS, TERMINATED, TRUNCATED
from .content import (
    C_ACQUIRED,
    C_ASPECT,
    C_EDGES,
    C_FAULT,
    C_MODIFIER,
    C_NUM_ACQUIRED,
    C_WAR,
    CHARACTER_FIELDS,
    DECK_SIZE,
    MAX_SCENES,
    S_FLUX,
    S_MODIFIER,
    SCENE_FIELDS,
    STASIS,
    T_ASPECT_ENTRIES,
    T_CARD_ESCALATION,
    T_CARD_MODIFIER,
    T_CHARACTERS,
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
def character_base(tables, character):
    return T_CHARACTERS + character * CHARACTER_FIELDS


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


@njit
def side(seat, field):
    return SIDE + SIDE_FIELDS * seat + field


@njit
def last(seat, field):
    return LAST + LAST_FIELDS * seat + field


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
def init(state, tables):
    n = tables[T_NUM_CHARACTERS]
    for s in range(2):
        fixed = tables[T_PAIR + s]
        state[side(s, F_CHARACTER)] = fixed if fixed >= 0 else rng_below(state, RNG_KEY, n)
        c = character_base(tables, state[side(s, F_CHARACTER)])
        state[side(s, F_EDGES_LEFT)] = tables[c + C_EDGES]
    state[SCENE] = tables[T_SCENE] if tables[T_SCENE] >= 0 else rng_below(state, RNG_KEY, tables[T_NUM_SCENES])
    state[FLUX] = tables[T_SCENES + state[SCENE] * SCENE_FIELDS + S_FLUX]
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


@njit
def fill_aspect_entries(tables):
    """Write into ``tables`` the observation's eight Aspect entries (``O_OWN_ASPECTS`` ..
    ``O_OWN_EFFECTIVE + 3``, numerators over 10) of every character in every scene, as the
    bytes of a word at ``T_ASPECT_ENTRIES + character * MAX_SCENES + scene``: they depend on
    the content only, and ``observe`` stores a seat's eight with one word store instead of
    working out and storing each (one game's observation in a numba loop: 28 ns, against 40 ns)."""
    for character in range(tables[T_NUM_CHARACTERS]):
        c = character_base(tables, character)
        for scene in range(tables[T_NUM_SCENES]):
            scene_modifiers = T_SCENES + scene * SCENE_FIELDS + S_MODIFIER
            word = np.uint64(0)
            for a in range(4):
                word |= np.uint64(tables[c + C_ASPECT + a]) << np.uint64(8 * a)
                word |= np.uint64(_within(aspect_level(tables, c, scene_modifiers, a), 10)) << np.uint64(8 * (4 + a))
            tables[T_ASPECT_ENTRIES + character * MAX_SCENES + scene] = np.int64(word)


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


@njit
def _within(x, scale):
    """Clip a numerator into ``-scale..scale``, so that ``x / scale`` stays in the observation box [-1, 1]."""
    return min(max(x, -scale), scale)


@njit
def observe(state, tables, player, out):
    # Each word of the state and the tables is read into a local before the stores that
    # use it: numba gives the compiler no aliasing facts, so a word read again after a
    # store into ``out`` is loaded again. With that and the deck's entries stored eight
    # at a time, one game in a numba loop: 55 -> 36 ns; with each seat's Aspects one word
    # from the tables (fill_aspect_entries), 28 ns.
    out[:] = 0.0
    me = player
    them = 1 - player
    scene = state[SCENE]
    for k in range(2):
        s = me if k == 0 else them
        character = state[side(s, F_CHARACTER)]
        injuries = state[side(s, F_INJURIES)]
        edges_left = state[side(s, F_EDGES_LEFT)]
        acquired_used = state[side(s, F_ACQUIRED_USED)]
        stasis = tables[character_base(tables, character) + C_ASPECT + STASIS]
        aspects = np.uint64(tables[T_ASPECT_ENTRIES + character * MAX_SCENES + scene])  # see fill_aspect_entries
        put_entries(out, O_OWN_ASPECTS + 8 * k, aspects, 10)  # base Aspects, then effective (O_OWN_EFFECTIVE)
        put(out, O_INJURIES + k, _within(injuries, 16), 16)
        put(out, O_OUT_AT + k, out_of_action_at(stasis), 16)
        put(out, O_KILLED_AT + k, killed_at(stasis), 16)
        put(out, O_EDGES + k, edges_left, 3)
        out[O_ACQUIRED_USED + k] = acquired_used
    c = character_base(tables, state[side(me, F_CHARACTER)])
    for i in range(tables[c + C_NUM_ACQUIRED]):
        card = tables[c + C_ACQUIRED + i]
        modifier = tables[T_CARD_MODIFIER + card]
        escalation = tables[T_CARD_ESCALATION + card]
        out[O_ACQUIRED + 3 * i] = 1.0
        put(out, O_ACQUIRED + 3 * i + 1, modifier, 2)
        put(out, O_ACQUIRED + 3 * i + 2, escalation, 2)
    forced, flux, war, fault = state[side(me, F_FORCED)], state[FLUX], tables[c + C_WAR], tables[c + C_FAULT]
    out[O_FORCED] = forced
    out[O_FLUX + flux] = 1.0
    out[O_WAR + war] = 1.0
    out[O_FAULT + fault] = 1.0
    # every card of the Time Deck: 1 while it is still to be drawn (a fixed loop: the
    # number left is as random as the game), gathered as a word of bits and stored eight
    # entries at a time; the last store also zeroes the four entries after the deck's,
    # which are written below
    deck_pos = state[DECK_POS]
    in_deck = np.uint64(0)
    for i in range(DECK_SIZE):
        in_deck |= np.uint64(i >= deck_pos) << np.uint64(state[DECK + i])
    for w in range((DECK_SIZE + 7) // 8):
        store_entries(out, O_DECK + 8 * w, ENTRIES_OF_BYTE[(in_deck >> np.uint64(8 * w)) & np.uint64(0xFF)])
    mode, threat, exchange, max_exchanges = tables[T_MODE], tables[T_THREAT], state[EXCHANGE], tables[T_MAX_EXCHANGES]
    put(out, O_DECK_SIZE, DECK_SIZE - deck_pos, DECK_SIZE)
    out[O_MODE + mode] = 1.0
    out[O_THREAT + threat] = 1.0
    put(out, O_EXCHANGE, exchange, max(max_exchanges, 1))
    out[O_SEAT] = me
    if mode == MODE_CONTEST and attacker_in_exchange(exchange) == me:
        out[O_ATTACKER] = 1.0
    if state[last(0, L_ACTION)] >= 0:
        outcome, last_winner = state[LAST_OUTCOME], state[LAST_WINNER]
        for k in range(2):
            s = me if k == 0 else them
            a, condition, source = state[last(s, L_ACTION)], state[last(s, L_CONDITION)], state[last(s, L_SOURCE)]
            card, levels = state[last(s, L_CARD)], state[last(s, L_LEVELS)]
            attack, defence, injuries = state[last(s, L_ATTACK)], state[last(s, L_DEFENCE)], state[last(s, L_INJURIES)]
            edge, forced = state[last(s, L_EDGE)], state[last(s, L_FORCED)]
            base = O_LAST + k * LAST_BLOCK
            out[base + LB_ATTACK + action_attack(a)] = 1.0
            out[base + LB_DEFENCE + action_defence(a)] = 1.0
            out[base + LB_CONDITION + condition] = 1.0
            out[base + LB_SOURCE + source] = 1.0
            put(out, base + LB_LEVELS, _within(levels, 3), 3)
            put(out, base + LB_ATTACK_VALUE, _within(attack, 16), 16)
            put(out, base + LB_DEFENCE_VALUE, _within(defence, 16), 16)
            put(out, base + LB_INJURIES, _within(injuries, 16), 16)
            out[base + LB_EDGE] = edge
            out[base + LB_FORCED] = forced
            if card >= 0:
                out[base + LB_CARD + card] = 1.0
        out[O_OUTCOME + outcome] = 1.0
        if last_winner >= 0:
            out[O_LAST_WINNER + (0 if last_winner == me else 1)] = 1.0
