"""``benchmarks/move_ranking.py``: the probes of whether anything ranks TARDIS Run's moves better
than the shipped network's one ply."""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pytest

import tardis_envs
from agents import make_agent
from tardis_envs.core.state import CURRENT_PLAYER, RNG_KEY

MODULE = runpy.run_path(str(Path(__file__).resolve().parents[1] / "benchmarks" / "move_ranking.py"))


@pytest.fixture(scope="module")
def game():
    return tardis_envs.make("tardis_run_v0").unwrapped.game


@pytest.fixture(scope="module")
def positions(game):
    """Positions of the one ply's games against the heuristic where its mover has a choice."""
    network = make_agent("az:baseline", game, seed=0)
    states, index, outcome, seats = MODULE["played_positions"]("tardis_run_v0", network, make_agent("heuristic", game), 8, 3)
    assert set(np.unique(outcome)) <= {-1.0, 0.0, 1.0} and set(np.unique(index)) == set(range(8))
    assert np.array_equal(seats, index % 2)
    choice = np.array([len(game.legal_actions(s)) > 1 for s in states])
    return states[choice][:60]


def masks_of(game, states):
    masks = np.zeros((len(states), game.num_actions), dtype=np.int8)
    for i, state in enumerate(states):
        masks[i, game.legal_actions(state)] = 1
    return masks


def test_the_prior_probe_runs_from_the_network_alone_to_the_one_ply(game, positions):
    """Scale 0 plays the network alone's move, inf the one ply's; a scale large enough for Q to
    outweigh every prior plays the one ply's move, and the weighted moves differ from both
    somewhere in between (where the two disagree)."""
    network = make_agent("az:baseline", game, seed=0)
    masks = masks_of(game, positions)
    obs = np.stack([game.observation(s, int(s[CURRENT_PLAYER])) for s in positions])
    alone = make_agent("az:baseline:net", game).act_batch(positions, obs, masks)
    one_ply = network.act_batch(positions, obs, masks)
    assert (alone != one_ply).any()  # the positions tell the two apart
    weighted = MODULE["PriorWeighted"]
    np.testing.assert_array_equal(weighted(game, network, 0.0).act_batch(positions, obs, masks), alone)
    np.testing.assert_array_equal(weighted(game, network, np.inf).act_batch(positions, obs, masks), one_ply)
    np.testing.assert_array_equal(weighted(game, network, 1e9).act_batch(positions, obs, masks), one_ply)
    with pytest.raises(ValueError, match="scale must be >= 0"):
        weighted(game, network, -1.0)
    with pytest.raises(ValueError, match="expectation search"):
        weighted(game, make_agent("az:baseline:search=gumbel", game), 1.0)


def test_the_heuristic_terms_sum_to_its_evaluation(game, positions):
    heuristic = game.heuristic
    terms = MODULE["heuristic_terms"](game, positions)
    assert terms.shape == (len(positions), 1 + len(heuristic.DEFAULT_WEIGHTS))
    whole = [heuristic.evaluate(s, game.tables, int(s[CURRENT_PLAYER]), heuristic.DEFAULT_WEIGHTS) for s in positions]
    np.testing.assert_allclose(terms.sum(axis=1), whole)
    assert (np.abs(terms[:, 1:]) > 0).any(axis=0).sum() >= 2  # weighted terms are at work, not only progress


def test_playouts_share_their_dice_across_a_positions_actions(game, positions):
    """The k-th playout depends on its key alone: the same position twice gets the same outcomes,
    action by action (common random numbers), and every outcome is a game's result."""
    pair = np.stack([positions[0], positions[0], positions[1]])
    agent = make_agent("az:baseline:net", game)
    values = MODULE["playout_values"]("tardis_run_v0", game, pair, agent, make_agent("heuristic", game), 12, 5)
    for action in game.legal_actions(pair[0]):
        np.testing.assert_array_equal(values[(0, int(action))], values[(1, int(action))])
        assert set(np.unique(values[(0, int(action))])) <= {-1.0, 0.0, 1.0}
    assert {i for i, _ in values} == {0, 1, 2}
    keys = np.array([11, 12, 13])
    _, children, owners = MODULE["playout_starts"](game, pair, keys)
    assert [int(child[RNG_KEY]) for child in children] == [int(keys[k]) for _, _, k in owners]  # the k-th key, whatever the action
    assert {(i, a) for i, a, _ in owners} == {(i, int(a)) for i in range(3) for a in game.legal_actions(pair[i])}
    again = MODULE["playout_values"]("tardis_run_v0", game, pair[:1], agent, make_agent("heuristic", game), 12, 6)
    assert any(not np.array_equal(again[(0, int(a))], values[(0, int(a))]) for a in game.legal_actions(pair[0]))


def test_the_held_out_gain_counts_a_better_action_and_not_the_noise():
    better = np.array([[0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]])
    assert MODULE["held_out_gain"](better, 0) == pytest.approx(0.5)
    assert MODULE["held_out_gain"](better, 1) == 0.0
    # each half favours another action by luck: choosing by one half and scoring on the other
    # charges the luck against the playouts' choice
    lucky = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert MODULE["held_out_gain"](lucky, 0) == pytest.approx(-0.5)


def test_the_probes_refuse_bad_settings_by_name(capsys):
    main = MODULE["main"]
    for argv, named in (
        (["prior", "tardis_run_v0", "--games", "3"], "--games 3"),
        (["prior", "tardis_run_v0", "--scales", "-1"], "--scales"),
        (["rollouts", "tardis_run_v0", "--rollouts", "1"], "--rollouts 1"),
        (["prior", "tardis_run_v0", "--network", "heuristic"], "--network"),
        (["prior", "tardis_run_v0", "--network", "az:baseline:search=gumbel"], "expectation search"),
        (["prior", "keys_to_the_tardis_v0"], "perfect information"),
    ):
        with pytest.raises(SystemExit):
            main(argv)
        assert named in capsys.readouterr().err


def test_each_probe_reports(capsys):
    main = MODULE["main"]
    assert main(["prior", "tardis_run_v0", "--scales", "0", "inf", "--games", "4"]) == 0
    out = capsys.readouterr().out
    assert "log prior + 0 Q" in out and "log prior + inf Q" in out and "4 games in" in out
    assert main(["terms", "tardis_run_v0", "--games", "20"]) == 0
    out = capsys.readouterr().out
    assert "held-out R^2: the value" in out and "the terms alone" in out
    assert main(["rollouts", "tardis_run_v0", "--positions", "3", "--rollouts", "4"]) == 0
    out = capsys.readouterr().out
    assert out.count("the playouts' best move") == 3
