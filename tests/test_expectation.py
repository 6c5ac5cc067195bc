"""One ply of exact expectation over chance (tardis_envs.core.expectation) and what trains and
plays with it: the compiled expansion against the chance tape's, scripted positions with known
values, TD(lambda) targets worked by hand, a tiny ``search: expectation`` run that eval plays,
and refusals by name."""

from __future__ import annotations

import io
import runpy
import zipfile
from pathlib import Path

import numpy as np
import pytest

import tardis_envs
from agents.alphazero import AZAgent, build_net, load_checkpoint, parse_spec
from tardis_envs.core.expectation import ExactExpectation
from tardis_envs.core.state import CURRENT_PLAYER, RUNNING, STATUS
from tardis_envs.games.tardis_run.layout import PHASE, PHASE_EXTRA_MOVE, ROLL

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def game():
    return tardis_envs.make("tardis_run_v0").unwrapped.game


def judged(game):
    """An evaluator whose value of a position for its mover depends on every piece and the black
    paddle (columns counted from the mover, as a network's)."""

    def evaluate(obs, masks):
        flat = obs.reshape(len(obs), -1).astype(np.float64)
        value = np.tanh(flat @ np.cos(np.arange(flat.shape[1]) * 0.37) / 4)
        return None, np.stack([value, -value], axis=1).astype(np.float32)

    return evaluate


def kind_of(game, state):
    """The decision a position asks for: an extra move, a roll of the paddles alone, or a piece."""
    if state[PHASE] == PHASE_EXTRA_MOVE:
        return "extra move"
    return "roll" if [int(a) for a in game.legal_actions(state)] == [ROLL] else "pieces"


def played_positions(game, count, seed):
    """Running positions of random playouts: piece choices, extra moves and rolls alike."""
    rng = np.random.default_rng(seed)
    found = []
    state = game.new_state(seed)
    while len(found) < count:
        if state[STATUS] != RUNNING:
            state = game.new_state(seed + len(found) + 1)
        found.append(state.copy())
        game.kernels.step(state, game.tables, int(rng.choice(game.legal_actions(state))))
    return np.stack(found)


def test_the_compiled_expansion_values_every_action_as_the_chance_tape_does(game):
    """The expected values of the game's compiled ``afterstates`` expansion equal those of
    ``benchmarks/one_ply.py``, which enumerates the paddles through the chance tape
    (``Position.chance_leaves``, the generator's own draws): the same slots, probabilities,
    extra-move options and finished games, built twice independently."""
    reference = runpy.run_path(str(ROOT / "benchmarks" / "one_ply.py"))["OnePly"](
        game, lambda obs, masks, states: judged(game)(obs, masks)[1]
    )
    states = played_positions(game, 600, seed=3)
    values = ExactExpectation(game).action_values(states, judged(game))
    kinds = set()
    for i in range(0, len(states), 5):
        expected = reference.action_values(states[i])
        legal = [int(a) for a in game.legal_actions(states[i])]
        assert sorted(expected) == legal
        assert np.flatnonzero(values[i] > -np.inf).tolist() == legal
        assert np.allclose([values[i, a] for a in legal], [expected[a] for a in legal], atol=1e-6), i
        kinds.add(kind_of(game, states[i]))
    assert kinds == {"extra move", "roll", "pieces"}


