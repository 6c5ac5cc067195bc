"""Matches and evaluations keep their results: tallies in bounded memory, finished games on Ctrl-C,
exact interval bounds, every eval saved."""

import json
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import tardis_envs
from agents import make_agent, tournament
from agents.evaluation import agent_label, distinct_names, json_safe
from agents.random_agent import RandomAgent
from agents.stats import wilson_interval
from agents.tournament import MatchInterrupted, play_match, round_robin
from tardis_envs.cli import main


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


def eval_args(*args):
    return ["eval", "tardis_run_v0", "--no-throughput", *args]


def test_every_eval_saves_its_results_in_a_new_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for _ in range(2):
        assert main(eval_args("--agents", "random,heuristic", "--games", "4")) == 0
    folders = sorted((tmp_path / "runs" / "eval" / "tardis_run_v0").iterdir())
    assert len(folders) == 2, "a second eval never overwrites the first"
    for folder in folders:
        data = json.loads((folder / "results.json").read_text())
        assert data["kind"] == "match" and data["games_played"] == 4 and not data["partial"]
        assert (folder / "match.csv").read_text().startswith("agent,seat,games") and (folder / "results.md").exists()


def test_out_is_not_overwritten_without_overwrite(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(eval_args("--agents", "random,heuristic", "--games", "2", "--out", str(out))) == 0
    (out / "mine.txt").write_text("the user's")
    capsys.readouterr()
    assert main(eval_args("--agents", "random,heuristic", "--games", "2", "--out", str(out))) == 2
    assert "already holds results (" in capsys.readouterr().err
    assert main(eval_args("--agents", "random,heuristic", "--games", "2", "--out", str(out), "--overwrite")) == 0
    assert (out / "mine.txt").read_text() == "the user's"


def test_json_is_written_for_a_round_robin(tmp_path):
    target = tmp_path / "rr.json"
    assert main(eval_args("--agents", "random,heuristic,mcts:4", "--games", "2", "--out", str(tmp_path / "rr"), "--json", str(target))) == 0
    data = json.loads(target.read_text())
    assert data["kind"] == "round_robin" and len(data["pairs"]) == 6
    assert (tmp_path / "rr" / "heatmap.png").exists() and (tmp_path / "rr" / "results.json").exists()


def test_ctrl_c_during_eval_saves_the_finished_games_marked_partial(tmp_path, monkeypatch):
    import agents

    real = agents.make_agent
    monkeypatch.setattr(
        agents, "make_agent", lambda name, g, seed=None: InterruptAfter(g, 150) if name == "late" else real(name, g, seed=seed)
    )
    assert main(eval_args("--agents", "late,random", "--games", "400", "--out", str(tmp_path / "o"))) == 130
    data = json.loads((tmp_path / "o" / "results.json").read_text())
    assert data["partial"] and 0 < data["games_played"] < 400
    assert "PARTIAL" in (tmp_path / "o" / "results.md").read_text()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--agents", "heuristic"], "an evaluation of tardis_run_v0 needs at least 2 agents"),
        (["--agents", "heuristic,random", "--partner", "random"], "a partner names the team-mates of a cooperative game"),
        (["--agents", "heuristic,random", "--seed", "-1"], "--seed must be an integer >= 0, got -1"),
    ],
)
def test_eval_refuses_bad_flags_in_one_line(args, message, tmp_path, capsys):
    assert main(eval_args(*args, "--out", str(tmp_path / "o"))) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "o").exists()


def test_round_robin_labels_shorten_checkpoint_paths():
    assert agent_label("rllib:runs/x/checkpoints/best") == "rllib:x/best"
    assert agent_label("rllib:runs/x/checkpoints/best/") == "rllib:x/best"
    assert agent_label("ppo:runs/x/checkpoints/best.zip") == "ppo:x/best"
    assert agent_label("ppo:baseline") == "ppo:baseline" and agent_label("heuristic") == "heuristic"
    assert agent_label("az:runs/x/checkpoints/best.zip") == "az:x/best"
    assert agent_label("az:runs/x/checkpoints/best.zip:sims=64:net") == "az:x/best:sims=64:net"
    assert agent_label("az:baseline:sims=8") == "az:baseline:sims=8" and agent_label("az:best.zip") == "az:best.zip"


@pytest.mark.slow
def test_a_cooperative_eval_saves_its_results(tmp_path):
    out = tmp_path / "team"
    cooperative = next(env_id for env_id in tardis_envs.ENV_IDS if tardis_envs.env_module(env_id).SPEC.cooperative)
    args = ["eval", cooperative, "--agents", "random", "--partner", "random", "--games", "2", "--out", str(out)]
    assert main([*args, "--json", str(tmp_path / "t.json")]) == 0
    data = json.loads((out / "results.json").read_text())
    assert data["kind"] == "team" and data["partner"] == "random" and data["team_records"]["random"]["games"] == 2
    assert (out / "team.csv").read_text().startswith("agent,partner,") and (tmp_path / "t.json").exists()


