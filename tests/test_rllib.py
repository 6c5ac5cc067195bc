"""The Ray RLlib backend's pieces: masking, legal play in every game, checkpoints that
``eval`` loads, Ctrl-C in a training run and its resume. Skipped where the ``distributed``
extra is not installed."""

import numpy as np
import pytest
import yaml

pytest.importorskip("ray.rllib")

import ray  # noqa: E402
import torch  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402

import tardis_envs  # noqa: E402
from agents import make_agent  # noqa: E402
from agents.checkpoint import CheckpointError  # noqa: E402
from agents.tournament import play_match  # noqa: E402
from agents.training.config import TrainConfig  # noqa: E402
from agents.training.rllib_backend import (  # noqa: E402
    MAIN,
    RANDOM,
    LeagueMapping,
    MaskedPPOModule,
    learner_steps,
    ppo_config,
    save_checkpoint,
    spaces,
    step_count,
)

from .helpers import ctrl_c_after_first_evaluation  # noqa: E402
from .helpers import tiny_train_flags as _tiny  # noqa: E402

# every game and player count the project ships
VARIANTS = [
    ("tardis_run_v0", {}),
    ("keys_to_the_tardis_v0", {"num_players": 2}),
    ("keys_to_the_tardis_v0", {"num_players": 3}),
    ("keys_to_the_tardis_v0", {"num_players": 4}),
    ("timelord_chess_v1", {}),
    ("timelord_chess_v1", {"doctor": False}),
    ("gallifrey_duel_v1", {}),
    ("time_of_the_daleks_v2", {"num_players": 1}),
    ("time_of_the_daleks_v2", {"num_players": 2}),
    ("time_of_the_daleks_v2", {"num_players": 3}),
    ("time_of_the_daleks_v2", {"num_players": 4}),
]


@pytest.fixture(scope="module")
def local_ray():
    """A Ray of our own (never an existing cluster), ended by ray.shutdown(), which stops
    exactly the processes this init started."""
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def _learner_against_random(env_id, options):
    """The learner in one seat per episode (drawn from the episode id), the random module in
    the others: both always play (a mapping on Python's salted hash left the learner out of
    some short samples)."""
    return LeagueMapping(spaces(env_id, options)[2], {"random": 1.0})


def test_masked_module_puts_no_probability_on_illegal_actions():
    observation_space, action_space, _ = spaces("keys_to_the_tardis_v0")
    module = MaskedPPOModule(observation_space=observation_space, action_space=action_space, model_config={"fcnet_hiddens": [16]})
    rng = np.random.default_rng(0)
    masks = (rng.random((32, action_space.n)) < 0.05).astype(np.int8)
    masks[:, 0] = 1
    obs = rng.random((32, *observation_space["observation"].shape)).astype(np.float32)
    batch = {Columns.OBS: {"observation": torch.from_numpy(obs), "action_mask": torch.from_numpy(masks)}}
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward(dict(batch))[Columns.ACTION_DIST_INPUTS]
        probs = torch.softmax(logits, dim=-1).detach().numpy()
        assert np.all(probs[masks == 0] == 0) and np.allclose(probs.sum(axis=1), 1)


@pytest.mark.parametrize("env_id,options", VARIANTS, ids=[f"{e}-{'-'.join(f'{k}{v}' for k, v in o.items())}" for e, o in VARIANTS])
def test_sampled_episodes_hold_no_illegal_action(local_ray, env_id, options):
    # the env raises on an illegal action (illegal_action="raise"), so sampling would fail
    algo = ppo_config(
        env_id, options, num_env_runners=0, hidden=(32,), policy_mapping_fn=_learner_against_random(env_id, options)
    ).build_algo()
    try:
        # whole games, at least two and 300 steps: every sample ends its games and starts new
        # ones (1,500 steps took 25 s in the duel, whose games last a few steps)
        episodes = []
        while len(episodes) < 2 or sum(len(e) for e in episodes) < 300:
            episodes += algo.env_runner.sample(num_episodes=2, random_actions=False)
        modules = {episode.module_for(agent) for episode in episodes for agent in episode.agent_ids}
        solo = len(spaces(env_id, options)[2]) == 1  # one Doctor alone: no seat for the random module
        assert all(e.is_done for e in episodes) and modules == ({MAIN} if solo else {MAIN, RANDOM})
    finally:
        algo.stop()


