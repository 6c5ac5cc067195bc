"""Training: the self-play VecEnv, checkpoints, resume, refusal of wrong checkpoints, ratings."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

pytest.importorskip("sb3_contrib")

import tardis_envs
from agents import HeuristicAgent, make_agent
from agents.checkpoint import CheckpointError, read_meta
from agents.ratings import bradley_terry, elo
from agents.training.aec_gym import AECSingleAgentEnv
from agents.training.config import TrainConfig
from agents.training.selfplay import OpponentPool, SelfPlayVecEnv

from .helpers import ROOT, ctrl_c_after_first_evaluation


def tiny_config(env_id, folder):
    """A small network and short games keep the subprocess runs to seconds."""
    path = Path(folder) / f"{env_id}.yaml"
    options = {
        "tardis_run_v0": "{max_turns: 300}",
        "keys_to_the_tardis_v0": "{max_turns: 60}",
        "timelord_chess_v1": "{max_plies: 40}",
        "gallifrey_duel_v1": "{max_exchanges: 20}",
        "time_of_the_daleks_v2": "{max_rounds: 4}",
    }[env_id]
    # the chess heuristic searches tens of ms a move: a small share of its games
    opponents = ", opponents: {random: 0.8, heuristic: 0.1, snapshot: 0.1}" if env_id == "timelord_chess_v1" else ""
    path.write_text(
        f"env_id: {env_id}\noptions: {options}\ntrain: {{net_arch: [64, 64], n_steps: 32, batch_size: 256, n_epochs: 2{opponents}}}\n"
    )
    return path


def train_args(env_id, run_dir, *extra, timesteps=3000):
    """The arguments of a short ``tardis-envs train`` run on the tiny config."""
    config = tiny_config(env_id, Path(run_dir).parent)
    return [
        "train",
        env_id,
        "--config",
        str(config),
        "--run-dir",
        str(run_dir),
        "--timesteps",
        str(timesteps),
        "--num-envs",
        "16",
        "--eval-every",
        "1024",
        "--eval-games",
        "12",
        "--snapshot-every",
        "1024",
        "--no-progress",
        *extra,
    ]


def train_cli(env_id, run_dir, *extra, timesteps=3000):
    """That run in a process of its own, as a user starts it."""
    return subprocess.run(
        [sys.executable, "-m", "tardis_envs.cli", *train_args(env_id, run_dir, *extra, timesteps=timesteps)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
@pytest.mark.parametrize("env_id", tardis_envs.ENV_IDS)
def test_tiny_training_run_writes_a_checkpoint_that_plays_legally(env_id, tmp_path):
    run = tmp_path / "run"
    out = train_cli(env_id, run)
    assert out.returncode == 0, out.stderr[-3000:]
    for name in ("checkpoints/best.zip", "checkpoints/last.zip", "eval.csv", "winrate.png", "summary.md", "config.yaml"):
        assert (run / name).exists(), name
    meta = read_meta(run / "checkpoints" / "last.zip")
    assert meta["env_id"] == env_id and meta["num_timesteps"] >= 3000 and meta["package_version"] == tardis_envs.__version__
    # the learned policy loads from its checkpoint alone and plays legal moves only
    env = tardis_envs.make(env_id, illegal_action="raise", **meta["options"])
    agent = make_agent(f"ppo:{run / 'checkpoints' / 'best.zip'}", env.unwrapped.game)
    env.reset(seed=3)
    for _ in env.agent_iter(max_iter=600):
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else agent.act(env))
    if env_id != "tardis_run_v0":
        return  # resuming is the same code in every game: one game resumes (a minute saved)
    # resume continues the step count
    out = train_cli(env_id, run, "--resume", "--num-envs", "8", timesteps=5000)  # fewer games: the rollout follows
    assert out.returncode == 0, out.stderr[-3000:]
    assert "num_envs 16 -> 8" in out.stdout
    assert read_meta(run / "checkpoints" / "last.zip")["num_timesteps"] >= 5000
    rows = (run / "eval.csv").read_text().splitlines()
    steps = [int(float(r.split(",")[0])) for r in rows[1:]]
    assert steps == sorted(steps) and steps[-1] >= 5000


@pytest.mark.slow
def test_ctrl_c_saves_a_resumable_checkpoint(tmp_path):
    run = tmp_path / "run"
    ctrl_c_after_first_evaluation(train_args("tardis_run_v0", run, timesteps=10_000_000), run, timeout=120)
    meta = read_meta(run / "checkpoints" / "last.zip")
    assert meta["interrupted"] is True and meta["num_timesteps"] > 0
    out = train_cli("tardis_run_v0", run, "--resume", timesteps=meta["num_timesteps"] + 1024)
    assert out.returncode == 0, out.stderr[-2000:]
    assert read_meta(run / "checkpoints" / "last.zip")["num_timesteps"] > meta["num_timesteps"]


@pytest.mark.slow
def test_round_robin_of_three_agents_with_a_checkpoint(tmp_path):
    run = tmp_path / "run"
    assert train_cli("keys_to_the_tardis_v0", run, timesteps=1024).returncode == 0
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tardis_envs.cli",
            "eval",
            "keys_to_the_tardis_v0",
            "--config",
            str(tmp_path / "keys_to_the_tardis_v0.yaml"),
            "--agents",
            f"ppo:{run / 'checkpoints' / 'best.zip'},heuristic,random",
            "--games",
            "24",
            "--num-players",
            "3",
            "--out",
            str(tmp_path / "rr"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "Bradley-Terry ratings" in out.stdout and "by seat" in out.stdout
    for name in ("matrix.csv", "ratings.csv", "results.md", "heatmap.png"):
        assert (tmp_path / "rr" / name).exists()
    lines = (tmp_path / "rr" / "matrix.csv").read_text().splitlines()
    assert len(lines) == 1 + 6  # every ordered pair


def _refused(capsys, argv) -> str:
    """``tardis-envs <argv>`` run in this process (a refusal needs no process of its own: each
    start loads torch and the kernels, ~5 s); asserts it exits with 2; returns what it printed
    on stderr."""
    from tardis_envs.cli import main

    capsys.readouterr()
    assert main(argv) == 2
    return capsys.readouterr().err


@pytest.mark.slow
def test_wrong_corrupt_and_mismatched_checkpoints_are_refused(tmp_path, capsys):
    run = tmp_path / "run"
    assert train_cli("tardis_run_v0", run, timesteps=1024).returncode == 0
    checkpoint = run / "checkpoints" / "last.zip"
    keys = tardis_envs.env_module("keys_to_the_tardis_v0").Game()
    assert read_meta(checkpoint)["options"]["max_turns"] == 300
    with pytest.raises(CheckpointError, match="trained on 'tardis_run_v0', not 'keys_to_the_tardis_v0'"):
        make_agent(f"ppo:{checkpoint}", keys)
    grand = tardis_envs.env_module("tardis_run_v0").Game(board=str(ROOT / "configs/tardis_run/boards/grand_tour.yaml"))
    with pytest.raises(CheckpointError, match="observations of shape"):
        make_agent(f"ppo:{checkpoint}", grand)
    broken = tmp_path / "broken.zip"
    broken.write_bytes(checkpoint.read_bytes()[:5000])
    with pytest.raises(CheckpointError, match="corrupt"):
        make_agent(f"ppo:{broken}", tardis_envs.env_module("tardis_run_v0").Game())
    with pytest.raises(CheckpointError, match="does not exist"):
        make_agent(f"ppo:{tmp_path / 'missing.zip'}", keys)
    # the CLI refuses to resume a run of another game, and to overwrite a run by accident
    assert "trained on 'tardis_run_v0'" in _refused(capsys, train_args("keys_to_the_tardis_v0", run, "--resume"))
    assert "already holds a run" in _refused(capsys, train_args("tardis_run_v0", run))
    err = _refused(capsys, train_args("tardis_run_v0", run, "--resume", "--overwrite"))
    assert "--resume and --overwrite contradict each other" in err
    # resuming under another variant of the same game is refused, naming the differing options
    other = tmp_path / "other.yaml"
    other.write_text("env_id: tardis_run_v0\noptions: {max_turns: 200}\ntrain: {net_arch: [64, 64], n_steps: 32, batch_size: 256}\n")
    err = _refused(capsys, ["train", "tardis_run_v0", "--config", str(other), "--run-dir", str(run), "--resume", "--no-progress"])
    assert "max_turns: trained 300, now 200" in err
    # so is a change to what its model keeps, by name, and the run's record stays as it was
    record = (run / "config.yaml").read_text()
    other.write_text("env_id: tardis_run_v0\noptions: {max_turns: 300}\ntrain: {net_arch: [32, 32], n_steps: 32, batch_size: 256}\n")
    err = _refused(capsys, ["train", "tardis_run_v0", "--config", str(other), "--run-dir", str(run), "--resume", "--no-progress"])
    assert "'net_arch' was [64, 64] in the run in" in err and "now [32, 32]: its model keeps its own" in err
    assert (run / "config.yaml").read_text() == record
    # nor a warm start's settings, which act at a run's start, nor another algo's run record as its config
    other.write_text(
        "env_id: tardis_run_v0\noptions: {max_turns: 300}\ntrain: {net_arch: [64, 64], n_steps: 32, batch_size: 256, bc_decisions: 100}\n"
    )
    err = _refused(capsys, ["train", "tardis_run_v0", "--config", str(other), "--run-dir", str(run), "--resume", "--no-progress"])
    assert "'bc_decisions' was 0 in the run in" in err and "a warm start acts at a run's start, not at its resume" in err
    az_record = ROOT / "docs/results/az/tardis_run_v0/training/config.yaml"
    err = _refused(capsys, ["train", "tardis_run_v0", "--config", str(az_record), "--run-dir", str(run), "--resume", "--no-progress"])
    assert "records a run of --algo az, the run in" in err and "is of --algo ppo" in err
    assert (run / "config.yaml").read_text() == record
    # a run folder's config.yaml that is not a run's record is not taken for one
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "config.yaml").write_text("env_id: tardis_run_v0\ntrain: {n_steps: 32}\n")
    err = _refused(capsys, ["train", "tardis_run_v0", "--run-dir", str(fake), "--resume"])
    assert "config.yaml' is not the record a run writes" in err and "give the run's settings with --config" in err
    assert "--resume: no checkpoint at" in _refused(capsys, train_args("tardis_run_v0", fake, "--resume"))  # --config: passed over
    with pytest.warns(UserWarning, match="max_turns: trained 300, now 1000"):
        make_agent(f"ppo:{checkpoint}", tardis_envs.env_module("tardis_run_v0").Game())
    # eval refuses it too, naming the file
    err = _refused(capsys, ["eval", "keys_to_the_tardis_v0", "--agents", f"ppo:{checkpoint},random,heuristic", "--games", "10"])
    assert "trained on 'tardis_run_v0'" in err


def test_train_config_validation():
    with pytest.raises(ValueError, match="unknown key 'learning_rat'"):
        TrainConfig.from_dict({"learning_rat": 0.1})
    with pytest.raises(ValueError, match="'num_envs' must be a positive integer"):
        TrainConfig.from_dict({"num_envs": 0})
    with pytest.raises(ValueError, match="unknown kind 'alphazero'"):
        TrainConfig.from_dict({"opponents": {"alphazero": 1.0}})
    with pytest.raises(ValueError, match="needs a number of simulations"):
        TrainConfig.from_dict({"opponents": {"mcts": 1.0}})
    assert TrainConfig.from_dict({"opponents": {"random": 0.5, "ismcts:20": 0.5}}).opponents["ismcts:20"] == 0.5
    with pytest.raises(ValueError, match="'bc_dagger_rounds' must be an integer >= 0"):
        TrainConfig.from_dict({"bc_decisions": 10, "bc_dagger_rounds": -1})
    with pytest.raises(ValueError, match="'bc_dagger_rounds' needs a warm start"):
        TrainConfig.from_dict({"bc_dagger_rounds": 2})
    with pytest.raises(ValueError, match="'policy' must be one of mlp, move_squares, got 'cnn'"):
        TrainConfig.from_dict({"policy": "cnn"})
    with pytest.raises(ValueError, match="'net_arch' must be a list of positive layer sizes"):
        TrainConfig.from_dict({"net_arch": {"pi": [64], "value": [64]}})
    with pytest.raises(ValueError, match="'net_arch' must be a list of positive layer sizes"):
        TrainConfig.from_dict({"net_arch": [64, 0]})
    assert TrainConfig.from_dict({"net_arch": {"pi": [64, 64], "vf": [32]}}).net_arch["vf"] == [32]
    assert TrainConfig.from_dict({}).env_id == "tardis_run_v0"


@pytest.mark.parametrize("env_id", tardis_envs.ENV_IDS)
def test_selfplay_vecenv_matches_the_aec_env(env_id):
    """Same seeds, same learner actions, same (deterministic) opponent: same trajectories."""
    n, seed = 4, 60
    game = tardis_envs.env_module(env_id).Game()
    pool = OpponentPool(game, {"heuristic": 1.0}, seed=0)
    vec = SelfPlayVecEnv(env_id, n, pool, seed=seed, learner_seat=1)
    obs = vec.reset()
    singles = [AECSingleAgentEnv(env_id, lambda g: HeuristicAgent(g), learner_seat=1) for _ in range(n)]
    single_obs = [env.reset(seed=seed + i)[0] for i, env in enumerate(singles)]
    finished = np.zeros(n, dtype=bool)
    for _ in range(150):
        masks = vec.action_masks()
        for i in range(n):
            if not finished[i]:
                assert np.array_equal(obs[i], single_obs[i])
                assert np.array_equal(masks[i], singles[i].action_masks())
        actions = masks.argmax(axis=1)
        obs, rewards, dones, infos = vec.step(actions)
        for i, env in enumerate(singles):
            if finished[i]:
                continue
            single_obs[i], reward, terminated, truncated, _ = env.step(int(actions[i]))
            assert rewards[i] == reward
            assert dones[i] == (terminated or truncated)
            if dones[i]:
                assert np.array_equal(infos[i]["terminal_observation"], single_obs[i])
                finished[i] = True
    assert finished.any()


@pytest.mark.parametrize(
    "env_id, options",
    [
        ("tardis_run_v0", {"max_turns": 20}),
        ("keys_to_the_tardis_v0", {"num_players": 3, "max_turns": 20}),
        ("gallifrey_duel_v1", {}),
        ("time_of_the_daleks_v2", {"num_players": 2, "max_rounds": 3}),
        ("timelord_chess_v1", {"max_plies": 12}),
    ],
)
def test_selfplay_observations_are_the_learners_own_after_every_restart(env_id, options):
    """Every observation the learner receives is its own view of its game, the first one of
    a restarted game too: the batch writes that one under the finished game's seats (random
    and heuristic opponents read no observation), before the new game's seats are drawn."""
    game = tardis_envs.env_module(env_id).Game(**options)
    # chess's 12 plies make its compact dtype int8; int16 (its default's) carries the same
    # values and runs the kernels the other self-play tests compile (int8's took 34 s)
    obs_dtype = "int16" if env_id == "timelord_chess_v1" else "compact"
    pool = OpponentPool(game, {"random": 0.5, "heuristic": 0.5}, seed=1)
    vec = SelfPlayVecEnv(env_id, 16, pool, seed=4, options=options, obs_dtype=obs_dtype)
    obs = vec.reset()
    rng = np.random.default_rng(0)
    restarts = 0
    for _ in range(60):
        assert (vec.vec.current_player == vec.learner_seat).all()
        for i in range(16):
            assert np.array_equal(obs[i], game.observation(vec.vec.states[i], int(vec.learner_seat[i])))
        masks = vec.action_masks()
        obs, _, dones, infos = vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        restarts += int(dones.sum())
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == game.observation_shape
    assert restarts >= 8


