"""The chess heuristic's search over a learned leaf table (the ``az`` agent's
``search=alphabeta``): the table takes the place of the material at the leaves, Black reads it
mirrored, and only quiet positions are fitted on."""

import numpy as np

from tardis_envs.core.state import CURRENT_PLAYER, RUNNING, STATUS
from tardis_envs.games.chess import heuristic, layout

from .helpers import CLASSIC, position
from .helpers import VARIANT as G

MATERIAL3 = heuristic.PRESETS["material3"]


def features(state) -> np.ndarray:
    out = np.zeros(heuristic.LEAF_FEATURES)
    heuristic.leaf_features(state, out)
    return out


def random_positions(game, count: int, seed: int) -> list[np.ndarray]:
    """Positions of random playouts, every fifth ply."""
    rng = np.random.default_rng(seed)
    positions = []
    for key in range(count):
        state = game.new_state(seed + key)
        for _ in range(int(rng.integers(4, 60))):
            if state[STATUS] != RUNNING:
                break
            game.kernels.step(state, game.tables, int(rng.choice(game.legal_actions(state))))
        if state[STATUS] == RUNNING:
            positions.append(state)
    return positions


def test_the_material_table_plays_as_material3():
    # the table of material scores every leaf as material3 does, so every choice is the same
    table = heuristic.material_table(MATERIAL3)
    weights = MATERIAL3.copy()
    weights[heuristic.W_DEPTH] = 2  # a ply less: the same code, a third of the time
    positions = random_positions(G, 12, seed=5)
    assert len(positions) >= 8
    for state in positions:
        assert heuristic.choose_learned(state.copy(), G.tables, weights, table) == heuristic.choose(state.copy(), G.tables, weights)


def test_the_table_scores_each_piece_where_it_stands():
    moves = np.zeros(layout.MAX_MOVES, dtype=np.int64)
    rng = np.random.default_rng(0)
    table = rng.normal(0, 50, heuristic.LEAF_FEATURES)
    weights = heuristic.DEFAULT_WEIGHTS  # mobility, piece-square terms and the mating drive too
    material = heuristic.material_table(weights)
    for state in random_positions(G, 6, seed=11):
        learned = heuristic.evaluate(state.copy(), weights, moves, table)
        by_material = heuristic.evaluate(state.copy(), weights, moves)
        # the other terms stay as they are: only the material gives way to the table
        assert np.isclose(learned - by_material, features(state) @ (table - material))
        assert np.isclose(by_material, heuristic.evaluate(state.copy(), weights, moves, material))


def test_black_reads_the_table_mirrored_and_the_passenger_has_its_entry():
    white = position("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", CLASSIC)
    black = position("4k3/4p3/8/8/8/8/8/4K3 b - - 0 1", CLASSIC)
    assert features(white).tolist() == features(black).tolist()
    own_pawn_e2 = heuristic.leaf_index(False, layout.PAWN, 12, 0)
    assert features(white)[own_pawn_e2] == 1 and features(white).sum() == 3
    # the white knight inside the TARDIS, seen by Black: the opponent's knight, square 64
    state = position("4k3/8/8/3r4/8/8/8/3QK3 b - - 0 1 D:h4/C:in/P:N")
    assert state[CURRENT_PLAYER] == 1
    assert features(state)[heuristic.leaf_index(True, layout.KNIGHT, -1, 1)] == 1


def test_the_search_plays_for_what_the_table_values():
    # equal material; a table that prizes a pawn on the seventh rank makes the search push it
    state = position("k7/8/4P3/8/8/8/8/K7 w - - 0 1", CLASSIC)
    weights = MATERIAL3.copy()
    weights[heuristic.W_DEPTH] = 1
    table = heuristic.material_table(weights)
    # a white pawn on e7: worth 300 more to White, seen by White and (as the opponent's) by Black
    seventh = [heuristic.leaf_index(False, layout.PAWN, 52, 0), heuristic.leaf_index(True, layout.PAWN, 52, 1)]
    table[seventh] += [300.0, -300.0]
    move = CLASSIC.action_to_string(state, int(heuristic.choose_learned(state.copy(), CLASSIC.tables, weights, table)))
    assert move == "e6e7"
    table[seventh] -= [600.0, -600.0]
    move = CLASSIC.action_to_string(state, int(heuristic.choose_learned(state.copy(), CLASSIC.tables, weights, table)))
    assert move != "e6e7"


def test_only_quiet_positions_are_fitted_on():
    # the start is quiet; a hanging knight is not (the capture search takes it)
    states = np.stack(
        [CLASSIC.new_state(0), position("7k/6pp/4p3/3q4/n7/8/8/3QK3 w - - 0 1", CLASSIC)],
    )
    out = np.zeros((2, heuristic.LEAF_FEATURES))
    quiet = np.zeros(2, dtype=np.bool_)
    judged = np.zeros(2)
    heuristic.leaf_samples(states, CLASSIC.tables, MATERIAL3, heuristic.DEFAULT_WEIGHTS, out, quiet, judged)
    assert quiet.tolist() == [True, False]
    assert judged[1] < -200  # the teacher's static evaluation: Black a knight up
    assert out[0].tolist() == features(states[0]).tolist() and out[0].sum() == 32
