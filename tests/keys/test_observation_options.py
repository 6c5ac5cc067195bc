"""The observation option of Keys to the TARDIS: ``route_lengths``, the heuristic's route
lengths to the goal row as four more entries."""

import numpy as np
import pytest

import tardis_envs
from tardis_envs.core.state import CURRENT_PLAYER
from tardis_envs.games.keys import heuristic, layout
from tardis_envs.games.keys.board import rel_to_abs, seat_side, target_seat
from tardis_envs.games.keys.content import GRID

from .test_hidden_information import played_state


def games(num_players):
    own = tardis_envs.make("keys_to_the_tardis_v0", num_players=num_players, route_lengths=True).unwrapped.game
    default = tardis_envs.make("keys_to_the_tardis_v0", num_players=num_players).unwrapped.game
    return own, default


def tenths(length):
    return min(round(min(length, 30.0) * 10), layout.ROUTE_TENTHS) / layout.ROUTE_TENTHS


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_entries_are_the_heuristics_routes_and_the_rest_is_the_default_observation(num_players):
    """Each seat's four entries: its own route with its hand counted, then the next seats' in
    turn order from the public board (as the heuristic plans them), 0 for absent seats; the
    entries before are the default observation's, unchanged."""
    own, default = games(num_players)
    assert own.observation_shape == (default.observation_shape[0] + layout.NUM_ROUTE_ENTRIES,)
    seen = set()
    for seed in range(8):
        state = played_state(num_players, seed, plies=10 + 7 * seed).get_state()
        known = heuristic.revealed_kinds(state)
        for seat in range(num_players):
            obs = own.observation(state, seat)
            assert np.array_equal(obs[: layout.S_ROUTE], default.observation(state, seat))
            routes = obs[layout.S_ROUTE :]
            expected = [tenths(heuristic.route_length(state, own.tables, seat, known, True, heuristic.DEFAULT_WEIGHTS))]
            for j in range(3):
                other = target_seat(own.tables, seat, j)
                length = heuristic.route_length(state, own.tables, other, known, False, heuristic.DEFAULT_WEIGHTS) if other >= 0 else None
                expected.append(0.0 if length is None else tenths(length))
            assert np.allclose(routes, expected, atol=1e-7), (seed, seat, routes, expected)
            seen.update(np.round(routes * layout.ROUTE_TENTHS).astype(int).tolist())
    assert len(seen) > 10  # the routes vary over these positions


def test_the_mover_reads_the_route_lead_the_heuristic_judges_by():
    """In two players the mover's entries differ by ``route_leads``' lead, capped as ``routes``."""
    own, _ = games(2)
    states = np.stack([played_state(2, seed, plies=25).get_state() for seed in range(12)])
    leads = np.zeros(len(states))
    heuristic.route_leads(states, own.tables, heuristic.DEFAULT_WEIGHTS, leads)
    for state, lead in zip(states, leads):
        obs = own.observation(state, int(state[CURRENT_PLAYER]))
        mine, theirs = obs[layout.S_ROUTE : layout.S_ROUTE + 2] * 30
        # the heuristic's costs are whole tenths of a step, so the tenths lose nothing
        assert theirs - mine == pytest.approx(lead, abs=1e-4)


def test_a_pawn_on_its_goal_row_reads_its_pandorica_turns_for_itself_and_its_opponent():
    own, _ = games(2)
    state = played_state(2, 3, plies=12).get_state()
    seat = int(state[CURRENT_PLAYER])
    state[layout.PAWN + seat] = rel_to_abs(seat_side(own.tables, seat), (GRID - 1) * GRID)
    state[layout.PANDORICA + seat] = 2
    assert own.observation(state, seat)[layout.S_ROUTE] * 30 == pytest.approx(2.0)
    assert own.observation(state, 1 - seat)[layout.S_ROUTE + 1] * 30 == pytest.approx(2.0)


def test_the_option_is_validated_and_observation_only():
    with pytest.raises(ValueError, match="route_lengths"):
        tardis_envs.make("keys_to_the_tardis_v0", route_lengths="yes")
    assert tardis_envs.make("keys_to_the_tardis_v0").unwrapped.game.spec.options["route_lengths"].observation_only


def test_a_state_fits_the_game_whatever_it_observes():
    """``route_lengths`` is observation-only: states move between games with and without it."""
    own, default = games(2)
    assert own.variant == default.variant
    state = played_state(2, 4, plies=20).get_state()
    assert np.array_equal(own.check_state(state), default.check_state(state))
