"""Redealing what a Doctor cannot see (hidden.resample_hidden): the seat's observation,
its choices and every count on the table stay; other hands, face-down Dilemmas and the
decks are redealt uniformly, the hand of a Doctor asked in an Any Adventure window too
(being asked tells nothing about it); and play goes on from the redealt states."""

import numpy as np
import pytest
from scipy.stats import chisquare

import tardis_envs
from tardis_envs.core.state import CURRENT_PLAYER, RNG_COUNTER, RNG_KEY, RUNNING, STATUS
from tardis_envs.games.daleks import layout as L
from tardis_envs.games.daleks.content import NUM_CARDS, NUM_DILEMMAS, NUM_LOCATIONS
from tardis_envs.games.daleks.hidden import resample_hidden

from ..helpers import random_legal
from .helpers import adventure, card, clear_hand, give_card, new, put

PLAYER_COUNTS = (1, 2, 4)


def daleks(num_players, **options):
    return tardis_envs.make("time_of_the_daleks_v2", num_players=num_players, **options).unwrapped.game


def legal_mask(g, state):
    mask = np.zeros(g.num_actions, dtype=np.int8)
    g.kernels.legal_mask(state, g.tables, mask)
    return mask


def cards(state):
    return state[L.CARD_PLACE : L.CARD_PLACE + NUM_CARDS]


def dilemmas(state):
    return state[L.DILEMMA_PLACE : L.DILEMMA_PLACE + NUM_DILEMMAS]


def tiles(state):
    return state[L.LOCATION_PLACE : L.LOCATION_PLACE + NUM_LOCATIONS]


def face_down(state, zone):
    return state[L.ZONE_DILEMMA + zone] >= 0 and not state[L.ZONE_FACE_UP + zone]


def unseen_dilemmas(state):
    """Dilemmas never turned face up: in the deck, face down on a zone, discarded unseen."""
    return [
        d
        for d in range(NUM_DILEMMAS)
        if dilemmas(state)[d] == L.PLACE_DECK
        or (dilemmas(state)[d] == L.PLACE_DISCARD and not state[L.DILEMMA_SEEN + d])
        or (dilemmas(state)[d] >= 0 and face_down(state, dilemmas(state)[d]))
    ]


def hidden_words(g, state, player):
    """Words of ``state`` that ``player`` cannot see (the generator counter advances too)."""
    words = [RNG_COUNTER]
    for c in range(NUM_CARDS):
        place = cards(state)[c]
        if place == L.PLACE_DECK or (0 <= place < g.num_players and place != player):
            words.append(L.CARD_PLACE + c)
    for d in unseen_dilemmas(state):
        words += [L.DILEMMA_PLACE + d, L.DILEMMA_SEEN + d]
    words += [L.ZONE_DILEMMA + zone for zone in range(L.MAX_ZONES) if face_down(state, zone)]
    words += [L.LOCATION_PLACE + t for t in range(NUM_LOCATIONS) if tiles(state)[t] in (L.PLACE_DECK, L.PLACE_DISCARD)]
    return words


def counts_seen(g, state, player):
    """What the seat can count on the table: each deck's size, each hand's size, the piles
    and everything in play."""
    n = g.num_players
    held, dil, zones, seen = cards(state), dilemmas(state), state[L.ZONE_DILEMMA : L.ZONE_DILEMMA + L.MAX_ZONES], state[L.DILEMMA_SEEN :]
    return {
        "timey-wimey deck": int((held == L.PLACE_DECK).sum()),
        "hand sizes": [int((held == p).sum()) for p in range(n)],
        "own hand": np.flatnonzero(held == player).tolist(),
        "timey-wimey discard": np.flatnonzero(held == L.PLACE_DISCARD).tolist(),
        "installed": [np.flatnonzero(held == L.PLACE_INSTALLED + p).tolist() for p in range(n)],
        "given": np.flatnonzero(held == L.PLACE_GIVING).tolist(),
        "dilemma deck": int((dil == L.PLACE_DECK).sum()),
        "face-down zones": [z for z in range(L.MAX_ZONES) if face_down(state, z)],
        "face-up dilemmas": [(z, int(zones[z])) for z in range(L.MAX_ZONES) if zones[z] >= 0 and state[L.ZONE_FACE_UP + z]],
        "dilemma discard": [d for d in range(NUM_DILEMMAS) if dil[d] == L.PLACE_DISCARD and seen[d]],
        "dilemmas discarded unseen": sum(1 for d in range(NUM_DILEMMAS) if dil[d] == L.PLACE_DISCARD and not seen[d]),
        "dilemmas removed": np.flatnonzero(dil == L.PLACE_REMOVED).tolist(),
        "location deck": int((tiles(state) == L.PLACE_DECK).sum()),
        "location discard": int((tiles(state) == L.PLACE_DISCARD).sum()),
        "locations in play": [(t, int(p)) for t, p in enumerate(tiles(state)) if p >= 0 or p == L.PLACE_DRAWN],
        "companions": state[L.COMPANION_PLACE : L.COMPANION_PLACE + len(g.content.companions)].tolist(),
        "anomalies": state[L.ANOMALY_STATE : L.ANOMALY_STATE + len(g.content.anomalies)].tolist(),
    }


