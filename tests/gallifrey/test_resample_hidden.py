"""Redealing what a seat of the duel cannot see (hidden.resample_hidden): the seat's
observation and choices stay, the hidden deck order, the other seat's insistence on a
draw and its committed choice are redealt with the right odds, and play goes on."""

import numpy as np
import pytest
from scipy.stats import chisquare

import tardis_envs
from tardis_envs.core.state import CURRENT_PLAYER, RNG_COUNTER, RNG_KEY, RUNNING, STATUS
from tardis_envs.games.gallifrey.content import DECK_SIZE
from tardis_envs.games.gallifrey.hidden import resample_hidden
from tardis_envs.games.gallifrey.layout import DECK, DECK_POS, F_FORCED, PENDING, side

from ..helpers import random_legal

MODES = ("contest", "dramatic", "climactic")
THREATS = ("trivial", "dangerous", "deadly")
FORCED_DRAW_PS = (0.25, 0.0, 1.0, 0.6)


def duel(**options):
    return tardis_envs.make("gallifrey_duel_v1", **options).unwrapped.game


def legal_mask(g, state):
    mask = np.zeros(g.num_actions, dtype=np.int8)
    g.kernels.legal_mask(state, g.tables, mask)
    return mask


def before_commit(state):
    """The position in which seat 0 committed the pending choice."""
    before = state.copy()
    before[CURRENT_PLAYER] = 0
    before[PENDING] = -1
    return before


def hidden_words(state, player):
    """Words of ``state`` that ``player`` cannot see (the generator counter advances too)."""
    words = [RNG_COUNTER, *range(DECK + state[DECK_POS], DECK + DECK_SIZE)]
    if state[STATUS] == RUNNING:
        words.append(side(1 - player, F_FORCED))
        if player == 1 and state[CURRENT_PLAYER] == 1:
            words.append(PENDING)
    return words


def resample_and_check(g, state, player):
    """A redeal of ``state`` for ``player``, checked against everything that seat sees."""
    redealt = state.copy()
    resample_hidden(redealt, g.tables, player)
    assert np.array_equal(g.observation(redealt, player), g.observation(state, player))
    if state[STATUS] == RUNNING and state[CURRENT_PLAYER] == player:
        assert np.array_equal(g.legal_actions(redealt), g.legal_actions(state))
    g.check_state(redealt)  # the Time Deck is still a permutation, the turn and pending choice fit
    kept = np.ones(state.shape[0], dtype=bool)
    kept[hidden_words(state, player)] = False
    assert np.array_equal(redealt[kept], state[kept])
    if redealt[PENDING] >= 0:
        assert legal_mask(g, before_commit(redealt))[redealt[PENDING]], "seat 0 could not have committed that"
    return redealt


def play_out(g, state, rng):
    while state[STATUS] == RUNNING:
        g.kernels.step(state, g.tables, random_legal(rng, legal_mask(g, state)))
    g.check_state(state)


@pytest.mark.parametrize("mode", MODES)
def test_a_redeal_keeps_what_the_seat_sees_and_play_goes_on(mode):
    rng = np.random.default_rng(MODES.index(mode))
    checked = 0
    for i in range(48):
        g = duel(mode=mode, threat=THREATS[i % 3], forced_draw_p=FORCED_DRAW_PS[i % 4], max_exchanges=3 + i % 5)
        state = g.new_state(1000 + i)
        # start anywhere in the deck (down to empty: the next draw reshuffles) so draws reach reshuffles too
        state[DECK_POS] = rng.integers(0, DECK_SIZE + 1)
        while True:
            for player in (0, 1):
                redealt = resample_and_check(g, state, player)
                play_out(g, redealt, rng)
                checked += 1
            if state[STATUS] != RUNNING:
                break
            g.kernels.step(state, g.tables, random_legal(rng, legal_mask(g, state)))
    assert checked > 200