def test_selfplay_vecenv_api_and_masks():
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecCheckNan, VecMonitor

    game = tardis_envs.env_module("tardis_run_v0").Game()
    vec = VecCheckNan(VecMonitor(SelfPlayVecEnv("tardis_run_v0", 8, OpponentPool(game, {"random": 1.0}), seed=1)), raise_exception=True)
    obs = vec.reset()
    assert obs.shape == (8, *game.observation_shape) and obs.dtype == np.float32
    assert is_masking_supported(vec)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(400):
        masks = get_action_masks(vec)
        assert masks.shape == (8, game.num_actions) and masks.any(axis=1).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = vec.step(actions)
        assert set(np.unique(rewards)) <= {-1.0, 0.0, 1.0}
        assert (rewards[~dones] == 0).all()
        episodes += sum("episode" in info for info in infos)
    assert episodes > 0
    assert vec.get_attr("render_mode") == [None] * 8


def test_search_agents_are_training_opponents():
    game = tardis_envs.env_module("gallifrey_duel_v1").Game()
    pool = OpponentPool(game, {"random": 0.5, "ismcts:5": 0.5})
    assert pool.names == ["random", "ismcts:5"]
    vec = SelfPlayVecEnv("gallifrey_duel_v1", 8, pool, seed=1)
    vec.reset()
    rng = np.random.default_rng(0)
    met = set()
    for _ in range(60):
        masks = vec.action_masks()
        _, _, _, infos = vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        met |= {info["opponent"] for info in infos if "opponent" in info}
    assert met == {"random", "ismcts:5"}


