"""The shipped learned baselines (``ppo:baseline``), their export, and a tiny run of every
baseline recipe in configs/<game>/baseline.yaml (the behaviour-cloning warm start included where the recipe has one)."""

import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import yaml

pytest.importorskip("sb3_contrib")

import tardis_envs
from agents import make_agent
from agents.baselines import available, baseline_path, export
from agents.checkpoint import CheckpointError, read_meta
from agents.training.config import TrainConfig

ROOT = Path(__file__).resolve().parents[1]
RECIPES = sorted((ROOT / "configs").glob("*/baseline.yaml"))


def player_counts(env_id):
    spec = tardis_envs.env_module(env_id).Game().spec
    return range(spec.min_players, spec.max_players + 1)


def test_every_registered_game_ships_a_baseline_and_a_recipe():
    assert available() == sorted(tardis_envs.ENV_IDS)
    assert sorted(yaml.safe_load(p.read_text())["env_id"] for p in RECIPES) == sorted(tardis_envs.ENV_IDS)
    assert all(p.parent.name == tardis_envs.short_name(yaml.safe_load(p.read_text())["env_id"]) for p in RECIPES)
    for env_id in available():
        size = baseline_path(env_id).stat().st_size
        assert size < 8e6, f"{env_id}: the shipped baseline is {size / 1e6:.1f} MB"


@pytest.mark.parametrize("env_id", tardis_envs.ENV_IDS)
def test_shipped_baseline_loads_and_plays_legally_at_every_player_count(env_id):
    meta = read_meta(baseline_path(env_id))
    # trained on this version, or on an earlier one it declares compatible (time_of_the_daleks_v0 for v2)
    assert meta["env_id"] in (env_id, *tardis_envs.env_module(env_id).SPEC.loads_checkpoints_of)
    assert meta["num_timesteps"] >= 0
    assert meta["warm_start"] is None or meta["warm_start"]["decisions"] > 0
    # the recipe it came from is the one shipped beside it
    recipe = yaml.safe_load((ROOT / "configs" / tardis_envs.short_name(env_id) / "baseline.yaml").read_text())
    assert meta["config"]["net_arch"] == recipe["train"]["net_arch"]
    for players in player_counts(env_id):
        options = {**meta["options"], "num_players": players} if "num_players" in meta["options"] else dict(meta["options"])
        env = tardis_envs.make(env_id, illegal_action="raise", **options)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # another player count than trained: a warning, by design
            agent = make_agent("ppo:baseline", env.unwrapped.game)
        decisions = 0
        for seed in range(2):
            env.reset(seed=seed)
            for _ in env.agent_iter(max_iter=400):
                _, _, term, trunc, _ = env.last()
                if not (term or trunc):
                    decisions += 1
                env.step(None if term or trunc else agent.act(env))
        assert decisions > 0


def test_a_game_without_a_baseline_is_refused_by_name(monkeypatch, tmp_path):
    import agents.baselines as baselines

    monkeypatch.setattr(baselines, "folder", lambda: tmp_path)
    game = tardis_envs.env_module("tardis_run_v0").Game()
    with pytest.raises(CheckpointError, match="no shipped baseline for 'tardis_run_v0'.*exists for: none"):
        make_agent("ppo:baseline", game)
    with pytest.raises(ValueError, match="no shipped baseline for 'tardis_run_v0'"):
        TrainConfig.from_dict({"env_id": "tardis_run_v0", "opponents": {"random": 1, "ppo:baseline": 1}})


def test_baseline_with_other_rule_options_warns_and_another_game_is_refused():
    keys = tardis_envs.env_module("keys_to_the_tardis_v0").Game(num_players=3)
    with pytest.warns(UserWarning, match="num_players: trained 2, now 3"):
        make_agent("ppo:baseline", keys)
    with pytest.raises(CheckpointError, match="trained on 'tardis_run_v0'"):
        from agents.policy_agent import PolicyAgent

        PolicyAgent.from_checkpoint(baseline_path("tardis_run_v0"), keys)


def test_fixed_learned_opponents_in_the_training_config():
    config = TrainConfig.from_dict({"env_id": "tardis_run_v0", "opponents": {"heuristic": 1, "ppo:baseline": 1}})
    assert config.opponents["ppo:baseline"] == 1
    with pytest.raises(ValueError, match="checkpoint 'nowhere.zip' does not exist"):
        TrainConfig.from_dict({"env_id": "tardis_run_v0", "opponents": {"random": 1, "ppo:nowhere.zip": 1}})
    with pytest.raises(ValueError, match="'eval_heuristic' must be heuristic"):
        TrainConfig.from_dict({"env_id": "tardis_run_v0", "eval_heuristic": "random"})
    from agents.training.selfplay import OpponentPool

    game = tardis_envs.env_module("timelord_chess_v1").Game()
    pool = OpponentPool(game, {"random": 1, "heuristic:greedy": 1, "ppo:baseline": 1})
    assert pool.names == ["random", "heuristic:greedy", "ppo:baseline"]
    assert pool.agents[1].name == "heuristic:greedy"


