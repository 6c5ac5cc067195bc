"""The Dr. Who Chess heuristic: it uses the TARDIS (hides a threatened queen,
travels back in time to undo a blunder) and beats random play."""

import numpy as np
import pytest

import tardis_envs
from agents import make_agent
from agents.tournament import play_match
from tardis_envs.core.state import CURRENT_PLAYER
from tardis_envs.games.chess import heuristic, layout

from .helpers import CLASSIC, legal, play, position
from .helpers import VARIANT as G


def best(game, state, weights=heuristic.DEFAULT_WEIGHTS) -> str:
    return game.action_to_string(state, int(heuristic.choose(state, game.tables, weights)))


def test_hides_a_threatened_queen_in_the_tardis():
    # the knight on c2 attacks the queen in the corner; her only move is into the TARDIS on b1
    state = position("7k/6pp/8/8/8/8/PPn5/Q6K w - - 0 1 D:b1/C:in/P:-")
    assert {m for m in legal(G, state) if m.startswith("a1")} == {"a1b1"}
    assert best(G, state) == "a1b1"
    play(G, state, "a1b1")
    assert G.describe(state)["tardis"]["passenger"] == "white queen"


def test_travels_back_in_time_to_undo_a_blundered_queen():
    state = position("4k3/8/8/3r4/8/8/8/3QK3 w - - 0 1 D:h4/C:in/P:N")
    play(G, state, "d1d3", "end", "d5d3")  # the queen walks into the rook
    assert "D<2" in legal(G, state)
    # the heuristic's turn: the travel on its own, or a move with the travel as follow-up
    turn = []
    while state[CURRENT_PLAYER] == layout.WHITE:
        turn.append(best(G, state))
        play(G, state, turn[-1])
    d = G.describe(state)
    assert turn[-1].startswith("D<") and d["tardis"]["backward_travels"]["white"] == 1, turn
    assert d["board"][7][3] == "Q" and d["board"][3][3] == "r", turn  # queen home on d1, rook back on d5


def test_greedy_takes_the_biggest_capture_and_the_search_sees_the_recapture():
    # the black queen on d5 is defended by the e6 pawn; the knight on a4 is free
    state = position("7k/6pp/4p3/3q4/n7/8/8/3QK3 w - - 0 1", CLASSIC)
    assert best(CLASSIC, state, heuristic.PRESETS["greedy"]) == "d1d5"
    assert best(CLASSIC, state) == "d1a4"


def test_search_value_adds_the_capture_search_and_sees_the_mate_a_ply_deep():
    moves = np.zeros(layout.MAX_MOVES, dtype=np.int64)
    # black is a knight up, but the knight on a4 hangs: the capture search takes it back
    state = position("7k/6pp/4p3/3q4/n7/8/8/3QK3 w - - 0 1", CLASSIC)
    static = heuristic.evaluate(state.copy(), heuristic.DEFAULT_WEIGHTS, moves)
    captures = heuristic.search_value(state.copy(), CLASSIC.tables, heuristic.DEFAULT_WEIGHTS, 0)
    assert static < -200 and captures - static > 250, (static, captures)
    # Ra8 mates: one ply of every move finds it, the capture search alone does not
    state = position("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", CLASSIC)
    values = np.zeros(2)
    heuristic.search_values(np.stack([state, state]), CLASSIC.tables, heuristic.DEFAULT_WEIGHTS, 1, values)
    assert values.tolist() == [heuristic.MATE - 1] * 2
    assert abs(heuristic.search_value(state.copy(), CLASSIC.tables, heuristic.DEFAULT_WEIGHTS, 0)) < 1000


def test_the_depth3_preset_sees_a_mate_in_two_that_two_plies_do_not():
    state = position("k7/8/2K5/8/8/8/8/7R w - - 0 1", CLASSIC)  # Kc7 (or Kb6), then the rook mates
    weights = heuristic.DEFAULT_WEIGHTS
    assert heuristic.search_value(state.copy(), CLASSIC.tables, weights, 2) < 1000
    assert heuristic.search_value(state.copy(), CLASSIC.tables, weights, 3) == heuristic.MATE - 3
    move = best(CLASSIC, state, heuristic.PRESETS["depth3"])
    play(CLASSIC, state, move)
    assert heuristic.search_value(state.copy(), CLASSIC.tables, weights, 2) == -(heuristic.MATE - 2), move


def test_the_material3_preset_judges_by_material_alone_three_plies_deep():
    moves = np.zeros(layout.MAX_MOVES, dtype=np.int64)
    # equal material, the white knight in the corner and the black one in the centre
    state = position("4k3/8/8/3n4/8/8/8/N3K3 w - - 0 1", CLASSIC)
    assert heuristic.evaluate(state.copy(), heuristic.PRESETS["material3"], moves) == 0.0
    assert heuristic.evaluate(state.copy(), heuristic.DEFAULT_WEIGHTS, moves) < 0.0  # mobility and the centre
    state = position("k7/8/2K5/8/8/8/8/7R w - - 0 1", CLASSIC)  # the mate in two of the depth3 test
    play(CLASSIC, state, best(CLASSIC, state, heuristic.PRESETS["material3"]))
    assert heuristic.search_value(state.copy(), CLASSIC.tables, heuristic.DEFAULT_WEIGHTS, 2) == -(heuristic.MATE - 2)


@pytest.mark.slow
@pytest.mark.parametrize("doctor", [True, False])
def test_beats_random_in_at_least_95_percent(doctor):
    game = tardis_envs.env_module("timelord_chess_v1").Game(doctor=doctor)
    agents = [make_agent("heuristic", game), make_agent("random", game, seed=1)]
    result = play_match("timelord_chess_v1", agents, ["heuristic", "random"], 40, seed=3, options={"doctor": doctor})
    record = result.record(0)
    assert record["games"] == 40 and record["wins"] >= 38, record