def test_learner_seats_are_drawn_per_game():
    game = tardis_envs.env_module("tardis_run_v0").Game()
    vec = SelfPlayVecEnv("tardis_run_v0", 64, OpponentPool(game, {"random": 1.0}), seed=2)
    vec.reset()
    assert set(vec.learner_seat.tolist()) == {0, 1}
    assert (vec.vec.current_player == vec.learner_seat).all()


def test_bradley_terry_recovers_known_strengths():
    rng = np.random.default_rng(0)
    true = np.array([4.0, 2.0, 1.0, 0.5])
    k = len(true)
    wins = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            n = 4000
            w = rng.binomial(n, true[i] / (true[i] + true[j]))
            wins[i, j], wins[j, i] = w, n - w
    fitted = bradley_terry(wins)
    ratios = fitted / fitted[-1]
    assert np.allclose(ratios, true / true[-1], rtol=0.08)
    ratings = elo(fitted)
    assert np.isclose(ratings.mean(), 1500) and (np.diff(ratings) < 0).all()
    assert ratings[0] - ratings[1] == pytest.approx(400 * np.log10(2), abs=20)


def test_bradley_terry_handles_unbeaten_agents():
    wins = np.array([[0, 10], [0, 0]], dtype=float)
    ratings = elo(bradley_terry(wins))
    assert np.isfinite(ratings).all() and ratings[0] > ratings[1]


