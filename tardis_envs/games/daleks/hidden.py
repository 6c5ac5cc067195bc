"""Time of the Daleks: redealing what one Doctor cannot see (determinization for ISMCTS
and OpenSpiel's ``resample_from_infostate``)."""

from __future__ import annotations

import numpy as np

from ...core.jit import njit, njit_alloc
from ...core.rng import rng_shuffle
from ...core.state import MAX_PLAYERS, RNG_KEY
from .content import NUM_CARDS, NUM_DILEMMAS, NUM_LOCATIONS, T_NUM_PLAYERS
from .layout import (
    CARD_PLACE,
    DILEMMA_PLACE,
    DILEMMA_SEEN,
    LOCATION_PLACE,
    MAX_ZONES,
    PLACE_DECK,
    PLACE_DISCARD,
    ZONE_DILEMMA,
    ZONE_FACE_UP,
)


@njit_alloc
def redeal_timey_wimey(state, tables, player, cards):
    """The Timey-Wimey deck and the other Doctors' hands: the same cards, each hand
    keeping its size, the rest into the deck."""
    n = tables[T_NUM_PLAYERS]
    held = np.zeros(MAX_PLAYERS, dtype=np.int64)
    unseen = 0
    for c in range(NUM_CARDS):
        place = state[CARD_PLACE + c]
        if place == PLACE_DECK or (0 <= place < n and place != player):
            cards[unseen] = c
            unseen += 1
            if place >= 0:
                held[place] += 1
    rng_shuffle(state, RNG_KEY, cards, unseen)
    i = 0
    for seat in range(n):
        if seat == player:
            continue
        for _ in range(held[seat]):
            state[CARD_PLACE + cards[i]] = seat
            i += 1
    while i < unseen:
        state[CARD_PLACE + cards[i]] = PLACE_DECK
        i += 1


@njit
def redeal_dilemmas(state, dilemmas):
    """The Dilemmas nobody has turned face up: each face-down zone gets one of them,
    as many go to the discard pile as were discarded unseen, the rest into the deck."""
    unseen = 0
    discarded_unseen = 0
    for d in range(NUM_DILEMMAS):
        place = state[DILEMMA_PLACE + d]
        if place == PLACE_DECK:
            hidden = True
        elif place == PLACE_DISCARD:
            # a Dilemma discarded face up is shown in the discard pile; one discarded
            # with its Location before anyone turned it over is not
            hidden = state[DILEMMA_SEEN + d] == 0
            if hidden:
                discarded_unseen += 1
        else:  # on a zone (face down or up), or removed from this game (first game)
            hidden = place >= 0 and state[ZONE_FACE_UP + place] == 0
        if hidden:
            dilemmas[unseen] = d
            unseen += 1
    rng_shuffle(state, RNG_KEY, dilemmas, unseen)
    i = 0
    for zone in range(MAX_ZONES):
        if state[ZONE_DILEMMA + zone] >= 0 and state[ZONE_FACE_UP + zone] == 0:
            d = dilemmas[i]
            i += 1
            state[ZONE_DILEMMA + zone] = d
            state[DILEMMA_PLACE + d] = zone
    for k in range(unseen):
        d = dilemmas[k]
        # "turned face up since last drawn": none of these was, and in the deck it means nothing
        state[DILEMMA_SEEN + d] = 0
        if k >= i:
            state[DILEMMA_PLACE + d] = PLACE_DISCARD if k < i + discarded_unseen else PLACE_DECK


@njit
def redeal_locations(state, tiles):
    """The Location tiles out of play: as many into the deck as were there, the rest
    into the discard pile (the observation shows the deck's size only)."""
    out_of_play = 0
    in_deck = 0
    for t in range(NUM_LOCATIONS):
        place = state[LOCATION_PLACE + t]
        if place == PLACE_DECK or place == PLACE_DISCARD:
            tiles[out_of_play] = t
            out_of_play += 1
            if place == PLACE_DECK:
                in_deck += 1
    rng_shuffle(state, RNG_KEY, tiles, out_of_play)
    for k in range(out_of_play):
        state[LOCATION_PLACE + tiles[k]] = PLACE_DECK if k < in_deck else PLACE_DISCARD


@njit_alloc
def resample_hidden(state, tables, player):
    """Rewrite in place, at random, everything seat ``player`` cannot see, keeping
    everything its observation (``observe.observe``) shows.

    Resampled, each uniformly among the arrangements its observation allows:

    * Timey-Wimey cards: the cards in the deck and in the other Doctors' hands are
      pooled and dealt back, each other hand keeping its size (shown), the rest
      into the deck (its size is shown, its order does not exist: decks are not
      ordered). ``player``'s own hand, the discard pile, installed Equipment and a
      played Transfer card on its way to a Doctor (``PLACE_GIVING``) stay. A
      1-player game has no other hand: its cards stay where they are.
    * Dilemmas: those never turned face up, i.e. the ones in the deck, face down
      on a zone and discarded unseen (with their Location before anyone flipped
      them: the observation leaves them out of the discard pile), are pooled; each
      face-down zone gets one, as many as were discarded unseen go to the discard
      pile, the rest into the deck. Their ``DILEMMA_SEEN`` is 0 (true of the first
      two places; in the deck the flag means nothing, a draw clears it).
      Face-up Dilemmas, the discard pile as shown, and Dilemmas removed from the
      first game stay.
    * Location tiles: those out of play (in the deck or the discard pile) are
      pooled and as many as the deck held go back into it, the rest to the
      discard pile: the observation shows the deck's size, not the discards.
      Tiles on the table and tiles drawn for the travel choice stay.

    Kept: everything else. Companions (both decks and their discards are shown
    card by card), Time Anomalies (each one's state is shown), every console, the
    track, the dice, the adventure, obligations and the stage are public.

    Every deal is consistent with the play so far: which seat decides, and whether a
    decision is asked at all, never depends on hidden cards (``rules.hidden_options``:
    a Doctor holding a card is asked wherever some unseen card could give it an
    option, and may then have a single legal action).

    What the result is consistent with: the seat's *current* observation, not its
    whole history. A seat with a memory may know more: the Locations in the
    discard pile were all on the table once (a redeal swaps them with the
    deck's), the cards and Dilemmas reshuffled from a discard pile into a deck
    were seen there, a Transfer card given to another Doctor, TARDIS Tune-Up
    switched into another hand and any card the seat held and gave away are known
    to be where they went. None of that is kept. The
    generator is not treated as information: a resampled state is another deal
    under the same key, not the one that key would make; its counter advances by
    the draws taken.
    """
    cards = np.empty(NUM_CARDS, dtype=np.int64)
    dilemmas = np.empty(NUM_DILEMMAS, dtype=np.int64)
    tiles = np.empty(NUM_LOCATIONS, dtype=np.int64)
    redeal_timey_wimey(state, tables, player, cards)
    redeal_dilemmas(state, dilemmas)
    redeal_locations(state, tiles)
