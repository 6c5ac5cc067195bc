"""Ghosts of Gallifrey duel heuristic: the issue's rules of thumb, from public information.

* Attack with the stronger active Aspect and defend with the stronger passive
  one (effective levels, modifiers included); in contest mode only the role's
  Aspect counts.
* Fight for the most severe defeat condition the Threat Level allows.
* Draw a Time Card when behind: when the opponent's expected margin is larger
  than its own (contest: the opponent's score beats or ties its own; dramatic:
  totals; climactic: the hit each side can land, and who is nearer defeat).
* Save the Acquired card for a decisive exchange (contest and dramatic: every
  exchange decides; climactic: when either side is one expected hit from
  defeat) and play it the better way up; it also stands in for a draw the GM
  insists on when the moment is decisive.
* Declare an Edge whenever one is left (it is spent only when it breaks a tie).

It reads only what a player may know: Aspects, modifiers, injuries, Edges,
its own Acquired cards; never the deck order or the opponent's hidden choice.

Its exact best response (:func:`best_response_values`, :func:`choose_best_response`): the
heuristic decides from public information alone, so whoever knows its rules of thumb knows
its choice in every position, up to the GM's insistence on its draw, which it sees and the
other side does not. Against it the fight is a decision problem for one side, solved here by
dynamic programming over everything that changes in a fight: both sides' injuries, Edges
left, whether each Acquired card is used, and the exchanges played (the fight is truncated at
``max_exchanges``). Each exchange, every legal choice of the responding side is valued against
the heuristic's choice under both insistences, each weighed by ``forced_draw_p``, and every draw of
the cards, each Time Card drawn from the full deck of 36 (the one approximation: the deck is
dealt without replacement and reshuffled when empty; which cards are left is public, and the
values do not count them). The exchanges are played by the rules' own ``step``. The value
maximised is the chance of winning (a draw and a truncated fight count as not won). It reads
only what the responding seat may know, so no agent that sees only what its seat sees wins
more against this heuristic, up to counting the cards. It is a measure, not an agent to ship:
it knows its opponent's rules of thumb (``benchmarks/best_response.py`` plays it).

What counting the cards could add (:func:`counting_bounds`): counting makes the cards left part
of the position, far too many positions to solve, so it is bounded instead, by an information
relaxation. A player told the deck's whole order, who pays each exchange what its cards were
worth beyond what one counting them expected (valued by the best response's values), wins on
average at least what any fair player wins, counting or not; its best play for one order is a
dynamic programme over the exchanges, the positions and the cards drawn, and the bound is its
mean over random orders.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit, njit_alloc, njit_parallel, njit_parallel_alloc, prange
from ...core.state import CURRENT_PLAYER, RUNNING, STATUS, TERMINATED, copy_state
from .content import (
    C_ACQUIRED,
    C_EDGES,
    C_NUM_ACQUIRED,
    DECK_SIZE,
    DYNAMISM,
    FORESIGHT,
    MEMORY,
    STASIS,
    T_CARD_ESCALATION,
    T_FORCED_PPM,
    T_MAX_EXCHANGES,
    T_MODE,
    T_NUM_CHARACTERS,
    T_NUM_SCENES,
    T_PAIR,
    T_SCENE,
    T_THREAT,
)
from .layout import (
    CARD_DRAW,
    CARD_NONE,
    DECK,
    DECK_POS,
    EXCHANGE,
    F_ACQUIRED_USED,
    F_CHARACTER,
    F_DEFEAT,
    F_EDGES_LEFT,
    F_FORCED,
    F_INJURIES,
    FLUX,
    MODE_CONTEST,
    MODE_DRAMATIC,
    NUM_ACTIONS,
    PENDING,
    PHASE,
    PHASE_CHOOSE,
    SCENE,
    WINNER,
    action_card,
    character_base,
    make_action,
    side,
)
from .rules import base_aspect, card_levels, contest_attacker, effective_aspect, legal_mask, set_fight, step

W_BEHIND = 0  # draw when the opponent's expected margin exceeds ours by more than this
W_ACQUIRED_MIN = 1  # play the Acquired card only if it is worth at least this many levels
DEFAULT_WEIGHTS = np.array([0.0, 1.0])


@njit
def _best(state, tables, seat, first, second):
    """(index 0/1, level) of the stronger of two Aspects."""
    a = effective_aspect(state, tables, seat, first)
    b = effective_aspect(state, tables, seat, second)
    return (0, a) if a >= b else (1, b)


@njit
def _best_acquired(state, tables, me):
    """(card choice, levels) of the Acquired card played the better way up, (-1, 0) if none."""
    if state[side(me, F_ACQUIRED_USED)] == 1:
        return -1, 0
    c = character_base(tables, state[side(me, F_CHARACTER)])
    best_choice = -1
    best_levels = -99
    for i in range(tables[c + C_NUM_ACQUIRED]):
        card = tables[c + C_ACQUIRED + i]
        for r in range(2):
            levels = card_levels(state, tables, me, card, r == 1)
            if levels > best_levels:
                best_levels = levels
                best_choice = 2 + 2 * i + r
    if best_choice < 0:
        return -1, 0
    return best_choice, best_levels


@njit
def choose(state, tables, weights):
    me = state[CURRENT_PLAYER]
    them = 1 - me
    mode = tables[T_MODE]
    att_i, att = _best(state, tables, me, DYNAMISM, MEMORY)
    def_i, dfn = _best(state, tables, me, STASIS, FORESIGHT)
    _, their_att = _best(state, tables, them, DYNAMISM, MEMORY)
    _, their_def = _best(state, tables, them, STASIS, FORESIGHT)
    condition = tables[T_THREAT] + 1
    decisive = True
    if mode == MODE_CONTEST:
        if contest_attacker(state) == me:
            def_i = 0
            my_edge = att - their_def
        else:
            att_i = 0
            my_edge = dfn - their_att
        behind = my_edge <= weights[W_BEHIND]
    elif mode == MODE_DRAMATIC:
        behind = (att + dfn) - (their_att + their_def) <= weights[W_BEHIND]
    else:
        my_hit = max(att - their_def, 0)
        their_hit = max(their_att - dfn, 0)
        my_left = base_aspect(state, tables, me, STASIS) - state[side(me, F_INJURIES)]
        their_left = base_aspect(state, tables, them, STASIS) - state[side(them, F_INJURIES)]
        behind = their_hit - my_hit > weights[W_BEHIND] or (their_hit > 0 and my_left <= their_left and my_hit <= their_hit)
        # one expected hit (or a lucky card) from the end, either way
        decisive = my_left <= their_hit + 2 or their_left <= my_hit + 2
    card = CARD_DRAW if behind else CARD_NONE
    acquired, levels = _best_acquired(state, tables, me)
    if acquired >= 0 and decisive and levels >= weights[W_ACQUIRED_MIN] and (behind or state[side(me, F_FORCED)] == 1):
        card = acquired
    if card == CARD_NONE and state[side(me, F_FORCED)] == 1:
        card = CARD_DRAW
    edge = 1 if state[side(me, F_EDGES_LEFT)] > 0 else 0
    return make_action(att_i, def_i, condition, card, edge)


@njit_parallel
def choose_batch(states, tables, weights, out):
    for i in prange(states.shape[0]):
        out[i] = choose(states[i], tables, weights)


# --- the exact best response to the heuristic ---------------------------------------
MAX_RESPONSES = (
    128  # legal choices at most: 2 attacks x 2 defences x 2 conditions x 8 cards (none, a draw, 3 Acquired both ways up) x 2 Edges
)


@njit_alloc
def response_choices(state, tables, seat, out):
    """The choices the best response weighs for ``seat``, written to ``out``; returns how many:
    every choice legal for it in ``state`` (``rules.legal_mask`` as ``seat`` to move). None is
    left out as never better: a weaker Aspect scores less in the exchange, but the injuries it
    deals or takes change the heuristic's next choices, so only weighing it shows its worth."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mover = state[CURRENT_PLAYER]
    state[CURRENT_PLAYER] = seat
    legal_mask(state, tables, mask)
    state[CURRENT_PLAYER] = mover
    n = 0
    for action in range(NUM_ACTIONS):
        if mask[action]:
            out[n] = action
            n += 1
    return n