@pytest.mark.parametrize("num_players", [1, 2, 3, 4])
def test_cooperative_selfplay_for_every_team_size(num_players):
    """Time of the Daleks: the learner holds one seat, team-mates from the pool hold the others;
    its rewards are the game's (-1 when the Daleks win)."""
    env_id = "time_of_the_daleks_v2"
    options = {"num_players": num_players, "max_rounds": 6}
    game = tardis_envs.env_module(env_id).Game(**options)
    vec = SelfPlayVecEnv(env_id, 8, OpponentPool(game, {"heuristic": 0.5, "random": 0.5}, seed=3), seed=5, options=options)
    obs = vec.reset()
    assert obs.shape == (8, *game.observation_shape)
    assert (vec.vec.current_player == vec.learner_seat).all()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(300):
        masks = vec.action_masks()
        obs, rewards, dones, infos = vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        assert set(np.unique(rewards)) <= {-1.0, 0.0, 1.0}
        ended += int(dones.sum())
        assert (vec.vec.current_player == vec.learner_seat).all()
    assert ended > 0


def test_team_evaluation_counts_the_teams_wins():
    from agents.tournament import team_match

    game = tardis_envs.env_module("time_of_the_daleks_v2").Game()
    heuristic, rand = make_agent("heuristic", game), make_agent("random", game, seed=1)
    result = team_match("time_of_the_daleks_v2", rand, heuristic, ("random", "heuristic"), 40, seed=0)
    rec = result.team_record(0)
    assert rec["games"] == 40 and rec["wins"] + rec["draws"] + rec["losses"] == 40
    assert (result.seats == 0).sum() == 40, "the agent sits in exactly one seat of every game"
    assert [result.team_record(0, s)["games"] for s in range(2)] == [20, 20], "seats rotated evenly"
    wins = int((result.rewards.max(axis=1) > 0).sum())
    assert rec["wins"] == wins


