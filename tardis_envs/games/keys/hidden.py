"""Redealing what one seat of Keys to the TARDIS cannot see (determinization for
ISMCTS and OpenSpiel's ``resample_from_infostate``)."""

from __future__ import annotations

import numpy as np

from ...core.jit import njit_alloc
from ...core.rng import rng_shuffle
from ...core.state import RNG_KEY
from .board import deck_card, on_tile, set_deck_card, set_tile_kind, tile_colour, tile_kind
from .content import NUM_CARD_TYPES, NUM_COLOURS, NUM_TILES, T_NUM_PLAYERS
from .layout import DECK_SIZE, HAND, KINDS_REVEALED, MAX_CARDS


@njit_alloc
def resample_hidden(state, tables, player):
    """Rewrite in place, at random, everything seat ``player`` cannot see, keeping
    everything its observation (``rules.observe``) shows.

    Resampled:

    * the kinds of the face-down doors (not in ``KINDS_REVEALED``): a door's colour is
      always public, only its kind is hidden until first opened, so the kinds of
      the face-down doors of each colour are shuffled among the face-down doors
      of that colour. Every colour keeps its tile set (7 plain, 2 Dalek, one Key
      tile, Extra Turn and Teleport) and every revealed tile stays where it is.
      With ``reveal_tiles`` there is nothing face down and no tile moves;
    * the other seats' hands and the draw pile: the cards of every other seat's
      hand and of the deck are pooled, shuffled and dealt back, each other seat
      getting as many cards as it held (hand sizes are public) and the deck
      keeping its size (public), its order drawn anew. The slots past
      ``DECK_SIZE`` stay empty.

    Every arrangement consistent with the observation is equally likely: a
    uniform shuffle of each pool deals each distinct arrangement (kinds per door,
    hand contents, deck order) the same number of ways.

    Kept: everything else, that is the seat's own hand, the discard pile, the
    board (open doors, colours, revealed kinds, Time Barriers, Jam Cookies, Time
    Tunnels, pawns, Pandorica turns), every seat's used Key / Extra Turn bonuses,
    the phase, turn counter, extra turn, winner and last action (public history,
    though the observation vector leaves some of them out), the rewards and the
    generator key. Only the generator's counter advances, by one draw per
    Fisher-Yates step (so also when the pools hold nothing that could differ,
    e.g. all alike: then the state is otherwise unchanged).

    What the result is consistent with: the seat's *current* observation, and
    for the door kinds its whole history too (no public event ever depends on a
    face-down kind: opening a door reveals it, and a pawn only stands on open
    doors). For the cards it can fall short of the history: once the deck has run
    out and the discards were shuffled into a new deck, the seat knew that new
    deck's contents (the discard pile it saw then), so it knows the cards the
    other seats held at that moment are not in it, less whatever it drew itself.
    Pooling hands with the deck ignores that and can put such a card in the deck
    (or a card that can only be in the deck into a hand). Before the first
    reshuffle the redeal is exact for the cards given the public plays. As usual
    for determinization, it does not model how the other seats choose: a card an
    opponent kept back rather than play is as likely as any other.
    """
    n = tables[T_NUM_PLAYERS]

    # Face-down doors: colours are public, so kinds only trade places within a colour.
    doors = np.empty(NUM_TILES, dtype=np.int64)
    kinds = np.empty(NUM_TILES, dtype=np.int64)
    for colour in range(NUM_COLOURS):
        count = 0
        for t in range(NUM_TILES):
            if on_tile(state, KINDS_REVEALED, t) == 0 and tile_colour(state, t) == colour:
                doors[count] = t
                kinds[count] = tile_kind(state, t)
                count += 1
        rng_shuffle(state, RNG_KEY, kinds, count)
        for i in range(count):
            set_tile_kind(state, doors[i], kinds[i])

    # Cards the seat cannot see: other hands (only their sizes are public) and the deck.
    pool = np.empty(MAX_CARDS, dtype=np.int64)
    size = 0
    for seat in range(n):
        if seat == player:
            continue
        for card in range(NUM_CARD_TYPES):
            for _ in range(state[HAND + NUM_CARD_TYPES * seat + card]):
                pool[size] = card
                size += 1
    deck_size = state[DECK_SIZE]
    for i in range(deck_size):
        pool[size] = deck_card(state, i)
        size += 1
    rng_shuffle(state, RNG_KEY, pool, size)

    # Deal back: each other seat as many cards as it held, the rest to the deck in pool order.
    k = 0
    for seat in range(n):
        if seat == player:
            continue
        hand = HAND + NUM_CARD_TYPES * seat
        held = 0
        for card in range(NUM_CARD_TYPES):
            held += state[hand + card]
            state[hand + card] = 0
        for _ in range(held):
            state[hand + pool[k]] += 1
            k += 1
    for i in range(deck_size):
        set_deck_card(state, i, pool[k])
        k += 1