def test_two_plies_value_each_outcome_by_its_movers_best_action_as_the_chance_tape_does(game):
    """Two plies: every position an action's dice reach is worth what its own mover's best
    action is worth by one ply. The reference builds that from ``benchmarks/one_ply.py``'s chance
    tape alone, the outer ply's leaves valued by an inner chance-tape one ply (the evaluator is
    zero-sum, so the best action's value for the other seat is its opposite). The compiled
    search's values must match it action for action, and differ from one ply's (else the second
    ply were not looked at)."""
    tape = runpy.run_path(str(ROOT / "benchmarks" / "one_ply.py"))["OnePly"]
    inner = tape(game, lambda obs, masks, states: judged(game)(obs, masks)[1])

    def best_reply(obs, masks, states):
        best = np.array([max(inner.action_values(state).values()) for state in states])
        return np.stack([best, -best], axis=1)

    reference = tape(game, best_reply)
    states = played_positions(game, 400, seed=11)
    chosen = []
    for kind in ("extra move", "roll", "pieces"):  # four positions of each kind of decision
        chosen += [i for i in range(len(states)) if kind_of(game, states[i]) == kind][:4]
    two = ExactExpectation(game, plies=2, chunk=64).action_values(states[chosen], judged(game))
    one = ExactExpectation(game).action_values(states[chosen], judged(game))
    for row, i in enumerate(chosen):
        expected = reference.action_values(states[i])
        legal = [int(a) for a in game.legal_actions(states[i])]
        assert np.flatnonzero(two[row] > -np.inf).tolist() == sorted(expected) == legal
        assert np.allclose([two[row, a] for a in legal], [expected[a] for a in legal], atol=1e-6), i
    assert not np.allclose(two[two > -np.inf], one[one > -np.inf], atol=1e-3)


def test_a_deeper_search_carries_every_seats_value_of_the_action_each_mover_chooses(game):
    """Values are vectors, one component a seat: a leaf's mover plays the action best for
    itself, and the seat above reads its own component of that action. With an evaluator that is
    not zero-sum (the two seats' values unrelated), the outer ply through the chance tape, each
    leaf valued by the compiled one ply's vectors at its mover's best action, gives the values
    of the compiled two plies; reading the mover's best as the other seat's loss would not."""
    tape = runpy.run_path(str(ROOT / "benchmarks" / "one_ply.py"))["OnePly"]
    weights = np.cos(np.arange(int(np.prod(game.observation_shape)))[:, None] * np.array([0.37, 0.11]))

    def unrelated(obs, masks):
        return None, np.tanh(obs.reshape(len(obs), -1).astype(np.float64) @ weights / 4).astype(np.float32)

    one = ExactExpectation(game)

    def reply_vector(obs, masks, states):
        vectors, legal = one.action_vectors(states, unrelated)
        movers = states[:, CURRENT_PLAYER]
        rows = np.arange(len(states))
        best = np.argmax(np.where(legal, vectors[rows, :, movers], -np.inf), axis=1)
        chosen = vectors[rows, best]
        return np.stack([chosen[rows, movers], chosen[rows, 1 - movers]], axis=1)  # counted from the mover

    reference = tape(game, reply_vector)
    states = played_positions(game, 300, seed=13)[::10]
    values = ExactExpectation(game, plies=2).action_values(states, unrelated)

    def mover_only(obs, masks):  # the other seat's value read as the mover's loss
        own = unrelated(obs, masks)[1][:, 0]
        return None, np.stack([own, -own], axis=1)

    zero_sum = ExactExpectation(game, plies=2).action_values(states, mover_only)
    for row, state in enumerate(states):
        expected = reference.action_values(state)
        legal = sorted(expected)
        assert np.flatnonzero(values[row] > -np.inf).tolist() == legal
        assert np.allclose([values[row, a] for a in legal], [expected[a] for a in legal], atol=1e-6), row
    assert not np.allclose(values[values > -np.inf], zero_sum[zero_sum > -np.inf], atol=1e-3)


def test_a_winning_roll_is_valued_by_the_reward_and_the_black_paddles_odds_exactly(game):
    """The Doctors hold the black paddle with three pieces out and the last on the final square:
    any seal escapes it and wins. Without the black paddle only four blanks (1/16) fail; with it
    only four blanks and "2x" (1/32). A zero seal sends the piece home (the evaluator's 0)."""
    last = game.track_length
    state = game.position(doctors=[last + 1, last + 1, last + 1, last], black_paddle_owner="doctors", to_move="doctors")

    def zero(obs, masks):
        return None, np.zeros((len(obs), 2), dtype=np.float32)

    values = ExactExpectation(game).action_values(state[None], zero)[0]
    assert np.flatnonzero(values > -np.inf).tolist() == [6, 7]  # the one piece left, with or without the black paddle
    assert values[6] == pytest.approx(15 / 16) and values[7] == pytest.approx(31 / 32)


