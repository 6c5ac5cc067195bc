"""Bad input to the command line is refused in one line, before any long work."""

import subprocess
import sys
from pathlib import Path

import pytest

from tardis_envs.cli import main

ROOT = Path(__file__).resolve().parents[1]


def run(*args, stdin=""):
    return subprocess.run(
        [sys.executable, "-m", "tardis_envs.cli", *args], cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize("seat", ["5", "-1"])
def test_play_refuses_a_seat_that_does_not_exist(seat):
    out = run("play", "tardis_run_v0", "--seat", seat)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert f"--seat {seat} is not a seat of tardis_run_v0: choose 0..1" in out.stderr


def test_eval_checks_output_paths_before_playing(tmp_path, capsys):
    assert main(["eval", "tardis_run_v0", "--agents", "random,random", "--games", "2", "--json", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err
    afile = tmp_path / "file.txt"
    afile.write_text("x")
    assert main(["eval", "tardis_run_v0", "--agents", "random,random", "--games", "2", "--json", str(afile / "x.json")]) == 2
    assert "is a file, so no folder can be made there" in capsys.readouterr().err
    assert main(["eval", "tardis_run_v0", "--agents", "random,random,heuristic", "--games", "2", "--out", str(afile)]) == 2
    assert "is a file; give a folder" in capsys.readouterr().err


def test_train_refuses_a_run_dir_that_is_a_file(tmp_path, capsys):
    afile = tmp_path / "run"
    afile.write_text("x")
    assert main(["train", "tardis_run_v0", "--run-dir", str(afile), "--timesteps", "10"]) == 2
    assert "is a file; give a folder" in capsys.readouterr().err


def test_play_hides_the_first_seats_committed_choice_in_the_duel():
    out = run("play", "gallifrey_duel_v1", "--seat", "1", "--seed", "0", stdin="q\n")
    assert "first has chosen (hidden until both have)" in out.stdout
    assert "first plays:" not in out.stdout


def test_play_asks_again_on_an_empty_line():
    out = run("play", "gallifrey_duel_v1", "--seat", "0", "--seed", "0", stdin="\n\nq\n")
    assert out.stdout.count("  type the number on the left of an action (or its words)") == 2
    assert "unknown action" not in out.stdout and "Traceback" not in out.stderr


def test_play_reports_the_final_rewards():
    moves = "\n".join(["18"] * 400) + "\n"  # attack with dynamism, defend with stasis, fight to subdue, draw a card: always legal
    out = run("play", "gallifrey_duel_v1", "--seat", "1", "--seed", "0", "--opponent", "random", stdin=moves)
    assert "Final rewards: {" in out.stdout and "Final rewards: {}" not in out.stdout


def test_perft_refuses_a_depth_below_one_and_warns_about_huge_ones(capsys):
    assert main(["perft", "--depth", "-1"]) == 2
    assert "--depth must be at least 1, got -1" in capsys.readouterr().err
    assert main(["perft", "--fen", "position 4", "--depth", "1", "--seconds", "0.05", "--repeats", "1", "--no-library"]) == 0


def test_perft_says_when_the_chess_library_is_missing(monkeypatch, capsys):
    import builtins

    real_import = builtins.__import__

    def no_chess(name, *args, **kwargs):
        if name == "chess":
            raise ImportError("no chess")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_chess)
    assert main(["perft", "--fen", "position 4", "--depth", "1", "--seconds", "0.05", "--repeats", "1"]) == 0
    assert "the chess library is not installed" in capsys.readouterr().err


def test_train_refuses_a_non_positive_time_limit(tmp_path, capsys):
    assert main(["train", "tardis_run_v0", "--run-dir", str(tmp_path / "r"), "--minutes", "0"]) == 2
    assert "--minutes must be positive, got 0.0 (leave it out for no time limit)" in capsys.readouterr().err


def test_play_shows_the_human_its_own_roll():
    out = run("play", "tardis_run_v0", "--seat", "0", "--seed", "1", stdin="0\nq\n")
    assert "your roll: monsters (piece 1) ->" in out.stdout


def test_keys_board_has_a_legend():
    import tardis_envs

    env = tardis_envs.make("keys_to_the_tardis_v0", render_mode="ansi")
    env.reset(seed=0)
    assert "Legend: R/B/G/Y door colour" in env.render()


def test_help_is_plain_text_and_play_options_say_their_default(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    top = capsys.readouterr().out
    assert "``" not in top and ":class:" not in top and "The tardis-envs command line" in top
    from tardis_envs.cli import build_parser

    verbs = next(a for a in build_parser()._actions if a.dest == "verb").choices
    for verb in ("play", "list"):
        assert verbs[verb].description, verb
        for action in verbs[verb]._actions:
            if action.option_strings and action.dest != "help":
                assert action.help and "default" in action.help, (verb, action.dest)


def test_the_agent_options_name_every_kind_of_agent():
    from tardis_envs.cli import build_parser

    verbs = next(a for a in build_parser()._actions if a.dest == "verb").choices
    for verb, dest in (("eval", "agents"), ("play", "opponent")):
        text = next(a for a in verbs[verb]._actions if a.dest == dest).help
        for form in ("random", "heuristic", "ppo:baseline", "rllib:", "mcts:", "ismcts:", "az:<checkpoint.zip>", "az:baseline"):
            assert form in text, (verb, form)


def test_unknown_agent_lists_every_accepted_spec_form():
    import tardis_envs
    from agents import make_agent

    game = tardis_envs.make("tardis_run_v0").unwrapped.game
    with pytest.raises(ValueError) as err:
        make_agent("nonsense", game)
    text = str(err.value)
    for form in ("random", "heuristic", "heuristic:<preset>", "ppo:<checkpoint.zip>", "ppo:baseline", "rllib:<checkpoint folder>"):
        assert form in text
    assert "mcts:<simulations>[:c=" in text and "ismcts:<simulations>" in text and ":playout=random|heuristic" in text


def test_round_robin_pair_line_labels_wins_draws_and_losses():
    from agents.tournament import pair_line

    line = pair_line("heuristic", "random", {"wins": 1451, "draws": 0, "losses": 549, "games": 2000})
    assert line == "heuristic vs random: heuristic won 1451, drew 0, lost 549 (2000 games)"


def test_two_evaluations_started_in_the_same_second_keep_both_results(tmp_path, monkeypatch, capsys):
    """Each saves into a folder of its own: the default folder is claimed when the results are
    saved, and an --out that received other results meanwhile gets a numbered sibling."""
    import json

    import agents.evaluation

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(agents.evaluation.time, "strftime", lambda fmt: "20261207-120000")
    evaluate = agents.evaluation.evaluate
    second = ["eval", "tardis_run_v0", "--agents", "random,random", "--games", "2", "--seed", "2"]

    def the_second_meanwhile(*args, **kwargs):
        """The first evaluation's games; the second starts and ends while they are played (after
        the first checked its folder, before it saves)."""
        monkeypatch.setattr("agents.evaluation.evaluate", evaluate)
        assert main(second) == 0
        return evaluate(*args, **kwargs)

    monkeypatch.setattr("agents.evaluation.evaluate", the_second_meanwhile)
    assert main(["eval", "tardis_run_v0", "--agents", "random,random", "--games", "2", "--seed", "1"]) == 0
    folders = sorted((tmp_path / "runs" / "eval" / "tardis_run_v0").iterdir())
    assert [f.name for f in folders] == ["20261207-120000", "20261207-120000-1"]
    assert [json.loads((f / "results.json").read_text())["seed"] for f in folders] == [2, 1]

    # --out checked empty, then filled by another evaluation while this one played
    out = tmp_path / "mine"
    monkeypatch.setattr("agents.evaluation.evaluate", _evaluate_then_fill(evaluate, out))
    assert main(["eval", "tardis_run_v0", "--agents", "random,random", "--games", "2", "--out", str(out)]) == 0
    assert (out / "results.md").read_text() == "the other evaluation's\n"
    assert (tmp_path / "mine-1" / "results.json").is_file()
    assert "received another evaluation's results while this one played; saving to" in capsys.readouterr().err


def _evaluate_then_fill(evaluate, folder):
    def fill(*args, **kwargs):
        result = evaluate(*args, **kwargs)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "results.md").write_text("the other evaluation's\n")
        return result

    return fill