@pytest.mark.parametrize("env_id,options", [("tardis_run_v0", {}), ("keys_to_the_tardis_v0", {"num_players": 3})])
def test_tiny_run_writes_a_checkpoint_that_eval_plays(local_ray, tmp_path, monkeypatch, env_id, options):
    game = tardis_envs.env_module(env_id).Game(**options)
    config = TrainConfig(env_id=env_id, options=options)
    algo = ppo_config(
        env_id,
        options,
        num_env_runners=1,
        hidden=(32,),
        train_batch_size=400,
        minibatch_size=200,
        num_epochs=1,
        policy_mapping_fn=_learner_against_random(env_id, options),
    ).build_algo()
    try:
        result = algo.train()
        steps = learner_steps(result)
        assert steps > 0
        path = save_checkpoint(algo, tmp_path / "last", config, game, steps)
    finally:
        algo.stop()
    agent = make_agent(f"rllib:{path}", game, seed=0)
    assert agent.meta["num_timesteps"] == steps and agent.meta["backend"] == "rllib"
    monkeypatch.chdir(tmp_path)  # the README's relative rllib:runs/... form (pyarrow: "URI has empty scheme")
    assert make_agent("rllib:last", game, seed=0).meta["num_timesteps"] == steps
    names = ["rllib"] + ["random"] * (game.num_players - 1)
    match = play_match(env_id, [agent] + [make_agent("random", game, seed=1)] * (game.num_players - 1), names, 20, seed=3, options=options)
    assert match.record(0)["games"] == 20  # every game played to its end (the batched API raises on an illegal action)
    other = tardis_envs.env_module("gallifrey_duel_v1").Game()
    with pytest.raises(CheckpointError, match=f"was trained on '{env_id}', not 'gallifrey_duel_v1'"):
        make_agent(f"rllib:{path}", other)
    with pytest.raises(CheckpointError, match="has no tardis_meta.json"):
        make_agent(f"rllib:{tmp_path}", game)


def test_step_counts_of_an_iteration_that_sampled_nothing_are_none():
    assert step_count(7.0) == 7 and step_count(np.int64(3)) == 3
    assert step_count(float("nan")) is None and step_count(None) is None and step_count({}) is None
    assert learner_steps({"env_runners": {"num_module_steps_sampled_lifetime": {MAIN: float("nan")}}}) is None
    assert learner_steps({}) is None and learner_steps({"env_runners": {"num_module_steps_sampled_lifetime": {MAIN: 12}}}) == 12


