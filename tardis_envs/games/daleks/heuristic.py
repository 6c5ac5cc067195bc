"""Time of the Daleks heuristic Doctor (one seat of a heuristic team), as numba kernels.

Every judgement rests on the exact odds that dice meet a Challenge
(:func:`tardis_envs.games.daleks.odds.meet_probability`):

* Travel: each reachable Time Zone is worth ``P * (reward + Daleks removed) -
  (1 - P) * (Dalek placed + fail cost)``, where ``P`` is the chance that the pool the
  Doctor would build there (its dice, Focus toward the Challenge's colours, the pool
  limit, the Daleks' exterminations) meets the Challenge; a face-down Dilemma is
  unknown (the zone's own symbols, ``P`` scaled down). Rolling the TARDIS die or
  drawing Locations is worth what an average new Location is worth. A Dalek on
  Earth weighs more for every Dalek already there; a seventh marker or a third on
  Earth is treated as the game lost.
* Recruit whenever a space is free and paying is cheap: the Linked Companion whose
  dice and Focus raise the odds most, else one drawn from the deck. Call for help when the other Doctor's dice raise the odds by
  enough to pay for the call (and, if it would come, the Ship's two spaces); a called
  Doctor comes only when that is worth more than helping from afar.
* Build the pool by the exact odds: each Focus or added die is taken if it raises
  them; discards and exterminations remove the die whose loss costs least.
* Manipulate dice greedily: every legal re-roll (card icons, two Sonic, a Black die
  discarded) and face change (card icons, three Sonic) is scored by the odds that
  follow (dice already useful are kept, the others re-rolled), less the Sonic and
  cards it spends; the best is taken while it is worth more than stopping.
* Pay obligations with spare Sonic or the cheapest card; choose the cheapest fail
  cost; give Transfer cards to the Doctor with the fewest cards; keep Any Adventure
  cards for its own adventures (it passes in other Doctors' windows).

It reads only what its seat may know: public consoles and Locations, face-up
Dilemmas, deck sizes and discard piles, its own hand; never a face-down Dilemma,
another hand or the generator.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit, njit_alloc, njit_parallel, njit_parallel_alloc, prange
from ...core.rng import hash_words
from ...core.sampling import count_legal, nth_legal
from ...core.state import CURRENT_PLAYER, RUNNING, STATUS, TRUNCATED
from . import layout as L
from .components.cards import hand_size
from .components.challenge import imprisoned
from .components.dalek_markers import daleks_fighting, daleks_in_play, daleks_on_earth
from .components.locations import zone_open, zone_record
from .content import (
    ABILITY_COLOUR,
    ABILITY_COUNT,
    ABILITY_EFFECT,
    ABILITY_MODE,
    ABILITY_SYMBOL,
    ABILITY_TIMING,
    AN_CHALLENGE,
    AN_FAIL,
    AN_REWARD,
    ANOMALY_FIELDS,
    BLACK,
    CARD_COST,
    CARD_DICE,
    CARD_FIELDS,
    COLOUR_ANY,
    COLOUR_COLOURED,
    COMPANION_DICE,
    COMPANION_FIELDS,
    DICE_SUPPLY,
    DIE_FACES,
    DILEMMA_FIELDS,
    DL_CONDITIONS,
    DL_NUM_OPTIONS,
    DL_OPTIONS,
    DOCTOR_DICE,
    DOCTOR_FIELDS,
    E_CHANGE_FACE,
    E_DISCARD_CARDS,
    E_DISCARD_COMPANION,
    E_DISMISS_COMPANION,
    E_DRAW,
    E_FOCUS,
    E_FREE_DIE,
    E_GAIN_SONIC,
    E_LOSE_SONIC,
    E_MOVE_SHIP,
    E_MOVE_TARDIS,
    E_PLACE_DALEK,
    E_PROGRESS,
    E_REMOVE_DALEK,
    E_REROLL,
    MAX_EFFECTS,
    NUM_CARDS,
    NUM_COMPANIONS,
    NUM_LOCATIONS,
    NUM_SYMBOLS,
    RM_ALL,
    T_ANOMALIES,
    T_CARDS,
    T_COMPANIONS,
    T_DILEMMAS,
    T_DOCTORS,
    T_NUM_ABILITIES,
    T_NUM_PLAYERS,
    T_TARDIS_FACES,
    T_TRACK,
    T_ZONES,
    Z_CHALLENGE,
    Z_REWARD,
    ZONE_FIELDS,
)
from .odds import meet_probability
from .phases.abilities import ability_field, card_field, from_hand, holds, sonic_cost
from .phases.adventure import pool_limit
from .rules import legal_mask, step

W_SONIC = 0  # value of a Sonic Charge token
W_CARD = 1  # value of a Timey-Wimey card
W_TARDIS = 2  # value of one space of the own TARDIS
W_SHIP = 3  # cost of one space of the Dalek Ship
W_DALEK = 4  # cost of a Dalek marker
W_EARTH = 5  # extra cost of a Dalek on Earth, per Dalek already there
W_HELP = 6  # expected gain a call for help must bring
W_UNKNOWN = 7  # odds factor for a face-down Dilemma
W_SPEND = 8  # value a dice manipulation must add before Sonic or a card is spent on it
W_LOST = 9  # cost of an outcome that loses the game
DEFAULT_WEIGHTS = np.array([0.25, 0.35, 1.0, 1.1, 1.0, 1.5, 0.25, 0.45, 0.02, 12.0])
COND_FIXED_POINT = 1
COND_TIME_LOCKED = 2
COND_TIME_BREACH = 4
SLOT_TILE = 2


# --- what a die colour is worth for a Challenge ------------------------------------
@njit
def colour_score(colour, need):
    score = 0.0
    for f in range(6):
        s = DIE_FACES[colour, f]
        if need[s] > 0:
            score += need[s]
    return score


@njit
def starting_dice(state, tables, seat, out):
    """The dice of the Doctor, its Companions and its Equipment (before Focus)."""
    for c in range(4):
        n = tables[T_DOCTORS + state[L.DOCTOR + seat] * DOCTOR_FIELDS + DOCTOR_DICE + c]
        for k in range(NUM_COMPANIONS):
            if state[L.COMPANION_PLACE + k] == seat:
                n += tables[T_COMPANIONS + k * COMPANION_FIELDS + COMPANION_DICE + c]
        for card in range(NUM_CARDS):
            if state[L.CARD_PLACE + card] == L.PLACE_INSTALLED + seat:
                n += tables[T_CARDS + card * CARD_FIELDS + CARD_DICE + c]
        out[c] = n


@njit
def trim(counts, need, keep):
    """Remove the least useful dice until ``keep`` are left (black first, then the
    colour whose faces serve the Challenge least)."""
    total = counts[0] + counts[1] + counts[2] + counts[3]
    while total > keep:
        worst = -1
        worst_score = 1e9
        for c in range(4):
            if counts[c] > 0:
                sc = colour_score(c, need) + (0.0 if c == BLACK else 0.01)
                if sc < worst_score:
                    worst_score = sc
                    worst = c
        counts[worst] -= 1
        total -= 1


@njit
def plan_pool(state, tables, seat, need, limit, exterminated, taken, out):
    """The pool ``seat`` would build for ``need``: its dice (limited by the dice on the
    table and those in ``taken``), each free Focus toward a colour that serves the
    Challenge better than Black, trimmed to ``limit`` and then to the exterminations."""
    starting_dice(state, tables, seat, out)
    for c in range(4):
        left = DICE_SUPPLY[c] - imprisoned(state, tables, c) - taken[c]
        if out[c] > left:
            out[c] = max(left, 0)
    black_score = colour_score(BLACK, need)
    for r in range(tables[T_NUM_ABILITIES]):
        if ability_field(tables, r, ABILITY_EFFECT) != E_FOCUS or not holds(state, tables, seat, r):
            continue
        c = ability_field(tables, r, ABILITY_COLOUR)
        if out[BLACK] > 0 and colour_score(c, need) > black_score and out[c] < DICE_SUPPLY[c] - imprisoned(state, tables, c) - taken[c]:
            out[BLACK] -= 1
            out[c] += 1
    trim(out, need, limit)
    trim(out, need, max(limit - exterminated, 0))


@njit
def zone_need(state, tables, slot, z, need):
    """The Challenge of a zone as this seat knows it; False if its Dilemma is face down."""
    for s in range(NUM_SYMBOLS):
        need[s] = 0
    kind = state[L.SLOT_KIND + slot]
    if kind == L.SLOT_ANOMALY:
        base = T_ANOMALIES + state[L.SLOT_ID + slot] * ANOMALY_FIELDS + AN_CHALLENGE
        for s in range(NUM_SYMBOLS):
            need[s] = tables[base + s]
        return True
    rec = zone_record(state, slot, z)
    for s in range(NUM_SYMBOLS):
        need[s] = tables[T_ZONES + rec * ZONE_FIELDS + Z_CHALLENGE + s]
    zone = slot * 3 + z
    d = state[L.ZONE_DILEMMA + zone]
    if d >= 0 and state[L.ZONE_FACE_UP + zone]:
        for s in range(NUM_SYMBOLS):
            need[s] += tables[T_DILEMMAS + d * DILEMMA_FIELDS + s]
        return True
    return d < 0


@njit
def effects_value(state, tables, base, weights, seat, slot, z):
    """Value of ``MAX_EFFECTS`` (effect, count) pairs for the team (negative: a cost)."""
    v = 0.0
    track = tables[T_TRACK]
    for j in range(MAX_EFFECTS):
        e = tables[base + 2 * j]
        n = tables[base + 2 * j + 1]
        if e == E_MOVE_TARDIS:
            room = track - state[L.TARDIS + seat]
            v += weights[W_TARDIS] * min(n, room) if n > 0 else weights[W_TARDIS] * n
        elif e == E_MOVE_SHIP:
            if n > 0 and state[L.SHIP] + n >= track:
                v -= weights[W_LOST]
            v -= weights[W_SHIP] * n
        elif e == E_GAIN_SONIC:
            v += weights[W_SONIC] * min(n, L.SONIC_LIMIT - state[L.SONIC + seat])
        elif e == E_LOSE_SONIC:
            v -= weights[W_SONIC] * min(n, state[L.SONIC + seat])
        elif e == E_DRAW:
            v += weights[W_CARD] * n
        elif e == E_DISCARD_CARDS:
            v -= weights[W_CARD] * n
        elif e == E_DISCARD_COMPANION or e == E_DISMISS_COMPANION:
            v -= 0.8 * n
        elif e == E_REMOVE_DALEK:
            if slot >= 0 and daleks_fighting(state, slot, z) > 0:
                v += dalek_cost(state, tables, weights, slot, 0)
        elif e == E_PLACE_DALEK:
            v -= dalek_cost(state, tables, weights, 0 if n == 1 else slot, 1)
        elif e == E_FREE_DIE or e == E_PROGRESS:
            v += 0.5 * n
    return v


@njit
def dalek_cost(state, tables, weights, slot, adding):
    """What one more Dalek marker at ``slot`` costs (removing one: what it saves)."""
    total = daleks_in_play(state)
    if adding and total >= L.MAX_DALEKS:
        return weights[W_LOST]
    if slot == 0:
        earth = daleks_on_earth(state)
        if adding and earth >= 2:
            return weights[W_LOST]
        return weights[W_DALEK] + weights[W_EARTH] * (earth + adding)
    return weights[W_DALEK] * (0.5 + total / 6.0)


@njit
def outcome_values(state, tables, seat, slot, z, weights):
    """(value of success, cost of failure) of an adventure by ``seat`` at (slot, z)."""
    kind = state[L.SLOT_KIND + slot]
    if kind == L.SLOT_ANOMALY:
        base = T_ANOMALIES + state[L.SLOT_ID + slot] * ANOMALY_FIELDS
        win = effects_value(state, tables, base + AN_REWARD, weights, seat, slot, z) + 1.0
        lose = -effects_value(state, tables, base + AN_FAIL, weights, seat, slot, z)
        return win, lose
    rec = zone_record(state, slot, z)
    win = effects_value(state, tables, T_ZONES + rec * ZONE_FIELDS + Z_REWARD, weights, seat, slot, z)
    if daleks_fighting(state, slot, z) > 0:
        win += dalek_cost(state, tables, weights, slot, 0)
    lose = dalek_cost(state, tables, weights, slot, 1)
    zone = slot * 3 + z
    d = state[L.ZONE_DILEMMA + zone]
    if d >= 0 and state[L.ZONE_FACE_UP + zone]:
        best = 1e9
        for k in range(tables[T_DILEMMAS + d * DILEMMA_FIELDS + DL_NUM_OPTIONS]):
            cost = -effects_value(state, tables, T_DILEMMAS + d * DILEMMA_FIELDS + DL_OPTIONS + k * MAX_EFFECTS * 2, weights, seat, slot, z)
            best = min(best, cost)
        lose += best
    else:
        lose += 1.5
    return win, lose


@njit_alloc
def zone_score(state, tables, seat, slot, z, weights):
    need = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    known = zone_need(state, tables, slot, z, need)
    limit = 8
    if known and state[L.SLOT_KIND + slot] != L.SLOT_ANOMALY:
        d = state[L.ZONE_DILEMMA + slot * 3 + z]
        if d >= 0 and tables[T_DILEMMAS + d * DILEMMA_FIELDS + DL_CONDITIONS] & COND_TIME_BREACH:
            limit = 7
    counts = np.zeros(4, dtype=np.int64)
    taken = np.zeros(4, dtype=np.int64)
    exterminated = 0 if state[L.SLOT_KIND + slot] == L.SLOT_ANOMALY else daleks_fighting(state, slot, z)
    plan_pool(state, tables, seat, need, limit, exterminated, taken, counts)
    fixed = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    p = meet_probability(fixed, counts, need)
    if not known:
        p *= weights[W_UNKNOWN]
    win, lose = outcome_values(state, tables, seat, slot, z, weights)
    return p * win - (1.0 - p) * lose


@njit_alloc
def new_tile_score(state, tables, seat, weights):
    """What an unknown new Location is worth on average (tiles neither in play nor discarded)."""
    total = 0.0
    count = 0
    need = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    counts = np.zeros(4, dtype=np.int64)
    taken = np.zeros(4, dtype=np.int64)
    fixed = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    use_discards = True
    for t in range(NUM_LOCATIONS):
        if state[L.LOCATION_PLACE + t] == L.PLACE_DECK:
            use_discards = False
    for t in range(NUM_LOCATIONS):
        place = state[L.LOCATION_PLACE + t]
        if not (place == L.PLACE_DECK or (use_discards and place == L.PLACE_DISCARD)):
            continue
        best = -1e9
        for z in range(2):
            rec = 3 + 2 * t + z
            for s in range(NUM_SYMBOLS):
                need[s] = tables[T_ZONES + rec * ZONE_FIELDS + Z_CHALLENGE + s]
            plan_pool(state, tables, seat, need, 8, 0, taken, counts)
            p = meet_probability(fixed, counts, need) * weights[W_UNKNOWN]
            win = effects_value(state, tables, T_ZONES + rec * ZONE_FIELDS + Z_REWARD, weights, seat, -1, 0)
            lose = weights[W_DALEK] * (0.5 + daleks_in_play(state) / 6.0) + 1.5
            if daleks_in_play(state) >= L.MAX_DALEKS:
                lose = weights[W_LOST]
            best = max(best, p * win - (1.0 - p) * lose)
        total += best
        count += 1
    if count == 0:
        return -1e6
    return total / count


@njit_alloc
def tile_zone_score(state, tables, seat, tile, z, weights):
    need = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    counts = np.zeros(4, dtype=np.int64)
    taken = np.zeros(4, dtype=np.int64)
    fixed = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    rec = 3 + 2 * tile + z
    for s in range(NUM_SYMBOLS):
        need[s] = tables[T_ZONES + rec * ZONE_FIELDS + Z_CHALLENGE + s]
    plan_pool(state, tables, seat, need, 8, 0, taken, counts)
    p = meet_probability(fixed, counts, need) * weights[W_UNKNOWN]
    win = effects_value(state, tables, T_ZONES + rec * ZONE_FIELDS + Z_REWARD, weights, seat, -1, 0)
    lose = weights[W_DALEK] * (0.5 + daleks_in_play(state) / 6.0) + 1.5
    return p * win - (1.0 - p) * lose


# --- the decisions --------------------------------------------------------------------------
@njit
def best_of(scores, mask):
    best = -1
    best_score = -1e18
    for a in range(mask.shape[0]):
        if mask[a] and scores[a] > best_score:
            best_score = scores[a]
            best = a
    return best


@njit_alloc
def travel_choice(state, tables, weights, mask, seat):
    scores = np.full(L.NUM_ACTIONS, -1e17)
    tax = 0.0
    faces = tables[T_TARDIS_FACES] / 6.0
    best_in_play = -1e9
    for zone in range(L.MAX_ZONES):
        if mask[L.A_GOTO + zone]:
            scores[L.A_GOTO + zone] = zone_score(state, tables, seat, zone // 3, zone % 3, weights)
    for slot in range(L.MAX_SLOTS):
        for z in range(3):
            if zone_open(state, slot, z):
                best_in_play = max(best_in_play, zone_score(state, tables, seat, slot, z, weights))
    fresh = new_tile_score(state, tables, seat, weights)
    if mask[L.A_STAY]:
        scores[L.A_STAY] = zone_score(state, tables, seat, state[L.AT_SLOT + seat], state[L.AT_ZONE + seat], weights)
    if mask[L.A_ROLL_TARDIS]:
        scores[L.A_ROLL_TARDIS] = faces * max(best_in_play, fresh * 1.15) + (1.0 - faces) * fresh - tax
    if mask[L.A_FIRST_DOCTOR]:
        scores[L.A_FIRST_DOCTOR] = fresh + weights[W_CARD]
    if mask[L.A_DRAW_TWO]:
        scores[L.A_DRAW_TWO] = fresh * 1.15
    if mask[L.A_DONE]:
        scores[L.A_DONE] = -1e16
    for j in range(2):
        tile = state[L.DRAWN + j]
        for z in range(2):
            if mask[L.A_KEEP + 2 * j + z] and tile >= 0:
                scores[L.A_KEEP + 2 * j + z] = tile_zone_score(state, tables, seat, tile, z, weights)
    return best_of(scores, mask)


@njit
def companion_strength(tables, k):
    n = 0
    for c in range(4):
        n += tables[T_COMPANIONS + k * COMPANION_FIELDS + COMPANION_DICE + c]
    return n


@njit_alloc
def recruit_choice(state, tables, weights, mask, seat):
    """A Linked Companion whose dice and Focus raise the odds most, else a random one from
    the deck (a Companion always adds a die), when paying is cheap."""
    if state[L.SONIC + seat] < 2 and hand_size(state, seat) == 0:
        return L.A_DONE
    need = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    challenge_need(state, need)
    best = -1
    best_p = team_odds(state, tables, seat, -1, 0, need)
    for k in range(NUM_COMPANIONS):
        if not mask[L.A_RECRUIT_LINK + k]:
            continue
        place = state[L.COMPANION_PLACE + k]
        state[L.COMPANION_PLACE + k] = seat  # as if on the console
        p = team_odds(state, tables, seat, -1, 0, need)
        state[L.COMPANION_PLACE + k] = place
        if p > best_p:
            best_p = p
            best = L.A_RECRUIT_LINK + k
    if best >= 0:
        return best
    for d in range(2):
        if mask[L.A_RECRUIT_DECK + d]:
            return L.A_RECRUIT_DECK + d
    return L.A_DONE


@njit_alloc
def team_odds(state, tables, seat, helper, mode, need):
    """Odds of the adventure with ``helper`` helping in ``mode`` (0: alone)."""
    slot = state[L.ADV_SLOT]
    z = state[L.ADV_ZONE]
    breach = 1 if state[L.ADV_CONDITIONS] & COND_TIME_BREACH else 0
    exterminated = 0 if state[L.SLOT_KIND + slot] == L.SLOT_ANOMALY else daleks_fighting(state, slot, z)
    mine = np.zeros(4, dtype=np.int64)
    theirs = np.zeros(4, dtype=np.int64)
    taken = np.zeros(4, dtype=np.int64)
    if mode == 0:
        plan_pool(state, tables, seat, need, 8 - breach, exterminated, taken, mine)
    else:
        limit = (7 if mode == L.HELP_AFAR else 5) - breach
        plan_pool(state, tables, seat, need, limit, 0, taken, mine)
        plan_pool(state, tables, helper, need, 1 if mode == L.HELP_AFAR else 3, 0, mine, theirs)
        for c in range(4):
            mine[c] += theirs[c]
        trim(mine, need, max(mine[0] + mine[1] + mine[2] + mine[3] - exterminated, 0))
    fixed = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    return meet_probability(fixed, mine, need)


@njit
def come_cost(state, tables, helper, weights):
    slot = state[L.ADV_SLOT]
    cost = 0.0
    if state[L.AT_SLOT + helper] != slot:
        cost += weights[W_SONIC] if state[L.SONIC + helper] >= 2 else weights[W_CARD]
    if state[L.SLOT_KIND + slot] != L.SLOT_ANOMALY:
        cost += weights[W_SHIP] * 2.0
        if state[L.SHIP] + 2 >= tables[T_TRACK]:
            cost += weights[W_LOST]
    return cost


@njit
def help_values(state, tables, seat, helper, weights, need, stake):
    """(expected gain if the helper comes, if it helps from afar) over going alone."""
    alone = team_odds(state, tables, seat, helper, 0, need)
    afar = team_odds(state, tables, seat, helper, L.HELP_AFAR, need)
    come = team_odds(state, tables, seat, helper, L.HELP_COME, need)
    return (come - alone) * stake - come_cost(state, tables, helper, weights), (afar - alone) * stake


@njit
def adventure_stake(state, tables, weights):
    win, lose = outcome_values(state, tables, state[L.ACTIVE], state[L.ADV_SLOT], state[L.ADV_ZONE], weights)
    return win + lose


@njit
def challenge_need(state, need):
    for s in range(NUM_SYMBOLS):
        need[s] = state[L.CHALLENGE + s]


@njit_alloc
def call_choice(state, tables, weights, mask, seat):
    need = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    challenge_need(state, need)
    stake = adventure_stake(state, tables, weights)
    n = tables[T_NUM_PLAYERS]
    pay = weights[W_SONIC] if state[L.SONIC + seat] >= 2 else weights[W_CARD]
    best = L.A_DONE
    best_gain = weights[W_HELP] + pay
    for j in range(3):
        if not mask[L.A_SEAT + j]:
            continue
        helper = (seat + j + 1) % n
        come, afar = help_values(state, tables, seat, helper, weights, need, stake)
        gain = max(come, afar)
        if gain > best_gain:
            best_gain = gain
            best = L.A_SEAT + j
    return best


@njit_alloc
def answer_choice(state, tables, weights, mask, seat):
    need = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    challenge_need(state, need)
    come, afar = help_values(state, tables, state[L.ACTIVE], seat, weights, need, adventure_stake(state, tables, weights))
    if mask[L.A_HELP_COME] and come > afar:
        return L.A_HELP_COME
    return L.A_HELP_AFAR


@njit_alloc
def pool_odds(state, tables, counts0, counts1, need, exterminations):
    """Odds of two gathered pools after the builder trims to its limit (already done) and
    ``exterminations`` dice are removed."""
    both = counts0 + counts1
    trim(both, need, max(both[0] + both[1] + both[2] + both[3] - exterminations, 0))
    fixed = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    return meet_probability(fixed, both, need)


@njit_alloc
def pool_choice(state, tables, weights, mask, seat):
    """Focus / added dice by the exact odds after the limit and the exterminations."""
    need = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    challenge_need(state, need)
    b = state[L.BUILDER]
    stake = adventure_stake(state, tables, weights)
    limit = pool_limit(state, b)
    slot = state[L.ADV_SLOT]
    exterminations = 0 if state[L.SLOT_KIND + slot] == L.SLOT_ANOMALY else daleks_fighting(state, slot, state[L.ADV_ZONE])
    own = np.zeros(4, dtype=np.int64)
    other = np.zeros(4, dtype=np.int64)
    for c in range(4):
        own[c] = state[L.POOL + b * 4 + c]
        other[c] = state[L.POOL + (1 - b) * 4 + c]
    trial = own.copy()
    trim(trial, need, limit)
    base = pool_odds(state, tables, trial, other, need, exterminations)
    best = L.A_DONE
    best_value = 0.0
    for r in range(tables[T_NUM_ABILITIES]):
        if not mask[L.A_ABILITY + r]:
            continue
        trial[:] = own
        colour = ability_field(tables, r, ABILITY_COLOUR)
        if ability_field(tables, r, ABILITY_EFFECT) == E_FOCUS:
            trial[BLACK] -= 1
            trial[colour] += 1
        else:
            trial[colour] += ability_field(tables, r, ABILITY_COUNT)
        trim(trial, need, limit)
        gain = (pool_odds(state, tables, trial, other, need, exterminations) - base) * stake
        gain -= sonic_cost(tables, r) * weights[W_SONIC] + (weights[W_CARD] if from_hand(tables, r) else 0.0)
        if gain > best_value + 1e-9:
            best_value = gain
            best = L.A_ABILITY + r
    return best


@njit_alloc
def remove_choice(state, tables, weights, mask, first, pools):
    """The discard / extermination that keeps the odds highest."""
    need = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    challenge_need(state, need)
    counts = np.zeros(4, dtype=np.int64)
    fixed = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    best = -1
    best_p = -1.0
    for p in range(pools):
        for c in range(4):
            a = first + p * 4 + c
            if not mask[a]:
                continue
            for k in range(4):
                counts[k] = state[L.POOL + k] + state[L.POOL + 4 + k]
            counts[c] -= 1
            pr = meet_probability(fixed, counts, need) + (0.001 if c == BLACK else 0.0)
            if pr > best_p:
                best_p = pr
                best = a
    return best


# --- rolled dice ---------------------------------------------------------------------------------
@njit
def useful_dice(state, need):
    """Bitmask of dice that are kept because they cover the Challenge (the first dice
    showing each needed symbol, as many as needed)."""
    mask = 0
    for s in range(NUM_SYMBOLS):
        left = need[s]
        for d in range(L.MAX_DICE):
            if left == 0:
                break
            if state[L.DIE_COLOUR + d] >= 0 and state[L.DIE_FACE + d] == s:
                mask |= 1 << d
                left -= 1
    return mask


@njit_alloc
def odds_rerolling(state, need, reroll):
    """Odds if the dice in bitmask ``reroll`` are rolled again and the others kept."""
    fixed = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    roll = np.zeros(4, dtype=np.int64)
    for d in range(L.MAX_DICE):
        colour = state[L.DIE_COLOUR + d]
        if colour < 0:
            continue
        if (reroll >> d) & 1:
            roll[colour] += 1
        else:
            fixed[state[L.DIE_FACE + d]] += 1
    return meet_probability(fixed, roll, need)


@njit
def potential(state, need, own_pool):
    """How close the dice are: the odds if every die of the own pool that is not useful
    were re-rolled once."""
    useful = useful_dice(state, need)
    spare = 0
    for d in range(L.MAX_DICE):
        if state[L.DIE_COLOUR + d] >= 0 and d // L.POOL_DICE == own_pool and not (useful >> d) & 1:
            spare |= 1 << d
    return odds_rerolling(state, need, spare)


@njit
def fits(tables, r, colour):
    want = ability_field(tables, r, ABILITY_COLOUR)
    if want == COLOUR_ANY:
        return True
    if want == COLOUR_COLOURED:
        return colour != BLACK
    return want == colour


@njit
def reach_pool(tables, r, own_pool):
    timing = ability_field(tables, r, ABILITY_TIMING)
    return -1 if timing == 3 or timing == 4 else own_pool


@njit
def reroll_pick(state, tables, r, need, own_pool, limit):
    """The dice a re-roll icon should take: spare dice of its colour first (at most ``limit``)."""
    useful = useful_dice(state, need)
    pick = 0
    n = 0
    area = reach_pool(tables, r, own_pool)
    for d in range(L.MAX_DICE):
        colour = state[L.DIE_COLOUR + d]
        if colour < 0 or n >= limit or (useful >> d) & 1:
            continue
        if area >= 0 and d // L.POOL_DICE != area:
            continue
        if (state[L.FACE_CHANGED] >> (d // L.POOL_DICE)) & 1:
            continue
        if fits(tables, r, colour):
            pick |= 1 << d
            n += 1
    return pick


@njit
def change_pick(state, tables, r, need, own_pool):
    """(die, odds) of the best die for a face-change icon."""
    symbol = ability_field(tables, r, ABILITY_SYMBOL)
    area = reach_pool(tables, r, own_pool)
    best = -1
    best_p = -1.0
    useful = useful_dice(state, need)
    for d in range(L.MAX_DICE):
        colour = state[L.DIE_COLOUR + d]
        if colour < 0 or state[L.DIE_FACE + d] == symbol or not fits(tables, r, colour):
            continue
        if area >= 0 and d // L.POOL_DICE != area:
            continue
        old = state[L.DIE_FACE + d]
        state[L.DIE_FACE + d] = symbol
        p = potential(state, need, own_pool)
        state[L.DIE_FACE + d] = old
        if (useful >> d) & 1:
            p -= 0.01
        if p > best_p:
            best_p = p
            best = d
    return best, best_p


@njit_alloc
def manipulate_choice(state, tables, weights, mask, seat, own_pool):
    need = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    challenge_need(state, need)
    stake = adventure_stake(state, tables, weights)
    scores = np.full(L.NUM_ACTIONS, -1e17)
    if mask[L.A_DONE]:
        scores[L.A_DONE] = 0.0
    useful = useful_dice(state, need)
    sonic = weights[W_SONIC]
    for d in range(L.MAX_DICE):
        if mask[L.A_SONIC_REROLL + d] and not (useful >> d) & 1:
            scores[L.A_SONIC_REROLL + d] = odds_rerolling(state, need, 1 << d) * stake - 2 * sonic - weights[W_SPEND]
        if mask[L.A_BLACK_REROLL + d]:
            colour = state[L.DIE_COLOUR + d]
            state[L.DIE_COLOUR + d] = -1
            rest = 0
            for e in range(L.MAX_DICE):
                if state[L.DIE_COLOUR + e] >= 0 and e // L.POOL_DICE == own_pool:
                    rest |= 1 << e
            p = odds_rerolling(state, need, rest)
            state[L.DIE_COLOUR + d] = colour
            scores[L.A_BLACK_REROLL + d] = p * stake - weights[W_SPEND] - 0.05
        for s in range(NUM_SYMBOLS):
            a = L.A_SONIC_FACE + d * NUM_SYMBOLS + s
            if mask[a] and need[s] > 0:
                old = state[L.DIE_FACE + d]
                state[L.DIE_FACE + d] = s
                p = potential(state, need, own_pool)
                state[L.DIE_FACE + d] = old
                if (useful >> d) & 1:
                    p -= 0.01
                scores[a] = p * stake - 3 * sonic - weights[W_SPEND]
    for r in range(tables[T_NUM_ABILITIES]):
        a = L.A_ABILITY + r
        if not mask[a]:
            continue
        spend = sonic_cost(tables, r) * sonic + (weights[W_CARD] if from_hand(tables, r) else 0.0)
        effect = ability_field(tables, r, ABILITY_EFFECT)
        if effect == E_REROLL:
            if ability_field(tables, r, ABILITY_MODE) == RM_ALL:
                pick = 0
                area = reach_pool(tables, r, own_pool)
                for d in range(L.MAX_DICE):
                    colour = state[L.DIE_COLOUR + d]
                    if colour >= 0 and fits(tables, r, colour) and (area < 0 or d // L.POOL_DICE == area):
                        pick |= 1 << d
            else:
                pick = reroll_pick(state, tables, r, need, own_pool, ability_field(tables, r, ABILITY_COUNT))
            if pick == 0:
                continue
            scores[a] = odds_rerolling(state, need, pick) * stake - spend - weights[W_SPEND] * 0.5
        elif effect == E_CHANGE_FACE:
            d, p = change_pick(state, tables, r, need, own_pool)
            if d >= 0 and need[ability_field(tables, r, ABILITY_SYMBOL)] > 0:
                scores[a] = p * stake - spend - weights[W_SPEND] * 0.5
    return best_of(scores, mask)


@njit_alloc
def select_choice(state, tables, weights, mask, seat, own_pool):
    need = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    challenge_need(state, need)
    r = state[L.SEL_ABILITY]
    if ability_field(tables, r, ABILITY_EFFECT) == E_CHANGE_FACE:
        d, _ = change_pick(state, tables, r, need, own_pool)
        if d >= 0 and mask[L.A_SELECT + d]:
            return L.A_SELECT + d
    else:
        useful = useful_dice(state, need)
        for d in range(L.MAX_DICE):
            if mask[L.A_SELECT + d] and not (useful >> d) & 1:
                return L.A_SELECT + d
        if mask[L.A_COMMIT]:
            return L.A_COMMIT
    for a in range(L.NUM_ACTIONS):
        if mask[a]:
            return a
    return -1


# --- paying ----------------------------------------------------------------------------------------
@njit
def cheapest_card(state, tables, mask, seat):
    best = -1
    best_cost = 1e9
    for c in range(NUM_CARDS):
        if mask[L.A_DISCARD_CARD + c]:
            cost = float(card_field(tables, c, CARD_COST))
            if cost < best_cost:
                best_cost = cost
                best = L.A_DISCARD_CARD + c
    return best


@njit
def obligation_choice(state, tables, weights, mask, seat):
    kind = state[L.OBLIGATIONS + 1]
    if kind == L.OB_DISCARD_COMPANION or kind == L.OB_DISMISS_COMPANION:
        best = -1
        fewest = 1e9
        for k in range(NUM_COMPANIONS):
            if mask[L.A_LOSE_COMPANION + k]:
                part = 0.0
                for slot in range(L.COMPANION_SPACES):
                    if state[L.COMPANION + seat * L.COMPANION_SPACES + slot] == k and state[L.PART_TIME + seat * L.COMPANION_SPACES + slot]:
                        part = -0.5
                v = companion_strength(tables, k) + part
                if v < fewest:
                    fewest = v
                    best = L.A_LOSE_COMPANION + k
        return best
    if mask[L.A_PAY_SONIC]:
        need_sonic = 2 if kind == L.OB_TAX else 1
        if state[L.SONIC + seat] - need_sonic >= 2 or hand_size(state, seat) == 0:
            return L.A_PAY_SONIC
    card = cheapest_card(state, tables, mask, seat)
    if card >= 0:
        return card
    return L.A_PAY_SONIC


@njit
def fail_choice(state, tables, weights, mask, seat):
    d = state[L.FAIL_DILEMMA]
    best = -1
    best_cost = 1e18
    for k in range(2):
        if mask[L.A_FAIL_OPTION + k]:
            cost = -effects_value(
                state,
                tables,
                T_DILEMMAS + d * DILEMMA_FIELDS + DL_OPTIONS + k * MAX_EFFECTS * 2,
                weights,
                seat,
                state[L.ADV_SLOT],
                state[L.ADV_ZONE],
            )
            if cost < best_cost:
                best_cost = cost
                best = L.A_FAIL_OPTION + k
    return best


@njit
def give_choice(state, tables, mask, seat):
    n = tables[T_NUM_PLAYERS]
    best = -1
    fewest = 1 << 30
    for j in range(3):
        if mask[L.A_SEAT + j]:
            h = hand_size(state, (seat + j + 1) % n)
            if h < fewest:
                fewest = h
                best = L.A_SEAT + j
    return best


@njit
def prepare_choice(state, tables, weights, mask, seat):
    """Use free gains, install Equipment (dice first), then travel."""
    for r in range(tables[T_NUM_ABILITIES]):
        if not mask[L.A_ABILITY + r]:
            continue
        effect = ability_field(tables, r, ABILITY_EFFECT)
        value = 0.0
        count = ability_field(tables, r, ABILITY_COUNT)
        if effect == E_MOVE_TARDIS:
            value = weights[W_TARDIS] * count
        elif effect == E_MOVE_SHIP:
            value = -weights[W_SHIP] * count
        elif effect == E_GAIN_SONIC:
            value = weights[W_SONIC] * min(count, L.SONIC_LIMIT - state[L.SONIC + seat])
        elif effect == E_DRAW:
            value = weights[W_CARD] * count
        elif effect == E_REMOVE_DALEK:
            value = dalek_cost(state, tables, weights, state[L.AT_SLOT + seat], 0)
        elif effect == E_FREE_DIE or effect == E_PROGRESS:
            value = 0.6
        spend = sonic_cost(tables, r) * weights[W_SONIC] + (weights[W_CARD] if from_hand(tables, r) else 0.0)
        if value > spend:
            return L.A_ABILITY + r
    best = -1
    best_dice = -1
    for c in range(NUM_CARDS):
        if mask[L.A_INSTALL + c]:
            dice = 0
            for k in range(4):
                dice += card_field(tables, c, CARD_DICE + k)
            if dice > best_dice:
                best_dice = dice
                best = L.A_INSTALL + c
    if best >= 0:
        return best
    return L.A_DONE


@njit
def own_pool_of(state, seat):
    if seat == state[L.ACTIVE]:
        return 0
    if seat == state[L.HELPER]:
        return 1
    return -1


@njit_alloc
def choose(state, tables, weights):
    mask = np.zeros(L.NUM_ACTIONS, dtype=np.int8)
    legal_mask(state, tables, mask)
    seat = state[CURRENT_PLAYER]
    choice = -1
    if state[L.OBL_COUNT] > 0:
        choice = obligation_choice(state, tables, weights, mask, seat)
    else:
        stage = state[L.STAGE]
        if stage == L.S_PREPARE:
            choice = prepare_choice(state, tables, weights, mask, seat)
        elif stage == L.S_TRAVEL or stage == L.S_TRAVEL_CHOOSE or stage == L.S_TRAVEL_KEEP:
            choice = travel_choice(state, tables, weights, mask, seat)
        elif stage == L.S_RECRUIT:
            choice = recruit_choice(state, tables, weights, mask, seat)
        elif stage == L.S_CALL_HELP:
            choice = call_choice(state, tables, weights, mask, seat)
        elif stage == L.S_HELP_ANSWER:
            choice = answer_choice(state, tables, weights, mask, seat)
        elif stage == L.S_POOL:
            choice = pool_choice(state, tables, weights, mask, seat)
        elif stage == L.S_POOL_DISCARD:
            choice = remove_choice(state, tables, weights, mask, L.A_DISCARD_DIE, 1)
        elif stage == L.S_EXTERMINATE:
            choice = remove_choice(state, tables, weights, mask, L.A_EXTERMINATE, 2)
        elif stage == L.S_MANIPULATE:
            choice = manipulate_choice(state, tables, weights, mask, seat, own_pool_of(state, seat))
        elif stage == L.S_SELECT:
            choice = select_choice(state, tables, weights, mask, seat, own_pool_of(state, seat))
        elif stage == L.S_FAIL_CHOICE:
            choice = fail_choice(state, tables, weights, mask, seat)
        elif stage == L.S_GIVE:
            choice = give_choice(state, tables, mask, seat)
        elif stage == L.S_WINDOW:
            choice = L.A_DONE
    if choice < 0 or not mask[choice]:
        for a in range(L.NUM_ACTIONS):  # never expected: any legal action
            if mask[a]:
                return a
    return choice


@njit_parallel
def choose_batch(states, tables, weights, out):
    for i in prange(states.shape[0]):
        out[i] = choose(states[i], tables, weights)


# a team game's record in play_team_games: its outcome (TEAM_OUTCOMES' index, -1 when
# truncated), rounds and decisions
TEAM_OUTCOME, TEAM_ROUNDS, TEAM_DECISIONS = range(3)
TEAM_OUTCOMES = L.WIN_NAMES  # 1: the Doctors win; 2.. how the Daleks win
DOCTORS_WIN = L.WIN_DOCTORS


@njit_parallel_alloc  # allocates a mask a game
def play_team_games(states, tables, weights, random_play, key, out):
    """Play every game of ``states`` to its end with every Doctor the heuristic (``weights``),
    or uniformly random legal actions drawn from ``key`` (``random_play``); ``out[i]`` gets
    the game's outcome, rounds and decisions (``TEAM_*``). The balance benchmark's kernel."""
    for i in prange(states.shape[0]):
        s = states[i]
        mask = np.zeros(L.NUM_ACTIONS, dtype=np.int8)
        decisions = 0
        while s[STATUS] == RUNNING:
            if random_play:
                legal_mask(s, tables, mask)
                action = nth_legal(mask, np.int64(hash_words(key, i * 1_000_003 + decisions) % np.uint64(count_legal(mask))))
            else:
                action = choose(s, tables, weights)
            step(s, tables, action)
            decisions += 1
        out[i, TEAM_OUTCOME] = -1 if s[STATUS] == TRUNCATED else s[L.WINNER]
        out[i, TEAM_ROUNDS] = s[L.ROUND] + 1
        out[i, TEAM_DECISIONS] = decisions
