"""The heuristic's route lead (``route_leads``): what it judges a position by, read as a value."""

import numpy as np

import tardis_envs
from tardis_envs.core.state import CURRENT_PLAYER, RNG_KEY
from tardis_envs.games.keys import heuristic, layout
from tardis_envs.games.keys.board import rel_to_abs, seat_side
from tardis_envs.games.keys.content import CENTRE, GRID

from .test_hidden_information import played_state


def leads(game, states):
    out = np.zeros(len(states), dtype=np.float64)
    heuristic.route_leads(np.ascontiguousarray(states), game.tables, heuristic.DEFAULT_WEIGHTS, out)
    return out


def running_states(count=24, plies=40):
    states = []
    for seed in range(count * 2):
        state = played_state(2, seed, plies).get_state()
        if state[layout.PHASE] != layout.PHASE_OVER:
            states.append(state)
    return np.stack(states[:count])


def test_the_route_lead_reads_only_what_the_mover_may_know():
    """Redealing what the mover cannot see (the opponent's hand, the deck, the face-down
    kinds) leaves every lead as it was: the mover's own route counts its hand, the opponent's
    only the public board."""
    game = tardis_envs.make("keys_to_the_tardis_v0").unwrapped.game
    states = running_states()
    before = leads(game, states)
    assert np.unique(before).size > 3  # the positions differ, and so do their leads
    for redeal in range(3):
        twins = states.copy()
        for twin in twins:
            twin[RNG_KEY] += 1 + redeal  # another redeal each round
            game.kernels.resample_hidden(twin, game.tables, int(twin[CURRENT_PLAYER]))
        assert not np.array_equal(twins, states)
        assert np.array_equal(leads(game, twins), before)


def test_pawns_on_their_goal_rows_lead_by_the_pandorica_turns_alone():
    """A pawn on its goal row has a route of 0 steps plus its turns left in the Pandorica: with
    both pawns there the lead is the opponent's Pandorica turns less the mover's; with only the
    mover's there it is the opponent's whole route, capped at 30."""
    game = tardis_envs.make("keys_to_the_tardis_v0").unwrapped.game
    for state in running_states(8):
        mover = int(state[CURRENT_PLAYER])
        other = 1 - mover

        def to_goal(seat, column):
            state[layout.PAWN + seat] = rel_to_abs(seat_side(game.tables, seat), (GRID - 1) * GRID + column)
            assert state[layout.PAWN + seat] != CENTRE

        to_goal(mover, 0)
        state[layout.PANDORICA + mover] = 0
        alone = leads(game, state[None])[0]
        assert 0 <= alone <= 30
        to_goal(other, GRID - 1)
        state[layout.PANDORICA + other] = 2
        assert leads(game, state[None])[0] == 2.0
        state[layout.PANDORICA + mover] = 3
        assert leads(game, state[None])[0] == -1.0