# --- the train command ---------------------------------------------------------------
# The command is the same code in every game: TARDIS Run on the Grand Tour board (a config
# whose board file lies beside it) stands for all. A Keys run with three players took 106 s
# more on the 2-core machine; Keys' three players through RLlib are
# test_tiny_run_writes_a_checkpoint_that_eval_plays's.
def test_ctrl_c_saves_a_checkpoint_and_the_resumed_run_writes_the_run_folder(local_ray, tmp_path, monkeypatch, capsys):
    # one run serves both: Ctrl-C in a training process of its own (its own local Ray), then
    # `--resume` here (the module's Ray) continues it to the end; each RLlib start costs ~40 s
    from ray.rllib.algorithms.ppo import PPO

    from agents.checkpoint import read_meta
    from tardis_envs.cli import main

    env_id, config, eval_games = "tardis_run_v0", "configs/tardis_run/grand_tour.yaml", 20
    run = tmp_path / "run"
    base = ["train", env_id, "--backend", "rllib", "--run-dir", str(run), "--num-env-runners", "2", "--config", config]
    ctrl_c_after_first_evaluation(base + _tiny(10_000_000, eval_games), run, timeout=180)
    before = read_meta(run / "checkpoints" / "last")
    assert before["interrupted"] is True and before["num_timesteps"] > 0
    first = (run / "eval.csv").read_text().splitlines()
    # a resume with another network shape is refused by name (the module's Ray: no start), and
    # the run's record stays as it was
    record = (run / "config.yaml").read_text()
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump({**yaml.safe_load(record), "net_arch": [7]}))
    capsys.readouterr()
    assert main(["train", env_id, "--run-dir", str(run), "--config", str(other), "--resume", "--no-progress"]) == 2
    assert "'net_arch' was [" in capsys.readouterr().err and (run / "config.yaml").read_text() == record
    # the resumed run continues the same one: more steps, more evaluation rows, the league kept;
    # its first iteration returns no samples (as on a loaded machine: RLlib's counts are NaN)
    # and training goes on with the next
    real_train, calls = PPO.train, []

    def first_comes_back_empty(algo):
        calls.append(1)
        if len(calls) == 1:
            return {"env_runners": {"num_module_steps_sampled_lifetime": {MAIN: float("nan")}, "num_env_steps_sampled": float("nan")}}
        return real_train(algo)

    monkeypatch.setattr(PPO, "train", first_comes_back_empty)
    capsys.readouterr()
    assert main(base + _tiny(before["num_timesteps"] + 500, eval_games) + ["--resume"]) == 0
    assert "iteration returned no samples (1 in a row" in capsys.readouterr().out and len(calls) > 1
    for name in (
        "config.yaml",
        "eval.csv",
        "summary.md",
        "winrate.png",
        "stats.json",
        "checkpoints/best/tardis_meta.json",
        "checkpoints/last/tardis_meta.json",
    ):
        assert (run / name).exists(), name
    assert list((run / "tb" / "rllib").glob("events.*"))
    again = (run / "eval.csv").read_text().splitlines()
    assert len(again) > len(first) and again[: len(first)] == first
    after = read_meta(run / "checkpoints" / "last")
    assert after["interrupted"] is False and after["num_timesteps"] > before["num_timesteps"]
    assert after["snapshots"][: len(before["snapshots"])] == before["snapshots"]
    # the best checkpoint plays a match against the heuristic
    game = tardis_envs.make(env_id, config=config).unwrapped.game
    agent = make_agent(f"rllib:{run / 'checkpoints' / 'best'}", game)
    n = game.num_players
    match = play_match(
        env_id, [agent] + [make_agent("heuristic", game)] * (n - 1), ["rllib"] + ["heuristic"] * (n - 1), 2 * n, options=game.options
    )
    assert match.record(0)["games"] == 2 * n


def test_train_refuses_rllib_flags_without_the_backend_and_a_foreign_resume(tmp_path, capsys):
    from tardis_envs.cli import main

    assert main(["train", "tardis_run_v0", "--num-env-runners", "2", "--run-dir", str(tmp_path / "a")]) == 2
    assert "need --backend rllib" in capsys.readouterr().err
    az = ["train", "tardis_run_v0", "--algo", "az", "--run-dir", str(tmp_path / "az")]
    assert main(az + ["--num-env-runners", "2"]) == 2
    assert "give its --address" in capsys.readouterr().err
    assert main(az + ["--num-learners", "1"]) == 2
    assert "are for --backend rllib" in capsys.readouterr().err
    assert not (tmp_path / "a").exists() and not (tmp_path / "az").exists()
    (tmp_path / "b" / "checkpoints" / "last").mkdir(parents=True)
    assert main(["train", "tardis_run_v0", "--resume", "--run-dir", str(tmp_path / "b")]) == 2
    assert "was trained with --backend rllib" in capsys.readouterr().err


