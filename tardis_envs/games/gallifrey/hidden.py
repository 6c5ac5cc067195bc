"""Redealing what one seat of the duel cannot see (determinization for ISMCTS and
OpenSpiel's ``resample_from_infostate``)."""

from __future__ import annotations

import numpy as np

from ...core.jit import njit_alloc
from ...core.rng import PPM, rng_below, rng_ppm, rng_shuffle
from ...core.state import CURRENT_PLAYER, RNG_KEY, RUNNING, STATUS
from .content import DECK_SIZE, T_FORCED_PPM
from .layout import DECK, DECK_POS, F_FORCED, NUM_ACTIONS, PENDING, side
from .rules import legal_mask


@njit_alloc
def resample_hidden(state, tables, player):
    """Rewrite in place, at random, everything seat ``player`` cannot see, keeping
    everything its observation (``rules.observe``) shows.

    Resampled:

    * the order of the undrawn Time Deck, ``DECK[DECK_POS:]``: a uniformly random
      order of the same cards (the observation shows which cards are left, never
      their order);
    * while the fight runs, whether the GM insists that the *other* seat draw this
      exchange (its ``F_FORCED``): the seat sees only its own insistence, the
      other's is shown once the exchange is revealed (``L_FORCED``). It is drawn
      anew with the odds ``forced_draw_p`` it was first drawn with (no draw when
      those odds are 0 or 1: it is the same in every arrangement);
    * when ``player`` is seat 1 and chooses now, seat 0's committed choice of this
      exchange (``PENDING``): uniformly random among the choices legal for seat 0
      in the position before its commit, under the insistence just drawn for it
      (so "no card" only when the GM does not insist). The legal choices come
      from ``rules.legal_mask`` on a scratch copy put back before the commit.

    Kept: everything else, that is the characters (the opponent's is public: no
    two roster characters share their Aspects), the scene and its Flux card,
    injuries, Edges left, the Acquired cards used, the seat's own insistence, the
    exchange count, the last exchange, the drawn cards in their order and
    ``DECK_POS``, the generator key. Seat 0 asking while seat 1 chooses keeps its
    own committed choice, although its observation does not show it: it made it.
    A finished fight has nothing hidden left that matters; only its deck order
    is redealt.

    The draws come from the state's own generator (``RNG_KEY``), whose counter
    advances by the draws taken: none when nothing is hidden (at most one card
    left undrawn, a certain insistence and no committed choice to redeal).

    What the result is consistent with: the seat's whole history, not only its
    current observation. Every past exchange was revealed in full to both seats,
    the undrawn order of a uniformly shuffled deck given the cards drawn from it
    is uniform, and nothing in the history tells the other seat's insistence or
    committed choice of the current exchange. The joint draw of those two is
    exact for an opponent that chooses uniformly at random among its legal
    choices; it does not model how the actual opponent plays (as usual for
    determinization). The generator is not treated as information: a resampled
    state is another deal under the same key, not the one that key would make.
    """
    # the cards left are public, their order is not
    top = state[DECK_POS]
    rng_shuffle(state, RNG_KEY, state[DECK + top : DECK + DECK_SIZE], DECK_SIZE - top)
    if state[STATUS] != RUNNING:
        return
    other = 1 - player
    ppm = tables[T_FORCED_PPM]
    if 0 < ppm < PPM:
        state[side(other, F_FORCED)] = rng_ppm(state, RNG_KEY, ppm)
    else:
        state[side(other, F_FORCED)] = 1 if ppm >= PPM else 0
    if player == 1 and state[CURRENT_PLAYER] == 1 and state[PENDING] >= 0:
        # seat 0's choice was legal in the position before it committed: the same
        # state with seat 0 to move and nothing pending (its insistence as just drawn)
        before = state.copy()
        before[CURRENT_PLAYER] = 0
        before[PENDING] = -1
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        legal_mask(before, tables, mask)
        count = 0
        for a in range(NUM_ACTIONS):
            count += mask[a]
        pick = rng_below(state, RNG_KEY, count)
        for a in range(NUM_ACTIONS):
            if mask[a]:
                if pick == 0:
                    state[PENDING] = a
                    break
                pick -= 1
