"""Matches and evaluations keep their results: tallies in bounded memory, finished games on Ctrl-C,
exact interval bounds, every eval saved."""

import tracemalloc

import numpy as np
import pytest

import tardis_envs
from agents import make_agent, tournament
from agents.random_agent import RandomAgent
from agents.stats import wilson_interval
from agents.tournament import MatchInterrupted, play_match, round_robin


def game():
    return tardis_envs.env_module("tardis_run_v0").Game()


class InterruptAfter(RandomAgent):
    """A random agent that presses Ctrl-C on its ``calls``-th move batch."""

    def __init__(self, game, calls):
        super().__init__(game, seed=0)
        self.calls = calls

    def act_batch(self, states, observations, masks):
        self.calls -= 1
        if self.calls == 0:
            raise KeyboardInterrupt
        return super().act_batch(states, observations, masks)


def test_interval_bounds_are_exactly_zero_and_one():
    assert wilson_interval(0, 400) == (0.0, pytest.approx(0.0095, abs=1e-4))
    assert wilson_interval(0, 400)[0] == 0.0 and wilson_interval(400, 400)[1] == 1.0


def test_tallies_without_kept_games_agree_with_kept_ones(monkeypatch):
    agents = [make_agent("random", game(), seed=0), make_agent("random", game(), seed=1)]
    kept = play_match("tardis_run_v0", agents, ["a", "b"], 40, seed=3, batch=16)
    assert kept.seats is not None and kept.rewards.shape == (40, 2)
    monkeypatch.setattr(tournament, "KEEP_GAMES", 10)
    agents = [make_agent("random", game(), seed=0), make_agent("random", game(), seed=1)]
    tallied = play_match("tardis_run_v0", agents, ["a", "b"], 40, seed=3, batch=16)
    assert tallied.seats is None and tallied.rewards is None
    for agent in (0, 1):
        for seat in (None, 0, 1):
            assert tallied.record(agent, seat) == kept.record(agent, seat)
            assert tallied.team_record(agent, seat) == kept.team_record(agent, seat)
    assert tallied.mean_length == pytest.approx(kept.lengths.mean())
    rewards, seats = kept.rewards, kept.seats
    assert kept.record(0)["wins"] == sum(rewards[g, np.flatnonzero(seats[g] == 0)[0]] > 0 for g in range(40))


def test_match_memory_does_not_grow_with_the_number_of_games(monkeypatch):
    monkeypatch.setattr(tournament, "KEEP_GAMES", 0)
    peaks = []
    for games in (100, 1000):
        agents = [make_agent("random", game(), seed=0), make_agent("random", game(), seed=1)]
        play_match("tardis_run_v0", agents, ["a", "b"], 20, seed=0, batch=50)  # warm caches
        tracemalloc.start()
        play_match("tardis_run_v0", agents, ["a", "b"], games, seed=0, batch=50)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] < 1.5 * peaks[0], peaks


def test_ctrl_c_during_a_match_keeps_the_finished_games():
    g = game()
    agents = [InterruptAfter(g, calls=150), make_agent("random", g, seed=1)]
    with pytest.raises(MatchInterrupted) as stop:
        play_match("tardis_run_v0", agents, ["a", "b"], 400, seed=0, batch=8)
    result = stop.value.result
    assert isinstance(stop.value, KeyboardInterrupt)  # callers that do not look still stop
    assert result.partial and 0 < result.num_games < 400
    assert result.record(0)["games"] == result.record(1)["games"] == result.num_games
    assert "PARTIAL: interrupted after" in tournament.format_table(result)


def test_ctrl_c_during_a_round_robin_keeps_the_finished_pairs(tmp_path):
    g = game()
    agents = [make_agent("random", g, seed=0), make_agent("heuristic", g), InterruptAfter(g, calls=5)]
    with pytest.raises(MatchInterrupted) as stop:
        round_robin("tardis_run_v0", agents, ["random", "heuristic", "late"], 8, seed=0)
    rr = stop.value.result
    assert rr.partial and rr.games[0, 1] == 8 and rr.games[0, 2] == 0
    assert "not played" in tournament.format_round_robin(rr)
    files = tournament.save_round_robin(rr, tmp_path / "rr")
    assert "PARTIAL" in (tmp_path / "rr" / "results.md").read_text() and len(files) == 4