def test_rllib_batches_fit_the_sampling_games_and_the_run():
    """RLlib's env runners step one Python game each: an update waits for n_steps decisions of
    each sampling game (not the SB3 backend's num_envs batched games), and a short run's batch
    stays within its --timesteps (16,384 env steps of one game gave "No samples returned")."""
    from agents.training.rllib_train import MIN_UPDATE, batch_sizes

    config = TrainConfig(total_timesteps=3000)  # n_steps 64, num_envs 128, batch_size 1024
    assert batch_sizes(config, 2, 1) == {"train_batch_size": 2 * MIN_UPDATE, "minibatch_size": MIN_UPDATE // 2}
    assert batch_sizes(config, 2, 16) == {"train_batch_size": 2 * 1024, "minibatch_size": 512}
    assert batch_sizes(TrainConfig(total_timesteps=2_000_000), 3, 32) == {"train_batch_size": 3 * 64 * 32, "minibatch_size": 1024}
    assert batch_sizes(TrainConfig(total_timesteps=100), 2, 1) == {"train_batch_size": 100, "minibatch_size": 25}


def test_rllib_run_prints_progress_between_evaluations(tmp_path, capsys, monkeypatch):
    from agents.training import rllib_train

    trainer = rllib_train.RLlibTrainer(TrainConfig(total_timesteps=3000, eval_every=100_000), tmp_path)
    steps = iter(range(500, 10_000, 500))

    class Algo:
        def train(self):
            return {
                "env_runners": {
                    "num_module_steps_sampled_lifetime": {MAIN: next(steps)},
                    "num_module_steps_sampled": {MAIN: 500},
                    "num_env_steps_sampled": 1000,
                    "module_episode_returns_mean": {MAIN: 0.25},
                }
            }

    class Writer:
        def add_scalar(self, *args):
            pass

    trainer.algo, trainer.writer = Algo(), Writer()
    record = {"games": 2, "wins": 1, "draws": 0, "losses": 1, "win_rate": 0.5, "ci_low": 0.1, "ci_high": 0.9}
    monkeypatch.setattr(trainer, "evaluate", lambda: {"random": record})
    monkeypatch.setattr(rllib_train, "PROGRESS_SECONDS", 0.0)
    trainer._loop()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("  500 of 3,000 learner steps, ") and lines[0].endswith("/s, 1,000 env steps, episode return +0.25")
    assert len(lines) == 6 and lines[-1].startswith("  3,000 of 3,000 learner steps")


def test_ray_noise_is_filtered_from_stderr_and_the_rest_passes():
    """Lines Ray prints on every run (measured on a `train --backend rllib` run) are dropped,
    whether Python or Ray's C++ core in the process writes them; other lines pass unchanged."""
    import subprocess
    import sys

    noise = [
        "Token authentication is enabled for this Ray cluster. Set RAY_AUTH_MODE=disabled to opt out.",
        "2026-11-27 05:48:22,591\tWARNING algorithm_config.py:5160 -- You are running PPO on the new API stack! This is the new default",
        "[2026-11-27 05:48:35,593 E 19862 19862] core_worker.cc:2465: Actor with class name: 'MultiAgentEnvRunner' and ID: 'aa44' "
        "has constructor arguments in the object store and max_restarts > 0.",
        "DeprecationWarning: `RLModule(config=[RLModuleConfig object])` has been deprecated.",
        "Install gputil for GPU system monitoring.",
        "*** SIGTERM received at time=1764222515 on cpu 1 ***",
        "PC: @     0x7f2d4c8a1e2e  (unknown)  epoll_wait",
        "    @     0x7f2d4c7c6520  (unknown)  (unknown)",
        "[2026-11-27 05:48:35,593 E 19862 19862] logging.cc:474:     @     0x7f2d4c7c6520  (unknown)  (unknown)",
    ]
    kept = ["training tardis_run_v0 -> runs/x (600 learner steps)", "ValueError: a real problem stays visible"]
    code = (
        "import os, sys\n"
        "from agents.training.rllib_train import filtered_stderr\n"
        "with filtered_stderr():\n"
        "    for line in sys.argv[1:]:\n"
        "        os.write(2, (line + '\\n').encode())\n"
        "print('done', file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, *noise, *kept], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stderr.splitlines() == [*kept, "done"]