@njit_alloc
def card_kinds(state, tables, seat):
    """The Time Deck's cards grouped by what they do when ``seat`` draws them (levels and
    escalation): (the kind of each of the 36 cards, one card of each kind)."""
    kind = np.empty(DECK_SIZE, np.int64)
    cards = np.empty(DECK_SIZE, np.int64)
    n = 0
    for card in range(DECK_SIZE):
        levels = card_levels(state, tables, seat, card, False)
        escalation = tables[T_CARD_ESCALATION + card]
        k = n
        for j in range(n):
            if card_levels(state, tables, seat, cards[j], False) == levels and tables[T_CARD_ESCALATION + cards[j]] == escalation:
                k = j
                break
        if k == n:
            cards[n] = card
            n += 1
        kind[card] = k
    return kind, cards[:n].copy()


@njit_alloc
def _full_deck_odds(kind, n):
    """Each kind's share of the full deck of 36, ``kind`` as :func:`card_kinds` gives it."""
    odds = np.zeros(n)
    for card in range(DECK_SIZE):
        odds[kind[card]] += 1.0 / DECK_SIZE
    return odds


def fight_settings(tables: np.ndarray) -> list[tuple[int, int, int]]:
    """Every (character of seat 0, character of seat 1, scene) the rules deal, all equally likely
    (``rules.init``'s draws; a pair or scene fixed by the options stays fixed)."""
    seat0, seat1 = ([int(tables[T_PAIR + s])] if tables[T_PAIR + s] >= 0 else range(int(tables[T_NUM_CHARACTERS])) for s in (0, 1))
    scenes = [int(tables[T_SCENE])] if tables[T_SCENE] >= 0 else range(int(tables[T_NUM_SCENES]))
    return [(a, b, scene) for a in seat0 for b in seat1 for scene in scenes]