@pytest.mark.parametrize("env_id", ["keys_to_the_tardis_v0", "timelord_chess_v1"])
def test_a_game_without_an_exact_chance_expansion_is_refused_by_name(env_id):
    other = tardis_envs.make(env_id).unwrapped.game
    with pytest.raises(ValueError, match=f"{env_id}: exact expectation over chance needs"):
        ExactExpectation(other)


def test_td_lambda_targets_follow_the_game_back_from_its_outcome():
    """Three decisions of one game (seats 0, 1, 0; root values 0.2, 0.4, -0.6 for their movers),
    seat 0 wins: walking back, G = 1 -> 0.5 x 1 + 0.5 x -0.6 = 0.2 (seat 0) -> for seat 1
    0.5 x -0.2 + 0.5 x 0.4 = 0.1 -> for seat 0 0.5 x -0.1 + 0.5 x 0.2 = 0.05. A second game's rows
    interleaved in the buffer keep to their own game; lambda 1 is the outcome."""
    from agents.training.replay import ReplayBuffer

    def filled(lam):
        buffer = ReplayBuffer(8, (1,), np.float32, 2, 2, 2, value_lambda=lam, zero_sum=True)
        ones = np.ones((1, 2), dtype=np.int32)
        for mover, game_id, root in ((0, 5, 0.2), (1, 9, 0.9), (1, 5, 0.4), (0, 5, -0.6), (0, 9, 0.3)):
            buffer.add(np.zeros((1, 1), np.float32), np.packbits(ones.astype(bool), axis=1), ones, ones.astype(np.float32),
                       np.array([mover]), np.array([game_id]), np.array([root], np.float32))  # fmt: skip
        buffer.finish(np.array([9, 5]), np.array([[-1.0, 1.0], [1.0, -1.0]]))
        return buffer

    buffer = filled(0.5)
    game5 = [0, 2, 3]
    assert np.allclose(buffer.target[game5], [[0.05, -0.05], [0.1, -0.1], [0.2, -0.2]])
    # game 9: seat 1 won; its last decision (seat 0, root 0.3): 0.5 x -1 + 0.5 x 0.3 = -0.35
    assert np.allclose(buffer.target[[4, 1]], [[-0.35, 0.35], [0.5 * 0.35 + 0.5 * 0.9, -(0.5 * 0.35 + 0.5 * 0.9)]])
    assert buffer.outcome[game5, 0].tolist() == [1.0, -1.0, 1.0]  # the outcome itself is kept
    *_, target = buffer.sample(np.random.default_rng(0), 64)
    assert set(np.round(target[:, 0], 4)) <= set(np.round(buffer.target[:5, 0], 4))
    assert np.allclose(filled(1.0).target[:5], filled(1.0).outcome[:5])
    with pytest.raises(ValueError, match="two value targets"):
        ReplayBuffer(4, (1,), np.float32, 2, 2, 2, root_value_share=0.5, value_lambda=0.5)


def test_an_az_agent_with_the_expectation_search_plays_the_best_expected_action(game, tmp_path):
    from agents.alphazero import NetEvaluator

    net = build_net(int(np.prod(game.observation_shape)), game.num_actions, 2, hidden=16, layers=1)
    agent = AZAgent(game, net, search="expectation")
    states = played_positions(game, 200, seed=5)
    masks = np.zeros((len(states), game.num_actions), dtype=np.int8)
    for i, state in enumerate(states):
        game.kernels.legal_mask(state, game.tables, masks[i])
    actions = agent.act_batch(states, None, masks)
    values = ExactExpectation(game).action_values(states, NetEvaluator(net, seats=2))
    busy = masks.sum(axis=1) > 1
    assert busy.any() and (actions[busy] == np.argmax(values[busy], axis=1)).all()
    assert (masks[np.arange(len(states)), actions] == 1).all()
    assert parse_spec("baseline:search=expectation")["search"] == "expectation"
    with pytest.raises(ValueError, match="search must be one of gumbel, expectation, alphabeta, turn, got 'deep'"):
        parse_spec("baseline:search=deep")
    deeper = AZAgent(game, net, search="expectation", plies=2)
    two = ExactExpectation(game, plies=2).action_values(states[busy], NetEvaluator(net, seats=2))
    assert deeper.name == "az:expectation:plies=2"
    assert (deeper.act_batch(states, None, masks)[busy] == np.argmax(two, axis=1)).all()
    assert parse_spec("baseline:plies=2")["plies"] == 2 and parse_spec("baseline")["plies"] == 1
    for bad in ("plies=3", "plies=0", "plies=two"):
        with pytest.raises(ValueError, match="plies must be"):
            parse_spec(f"baseline:{bad}")
    with pytest.raises(ValueError, match="exact expectation plies must be an integer in 1..2, got 3"):
        ExactExpectation(game, plies=3)