@pytest.mark.slow
def test_a_model_trained_from_python_joins_eval_with_save_model(tmp_path):
    """The documented path for users' own SB3 models: SelfPlayVecEnv, learn, save_model, ppo:<path>."""
    from sb3_contrib import MaskablePPO

    from agents.checkpoint import read_meta, save_model
    from agents.training.selfplay import OpponentPool, SelfPlayVecEnv
    from tardis_envs.cli import _config

    options = _config("tardis_run_v0", None)["options"]  # the rules eval plays by default
    g = tardis_envs.env_module("tardis_run_v0").Game(**options)
    venv = SelfPlayVecEnv("tardis_run_v0", 8, OpponentPool(g, {"random": 1.0}, seed=0), seed=0, options=options)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, policy_kwargs={"net_arch": [16]}, seed=0, device="cpu")
    model.learn(256)
    path = save_model(model, tmp_path / "mine", g, seed=0)
    assert path == tmp_path / "mine.zip" and read_meta(path)["seed"] == 0 and read_meta(path)["num_timesteps"] >= 256
    out = tmp_path / "out"
    assert main(["eval", "tardis_run_v0", "--agents", f"ppo:{path},random", "--games", "4", "--no-throughput", "--out", str(out)]) == 0
    assert json.loads((out / "results.json").read_text())["records"][f"ppo:{path}"]["games"] == 4


def test_the_chess_baseline_on_classic_chess_says_it_needs_the_doctor_variant(tmp_path, capsys):
    args = ["eval", "timelord_chess_v1", "--agents", "ppo:baseline,random", "--games", "2", "--no-throughput", "--out", str(tmp_path / "o")]
    classic = Path(__file__).resolve().parents[1] / "configs" / "chess" / "classic.yaml"
    assert main([*args, "--config", str(classic)]) == 2
    err = capsys.readouterr().err
    assert "ppo:baseline of timelord_chess_v1 cannot play this game" in err and "it needs doctor=True: play with Dr. Who" in err
    assert "agents/baselines" not in err and err.count("\n") == 1  # no install path, one line


def test_a_learned_agent_under_other_rules_gets_a_notice(capsys):
    from agents.evaluation import _note_other_rules

    keys = tardis_envs.env_module("keys_to_the_tardis_v0").Game(num_players=3)
    trained_for_two = RandomAgent(keys)
    trained_for_two.meta = {"options": {**keys.options, "num_players": 2}}
    _note_other_rules(keys, [trained_for_two, RandomAgent(keys)], ["ppo:baseline", "random"], print)
    out = capsys.readouterr().out
    assert (
        out.startswith("note: ppo:baseline was trained under other rule options (num_players: trained 2, now 3)") and out.count("\n") == 1
    )


def test_results_json_is_strict_json_after_an_early_ctrl_c():
    no_games = {"games": 0, "win_rate": float("nan"), "by_seat": [{"win_rate": float("nan")}]}
    assert json.loads(json.dumps(json_safe(no_games), allow_nan=False)) == {"games": 0, "win_rate": None, "by_seat": [{"win_rate": None}]}


def test_an_agent_against_itself_keeps_a_record_per_seat_holder(tmp_path):
    assert distinct_names(["random", "random", "random#2"]) == ["random", "random#2", "random#3"]
    assert main(eval_args("--agents", "random,random", "--games", "2", "--out", str(tmp_path / "o"))) == 0
    assert sorted(json.loads((tmp_path / "o" / "results.json").read_text())["records"]) == ["random", "random#2"]


def test_python_callers_get_the_same_evaluation_and_protection(tmp_path):
    from agents.evaluation import EVAL_FILES, check_output, evaluate

    out = check_output(tmp_path / "mine")
    result = evaluate("tardis_run_v0", ["heuristic", "random"], games=4, seed=3)
    assert result.kind == "match" and result.payload["games_played"] == 4 and "heuristic" in result.table
    saved = result.save(out)
    assert sorted(p.name for p in saved) == ["match.csv", "results.json", "results.md"]
    (out / "notes.txt").write_text("the user's")
    with pytest.raises(ValueError, match="already holds results \\([a-z.]*\\); use overwrite=True"):
        check_output(out)
    with pytest.raises(ValueError, match="already holds results"):
        result.save(out)
    # a round robin replaces the match's files in the same folder with overwrite, and nothing else
    rr = evaluate("tardis_run_v0", ["heuristic", "random", "mcts:2"], games=2)
    rr.save(out, overwrite=True)
    assert sorted(p.name for p in out.iterdir() if p.name in EVAL_FILES) == [
        "heatmap.png",
        "matrix.csv",
        "ratings.csv",
        "results.json",
        "results.md",
    ]
    assert (out / "notes.txt").read_text() == "the user's"
    with pytest.raises(ValueError, match="games must be a multiple of 2"):
        evaluate("tardis_run_v0", ["heuristic", "random"], games=3)
