"""Behaviour cloning: the teacher's recorded decisions and the fitted policy."""

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import tardis_envs
from agents import HeuristicAgent, RandomAgent
from agents.training.imitation import agreement, clone_policy, held_out_games, held_out_split, record_teacher


class Spy(HeuristicAgent):
    """The heuristic, keeping every batch of choices it made."""

    def __init__(self, game):
        super().__init__(game)
        self.choices = []

    def act_batch(self, states, observations, masks):
        out = super().act_batch(states, observations, masks)
        self.choices.append(out.copy())
        return out


def test_labels_are_the_teachers_choices_and_legal():
    game = tardis_envs.env_module("tardis_run_v0").Game()
    spy = Spy(game)
    data = record_teacher("tardis_run_v0", spy, 1000, seed=5, num_envs=64, explore=0.3)
    # the first rows of every batch are labelled, in order
    expected = np.concatenate([c[: min(64, 1000 - 64 * k)] for k, c in enumerate(spy.choices)])
    assert np.array_equal(data.actions, expected)
    assert data.masks[np.arange(len(data)), data.actions].all()
    assert data.observations.dtype == np.float16 and data.observations.shape == (1000, *game.observation_shape)


def test_returns_are_the_movers_final_rewards():
    game = tardis_envs.env_module("tardis_run_v0").Game()
    data = record_teacher("tardis_run_v0", RandomAgent(game, seed=0), 20000, seed=1, num_envs=32, explore=0.0)
    assert data.games > 0 and data.finished.any() and not data.finished.all()
    # TARDIS Run has no draws within its turn limit: a finished game's decisions are won or lost
    assert set(np.unique(data.returns[data.finished])) == {-1.0, 1.0}
    assert (data.returns[~data.finished] == 0).all()


def test_games_are_numbered_and_held_out_whole():
    game = tardis_envs.env_module("tardis_run_v0").Game()
    data = record_teacher("tardis_run_v0", RandomAgent(game, seed=0), 6000, seed=3, num_envs=16, explore=0.0)
    numbers = np.unique(data.game)
    assert np.array_equal(numbers, np.arange(numbers.size)) and numbers.size > data.games  # unfinished games numbered too
    for number in numbers[:20]:  # a game's decisions share its end: finished or not, and each seat one outcome
        rows = data.game == number
        assert np.unique(data.finished[rows]).size == 1 and np.abs(data.returns[rows]).max() <= 1
    held, train = held_out_games(data, seed=2, validation=0.2)
    assert np.array_equal(np.sort(np.concatenate([held, train])), np.arange(len(data)))
    assert not set(data.game[held]) & set(data.game[train])  # no game on both sides
    assert 0.1 < np.unique(data.game[held]).size / numbers.size < 0.3
    both = data + data
    assert np.unique(both.game).size == 2 * numbers.size  # a second recording's games get new numbers


def test_exploration_changes_the_games_played_but_not_the_labels():
    game = tardis_envs.env_module("timelord_chess_v1").Game()
    teacher = HeuristicAgent(game, preset="greedy")
    plain = record_teacher("timelord_chess_v1", teacher, 600, seed=2, num_envs=8, explore=0.0)
    again = record_teacher("timelord_chess_v1", teacher, 600, seed=2, num_envs=8, explore=0.0)
    wandering = record_teacher("timelord_chess_v1", teacher, 600, seed=2, num_envs=8, explore=0.5)
    assert np.array_equal(plain.actions, again.actions), "recording is reproducible"
    assert not np.array_equal(plain.observations, wandering.observations)
    with pytest.raises(ValueError, match="explore must be in"):
        record_teacher("timelord_chess_v1", teacher, 10, explore=1.5)


class LowestLegal(RandomAgent):
    """Always the lowest-numbered legal action: a behaviour that differs from the heuristic."""

    def act_batch(self, states, observations, masks):
        return np.argmax(masks > 0, axis=1).astype(np.int64)


def test_dagger_plays_the_behaviour_and_keeps_the_teachers_labels():
    game = tardis_envs.env_module("tardis_run_v0").Game()
    spy = Spy(game)
    mixed = record_teacher("tardis_run_v0", spy, 2000, seed=4, num_envs=32, explore=0.0, behaviour=LowestLegal(game))
    alone = record_teacher("tardis_run_v0", LowestLegal(game), 2000, seed=4, num_envs=32, explore=0.0)
    # the games are the behaviour's own, move for move ...
    assert np.array_equal(mixed.observations, alone.observations) and np.array_equal(mixed.returns, alone.returns)
    # ... and every label is the teacher's choice in them, which is often another move
    expected = np.concatenate([c[: min(32, 2000 - 32 * k)] for k, c in enumerate(spy.choices)])
    assert np.array_equal(mixed.actions, expected)
    assert (mixed.actions != alone.actions).mean() > 0.2
    both = mixed + alone
    assert len(both) == 4000 and both.games == mixed.games + alone.games
    assert np.array_equal(both.actions[2000:], alone.actions)


def test_cloning_fits_the_teacher():
    from sb3_contrib import MaskablePPO

    from agents.training.selfplay import OpponentPool, SelfPlayVecEnv

    game = tardis_envs.env_module("tardis_run_v0").Game()
    data = record_teacher("tardis_run_v0", HeuristicAgent(game), 20000, seed=3, num_envs=128)
    venv = SelfPlayVecEnv("tardis_run_v0", 4, OpponentPool(game, {"random": 1.0}), seed=0)
    model = MaskablePPO("MlpPolicy", venv, policy_kwargs={"net_arch": [64, 64]}, seed=0, device="cpu")
    index = np.arange(len(data))
    before = agreement(model.policy, data, index)
    history = clone_policy(model.policy, data, epochs=3, batch_size=256, seed=0)
    assert history[-1]["loss"] < history[0]["loss"]
    # the heuristic's choice is often forced or obvious; the untrained policy picks uniformly
    assert history[-1]["agreement"] > 0.75 and history[-1]["agreement"] > before + 0.2


def test_decisions_held_out_are_never_trained_on_and_measure_the_agreement():
    from sb3_contrib import MaskablePPO

    from agents.training.selfplay import OpponentPool, SelfPlayVecEnv

    game = tardis_envs.env_module("tardis_run_v0").Game()
    data = record_teacher("tardis_run_v0", HeuristicAgent(game), 3000, seed=6, num_envs=64)
    held, train = held_out_split(len(data), seed=1)
    assert held.size == 150 and np.array_equal(np.sort(np.concatenate([held, train])), np.arange(len(data)))
    earlier = np.arange(0, 3000, 7)  # as a later DAgger round passes them: held out by an earlier fit
    data.observations[earlier, 0, 0] = 99.0  # a mark no trained batch may carry
    venv = SelfPlayVecEnv("tardis_run_v0", 4, OpponentPool(game, {"random": 1.0}), seed=0)
    model = MaskablePPO("MlpPolicy", venv, policy_kwargs={"net_arch": [32]}, seed=0, device="cpu")
    trained = []
    evaluate = model.policy.evaluate_actions

    def spy(obs, actions, action_masks=None):
        trained.append(obs.detach().numpy()[:, 0, 0].copy())
        return evaluate(obs, actions, action_masks=action_masks)

    model.policy.evaluate_actions = spy
    history = clone_policy(model.policy, data, epochs=2, batch_size=256, seed=0, held_out=earlier)
    rows = np.concatenate(trained)
    assert rows.size == 2 * (3000 - earlier.size) and not (rows == 99.0).any()
    assert history[-1]["agreement"] == agreement(model.policy, data, earlier)