def test_a_tiny_expectation_run_learns_td_targets_and_its_checkpoint_plays_with_its_search(tmp_path, capsys):
    import torch

    from agents import make_agent
    from agents.training.az_train import OPTIMIZER_MEMBER, AZConfig
    from tardis_envs.cli import main

    config = tmp_path / "tiny.yaml"
    config.write_text(
        "az: {search: expectation, value_lambda: 0.7, explore: 0.05, learning_rate_end: 0.00001, hidden: 16, layers: 1, batch_size: 64,"
        " eval_opponents: [random]}\n"
    )
    run = tmp_path / "run"
    argv = ["train", "tardis_run_v0", "--algo", "az", "--config", str(config), "--run-dir", str(run)]
    argv += ["--eval-games", "4", "--num-envs", "16", "--no-progress", "--timesteps", "1500", "--eval-every", "1000"]
    assert main(argv) == 0
    net, meta = load_checkpoint(run / "checkpoints" / "last.zip")
    assert meta["config"]["search"] == "expectation" and meta["num_timesteps"] >= 1500
    with zipfile.ZipFile(run / "checkpoints" / "last.zip") as archive:
        optimizer = torch.load(io.BytesIO(archive.read(OPTIMIZER_MEMBER)), weights_only=True)
    # the last steps were taken near the end of the budget: the step size annealed from 1e-3
    assert 1e-5 <= optimizer["param_groups"][0]["lr"] < 5e-5
    agent = make_agent(f"az:{run / 'checkpoints' / 'last.zip'}", tardis_envs.make("tardis_run_v0").unwrapped.game)
    assert agent.expectation is not None and agent.name == "az:expectation"
    assert make_agent(f"az:{run / 'checkpoints' / 'last.zip'}:search=gumbel:sims=4", agent.game).expectation is None
    with pytest.raises(ValueError, match="sims is a setting of the gumbel search, and this network plays search=expectation"):
        make_agent(f"az:{run / 'checkpoints' / 'last.zip'}:sims=64", agent.game)
    assert make_agent(f"az:{run / 'checkpoints' / 'last.zip'}:plies=2", agent.game).expectation.plies == 2
    with pytest.raises(ValueError, match="plies is a setting of the expectation search, and this agent plays search=gumbel"):
        make_agent(f"az:{run / 'checkpoints' / 'last.zip'}:search=gumbel:plies=2", agent.game)
    assert (
        main(
            [
                "eval",
                "tardis_run_v0",
                "--agents",
                f"az:{run / 'checkpoints' / 'last.zip'},random",
                "--games",
                "4",
                "--out",
                str(tmp_path / "e"),
            ]
        )
        == 0
    )
    capsys.readouterr()
    oracle = runpy.run_path(str(ROOT / "benchmarks" / "oracle.py"))["main"]
    with pytest.raises(SystemExit):
        oracle(["tardis_run_v0", f"az:{run / 'checkpoints' / 'last.zip'}", "heuristic", "--games", "2"])
    assert "plays search=expectation, which samples no dice to foresee" in capsys.readouterr().err
    for data, message in (
        ({"env_id": "keys_to_the_tardis_v0", "search": "expectation"}, "'search' expectation needs a game of perfect information"),
        ({"search": "deep"}, "'search' must be one of gumbel, expectation, got 'deep'"),
        ({"explore": 0.1}, "'explore' is for the expectation search"),
        ({"search": "expectation", "value_lambda": 0.5, "root_value_share": 0.5}, "two value targets"),
        ({"value_lambda": 1.5}, "'value_lambda' must be a number in"),
    ):
        with pytest.raises(ValueError, match=message):
            AZConfig.from_dict(data)