def resample_and_check(g, state, player):
    """A redeal of ``state`` for ``player``, checked against everything that seat sees."""
    redealt = state.copy()
    resample_hidden(redealt, g.tables, player)
    assert np.array_equal(g.observation(redealt, player), g.observation(state, player))
    if state[STATUS] == RUNNING and state[CURRENT_PLAYER] == player:
        assert np.array_equal(g.legal_actions(redealt), g.legal_actions(state))
    g.check_state(redealt)
    assert counts_seen(g, redealt, player) == counts_seen(g, state, player)
    kept = np.ones(state.shape[0], dtype=bool)
    kept[hidden_words(g, state, player)] = False
    assert np.array_equal(redealt[kept], state[kept]), np.flatnonzero((redealt != state) & kept)
    assert sorted(unseen_dilemmas(redealt)) == sorted(unseen_dilemmas(state))
    if state[STATUS] == RUNNING:  # whoever decides still has a decision (who decides is public)
        assert redealt[CURRENT_PLAYER] == state[CURRENT_PLAYER] and legal_mask(g, redealt).sum() >= 1
    return redealt


def play_on(g, state, rng, steps):
    for _ in range(steps):
        if state[STATUS] != RUNNING:
            break
        g.kernels.step(state, g.tables, random_legal(rng, legal_mask(g, state)))
        assert state[L.STALLED] == 0
    g.check_state(state)


@pytest.mark.parametrize("num_players, first_game", [(n, False) for n in PLAYER_COUNTS] + [(2, True)])
def test_a_redeal_keeps_what_the_seat_sees_and_play_goes_on(num_players, first_game):
    # the first game removes the advanced Dilemmas: out of the game, they are never redealt
    g = daleks(num_players, first_game=first_game)
    rng = np.random.default_rng(num_players + 10 * first_game)
    checked = played_on = 0
    for game in range(30):
        state = g.new_state(7000 + game)
        ply = 0
        while state[STATUS] == RUNNING:
            for player in range(num_players):
                redealt = resample_and_check(g, state, player)
                checked += 1
                if ply % 9 == player:
                    play_on(g, redealt, rng, steps=300)
                    played_on += 1
            g.kernels.step(state, g.tables, random_legal(rng, legal_mask(g, state)))
            ply += 1
        for player in range(num_players):  # a finished game: nothing to decide, still redealt
            resample_and_check(g, state, player)
    assert checked > 500 and played_on > 50


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_redeals_change_what_is_hidden_and_nothing_else(num_players):
    g = daleks(num_players)
    state = g.new_state(99)
    hands, downs, decks = set(), set(), set()
    for key in range(60):
        state[RNG_KEY] = key  # another generator: another redeal (the key is not for the seats to see)
        redealt = resample_and_check(g, state, 0)
        hands.add(tuple(cards(redealt)))
        downs.add(tuple(redealt[L.ZONE_DILEMMA : L.ZONE_DILEMMA + 3]))  # Earth's three face-down Dilemmas
        decks.add(tuple(np.flatnonzero(cards(redealt) == L.PLACE_DECK)))
        assert np.array_equal(np.flatnonzero(cards(redealt) == 0), np.flatnonzero(cards(state) == 0)), "the seat's own hand stays"
    assert len(downs) == 60
    if num_players == 1:
        assert hands == {tuple(cards(state))}, "a solo Doctor's hand and the deck are all it cannot see of the cards"
    else:
        assert len(hands) > 40 and len(decks) > 40