def test_export_drops_the_optimizer_and_keeps_the_metadata(tmp_path):
    source = baseline_path("gallifrey_duel_v1")
    out = export(source, tmp_path / "copy.zip")
    assert read_meta(out)["num_timesteps"] == read_meta(source)["num_timesteps"]
    assert read_meta(out)["exported_from"] == source.name
    game = tardis_envs.env_module("gallifrey_duel_v1").Game()
    make_agent(f"ppo:{out}", game)
    # a broken checkpoint is refused and nothing is written
    broken = tmp_path / "broken.zip"
    broken.write_bytes(source.read_bytes()[:3000])
    with pytest.raises(CheckpointError):
        export(broken, tmp_path / "never.zip")
    assert not (tmp_path / "never.zip").exists()


def tiny_recipe(recipe: Path, folder: Path) -> Path:
    """The recipe's game, options, opponents, teacher and network, at a size that runs in seconds."""
    data = yaml.safe_load(recipe.read_text())
    train = data["train"]
    small = {
        "max_minutes": 0,
        "total_timesteps": 2048,
        "num_envs": 16,
        "n_steps": 64,
        "batch_size": 256,
        "n_epochs": 1,
        "eval_every": 1024,
        "eval_games": 8,
        "snapshot_every": 1024,
        "bc_decisions": 400 if train.get("bc_decisions") else 0,  # the warm start where the recipe has one
        "bc_epochs": 1,
    }
    data["train"] = {**train, **small}
    for key in ("max_turns", "max_plies", "max_exchanges", "max_rounds"):
        if key in data["options"]:
            data["options"][key] = min(data["options"][key], 40 if key != "max_rounds" else 4)
    path = folder / recipe.name
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.slow
@pytest.mark.parametrize("recipe", RECIPES, ids=[p.parent.name for p in RECIPES])
def test_tiny_run_of_each_baseline_recipe(recipe, tmp_path):
    config = tiny_recipe(recipe, tmp_path)
    run = tmp_path / "run"
    env_id = yaml.safe_load(recipe.read_text())["env_id"]
    command = [sys.executable, "-m", "tardis_envs.cli", "train", env_id, "--config", str(config), "--run-dir", str(run), "--no-progress"]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    meta = read_meta(run / "checkpoints" / "last.zip")
    assert meta["num_timesteps"] >= 2048
    train = yaml.safe_load(recipe.read_text())["train"]
    if not train.get("bc_decisions"):
        assert meta["warm_start"] is None and not (run / "bc.json").exists()
        return
    warm = json.loads((run / "bc.json").read_text())
    rounds = train.get("bc_dagger_rounds", 0)
    assert warm["decisions"] == 400 * (1 + rounds) and 0 <= warm["epochs"][-1]["agreement"] <= 1
    assert [r["played_by"] for r in warm.get("rounds", [])] == (["teacher"] + ["clone"] * rounds if rounds else [])
    assert meta["warm_start"]["teacher"] == train.get("bc_teacher", "heuristic")
    # the learning curve starts at the warm start; the clone joined the opponent pool at once
    rows = (run / "eval.csv").read_text().splitlines()[1:]
    assert rows[0].startswith("0,") and (run / "snapshots" / "snap_0000000000.zip").exists()


def cli(*args, stdin=""):
    return subprocess.run(
        [sys.executable, "-m", "tardis_envs.cli", *args], cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=300
    )


@pytest.mark.slow
def test_eval_and_play_take_the_shipped_baseline_by_name(tmp_path):
    out = cli("eval", "tardis_run_v0", "--agents", "ppo:baseline,heuristic,random", "--games", "4", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr[-2000:]
    assert "ppo:baseline vs random:" in out.stdout
    assert (tmp_path / "matrix.csv").read_text().splitlines()[1].startswith("ppo:baseline,heuristic,4,")
    out = cli("play", "gallifrey_duel_v1", "--seat", "1", "--seed", "0", "--opponent", "ppo:baseline", stdin="q\n")
    assert out.returncode == 0 and "Traceback" not in out.stderr
    assert "first has chosen (hidden until both have)" in out.stdout  # the baseline moved first