CONFIG_FILES = sorted(p for p in (ROOT / "configs").glob("*/*.yaml"))


RUN_RECORDS = sorted((ROOT / "docs" / "results").rglob("config.yaml"))


@pytest.mark.parametrize("path", RUN_RECORDS, ids=lambda p: str(p.parent.relative_to(ROOT / "docs" / "results")))
def test_every_run_recorded_in_the_results_reads_as_the_config_that_runs_it_again(path):
    """A run's own config.yaml is a config file (``--config`` runs it again, ``--resume`` reads
    it): its settings land in its trainer's section and build the very settings it records."""
    from agents.training.az_train import az_config
    from tardis_envs.core.options import load_config

    recorded = yaml.safe_load(path.read_text())
    data = load_config(path)
    algo = data["run"]["algo"]
    section = "az" if algo == "az" else "train"
    assert data["env_id"] == recorded["env_id"] and set(data) == {"env_id", "options", section, "run"}
    read = az_config if algo == "az" else TrainConfig.from_dict
    settings = read({"env_id": data["env_id"], "options": data["options"], **data[section]}, where=str(path)).to_dict()
    assert {
        key: settings[key] for key in recorded if key not in ("backend", "num_env_runners", "num_envs_per_env_runner", "num_learners")
    } == {
        key: value
        for key, value in recorded.items()
        if key not in ("backend", "num_env_runners", "num_envs_per_env_runner", "num_learners")
    }