def test_a_dilemma_discarded_unseen_may_be_any_unseen_one():
    # a Location discarded with its two face-down Dilemmas: the discard pile shows neither
    g = daleks(2)
    state = g.new_state(5)
    lost = [d for d in range(NUM_DILEMMAS) if dilemmas(state)[d] == L.PLACE_DECK][:2]
    for d in lost:
        state[L.DILEMMA_PLACE + d] = L.PLACE_DISCARD
    g.check_state(state)
    discarded = set()
    redealt = state.copy()
    for _ in range(300):
        redealt = resample_and_check(g, redealt, 1)
        discarded.update(np.flatnonzero(dilemmas(redealt) == L.PLACE_DISCARD).tolist())
    assert discarded == set(unseen_dilemmas(state))


def redeal_counts(g, state, player, draws, what):
    counts = {}
    redealt = state.copy()
    for _ in range(draws):
        resample_hidden(redealt, g.tables, player)  # in place, again and again: each redeal is independent of the last
        key = what(redealt)
        counts[key] = counts.get(key, 0) + 1
    return counts


def test_the_dilemma_under_a_face_down_zone_is_uniform_over_the_unseen_ones():
    g = daleks(2)
    state = g.new_state(11)
    assert face_down(state, 1)
    possible = unseen_dilemmas(state)
    counts = redeal_counts(g, state, 0, 100 * len(possible), lambda s: int(s[L.ZONE_DILEMMA + 1]))
    assert sorted(counts) == possible
    assert chisquare(list(counts.values())).pvalue > 1e-3, counts


def test_the_other_doctors_card_is_uniform_over_the_cards_unseen():
    g = daleks(2)
    state = g.new_state(12)
    clear_hand(state, 1)
    state[L.CARD_PLACE + int(np.flatnonzero(cards(state) == L.PLACE_DECK)[0])] = 1  # a hand of one card
    possible = np.flatnonzero((cards(state) == L.PLACE_DECK) | (cards(state) == 1)).tolist()
    counts = redeal_counts(g, state, 0, 100 * len(possible), lambda s: int(np.flatnonzero(cards(s) == 1)[0]))
    assert sorted(counts) == possible
    assert chisquare(list(counts.values())).pvalue > 1e-3, counts


def test_the_location_left_in_the_deck_is_uniform_over_the_tiles_out_of_play():
    g = daleks(1)
    state = g.new_state(13)
    state[L.LOCATION_PLACE : L.LOCATION_PLACE + NUM_LOCATIONS] = L.PLACE_DISCARD
    state[L.LOCATION_PLACE + 4] = L.PLACE_DECK
    counts = redeal_counts(g, state, 0, 100 * NUM_LOCATIONS, lambda s: int(np.flatnonzero(tiles(s) == L.PLACE_DECK)[0]))
    assert sorted(counts) == list(range(NUM_LOCATIONS))
    assert chisquare(list(counts.values())).pvalue > 1e-3, counts


def test_the_doctor_asked_in_a_window_holds_any_unseen_card_uniformly():
    # seat 1, a bystander with one card, is asked in the Any Adventure window after seat 0's
    # roll: every Doctor holding a card is asked (ruling), so being asked tells nothing about
    # the card, and a redeal for seat 0 deals it any unseen card, uniformly
    raw = new(num_players=2, seed=3)
    s = adventure(
        raw, L.S_WINDOW, seat=0, zone=(0, 1), symbols=("science", "strength"), helped=[("black", "tactics"), ("green", "tactics")]
    )
    s[L.WINDOW_SEAT] = 1
    s[L.WINDOW_LEFT] = 0
    s[L.WINDOW_RETURN] = L.S_MANIPULATE
    s[L.SONIC + 1] = 2
    clear_hand(s, 1)
    give_card(s, 1, "Run!")
    g = raw.game
    state = put(raw, s).get_state()
    assert state[CURRENT_PLAYER] == 1
    possible = np.flatnonzero((cards(state) == L.PLACE_DECK) | (cards(state) == 1)).tolist()
    assert card("Zero Room") in possible, "a Prepare card, no use in the window, may still be the one held"
    counts = dict.fromkeys(possible, 0)
    redealt = state.copy()
    for _ in range(100 * len(possible)):
        redealt = resample_and_check(g, redealt, 0)
        counts[int(np.flatnonzero(cards(redealt) == 1)[0])] += 1
    assert chisquare(list(counts.values())).pvalue > 1e-3, counts
    # seat 1 itself knows its card: nothing of its hand moves
    for _ in range(20):
        assert cards(resample_and_check(g, state, 1))[card("Run!")] == 1
