"""Redealing what a seat of Keys to the TARDIS cannot see (hidden.resample_hidden): the
seat's observation and choices stay, the face-down door kinds, the other hands and the
deck order are redealt uniformly, the cards and tiles stay whole, and play goes on."""

import itertools
from collections import Counter

import numpy as np
import pytest
from scipy.stats import chisquare

import tardis_envs
from tardis_envs.core.state import CURRENT_PLAYER, RNG_COUNTER, RNG_KEY, RUNNING, STATUS
from tardis_envs.games.keys import board, layout
from tardis_envs.games.keys.content import CARD_NAMES, NUM_CARD_TYPES, NUM_TILES, TILE_KINDS
from tardis_envs.games.keys.hidden import resample_hidden

from ..helpers import random_legal

RED = 0
SONIC = CARD_NAMES.index("sonic screwdriver")


def keys(**options):
    return tardis_envs.make("keys_to_the_tardis_v0", **options).unwrapped.game


def legal_mask(g, state):
    mask = np.zeros(g.num_actions, dtype=np.int8)
    g.kernels.legal_mask(state, g.tables, mask)
    return mask


def face_down(state):
    return np.flatnonzero(board.tile_facts(state, layout.KINDS_REVEALED) == 0)


def hand_words(seat):
    return list(range(layout.HAND + NUM_CARD_TYPES * seat, layout.HAND + NUM_CARD_TYPES * (seat + 1)))


def tile_words(state):
    """Words a redeal may change on the board: the sets of tiles of each kind, when
    some door is face down (only those doors' bits: :func:`resample_and_check`)."""
    return list(range(layout.KIND_TILES, layout.KIND_TILES + layout.NUM_KINDS)) if face_down(state).size else []


def card_words(g, state, player):
    """Words a redeal may change among the cards: other hands and the deck."""
    words = [w for seat in range(g.num_players) if seat != player for w in hand_words(seat)]
    return words + list(range(layout.DECK, layout.DECK + layout.DECK_WORDS))


def tiles_hidden(state):
    """Some colour has face-down doors of two kinds: more than one arrangement fits."""
    down = face_down(state)
    colours, kinds = board.tile_colours(state)[down], board.tile_kinds(state)[down]
    return any(len(set(kinds[colours == c].tolist())) > 1 for c in range(4))


def cards_hidden(g, state, player):
    """Two card types share the unseen places, and those places are not all one hand."""
    holders = [seat for seat in range(g.num_players) if seat != player and state[hand_words(seat)].sum() > 0]
    pool = sum((state[hand_words(seat)] for seat in holders), np.zeros(NUM_CARD_TYPES, dtype=np.int64))
    pool += np.bincount(board.deck_cards(state)[: int(state[layout.DECK_SIZE])], minlength=NUM_CARD_TYPES)
    return np.count_nonzero(pool) > 1 and (state[layout.DECK_SIZE] > 0 or len(holders) > 1)


def tile_set(state):
    """The door tiles as a multiset of (colour, kind)."""
    return sorted(zip(board.tile_colours(state).tolist(), board.tile_kinds(state).tolist()))


def resample_and_check(g, state, player):
    """A redeal of ``state`` for ``player``, checked against everything that seat sees."""
    redealt = state.copy()
    resample_hidden(redealt, g.tables, player)
    assert np.array_equal(g.observation(redealt, player), g.observation(state, player))
    if state[STATUS] == RUNNING and state[CURRENT_PLAYER] == player:
        assert np.array_equal(g.legal_actions(redealt), g.legal_actions(state))
    g.check_state(redealt)  # 68 cards by type, 12 doors per colour, pawns on standable doors
    assert np.array_equal(g.card_totals(redealt), g.card_totals(state))
    assert tile_set(redealt) == tile_set(state)
    kept = np.ones(state.shape[0], dtype=bool)
    kept[[RNG_COUNTER, *tile_words(state), *card_words(g, state, player)]] = False
    assert np.array_equal(redealt[kept], state[kept]), "a word the seat sees (or public history) changed"
    face_up = board.tile_facts(state, layout.KINDS_REVEALED) == 1
    assert np.array_equal(board.tile_kinds(redealt)[face_up], board.tile_kinds(state)[face_up]), "a face-up kind changed"
    assert (board.deck_cards(redealt)[int(state[layout.DECK_SIZE]) :] == 0).all(), "a slot past the deck is not empty"
    return redealt


def assert_redeals_vary(g, state, player):
    """Over 50 redeals the hidden tiles and the hidden cards each change at least once
    when they can; when nothing is hidden nothing but the generator's counter moves."""
    tiles, cards = tile_words(state), card_words(g, state, player)
    tiles_moved = cards_moved = False
    redealt = state.copy()
    for _ in range(50):
        resample_hidden(redealt, g.tables, player)  # in place, again and again
        tiles_moved |= not np.array_equal(redealt[tiles], state[tiles])
        cards_moved |= not np.array_equal(redealt[cards], state[cards])
    assert tiles_moved == tiles_hidden(state)
    assert cards_moved == cards_hidden(g, state, player)


def play_out(g, state, rng):
    while state[STATUS] == RUNNING:
        g.kernels.step(state, g.tables, random_legal(rng, legal_mask(g, state)))
    g.check_state(state)


