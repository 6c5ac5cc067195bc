"""Agents, the tournament and its statistics, and the command line."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tardis_envs
from agents import RandomAgent, make_agent
from agents.stats import wilson_interval
from agents.tournament import format_table, play_match

ROOT = Path(__file__).resolve().parents[1]


def test_wilson_interval_known_values():
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(10, 10)[0] == pytest.approx(0.7225, abs=1e-4)


def test_random_agent_is_uniform_over_legal_actions():
    game = tardis_envs.env_module("tardis_run_v0").Game()
    agent = RandomAgent(game, seed=0)
    masks = np.zeros((20000, game.num_actions), dtype=np.int8)
    masks[:, [0, 2, 5]] = 1
    actions = agent.act_batch(None, None, masks)
    counts = np.bincount(actions, minlength=game.num_actions)
    assert set(np.flatnonzero(counts)) == {0, 2, 5}
    assert np.all(np.abs(counts[[0, 2, 5]] / 20000 - 1 / 3) < 0.02)


def test_agents_only_play_legal_actions_in_aec(env_id):
    env = tardis_envs.make(env_id, illegal_action="raise")
    game = env.unwrapped.game
    agents = [make_agent("heuristic", game), make_agent("random", game, seed=1)]
    for seed in range(5):
        env.reset(seed=seed)
        for agent in env.agent_iter(max_iter=2000):
            _, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(agents[env.unwrapped.agent_name_mapping[agent]].act(env))


def test_unknown_agent():
    game = tardis_envs.env_module("tardis_run_v0").Game()
    with pytest.raises(ValueError, match="unknown agent 'genius'"):
        make_agent("genius", game)


@pytest.mark.slow
def test_heuristic_beats_random_clearly():
    game = tardis_envs.env_module("tardis_run_v0").Game()
    result = play_match(
        "tardis_run_v0", [make_agent("heuristic", game), make_agent("random", game, seed=1)], ["heuristic", "random"], 600, seed=0
    )
    record = result.record(0)
    assert record["games"] == 600
    assert result.record(0, 0)["games"] == 300 and result.record(0, 1)["games"] == 300, "seats swapped evenly"
    assert record["ci_low"] > 0.6, format_table(result)


def test_tournament_counts_each_game_once():
    game = tardis_envs.env_module("tardis_run_v0").Game()
    agents = [make_agent("random", game, seed=0), make_agent("random", game, seed=1)]
    result = play_match("tardis_run_v0", agents, ["a", "b"], 50, seed=3, batch=16)
    assert result.num_games == 50
    a, b = result.record(0), result.record(1)
    assert a["games"] == b["games"] == 50
    assert a["wins"] == b["losses"] and a["draws"] == b["draws"]


@pytest.mark.slow
def test_cli_eval_prints_the_table(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tardis_envs.cli",
            "eval",
            "tardis_run_v0",
            "--games",
            "40",
            "--json",
            str(tmp_path / "r.json"),
            "--out",
            str(tmp_path / "out"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "95% interval" in out.stdout and "heuristic" in out.stdout and "throughput: AEC" in out.stdout
    assert (tmp_path / "r.json").exists()


def test_cli_errors_are_clear():
    out = subprocess.run(
        [sys.executable, "-m", "tardis_envs.cli", "eval", "no_such_game_v0"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 2 and "unknown env id 'no_such_game_v0'" in out.stderr
    out = subprocess.run(
        [sys.executable, "-m", "tardis_envs.cli", "eval", "tardis_run_v0", "--games", "3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2 and "games must be a multiple of 2" in out.stderr
    out = subprocess.run([sys.executable, "-m", "tardis_envs.cli", "list"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "tardis_run_v0" in out.stdout


def test_cli_play_against_the_heuristic():
    # scripted human: always type the first legal action number shown
    script = "\n".join(["0", "1", "2", "4", "6", "8", "9", "10"] * 400)
    out = subprocess.run(
        [sys.executable, "-m", "tardis_envs.cli", "play", "tardis_run_v0", "--seed", "1"],
        cwd=ROOT,
        input=script,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "You play doctors" in out.stdout and "monsters plays:" in out.stdout
