"""A training run's folder: --overwrite deletes only what a run wrote, a resumed run ends with its
reports, --minutes is a budget, and bad flags leave no folder behind."""

import json
import time
import zipfile
from pathlib import Path

import pytest
import yaml

import tardis_envs
from agents.checkpoint import META_NAME, CheckpointError, read_meta
from agents.training import train as train_module
from agents.training.config import TrainConfig
from agents.training.train import Trainer, append_eval_rows, clear_run, is_run_folder, read_history, save_checkpoint
from tardis_envs.cli import main


def tiny(**changes) -> TrainConfig:
    settings = {
        "env_id": "tardis_run_v0",
        "options": {"max_turns": 300},
        "net_arch": [32, 32],
        "num_envs": 16,
        "n_steps": 32,
        "batch_size": 256,
        "n_epochs": 1,
        "eval_every": 1024,
        "eval_games": 12,
        "snapshot_every": 100_000,
        "opponents": {"random": 1.0},
        "total_timesteps": 1024,
    }
    return TrainConfig.from_dict({**settings, **changes})


def fake_run(folder: Path) -> None:
    """The files a finished sb3 run leaves, as written by Trainer (contents do not matter here)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.yaml").write_text(yaml.safe_dump(tiny().to_dict()))
    for name in ("eval.csv", "summary.md", "stats.json", "winrate.png"):
        (folder / name).write_text("x")
    for name in ("checkpoints/last.zip", "checkpoints/best.zip", "snapshots/snap_0000001024.zip", "tb/ppo_1/events.out.tfevents.1.host"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("x")


def test_overwrite_refuses_a_folder_that_is_not_a_run_and_deletes_nothing(tmp_path, capsys):
    mine = tmp_path / "project"
    mine.mkdir()
    (mine / "thesis.tex").write_text("years of work")
    for extra in (["--overwrite"], []):
        assert main(["train", "tardis_run_v0", "--run-dir", str(mine), "--timesteps", "10", *extra]) == 2
        err = capsys.readouterr().err
        assert "--run-dir" in err and "holds files but no training run" in err and err.count("\n") == 1
    assert [p.name for p in mine.iterdir()] == ["thesis.tex"] and (mine / "thesis.tex").read_text() == "years of work"


def test_python_callers_of_every_trainer_get_the_run_folder_rules(tmp_path):
    from agents.training.az_train import AZConfig, AZTrainer

    mine = tmp_path / "project"
    mine.mkdir()
    (mine / "thesis.tex").write_text("years of work")
    az = AZConfig.from_dict({"env_id": "tardis_run_v0", "total_timesteps": 10})
    for make in (lambda **kw: Trainer(tiny(), **kw), lambda **kw: AZTrainer(az, **kw)):
        with pytest.raises(ValueError, match="holds files but no training run"):
            make(run_dir=mine, overwrite=True)
        assert [p.name for p in mine.iterdir()] == ["thesis.tex"]
        run = tmp_path / "run"
        fake_run(run)
        (run / "notes.md").write_text("mine")
        with pytest.raises(ValueError, match="already holds a run; use --resume to continue it or --overwrite"):
            make(run_dir=run)
        with pytest.raises(ValueError, match="contradict"):
            make(run_dir=run, resume=True, overwrite=True)
        trainer = make(run_dir=run, overwrite=True)
        assert [p.name for p in trainer.kept] == ["notes.md"] and sorted(p.name for p in run.iterdir()) == ["notes.md"]
    # a resumed run keeps the algo that wrote it
    fake_run(run)
    with zipfile.ZipFile(run / "checkpoints" / "last.zip", "w") as archive:
        meta = {"env_id": "tardis_run_v0", "env_version": 0, "observation_shape": [1], "num_actions": 1, "options": {}, "num_timesteps": 0}
        archive.writestr(META_NAME, json.dumps(meta))  # no "algo": a PPO run
    with pytest.raises(ValueError, match="was trained with --algo ppo; resume it with that algo"):
        AZTrainer(az, run, resume=True)


def test_clear_run_deletes_only_what_the_run_wrote(tmp_path):
    run = tmp_path / "run"
    fake_run(run)
    (run / "notes.txt").write_text("the user's")
    (run / "checkpoints" / "keep-me.zip").write_text("the user's")
    assert is_run_folder(run) and not is_run_folder(tmp_path)
    kept = clear_run(run)
    assert kept == [run / "checkpoints", run / "notes.txt"]
    assert [p.name for p in (run / "checkpoints").iterdir()] == ["keep-me.zip"]
    with pytest.raises(ValueError, match="holds no training run"):
        clear_run(tmp_path)


def test_a_negative_seed_is_refused_and_leaves_no_folder(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["train", "tardis_run_v0", "--run-dir", str(run), "--seed", "-1", "--timesteps", "10"]) == 2
    assert "--seed must be an integer >= 0, got -1" in capsys.readouterr().err
    assert not run.exists()


def test_a_negative_seed_in_a_train_config_is_refused_by_name():
    with pytest.raises(ValueError, match="^train config: 'seed' must be an integer >= 0, got -1$"):
        tiny(seed=-1)


def test_resume_of_a_missing_run_leaves_no_folder(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["train", "tardis_run_v0", "--run-dir", str(run), "--resume", "--timesteps", "10"]) == 2
    assert "--resume: no checkpoint at" in capsys.readouterr().err
    assert not run.exists()


def test_eval_games_that_seats_cannot_split_evenly_are_refused(tmp_path, capsys):
    assert main(["train", "tardis_run_v0", "--run-dir", str(tmp_path / "r"), "--eval-games", "3", "--timesteps", "10"]) == 2
    assert "--eval-games 3 is not a multiple of the 2 players (seats are rotated evenly); use 2 or 4" in capsys.readouterr().err


@pytest.mark.slow
def test_resume_after_an_interrupt_before_the_first_evaluation(tmp_path):
    """The interrupted run saved best_score null; the resumed run trains, evaluates and reports."""
    run = tmp_path / "run"
    first = Trainer(tiny(eval_every=100_000), run, progress=False)
    run.mkdir()
    first._build()
    first.interrupted = True
    save_checkpoint(first.model, run / "checkpoints" / "last.zip", first.config, first.game, first._extra())
    assert read_meta(run / "checkpoints" / "last.zip")["best_score"] is None
    stats = Trainer(tiny(total_timesteps=1024), run, resume=True, progress=False).run()
    assert stats["num_timesteps"] >= 1024 and read_meta(run / "checkpoints" / "last.zip")["num_timesteps"] >= 1024
    for name in ("checkpoints/best.zip", "stats.json", "summary.md", "winrate.png"):
        assert (run / name).exists(), name


@pytest.mark.slow
def test_minutes_is_a_budget(tmp_path, monkeypatch):
    """The budget counts from the Trainer's creation (imports and kernel compilation, warmed
    here by a first short run, come before it) and holds the final evaluation and the report.
    Each evaluation takes a fixed 6 s here (a sleep: the machine's load does not change it),
    so a run that did not keep the final one's time free ends ~6 s late. Allowed: 1.1 x the
    budget plus 2 s for the granularity of the checks (one batched step, the report)."""
    Trainer(tiny(total_timesteps=512), tmp_path / "warm", progress=False).run()
    record = {"games": 12, "wins": 6, "draws": 0, "losses": 6, "win_rate": 0.5, "ci_low": 0.25, "ci_high": 0.75}

    def six_second_evaluation(config, game, learner):
        time.sleep(6.0)
        return {"random": dict(record), "heuristic": dict(record)}

    monkeypatch.setattr(train_module, "evaluate_learner", six_second_evaluation)
    budget = 0.3  # minutes
    started = time.perf_counter()
    config = tiny(total_timesteps=10_000_000, max_minutes=budget, eval_every=10_000_000)
    trainer = Trainer(config, tmp_path / "run", progress=False)
    stats = trainer.run()
    elapsed = time.perf_counter() - started
    assert elapsed <= 1.1 * 60 * budget + 2.0, elapsed
    assert elapsed >= 0.5 * 60 * budget, elapsed  # and it used its budget
    assert stats["num_timesteps"] > 0 and (tmp_path / "run" / "summary.md").exists()


def test_minutes_is_a_budget_for_the_rllib_backend_too(tmp_path):
    """The RLlib loop keeps the final evaluation, one more iteration and the report free from
    the start (an evaluation is timed before training). Here an iteration takes 0.3 s and an
    evaluation 3 s (sleeps, so the machine's load does not change them) and no periodic
    evaluation falls due: a loop that kept nothing free trained to the deadline and then
    evaluated, 3 s late."""
    pytest.importorskip("ray.rllib")
    from agents.training.rllib_backend import MAIN
    from agents.training.rllib_train import RLlibTrainer

    class Algo:
        steps = 0

        def train(self):
            time.sleep(0.3)
            self.steps += 100
            runners = {"num_module_steps_sampled_lifetime": {MAIN: self.steps}, "num_module_steps_sampled": {MAIN: 100}}
            return {"env_runners": {**runners, "num_env_steps_sampled": 100}}

    class Writer:
        def add_scalar(self, *args):
            pass

    record = {"games": 12, "wins": 6, "draws": 0, "losses": 6, "win_rate": 0.5, "ci_low": 0.25, "ci_high": 0.75}
    budget = 0.2  # minutes
    trainer = RLlibTrainer(tiny(total_timesteps=10_000_000, max_minutes=budget, eval_every=10_000_000), tmp_path / "run", progress=False)

    def three_second_evaluation():
        time.sleep(3.0)
        trainer.history.append({"timesteps": trainer.num_timesteps, "opponent": "random", **record})
        return {"random": dict(record)}

    trainer.algo, trainer.writer, trainer.evaluate = Algo(), Writer(), three_second_evaluation
    trainer.started = time.perf_counter()
    stats = trainer._loop()
    elapsed = time.perf_counter() - trainer.started
    assert elapsed <= 1.1 * 60 * budget, elapsed
    assert elapsed >= 0.5 * 60 * budget, elapsed  # and it used its budget
    assert stats["num_timesteps"] > 0


def test_a_cooperative_runs_eval_csv_names_the_team_mates_partner(tmp_path):
    record = {"games": 4, "wins": 0, "draws": 0, "losses": 4, "win_rate": 0.0, "ci_low": 0.0, "ci_high": 0.49}
    append_eval_rows(tmp_path, 10, 1.0, {"heuristic": record}, cooperative=True)
    header, row = (tmp_path / "eval.csv").read_text().splitlines()
    assert header.split(",")[2] == "partner" and row.split(",")[2] == "heuristic"
    assert read_history(tmp_path)[0]["opponent"] == "heuristic"  # read back under one name


def test_rllib_checkpoint_saves_never_delete_a_folder_they_did_not_write(tmp_path):
    pytest.importorskip("ray.rllib")
    from agents.training.rllib_backend import save_checkpoint as save_rllib_checkpoint

    class Algo:
        def save_to_path(self, where):
            Path(where, "module.pt").write_text("weights")

    game = tardis_envs.env_module("tardis_run_v0").Game(max_turns=300)
    mine = tmp_path / "checkpoints" / "last"
    mine.mkdir(parents=True)
    (mine / "thesis.tex").write_text("mine")
    stale = tmp_path / "checkpoints" / "best.tmp"
    stale.mkdir()
    (stale / "notes.txt").write_text("mine")
    for path in (mine, tmp_path / "checkpoints" / "best"):
        with pytest.raises(CheckpointError, match="not a checkpoint folder written by tardis-envs train"):
            save_rllib_checkpoint(Algo(), path, tiny(), game, 0)
    assert (mine / "thesis.tex").read_text() == "mine" and (stale / "notes.txt").read_text() == "mine"
    save_rllib_checkpoint(Algo(), tmp_path / "run" / "last", tiny(), game, 5)
    again = save_rllib_checkpoint(Algo(), tmp_path / "run" / "last", tiny(), game, 6)  # replaces its own checkpoint
    assert read_meta(again)["num_timesteps"] == 6 and sorted(p.name for p in (tmp_path / "run").iterdir()) == ["last"]


def test_a_checkpoint_or_report_the_run_folder_refuses_goes_to_the_working_directory(tmp_path, monkeypatch, capsys):
    import zipfile

    class Model:
        num_timesteps = 7

        def save(self, where):
            with zipfile.ZipFile(where, "w") as archive:
                archive.writestr("policy.pth", "weights")

    monkeypatch.chdir(tmp_path)
    run = tmp_path / "run"
    run.mkdir()
    (run / "checkpoints").write_text("a file where the checkpoints folder goes")  # the write fails after the work
    game = tardis_envs.env_module("tardis_run_v0").Game(max_turns=300)
    where = save_checkpoint(Model(), run / "checkpoints" / "last.zip", tiny(), game)
    assert where == tmp_path / "run-last.zip" and read_meta(where)["num_timesteps"] == 7
    assert "saved to" in capsys.readouterr().err


def test_the_progress_bar_of_a_timed_run_says_its_limit_and_gives_no_eta_from_the_step_total():
    import io
    import math

    from tqdm import tqdm

    from agents.training.train import progress_format

    assert progress_format(math.inf) is None  # no time limit: tqdm's own bar, with its ETA
    out = io.StringIO()
    bar = tqdm(total=100_000_000, initial=65_663, unit="decision", file=out, bar_format=progress_format(299.6))
    bar.close()
    line = out.getvalue().strip().splitlines()[-1]
    assert "65663/100000000 [00:00 of at most 5:00]" in line and "<" not in line, line
    assert "of at most 0:00" in progress_format(-3.0)