def test_a_run_record_of_another_algo_or_of_no_trainer_is_refused(tmp_path, capsys):
    from tardis_envs.cli import main
    from tardis_envs.core.options import load_config

    az_record = ROOT / "docs/results/az/tardis_run_v0/training/config.yaml"
    assert main(["train", "tardis_run_v0", "--config", str(az_record), "--algo", "ppo", "--run-dir", str(tmp_path / "run")]) == 2
    assert "records a run of --algo az: give --algo az or leave it out" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
    assert main(["train", "keys_to_the_tardis_v0", "--config", str(az_record), "--run-dir", str(tmp_path / "run")]) == 2
    assert "is for 'tardis_run_v0', not 'keys_to_the_tardis_v0'" in capsys.readouterr().err
    strange = tmp_path / "config.yaml"
    for record, message in (
        ("algo: dqn", "a run's record of algo 'dqn' and backend 'sb3', which no trainer writes"),
        ("backend: rllib\nnum_env_runners: two", "'num_env_runners' must be an integer >= 0, got 'two'"),
        ("backend: rllib\nnum_envs_per_env_runner: 0", "'num_envs_per_env_runner' must be an integer >= 1, got 0"),
        ("algo: az\nbackend: rllib", "a run's record of algo 'az' and backend 'rllib', which no trainer writes"),
    ):
        strange.write_text(f"env_id: tardis_run_v0\ntotal_timesteps: 10\n{record}\n")
        with pytest.raises(ValueError, match=message):
            load_config(strange)


def test_an_rllib_runs_record_gives_its_backend_and_scale_where_the_flags_leave_them_out(tmp_path):
    from tardis_envs.cli import build_parser, take_recorded
    from tardis_envs.core.options import load_config

    record = tmp_path / "config.yaml"
    record.write_text(
        "env_id: tardis_run_v0\ntotal_timesteps: 10\nbackend: rllib\nnum_env_runners: 2\nnum_envs_per_env_runner: 8\nnum_learners: 0\n"
    )
    recorded = load_config(record)["run"]
    assert recorded == {"algo": "ppo", "backend": "rllib", "num_env_runners": 2, "num_envs_per_env_runner": 8, "num_learners": 0}
    args = build_parser().parse_args(["train", "tardis_run_v0", "--config", str(record), "--num-env-runners", "3"])
    take_recorded(args, recorded, str(record))
    assert (args.algo, args.backend, args.num_env_runners, args.num_envs_per_env_runner, args.num_learners) == ("ppo", "rllib", 3, 8, 0)
    # on the sb3 backend the RLlib scale does not apply: the flags' defaults
    args = build_parser().parse_args(["train", "tardis_run_v0", "--config", str(record), "--backend", "sb3"])
    take_recorded(args, recorded, str(record))
    assert (args.backend, args.num_env_runners, args.num_envs_per_env_runner) == ("sb3", 1, 1)
    # a config file records nothing: the defaults
    args = build_parser().parse_args(["train", "tardis_run_v0"])
    take_recorded(args, {}, None)
    assert (args.algo, args.backend, args.num_env_runners, args.num_envs_per_env_runner, args.num_learners) == ("ppo", "sb3", 1, 1, 0)


@pytest.mark.parametrize("path", CONFIG_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_shipped_config_is_read_as_train_reads_it(path):
    """Each file of configs/<game>/ names its env, builds that env's game from its options, and
    each of its sections (train: for PPO, az: for --algo az, a leaf-table run's included) passes
    the trainer's own checks."""
    from agents.training.az_train import az_config
    from tardis_envs.core.options import load_config

    data = load_config(str(path))
    env_id = data["env_id"]
    assert env_id in tardis_envs.ENV_IDS, env_id
    tardis_envs.env_module(env_id).Game(**(data.get("options") or {}))
    for name, read in (("train", TrainConfig.from_dict), ("az", az_config)):
        if data.get(name):
            settings = {"env_id": env_id, "options": dict(data.get("options") or {}), **data[name]}
            config = read(settings, where=f"{path.parent.name}/{path.name} {name}")
            assert config.env_id == env_id