def fight_of(state: np.ndarray, tables: np.ndarray, setting: tuple[int, int, int]) -> np.ndarray:
    """A copy of ``state`` with the fight setting ``setting`` (:func:`fight_settings`) seated."""
    fight = state.copy()
    set_fight(fight, tables, *setting)
    return fight


def deck_orders(tables: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` random orders of the Time Deck for :func:`counting_bounds`: as many whole
    shuffles as a fight can draw."""
    shuffles = -(-2 * int(tables[T_MAX_EXCHANGES]) // DECK_SIZE)
    return np.stack([np.concatenate([rng.permutation(DECK_SIZE) for _ in range(shuffles)]) for _ in range(count)]).astype(np.int64)


def fight_setting(state: np.ndarray) -> np.ndarray:
    """What makes one fight's :func:`best_response_values` differ from another's: the two
    characters, the scene and its Flux card (public from the start)."""
    return np.array([state[side(0, F_CHARACTER)], state[side(1, F_CHARACTER)], state[SCENE], state[FLUX]], dtype=np.int64)


@njit
def _fight_extent(state, tables):
    """(injury rows of each side, Edges of each side + 1): the shape of the fight's positions.

    A side still fighting has fewer injuries than its Stasis; with Stasis 10 its injuries
    heal at once, so it has none."""
    rows0 = base_aspect(state, tables, 0, STASIS)
    rows1 = base_aspect(state, tables, 1, STASIS)
    rows0 = 1 if rows0 >= 10 else max(rows0, 1)
    rows1 = 1 if rows1 >= 10 else max(rows1, 1)
    edges0 = tables[character_base(tables, state[side(0, F_CHARACTER)]) + C_EDGES] + 1
    edges1 = tables[character_base(tables, state[side(1, F_CHARACTER)]) + C_EDGES] + 1
    return rows0, rows1, edges0, edges1


@njit
def fight_position(state, tables):
    """The index of the fight's position in :func:`best_response_values`' columns: both
    sides' injuries, Edges left and whether each Acquired card is used."""
    _, rows1, edges0, edges1 = _fight_extent(state, tables)
    i = state[side(0, F_INJURIES)] * rows1 + state[side(1, F_INJURIES)]
    i = (i * edges0 + state[side(0, F_EDGES_LEFT)]) * edges1 + state[side(1, F_EDGES_LEFT)]
    return (i * 2 + state[side(0, F_ACQUIRED_USED)]) * 2 + state[side(1, F_ACQUIRED_USED)]


@njit
def _exchange(base, scratch, tables, first, second, card0, card1):
    """Play one exchange of ``base`` into ``scratch`` by the rules' ``step``: seat 0 chooses
    ``first``, seat 1 ``second``; a side that draws gets ``card0`` / ``card1``."""
    copy_state(scratch, base)
    scratch[DECK_POS] = 0
    drawn = 0
    if action_card(first) == CARD_DRAW:
        scratch[DECK] = card0
        drawn = 1
    if action_card(second) == CARD_DRAW:
        scratch[DECK + drawn] = card1
    scratch[CURRENT_PLAYER] = 0
    step(scratch, tables, first)
    step(scratch, tables, second)


@njit
def _replies(position, tables, weights, seat, scratch):
    """The heuristic's choice for the other seat in ``position`` when the GM does not insist on
    its draw and when it does (the same whatever ``seat`` chooses)."""
    other = 1 - seat
    copy_state(scratch, position)
    scratch[CURRENT_PLAYER] = other
    scratch[side(other, F_FORCED)] = 0
    free = choose(scratch, tables, weights)
    scratch[side(other, F_FORCED)] = 1
    return free, choose(scratch, tables, weights)


@njit_alloc
def _outcomes(position, tables, seat, choice, replies, kinds, scratch, reached, leads_to, chance, used):
    """The outcomes of ``seat`` choosing ``choice`` in ``position`` against the heuristic:
    returns (the chance it wins in this exchange, the entries used, ``leads_to``, ``chance``),
    with the positions the fight goes on from and their chances appended to ``leads_to`` /
    ``chance`` from ``used`` (grown when full). The heuristic's insistence is weighed by
    ``forced_draw_p`` (``replies``: its choices without and with it, :func:`_replies`), each
    side's draw by the card kinds in ``kinds`` (:func:`card_kinds`' cards and odds of seat 0,
    then seat 1). ``reached`` (one entry per position, all 0) adds up the chances of a position
    reached more than once and is left all 0."""
    p_forced = tables[T_FORCED_PPM] / 1e6
    cards0, odds0, cards1, odds1 = kinds
    won = 0.0
    first_entry = used
    for forced in range(2):
        p = p_forced if forced == 1 else 1.0 - p_forced
        if p <= 0.0:
            continue
        reply = replies[forced]
        first = choice if seat == 0 else reply
        second = reply if seat == 0 else choice
        draws0 = action_card(first) == CARD_DRAW
        draws1 = action_card(second) == CARD_DRAW
        for x in range(cards0.shape[0] if draws0 else 1):
            px = p * (odds0[x] if draws0 else 1.0)
            for y in range(cards1.shape[0] if draws1 else 1):
                pxy = px * (odds1[y] if draws1 else 1.0)
                _exchange(position, scratch, tables, first, second, cards0[x], cards1[y])
                if scratch[STATUS] == TERMINATED:
                    if scratch[WINNER] == seat:
                        won += pxy
                elif scratch[STATUS] == RUNNING:  # (truncated: neither won nor going on)
                    k = fight_position(scratch, tables)
                    if reached[k] == 0.0:
                        if used == leads_to.shape[0]:
                            leads_to = np.concatenate((leads_to, np.empty_like(leads_to)))
                            chance = np.concatenate((chance, np.empty_like(chance)))
                        leads_to[used] = k
                        used += 1
                    reached[k] += pxy
    for e in range(first_entry, used):
        chance[e] = reached[leads_to[e]]
        reached[leads_to[e]] = 0.0
    return won, used, leads_to, chance


@njit_alloc
def _kinds_of(state, tables):
    """:func:`card_kinds`' cards of seat 0 with their shares of the full deck, then seat 1's:
    (cards, odds, cards, odds)."""
    kind0, cards0 = card_kinds(state, tables, 0)
    kind1, cards1 = card_kinds(state, tables, 1)
    return cards0, _full_deck_odds(kind0, cards0.shape[0]), cards1, _full_deck_odds(kind1, cards1.shape[0])


@njit_alloc
def _fight_to_come(state):
    """A copy of ``state`` as a fight still to come (a finished fight's setting is valued as one):
    running, choosing, no committed choice, no defeat."""
    position = state.copy()
    position[STATUS] = RUNNING
    position[PHASE] = PHASE_CHOOSE
    position[WINNER] = -1
    position[PENDING] = -1
    position[side(0, F_DEFEAT)] = 0
    position[side(1, F_DEFEAT)] = 0
    return position


@njit
def _set_position(position, here, rows1, edges0, edges1):
    """Write position ``here`` (:func:`fight_position`'s index) into ``position``."""
    rest, used1 = divmod(here, 2)
    rest, used0 = divmod(rest, 2)
    rest, left1 = divmod(rest, edges1)
    rest, left0 = divmod(rest, edges0)
    injuries0, injuries1 = divmod(rest, rows1)
    position[side(0, F_INJURIES)] = injuries0
    position[side(1, F_INJURIES)] = injuries1
    position[side(0, F_EDGES_LEFT)] = left0
    position[side(1, F_EDGES_LEFT)] = left1
    position[side(0, F_ACQUIRED_USED)] = used0
    position[side(1, F_ACQUIRED_USED)] = used1


@njit_alloc
def _choices(position, tables, weights, seat, follow, scratch, out):
    """The choices valued for ``seat``: :func:`response_choices`, or with ``follow`` the
    heuristic's own."""
    if not follow:
        return response_choices(position, tables, seat, out)
    copy_state(scratch, position)
    scratch[CURRENT_PLAYER] = seat
    out[0] = choose(scratch, tables, weights)
    return 1


@njit_alloc
def best_response_values(state, tables, weights, seat, follow):
    """``values[x, position]``: the chance that ``seat`` wins the fight of ``state`` against
    the heuristic (``weights``) from each position (:func:`fight_position`) with ``x``
    exchanges played, before the GM's insistences of that exchange are drawn, when ``seat``
    plays its best response (``follow``: when it plays the heuristic itself, the heuristic's
    own value under the same model). Row ``max_exchanges`` is 0: the fight is truncated.

    Reads from ``state`` only the public setting of the fight: the two characters, the scene
    and its Flux card. A position's choices and their outcomes do not depend on ``x``
    (contest mode: on its parity, who attacks), so they are worked out once, then valued
    from the last exchange back.
    """
    return _full_deck_values(tables, fight_outcomes(state, tables, weights, seat, follow))


@njit_alloc
def _full_deck_values(tables, outcomes):
    """:func:`best_response_values` from the fight's :func:`fight_outcomes`."""
    counts, first, _, _, _, kind0, kind1 = outcomes
    parities, positions, _ = counts.shape
    odds0 = _full_deck_odds(kind0, int(kind0.max()) + 1)
    odds1 = _full_deck_odds(kind1, int(kind1.max()) + 1)
    p_forced = tables[T_FORCED_PPM] / 1e6
    horizon = tables[T_MAX_EXCHANGES]
    values = np.zeros((horizon + 1, positions))
    worth = np.empty(odds0.shape[0] * odds1.shape[0])
    for x in range(horizon - 1, -1, -1):
        parity = x % parities
        for here in range(positions):
            v = 0.0
            for forced in range(2):
                p = _insistence(p_forced, forced)
                if p <= 0.0:
                    continue
                best = 0.0
                c0 = first[parity, here, forced]
                for c in range(c0, c0 + counts[parity, here, forced]):
                    w = 0.0
                    for h in range(2):
                        q = _insistence(p_forced, h)
                        if q <= 0.0:
                            continue
                        d0, d1, n1 = _worths(outcomes, c, h, values[x + 1], worth)
                        for i in range(odds0.shape[0] if d0 else 1):
                            for j in range(n1):
                                w += q * (odds0[i] if d0 else 1.0) * (odds1[j] if d1 else 1.0) * worth[i * n1 + j]
                    best = max(best, w)
                v += p * best
            values[x, here] = v
    return values


@njit_alloc
def choose_best_response(state, tables, weights, values):
    """The best response's choice for the seat to move in ``state``: the choice of the
    highest chance of winning against the heuristic (``weights``) with the fight's
    ``values`` (:func:`best_response_values` of this seat) after the exchange. Reads only
    what the seat may know: its own insistence, never the other's, the deck order or a
    committed choice."""
    seat = state[CURRENT_PLAYER]
    position = state.copy()
    position[PENDING] = -1
    position[side(1 - seat, F_FORCED)] = 0
    scratch = state.copy()
    kinds = _kinds_of(state, tables)
    choices = np.empty(MAX_RESPONSES, np.int64)
    n = response_choices(position, tables, seat, choices)
    reached = np.zeros(values.shape[1])
    leads_to = np.empty(256, np.int64)
    chance = np.empty(256)
    after = values[min(state[EXCHANGE] + 1, values.shape[0] - 1)]
    replies = _replies(position, tables, weights, seat, scratch)
    best = -1.0
    action = choices[0]
    for j in range(n):
        won, used, leads_to, chance = _outcomes(position, tables, seat, choices[j], replies, kinds, scratch, reached, leads_to, chance, 0)
        for e in range(used):
            won += chance[e] * after[leads_to[e]]
        if won > best + 1e-12:
            best = won
            action = choices[j]
    return action


# --- what counting the cards could add: an upper bound ------------------------------
# A fight's outcomes by card kind (:func:`fight_outcomes`): a fight that goes on is the index
# of its position (>= 0), one that ends is one of these
WON = -1
NOT_WON = -2  # lost, drawn or truncated


@njit_alloc
def fight_outcomes(state, tables, weights, seat, follow):
    """Every exchange of the fight of ``state`` that :func:`best_response_values` weighs for
    ``seat``, kept card kind by card kind rather than summed over the draws:
    ``(counts, first, draws, block, outcomes, kind0, kind1)``.

    For parity ``p`` (contest mode: who attacks), position ``here`` and ``seat``'s insistence
    ``f``, its choices are entries ``first[p, here, f]`` to ``first + counts[p, here, f]``; for
    entry ``c`` and the heuristic's insistence ``h``, ``draws[c, h]`` says whether seat 0 and
    seat 1 draw, and ``outcomes[block[c, h] + i * n1 + j]`` is the exchange's outcome when seat
    0 draws a card of kind ``i`` and seat 1 one of kind ``j`` (``n1`` seat 1's kinds if it
    draws, else 1; ``i`` and ``j`` are 0 for a side that does not draw): :data:`WON`,
    :data:`NOT_WON` or the position the fight goes on from. ``kind0`` / ``kind1``: the kind of
    each card when seat 0 / seat 1 draws it (:func:`card_kinds`). ``follow``: ``seat``'s only
    choice is the heuristic's own (:func:`best_response_values`' ``follow``)."""
    rows0, rows1, edges0, edges1 = _fight_extent(state, tables)
    positions = rows0 * rows1 * edges0 * edges1 * 4
    parities = 2 if tables[T_MODE] == MODE_CONTEST else 1
    kind0, cards0 = card_kinds(state, tables, 0)
    kind1, cards1 = card_kinds(state, tables, 1)
    position = _fight_to_come(state)
    scratch = state.copy()
    choices = np.empty(MAX_RESPONSES, np.int64)
    counts = np.zeros((parities, positions, 2), np.int64)
    first = np.zeros((parities, positions, 2), np.int64)
    entries = parities * positions * 2 * MAX_RESPONSES
    draws = np.zeros((entries, 2, 2), np.int8)
    block = np.zeros((entries, 2), np.int64)
    outcomes = np.empty(1 << 16, np.int32)
    used = 0
    c = 0
    for parity in range(parities):
        position[EXCHANGE] = parity
        for here in range(positions):
            _set_position(position, here, rows1, edges0, edges1)
            for forced in range(2):
                position[side(seat, F_FORCED)] = forced
                n = _choices(position, tables, weights, seat, follow, scratch, choices)
                counts[parity, here, forced] = n
                first[parity, here, forced] = c
                replies = _replies(position, tables, weights, seat, scratch)
                for j in range(n):
                    for h in range(2):
                        a0 = choices[j] if seat == 0 else replies[h]
                        a1 = replies[h] if seat == 0 else choices[j]
                        d0 = action_card(a0) == CARD_DRAW
                        d1 = action_card(a1) == CARD_DRAW
                        draws[c, h, 0] = d0
                        draws[c, h, 1] = d1
                        block[c, h] = used
                        n0 = cards0.shape[0] if d0 else 1
                        n1 = cards1.shape[0] if d1 else 1
                        while used + n0 * n1 > outcomes.shape[0]:
                            outcomes = np.concatenate((outcomes, np.empty_like(outcomes)))
                        for x in range(n0):
                            for y in range(n1):
                                _exchange(position, scratch, tables, a0, a1, cards0[x], cards1[y])
                                if scratch[STATUS] == TERMINATED:
                                    outcomes[used] = WON if scratch[WINNER] == seat else NOT_WON
                                elif scratch[STATUS] == RUNNING:
                                    outcomes[used] = fight_position(scratch, tables)
                                else:
                                    outcomes[used] = NOT_WON  # truncated
                                used += 1
                    c += 1
    return counts, first, draws[:c].copy(), block[:c].copy(), outcomes[:used].copy(), kind0, kind1


@njit
def _insistence(p_forced, forced):
    """The chance of a side's insistence ``forced`` (1: the GM insists on its draw)."""
    return p_forced if forced == 1 else 1.0 - p_forced


@njit
def _worths(outcomes, c, h, after, worth):
    """Fill ``worth`` with the outcomes of entry ``c`` of :func:`fight_outcomes` under the
    heuristic's insistence ``h``, card kind by card kind (seat 0's kind ``i``, seat 1's ``j`` at
    ``i * n1 + j``), each valued 1 won, 0 not won, else its position's value ``after``; returns
    (seat 0 draws, seat 1 draws, ``n1``)."""
    draws, block, results, kind0, kind1 = outcomes[2], outcomes[3], outcomes[4], outcomes[5], outcomes[6]
    d0 = draws[c, h, 0]
    d1 = draws[c, h, 1]
    n1 = int(kind1.max()) + 1 if d1 else 1
    b = block[c, h]
    for i in range(((int(kind0.max()) + 1) if d0 else 1) * n1):
        outcome = results[b + i]
        worth[i] = 1.0 if outcome == WON else (0.0 if outcome == NOT_WON else after[outcome])
    return d0, d1, n1


@njit_alloc
def counting_bound_values(tables, outcomes, values, order):
    """``bound[x, position, drawn]``: the value of the fight to a player who knows the Time
    Deck's whole ``order`` (cards ``drawn`` of it dealt, reshuffles included) and pays, for each
    exchange, what the cards it drew were worth beyond what a player counting the cards expected
    of them, by ``values`` (:func:`best_response_values` of the same fight and seat). Its mean
    over random orders bounds what any player who sees only its seat's information can win,
    counting the cards or not (:func:`counting_bounds`). ``outcomes``: :func:`fight_outcomes`.

    Each exchange is valued, for each insistence of its own and each choice, over the
    heuristic's insistence, as: the choice's outcome worth ``values`` averaged over the cards
    still in the deck as one who counts them expects them (the fair expectation), plus what
    this order's cards make of the position they reach beyond its ``values`` (``bound`` there
    less ``values`` there). The best choice for the order is kept for each insistence."""
    counts, first, _, block, results, kind0, kind1 = outcomes
    parities, positions, _ = counts.shape
    kinds0 = int(kind0.max()) + 1
    kinds1 = int(kind1.max()) + 1
    p_forced = tables[T_FORCED_PPM] / 1e6
    horizon = tables[T_MAX_EXCHANGES]
    drawn_most = 2 * horizon + 1
    bound = np.zeros((horizon + 1, positions, drawn_most))
    deck0 = _full_deck_odds(kind0, kinds0) * DECK_SIZE  # cards of each kind in a full deck
    deck1 = _full_deck_odds(kind1, kinds1) * DECK_SIZE
    left0 = np.empty(kinds0)
    left1 = np.empty(kinds1)
    row = np.empty(kinds0)
    term = np.empty(drawn_most)
    best = np.empty(drawn_most)
    worth = np.empty(kinds0 * kinds1)
    for x in range(horizon - 1, -1, -1):
        parity = x % parities
        after = values[x + 1]
        ahead = bound[x + 1]
        dealt = 2 * x + 1  # after x exchanges, 0 to 2x cards are drawn
        for here in range(positions):
            for forced in range(2):
                p = _insistence(p_forced, forced)
                if p <= 0.0:
                    continue
                best[:dealt] = -np.inf
                c0 = first[parity, here, forced]
                for c in range(c0, c0 + counts[parity, here, forced]):
                    term[:dealt] = 0.0
                    for h in range(2):
                        q = _insistence(p_forced, h)
                        if q <= 0.0:
                            continue
                        d0, d1, n1 = _worths(outcomes, c, h, after, worth)
                        b = block[c, h]
                        # the fair expectation over the cards left, kept as sums over them that
                        # lose one card each step: ``total`` (one side draws: the worth of each
                        # card left; both: of each ordered pair of cards left, counting a card
                        # with itself, less ``same``, those pairs)
                        total = 0.0
                        same = 0.0
                        for drawn in range(dealt):
                            left = DECK_SIZE - drawn % DECK_SIZE
                            if left == DECK_SIZE:  # a full deck: the sums afresh
                                left0[:] = deck0
                                left1[:] = deck1
                                total = 0.0
                                same = 0.0
                                if d0 and d1:
                                    for k in range(kinds0):
                                        row[k] = 0.0
                                        for kk in range(kinds1):
                                            row[k] += left1[kk] * worth[k * kinds1 + kk]
                                        total += left0[k] * row[k]
                                    for card in range(DECK_SIZE):
                                        same += worth[kind0[card] * kinds1 + kind1[card]]
                                elif d0:
                                    for k in range(kinds0):
                                        total += left0[k] * worth[k]
                                elif d1:
                                    for k in range(kinds1):
                                        total += left1[k] * worth[k]
                            card = order[drawn]
                            i = kind0[card] if d0 else 0
                            j = kind1[order[drawn + d0]] if d1 else 0
                            if not d0 and not d1:
                                e = worth[0]
                            elif not (d0 and d1):
                                e = total / left
                            elif left > 1:  # two different cards of those left
                                e = (total - same) / (left * (left - 1))
                            else:  # seat 1 draws from a new shuffle
                                e = 0.0
                                for k in range(kinds1):
                                    e += deck1[k] * worth[i * kinds1 + k] / DECK_SIZE
                            reached = results[b + i * n1 + j]
                            if reached >= 0:
                                e += ahead[reached, drawn + d0 + d1] - after[reached]
                            term[drawn] += q * e
                            # the card drawn leaves the sums
                            if d0 and d1:
                                k1 = kind1[card]
                                total = 0.0
                                left0[kind0[card]] -= 1.0
                                for k in range(kinds0):
                                    row[k] -= worth[k * kinds1 + k1]
                                    total += left0[k] * row[k]
                                same -= worth[kind0[card] * kinds1 + k1]
                            elif d0:
                                total -= worth[kind0[card]]
                            elif d1:
                                total -= worth[kind1[card]]
                    for drawn in range(dealt):
                        best[drawn] = max(best[drawn], term[drawn])
                for drawn in range(dealt):
                    bound[x, here, drawn] += p * best[drawn]
    return bound


@njit_parallel_alloc
def counting_bounds(state, tables, weights, seat, orders):
    """For each Time Deck order (a row of ``orders``: whole shuffles of the 36 cards, at least
    ``2 * max_exchanges`` cards in all), the value :func:`counting_bound_values` gives the fight of
    ``state`` for ``seat`` from its first position. Their mean over random orders is an upper
    bound on the chance that any player who sees only what ``seat`` sees, counting the cards or
    not, wins this fight against the heuristic (``weights``).

    Why it bounds: the information relaxation of Brown, Smith and Sun (2010, "Information
    relaxations and duality in stochastic dynamic programs"). A player who knows the order
    can do all a fair player does. What it pays each exchange is what its cards were worth
    less what they were expected to be worth given what a fair player knows (the cards drawn
    so far are public), so for a fair player the payments average 0 whatever it plays, and
    the best a player who knows the order can make of the fight, payments included, is on
    average at least what the best fair player wins. The payments are valued by
    :func:`best_response_values`, which draws every card from the full deck: the closer that
    is to the value of counting, the closer the bound is to what counting wins. The mean over
    random orders is an unbiased estimate of the bound; where those values are far from what
    counting wins, as in fights they give nearly 1, it can be well above 1, and 1 bounds
    such a fight better."""
    horizon = tables[T_MAX_EXCHANGES]
    if orders.shape[1] < 2 * horizon or orders.shape[1] % DECK_SIZE != 0:
        raise ValueError("counting_bounds: each deck order must be whole shuffles of the 36 cards, at least 2 x max_exchanges cards")
    outcomes = fight_outcomes(state, tables, weights, seat, False)
    values = _full_deck_values(tables, outcomes)
    start = fight_position(state, tables)
    out = np.empty(orders.shape[0])
    for r in prange(orders.shape[0]):
        out[r] = counting_bound_values(tables, outcomes, values, orders[r])[0, start, 0]
    return out