@pytest.mark.parametrize("reveal_tiles", [False, True])
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_a_redeal_keeps_what_the_seat_sees_and_play_goes_on(num_players, reveal_tiles):
    rng = np.random.default_rng(10 * num_players + reveal_tiles)
    checked = played_out = 0
    for game in range(3):
        g = keys(num_players=num_players, reveal_tiles=reveal_tiles, max_turns=(60, 150, 400)[game])
        state = g.new_state(100 * num_players + game)
        step = 0
        while True:
            if step % 9 == 0 or state[STATUS] != RUNNING:
                for player in range(num_players):
                    redealt = resample_and_check(g, state, player)
                    if reveal_tiles:
                        assert np.array_equal(board.tile_kinds(redealt), board.tile_kinds(state))
                    assert_redeals_vary(g, state, player)
                    if step % 45 == 0:
                        play_out(g, redealt, rng)
                        played_out += 1
                    checked += 1
            if state[STATUS] != RUNNING:
                break
            g.kernels.step(state, g.tables, random_legal(rng, legal_mask(g, state)))
            step += 1
    assert checked > 100 and played_out > 10


def arranged(g, state, hands, deck):
    """``state`` with the given hands ({seat: [card, ...]}) and deck (bottom first);
    every other card not on the board goes to the discard pile."""
    for seat, cards in hands.items():
        state[hand_words(seat)] = np.bincount(cards, minlength=NUM_CARD_TYPES)
    board.set_deck_cards(state, deck)
    state[layout.DISCARD : layout.DISCARD + NUM_CARD_TYPES] = 0
    state[layout.DISCARD : layout.DISCARD + NUM_CARD_TYPES] = np.array(g.components.card_counts) - g.card_totals(state)
    return g.check_state(state)


def redeal_from(g, state, player, key):
    """One redeal of ``state`` under generator key ``key`` (another key: another
    independent draw; redealing from the same start each time, so that a draw that only
    mixes well when repeated in place is caught)."""
    redealt = state.copy()
    redealt[RNG_KEY] = key
    resample_hidden(redealt, g.tables, player)
    return redealt


@pytest.mark.parametrize("reveal_tiles", [False, True])
def test_nothing_hidden_nothing_changes(reveal_tiles):
    # every unseen card a Sonic Screwdriver; face down (if any) only plain doors
    g = keys(num_players=2, reveal_tiles=reveal_tiles)
    state = arranged(g, g.new_state(7), {0: [SONIC] * 3, 1: [SONIC] * 3}, [SONIC] * 5)
    if not reveal_tiles:
        face_up = board.tile_kinds(state) != TILE_KINDS.index("plain")
        state[layout.KINDS_REVEALED] = int((face_up.astype(np.int64) << np.arange(NUM_TILES)).sum())
        assert face_down(state).size == 28
    for player in (0, 1):
        assert not tiles_hidden(state) and not cards_hidden(g, state, player)
        for _ in range(5):
            redealt = resample_and_check(g, state, player)
            redealt[RNG_COUNTER] = state[RNG_COUNTER]
            assert np.array_equal(redealt, state)


def test_the_face_down_kinds_are_uniform_over_their_arrangements():
    # four red doors face down, one each of plain, Dalek, Key tile and Extra Turn: 24 arrangements
    g = keys(num_players=2)
    state = g.new_state(3)
    colours, kinds = board.tile_colours(state), board.tile_kinds(state)
    doors = [int(np.flatnonzero((colours == RED) & (kinds == kind))[0]) for kind in range(4)]
    state[layout.KINDS_REVEALED] = board.ALL_TILES
    for door in doors:
        board.set_on_tile(state, layout.KINDS_REVEALED, door, 0)
    state = g.check_state(state)
    counts = dict.fromkeys(itertools.permutations(range(4)), 0)
    for key in range(4800):
        redealt = redeal_from(g, state, 1, key)
        counts[tuple(board.tile_kinds(redealt)[doors].tolist())] += 1  # a KeyError: a kind left the red doors
    assert chisquare(list(counts.values())).pvalue > 1e-3, counts


@pytest.mark.parametrize("player", [0, 2])
def test_the_unseen_cards_are_dealt_uniformly(player):
    # 3 players; the asking seat holds its cards, the other two hold two cards each and
    # the deck holds two: every way to deal the six unseen cards is equally likely
    g = keys(num_players=3)
    red, blue, barrier, tunnel = 0, 1, CARD_NAMES.index("time barrier"), CARD_NAMES.index("time tunnel")
    pool = [red, blue, SONIC, SONIC, barrier, tunnel]
    others = [seat for seat in range(3) if seat != player]
    hands = {player: [red, red, blue], others[0]: pool[:2], others[1]: pool[2:4]}
    state = arranged(g, g.new_state(11), hands, pool[4:])

    def deal(cards):
        return tuple(tuple(np.bincount(cards[2 * i : 2 * i + 2], minlength=NUM_CARD_TYPES).tolist()) for i in range(2)) + (
            tuple(cards[4:]),
        )

    expected = Counter(deal(order) for order in itertools.permutations(pool))
    draws = 6000
    counts = dict.fromkeys(expected, 0)
    for key in range(draws):
        redealt = redeal_from(g, state, player, key)
        assert np.array_equal(redealt[hand_words(player)], state[hand_words(player)])
        dealt = [c for seat in others for c in np.repeat(np.arange(NUM_CARD_TYPES), redealt[hand_words(seat)])]
        counts[deal(dealt + board.deck_cards(redealt)[:2].tolist())] += 1  # a KeyError: a card that was not unseen
    total = sum(expected.values())
    assert chisquare([counts[k] for k in expected], [draws * expected[k] / total for k in expected]).pvalue > 1e-3