def test_redeals_differ_in_the_deck_order_the_insistence_and_the_committed_choice():
    g = duel(mode="climactic", pair="The Doctor, Dalek", forced_draw_p=0.25)
    state = g.new_state(5)
    g.kernels.step(state, g.tables, g.legal_actions(state)[0])  # seat 0 commits; seat 1 to choose
    orders, insistences, choices = set(), set(), set()
    for key in range(200):
        state[RNG_KEY] = key  # another generator: another redeal (the key is not for the seats to see)
        redealt = resample_and_check(g, state, 1)
        orders.add(tuple(redealt[DECK : DECK + DECK_SIZE]))
        insistences.add(redealt[side(0, F_FORCED)])
        choices.add(redealt[PENDING])
    assert len(orders) == 200 and insistences == {0, 1} and len(choices) > 50
    # seat 0 asking now: its own committed choice stays, seat 1's insistence is redealt
    insistences = set()
    for key in range(100):
        state[RNG_KEY] = key
        redealt = resample_and_check(g, state, 0)
        assert redealt[PENDING] == state[PENDING]
        insistences.add(redealt[side(1, F_FORCED)])
    assert insistences == {0, 1}


@pytest.mark.parametrize("forced_draw_p", [0.0, 1.0])
@pytest.mark.parametrize("top", [DECK_SIZE - 1, DECK_SIZE])
def test_nothing_hidden_nothing_changes(forced_draw_p, top):
    # at most one card left, a certain insistence: only a committed choice could still be hidden
    g = duel(mode="climactic", forced_draw_p=forced_draw_p)
    state = g.new_state(11)
    state[DECK_POS] = top
    for player in (0, 1):
        for _ in range(5):
            redealt = state.copy()
            resample_hidden(redealt, g.tables, player)
            redealt[RNG_COUNTER] = state[RNG_COUNTER]
            assert np.array_equal(redealt, state)
    g.kernels.step(state, g.tables, g.legal_actions(state)[-1])
    redealt = state.copy()
    resample_hidden(redealt, g.tables, 0)  # seat 0 knows its own choice
    redealt[RNG_COUNTER] = state[RNG_COUNTER]
    assert np.array_equal(redealt, state)


def test_the_next_card_is_uniform_over_the_cards_left():
    g = duel(mode="climactic")
    state = g.new_state(21)
    state[DECK_POS] = 20
    left = sorted(state[DECK + 20 : DECK + DECK_SIZE].tolist())
    counts = dict.fromkeys(left, 0)
    redealt = state.copy()
    for _ in range(3200):
        resample_hidden(redealt, g.tables, 0)  # in place, again and again: each redeal is independent of the last
        counts[int(redealt[DECK + 20])] += 1
    assert sorted(redealt[DECK + 20 : DECK + DECK_SIZE].tolist()) == left
    assert chisquare(list(counts.values())).pvalue > 1e-3, counts


@pytest.mark.parametrize("mode", MODES)
def test_the_committed_choice_is_uniform_over_the_legal_choices_under_the_insistence_drawn(mode):
    # the Doctor commits (Edges and two Acquired cards: 96 choices without insistence, 80 with)
    p = 0.25
    g = duel(mode=mode, pair="The Doctor, Dalek", forced_draw_p=p)
    state = g.new_state(31)
    g.kernels.step(state, g.tables, g.legal_actions(state)[0])
    expected = {}
    for forced, odds in ((0, 1 - p), (1, p)):
        before = before_commit(state)
        before[side(0, F_FORCED)] = forced
        legal = g.legal_actions(before)
        for a in legal:
            expected[(forced, int(a))] = odds / len(legal)
    draws = 8000
    counts = dict.fromkeys(expected, 0)
    redealt = state.copy()
    for _ in range(draws):
        resample_hidden(redealt, g.tables, 1)
        counts[(int(redealt[side(0, F_FORCED)]), int(redealt[PENDING]))] += 1  # a KeyError: an illegal choice
    observed = [counts[k] for k in expected]
    assert chisquare(observed, [draws * expected[k] for k in expected]).pvalue > 1e-3
