"""The ``az`` agent's searches over a learned leaf table, ``search=alphabeta`` (Dr. Who Chess's
alpha-beta) and ``search=turn`` (Keys to the TARDIS's turn search), and their trainer,
:mod:`agents.training.leaf_table` (``tardis-envs train --algo az`` with such a search)."""

import csv
import io
import zipfile

import numpy as np
import pytest
import yaml

import tardis_envs
from agents import make_agent
from agents.alphazero import LEAF_TABLE_MEMBER, LeafSearch, checkpoint_file
from agents.checkpoint import META_NAME, CheckpointError, read_meta, write_meta
from agents.tournament import play_match
from agents.training import leaf_table
from tardis_envs.core.state import CURRENT_PLAYER, RUNNING, STATUS

CHESS = "timelord_chess_v1"
KEYS = "keys_to_the_tardis_v0"


@pytest.fixture(scope="module")
def game():
    return tardis_envs.make(CHESS).unwrapped.game


@pytest.fixture(scope="module")
def material_checkpoint(game, tmp_path_factory):
    """az:baseline's network with a table of material alone, searched one ply and captures."""
    kernels = game.heuristic
    weights = kernels.PRESETS["material3"].copy()
    weights[kernels.W_DEPTH] = 1
    leaf = LeafSearch(game, kernels.material_table(weights), weights)
    path = tmp_path_factory.mktemp("leaf") / "material.zip"
    return leaf_table.save_leaf_checkpoint(path, checkpoint_file("baseline", game), leaf, {"round": 0})


def copy_without(source, target, member):
    """A copy of the zip ``source`` at ``target`` without ``member``."""
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(target, "w") as copy:
        for name in archive.namelist():
            if name != member:
                copy.writestr(name, archive.read(name))
    return target


def test_an_alphabeta_checkpoint_plays_its_search_and_its_network_alone(game, material_checkpoint):
    agent = make_agent(f"az:{material_checkpoint}", game)
    assert agent.name == "az:alphabeta:depth=1" and agent.leaf is not None
    assert make_agent(f"az:{material_checkpoint}:depth=2", game).name == "az:alphabeta:depth=2"
    alone = make_agent(f"az:{material_checkpoint}:net", game)
    assert alone.name == "az:net" and alone.leaf is None
    # Ra8 mates in one: the search takes it
    state = game.from_fen("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    mask = game.legal_actions(state)
    masks = np.zeros((1, game.num_actions), dtype=np.int8)
    masks[0, mask] = 1
    action = agent.act_batch(state[None], None, masks)[0]
    assert game.action_to_string(state, int(action)) == "a1a8"
    # the network alone reads the observation and plays its most likely legal move
    observation = game.observation(state, 0)[None]
    assert masks[0, alone.act_batch(state[None], observation, masks)[0]] == 1


def test_alphabeta_specs_and_checkpoints_are_refused_by_name(game, material_checkpoint, tmp_path):
    with pytest.raises(ValueError, match="sims is a setting of the gumbel search"):
        make_agent(f"az:{material_checkpoint}:sims=8", game)
    with pytest.raises(ValueError, match="plies is a setting of the expectation search"):
        make_agent(f"az:{material_checkpoint}:plies=2", game)
    with pytest.raises(ValueError, match=r"depth must be in 1\.\.4"):
        make_agent(f"az:{material_checkpoint}:depth=9", game)
    with pytest.raises(ValueError, match="depth is a setting of the alphabeta search"):
        make_agent("az:baseline:depth=2:search=gumbel", game)
    plain = copy_without(material_checkpoint, tmp_path / "plain.zip", LEAF_TABLE_MEMBER)  # as the guided search's are
    with pytest.raises(CheckpointError, match="plain.zip' holds no learned leaf table"):
        make_agent(f"az:{plain}", game)
    assert make_agent(f"az:{plain}:search=gumbel:sims=4", game).name == "az:4"
    tardis_run = tardis_envs.make("tardis_run_v0").unwrapped.game
    with pytest.raises(ValueError, match="needs a game whose heuristic searches a learned leaf value"):
        make_agent("az:baseline:search=alphabeta", tardis_run)
    # a table of the wrong size, and one with a NaN
    for name, table in (
        ("short", np.zeros(5)),
        ("nan", np.full(game.heuristic.LEAF_FEATURES, np.nan)),
        ("text", np.array(["x"] * game.heuristic.LEAF_FEATURES)),
    ):
        damaged = copy_without(material_checkpoint, tmp_path / f"{name}.zip", LEAF_TABLE_MEMBER)
        data = io.BytesIO()
        np.save(data, table)
        with zipfile.ZipFile(damaged, "a") as archive:
            archive.writestr(LEAF_TABLE_MEMBER, data.getvalue())
        words = {"short": r"has shape \(5,\)", "nan": "not all finite", "text": "could not be read"}[name]
        with pytest.raises(CheckpointError, match=f"{name}.zip.*{words}"):
            make_agent(f"az:{damaged}", game)
    # search weights in the metadata that ask for a search of 100 plies
    meta = read_meta(material_checkpoint)
    deep = copy_without(material_checkpoint, tmp_path / "deep.zip", META_NAME)
    meta["leaf_search"]["weights"][game.heuristic.W_DEPTH] = 100
    write_meta(deep, meta)
    with pytest.raises(CheckpointError, match="deep.zip.*ask for depth 100"):
        make_agent(f"az:{deep}", game)


def test_the_warm_start_recovers_the_table_a_teacher_judged_by(game):
    # a teacher whose points are a known table's score, with noise: the fit from material finds
    # that table, explaining the held-out positions far better than material does
    kernels = game.heuristic
    rng = np.random.default_rng(0)
    positions = []
    for key in range(40):
        state = game.new_state(key)
        for _ in range(int(rng.integers(10, 80))):
            if state[STATUS] != RUNNING:
                break
            game.kernels.step(state, game.tables, int(rng.choice(game.legal_actions(state))))
            positions.append(state.copy())
    states = np.stack(positions)
    features = np.zeros((len(states), kernels.LEAF_FEATURES))
    quiet = np.zeros(len(states), dtype=np.bool_)
    judged = np.zeros(len(states))
    kernels.leaf_samples(states, game.tables, kernels.PRESETS["material3"], kernels.DEFAULT_WEIGHTS, features, quiet, judged)
    start = kernels.material_table(kernels.PRESETS["material3"])
    truth = start + rng.normal(0, 30, start.shape)
    points = features @ truth + rng.normal(0, 10, len(states))
    outcome = np.sign(points).astype(np.float32)
    samples = leaf_table.Samples(features.astype(np.int8), outcome, points, np.arange(len(states)) // 10)
    table, record = leaf_table.fit_teacher(samples, start, ridge=0.01)
    assert record["teacher_positions"] == len(states) and record["teacher_beyond_material"] > 0.5, record
    seen = features.sum(axis=0) > 20  # entries the positions show often enough to be fitted
    assert np.corrcoef(table[seen] - start[seen], truth[seen] - start[seen])[0, 1] > 0.8
    # the teacher of the real run: the heuristic's own evaluation of the quiet positions
    assert quiet.any() and np.isclose(judged[0], kernels.evaluate(states[0].copy(), kernels.DEFAULT_WEIGHTS, np.zeros(320, np.int64)))


CHESS_OPTIONS = {"doctor": True, "max_plies": 512, "fen": "startpos"}
TINY_CHESS = {"search": "alphabeta", "rounds": 1, "games": 2, "eval_games": 2, "depth": 1}


def train(tmp_path, env_id: str, az: dict, *flags: str, options: dict | None = None) -> int:
    """``tardis-envs train <env_id> --algo az`` with a config file whose az: section is ``az``."""
    from tardis_envs.cli import main

    options = options or (CHESS_OPTIONS if env_id == CHESS else {"num_players": 2})
    path = tmp_path / "leaf.yaml"
    path.write_text(yaml.safe_dump({"env_id": env_id, "options": options, "az": az}))
    return main(["train", env_id, "--algo", "az", "--config", str(path), "--no-progress", *flags])


def test_a_tiny_leaf_run_writes_a_training_runs_folder_and_a_checkpoint_that_eval_plays(game, tmp_path, capsys):
    run = tmp_path / "run"
    assert train(tmp_path, CHESS, TINY_CHESS, "--run-dir", str(run)) == 0
    printed = capsys.readouterr().out
    assert "(1 round of 2 games, a table for search alphabeta)" in printed and "done: 1 round, 2 games and" in printed
    for name in ("config.yaml", "eval.csv", "rounds.csv", "summary.md", "winrate.png", "stats.json", "checkpoints/leaf_samples_1.npz"):
        assert (run / name).is_file(), name
    assert list((run / "tb" / "az").glob("events.out.tfevents.*"))
    rows = list(csv.DictReader(open(run / "rounds.csv")))
    assert len(rows) == 1 and int(rows[0]["eval_wins"]) + int(rows[0]["eval_draws"]) + int(rows[0]["eval_losses"]) == 2
    assert list(rows[0]) == leaf_table.FIELDS and all(rows[0][key] != "" for key in ("positions", "teacher_r2", "teacher_beyond_material"))
    evals = list(csv.DictReader(open(run / "eval.csv")))
    assert [(row["timesteps"], row["opponent"], row["games"]) for row in evals] == [("2", "heuristic", "2")]
    # the defaults the config left out are the run's record
    recorded = yaml.safe_load((run / "config.yaml").read_text())
    assert recorded["algo"] == "az" and recorded["random_plies"] == 8 and recorded["ridge"] == 0.1 and recorded["redeals"] is None
    best = run / "checkpoints" / "best.zip"
    assert read_meta(best)["leaf_run"]["round"] == 1 and read_meta(best)["leaf_search"]["round"] == 1
    agents = [make_agent(f"az:{best}", game), make_agent("random", game, seed=1)]
    assert play_match(CHESS, agents, ["az", "random"], 2, seed=0).num_games == 2
    summary = (run / "summary.md").read_text()
    assert "the learned leaf table of search alphabeta" in summary and "| heuristic | 2 |" in summary
    # the folder holds a run now: refused without --overwrite, replaced with it, and only the
    # files the run writes are replaced
    assert train(tmp_path, CHESS, TINY_CHESS, "--run-dir", str(run)) == 2
    assert "already holds a run" in capsys.readouterr().err
    (run / "notes.txt").write_text("mine")
    (run / "rounds.csv").write_text("round\n1\n2\n3\n")
    assert train(tmp_path, CHESS, TINY_CHESS, "--run-dir", str(run), "--overwrite") == 0
    assert (run / "notes.txt").read_text() == "mine" and len(list(csv.DictReader(open(run / "rounds.csv")))) == 1


def test_a_resumed_leaf_run_fits_the_tables_of_an_unbroken_one(tmp_path, monkeypatch, capsys):
    """Rounds 1-2 in one run, and round 1, then ``--resume`` for round 2: the same positions,
    table and evaluation. A Ctrl-C during round 2's games keeps round 1's; one during its
    evaluation keeps round 2's table, which ``--resume`` evaluates before it goes on."""
    two = {**TINY_CHESS, "rounds": 2}
    assert train(tmp_path, CHESS, two, "--run-dir", str(tmp_path / "whole")) == 0
    assert train(tmp_path, CHESS, TINY_CHESS, "--run-dir", str(tmp_path / "parts")) == 0
    assert train(tmp_path, CHESS, two, "--run-dir", str(tmp_path / "parts"), "--resume") == 0
    capsys.readouterr()

    def table(run):
        with zipfile.ZipFile(tmp_path / run / "checkpoints" / "last.zip") as archive:
            return np.load(io.BytesIO(archive.read(LEAF_TABLE_MEMBER)))

    def rounds(run):
        return [{k: v for k, v in row.items() if k != "seconds"} for row in csv.DictReader(open(tmp_path / run / "rounds.csv"))]

    assert np.array_equal(table("whole"), table("parts")) and rounds("whole") == rounds("parts") and len(rounds("parts")) == 2
    assert not (tmp_path / "parts" / "checkpoints" / "leaf_samples_1.npz").exists()
    # a resumed run that would play other games than the run's is refused; one that asks for
    # more rounds is not
    assert train(tmp_path, CHESS, {**two, "rounds": 3, "games": 4}, "--run-dir", str(tmp_path / "parts"), "--resume") == 2
    assert "'games' was 2 in the run in" in capsys.readouterr().err
    # --resume in a folder that holds no run leaves nothing behind
    assert train(tmp_path, CHESS, two, "--run-dir", str(tmp_path / "nothing"), "--resume") == 2
    assert "no checkpoint" in capsys.readouterr().err and not (tmp_path / "nothing").exists()
    # Ctrl-C during round 2's games: round 1's table stays, and --resume plays round 2
    played = leaf_table.play_games

    def interrupted(*args, **kwargs):
        if kwargs["seed"] == leaf_table.round_seed(0, 2):
            raise KeyboardInterrupt
        return played(*args, **kwargs)

    monkeypatch.setattr(leaf_table, "play_games", interrupted)
    assert train(tmp_path, CHESS, TINY_CHESS, "--run-dir", str(tmp_path / "broken")) == 0
    assert train(tmp_path, CHESS, two, "--run-dir", str(tmp_path / "broken"), "--resume") == 130
    assert "round 2's games are dropped" in capsys.readouterr().err
    assert read_meta(tmp_path / "broken" / "checkpoints" / "last.zip")["leaf_run"]["round"] == 1
    # Ctrl-C during round 2's evaluation: its table is kept, not yet evaluated
    monkeypatch.setattr(leaf_table, "play_games", played)
    evaluate = leaf_table.LeafTableTrainer._evaluate
    monkeypatch.setattr(leaf_table.LeafTableTrainer, "_evaluate", lambda self, last: (_ for _ in ()).throw(KeyboardInterrupt))
    assert train(tmp_path, CHESS, two, "--run-dir", str(tmp_path / "broken"), "--resume") == 130
    assert "--resume evaluates it" in capsys.readouterr().err
    record = read_meta(tmp_path / "broken" / "checkpoints" / "last.zip")["leaf_run"]
    assert record["round"] == 2 and record["evaluated"] is False
    monkeypatch.setattr(leaf_table.LeafTableTrainer, "_evaluate", evaluate)
    # cut off after its rows are written, before the checkpoint says it was evaluated: the rows
    # are written again, not twice
    save = leaf_table.LeafTableTrainer._save

    def cut_off(self, *args, evaluated, **kwargs):
        if evaluated:
            raise KeyboardInterrupt
        return save(self, *args, evaluated=evaluated, **kwargs)

    monkeypatch.setattr(leaf_table.LeafTableTrainer, "_save", cut_off)
    assert train(tmp_path, CHESS, two, "--run-dir", str(tmp_path / "broken"), "--resume") == 130
    assert len(rounds("broken")) == 2 and read_meta(tmp_path / "broken" / "checkpoints" / "last.zip")["leaf_run"]["evaluated"] is False
    monkeypatch.setattr(leaf_table.LeafTableTrainer, "_save", save)
    # --resume alone goes on with the run's own config.yaml: a leaf-table run of two rounds
    from tardis_envs.cli import main

    assert main(["train", CHESS, "--run-dir", str(tmp_path / "broken"), "--resume", "--no-progress"]) == 0
    assert np.array_equal(table("whole"), table("broken")) and rounds("whole") == rounds("broken")

    def evaluations(run):
        return [(row["timesteps"], row["wins"]) for row in csv.DictReader(open(tmp_path / run / "eval.csv"))]

    assert evaluations("whole") == evaluations("broken") and len(evaluations("broken")) == 2
    # the positions of a round damaged: refused by name
    kept = tmp_path / "broken" / "checkpoints" / "leaf_samples_2.npz"
    intact = kept.read_bytes()
    kept.write_bytes(b"not an npz")
    assert train(tmp_path, CHESS, {**two, "rounds": 3}, "--run-dir", str(tmp_path / "broken"), "--resume") == 2
    assert "leaf_samples_2.npz', could not be read" in capsys.readouterr().err
    kept.write_bytes(intact)
    # the positions of the last round lost: refused by name, nothing replaced
    (tmp_path / "broken" / "checkpoints" / "leaf_samples_2.npz").unlink()
    assert train(tmp_path, CHESS, {**two, "rounds": 3}, "--run-dir", str(tmp_path / "broken"), "--resume") == 2
    assert "leaf_samples_2.npz', are missing" in capsys.readouterr().err
    # a leaf-table run is not resumed as a network's training, nor a network's as a leaf-table run
    assert train(tmp_path, CHESS, {"search": "gumbel"}, "--run-dir", str(tmp_path / "broken"), "--resume") == 2
    assert "is a leaf-table run's (agents.training.leaf_table)" in capsys.readouterr().err
    network_run = tmp_path / "network" / "checkpoints"
    network_run.mkdir(parents=True)
    (network_run / "last.zip").write_bytes(checkpoint_file("baseline", tardis_envs.make(CHESS).unwrapped.game).read_bytes())
    (network_run.parent / "config.yaml").write_text(yaml.safe_dump({"env_id": CHESS, "algo": "az", "total_timesteps": 10}))
    assert train(tmp_path, CHESS, two, "--run-dir", str(network_run.parent), "--resume") == 2
    assert "holds no leaf-table run of timelord_chess_v1" in capsys.readouterr().err
    assert np.array_equal(table("whole"), table("broken"))


def test_best_zip_keeps_the_table_of_the_most_points(tmp_path, monkeypatch):
    """Round 1's table wins more than round 2's: best.zip keeps round 1's, last.zip round 2's."""
    wins = iter([2, 0])

    def evaluate(self, last):
        won = next(wins)
        record = {"games": 2, "wins": won, "draws": 0, "losses": 2 - won, "win_rate": won / 2, "ci_low": 0.0, "ci_high": 1.0}
        return {"heuristic": record}

    monkeypatch.setattr(leaf_table.LeafTableTrainer, "_evaluate", evaluate)
    assert train(tmp_path, CHESS, {**TINY_CHESS, "rounds": 2}, "--run-dir", str(tmp_path / "run")) == 0
    checkpoints = tmp_path / "run" / "checkpoints"
    assert read_meta(checkpoints / "best.zip")["leaf_run"]["round"] == 1 and read_meta(checkpoints / "last.zip")["leaf_run"]["round"] == 2
    assert read_meta(checkpoints / "last.zip")["leaf_run"]["best_points"] == 1.0


def test_a_folder_of_something_else_is_never_replaced(tmp_path, capsys):
    run = tmp_path / "mine"
    run.mkdir()
    (run / "notes.txt").write_text("mine")
    assert train(tmp_path, CHESS, TINY_CHESS, "--run-dir", str(run), "--overwrite") == 2
    assert "holds files but no training run" in capsys.readouterr().err
    assert [p.name for p in run.iterdir()] == ["notes.txt"]


def test_leaf_settings_that_would_misuse_the_run_are_refused_before_it_starts(tmp_path, capsys):
    run = tmp_path / "run"
    for env_id, az, flags, words in (
        (CHESS, {"rounds": 10}, [], "'rounds' 10: at most 9, or the games would take the evaluation's seeds"),
        (CHESS, {"depth": 5}, [], "'depth' must be an integer from 1 to 4, got 5"),
        (CHESS, {"games": 1}, [], "'games' must be an integer from 2 to"),
        (CHESS, {"ridge": 0}, [], "'ridge' must be a number > 0"),
        (CHESS, {"self_share": 2}, [], "'self_share' must be a number in [0, 1]"),
        (CHESS, {"redeals": 2}, [], "'redeals' is a setting of the turn search; timelord_chess_v1's is the alphabeta search"),
        (KEYS, {"search": "turn", "depth": 2}, [], "'depth' is a setting of the alphabeta search"),
        (CHESS, {"search": "turn"}, [], "'search' turn is not timelord_chess_v1's search over a learned leaf table, which is alphabeta"),
        (CHESS, {"total_timesteps": 5}, [], "unknown key 'total_timesteps'"),
        (CHESS, {}, ["--timesteps", "5"], "--timesteps is not a setting of a leaf-table run"),
        (CHESS, {}, ["--eval-every", "5"], "--eval-every is not a setting of a leaf-table run"),
        (CHESS, {"init_from": "ppo:baseline"}, [], "'init_from' 'ppo:baseline': an az checkpoint file"),
        (CHESS, {"init_from": "baseline:net"}, [], "a checkpoint, without agent settings"),
        (CHESS, {"init_from": str(tmp_path / "none.zip")}, [], "does not exist"),
        (CHESS, {"eval_opponents": []}, [], "'eval_opponents' must be a list of agent specs"),
    ):
        assert train(tmp_path, env_id, {**TINY_CHESS, "search": "alphabeta", "depth": None, **az}, "--run-dir", str(run), *flags) == 2
        assert words in capsys.readouterr().err, words
        assert not run.exists()
    from tardis_envs.cli import main

    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump({"env_id": "tardis_run_v0", "options": {}, "az": {"search": "alphabeta"}}))
    assert main(["train", "tardis_run_v0", "--algo", "az", "--config", str(path), "--run-dir", str(run)]) == 2
    assert "needs a game whose heuristic searches a learned leaf value" in capsys.readouterr().err
    # a source inside the run folder it would replace
    (run / "checkpoints").mkdir(parents=True)
    inside = run / "checkpoints" / "best.zip"
    inside.write_bytes(checkpoint_file("baseline", tardis_envs.make(CHESS).unwrapped.game).read_bytes())
    (run / "config.yaml").write_text(yaml.safe_dump({"algo": "az", "env_id": CHESS, "rounds": 1}))
    assert train(tmp_path, CHESS, {**TINY_CHESS, "init_from": str(inside)}, "--run-dir", str(run), "--overwrite") == 2
    assert "lies inside --run-dir" in capsys.readouterr().err and inside.exists()
    assert sorted(p.name for p in run.iterdir()) == ["checkpoints", "config.yaml"]


def test_train_algo_az_sends_the_leaf_searches_to_their_own_trainer():
    from agents.training.az_train import AZConfig, az_config

    with pytest.raises(ValueError, match="LeafTableConfig and LeafTableTrainer fit"):
        AZConfig.from_dict({"env_id": CHESS, "search": "alphabeta"})
    for name, search in (("chess/az_leaf.yaml", "alphabeta"), ("keys/az_leaf.yaml", "turn")):
        data = yaml.safe_load(open(f"configs/{name}"))
        config = az_config({"env_id": data["env_id"], "options": data["options"], **data["az"]})
        assert isinstance(config, leaf_table.LeafTableConfig) and config.search == search and config.init_from == "baseline"
    assert isinstance(az_config({"env_id": CHESS, "search": "gumbel"}), AZConfig)


@pytest.fixture(scope="module")
def keys_game():
    return tardis_envs.make(KEYS).unwrapped.game


@pytest.fixture(scope="module")
def turn_checkpoint(keys_game, tmp_path_factory):
    """az:baseline's Keys network with a learned value, searched in 2 redealt worlds."""
    from tests.keys.test_turn_search import TABLE

    leaf = LeafSearch(keys_game, TABLE, keys_game.heuristic.DEFAULT_WEIGHTS, redeals=2)
    path = tmp_path_factory.mktemp("turn") / "turn.zip"
    return leaf_table.save_leaf_checkpoint(path, checkpoint_file("baseline", keys_game), leaf, {"round": 0})


def test_a_turn_checkpoint_plays_its_search_from_its_own_seed(keys_game, turn_checkpoint):
    agent = make_agent(f"az:{turn_checkpoint}", keys_game, seed=3)
    assert agent.name == "az:turn:redeals=2" and agent.leaf is not None
    assert read_meta(turn_checkpoint)["config"]["search"] == "turn"
    assert make_agent(f"az:{turn_checkpoint}:redeals=16", keys_game).name == "az:turn:redeals=16"
    assert make_agent(f"az:{turn_checkpoint}:net", keys_game).leaf is None
    states = np.stack([keys_game.new_state(key) for key in range(16)])
    masks = np.zeros((len(states), keys_game.num_actions), dtype=np.int8)
    for row, state in enumerate(states):
        masks[row, keys_game.legal_actions(state)] = 1
    chosen = agent.act_batch(states, None, masks)
    assert np.all(masks[np.arange(len(states)), chosen] == 1)
    # the worlds come from the agent's own generator: the same seed plays the same actions
    assert np.array_equal(make_agent(f"az:{turn_checkpoint}", keys_game, seed=3).act_batch(states, None, masks), chosen)
    with pytest.raises(ValueError, match=r"redealt worlds must be in 1\.\.256, got 0"):
        LeafSearch(keys_game, agent.leaf.table, agent.leaf.weights, redeals=0)


def test_turn_specs_and_checkpoints_are_refused_by_name(game, keys_game, turn_checkpoint, material_checkpoint, tmp_path):
    for spec, on, words in (
        (f"{turn_checkpoint}:depth=2", keys_game, "depth is a setting of the alphabeta search, and this agent plays search=turn"),
        (f"{material_checkpoint}:redeals=2", game, "redeals is a setting of the turn search, and this agent plays search=alphabeta"),
        (f"{turn_checkpoint}:sims=8", keys_game, "sims is a setting of the gumbel search, and this agent plays search=turn"),
        (f"{turn_checkpoint}:redeals=0", keys_game, r"redeals must be in 1\.\.256"),
        ("baseline:search=turn", game, "search turn needs a game whose heuristic searches a learned leaf value"),
        (f"{turn_checkpoint}:search=alphabeta", keys_game, "search alphabeta needs a game whose heuristic searches a learned leaf value"),
    ):
        with pytest.raises(ValueError, match=words):
            make_agent(f"az:{spec}", on)
    meta = read_meta(turn_checkpoint)
    for name, worlds in (("none", 0), ("many", 1000), ("text", "8")):
        damaged = copy_without(turn_checkpoint, tmp_path / f"{name}.zip", META_NAME)
        write_meta(damaged, {**meta, "leaf_search": {**meta["leaf_search"], "redeals": worlds}})
        with pytest.raises(CheckpointError, match=f"{name}.zip.*asks for {worlds!r} redealt worlds"):
            make_agent(f"az:{damaged}", keys_game)
    short = copy_without(turn_checkpoint, tmp_path / "short.zip", LEAF_TABLE_MEMBER)
    data = io.BytesIO()
    np.save(data, np.zeros(780))
    with zipfile.ZipFile(short, "a") as archive:
        archive.writestr(LEAF_TABLE_MEMBER, data.getvalue())
    with pytest.raises(CheckpointError, match=r"short.zip.*has shape \(780,\).*this game's are \(17,\)"):
        make_agent(f"az:{short}", keys_game)


def test_the_outcome_fit_recovers_the_table_the_games_were_won_by():
    """Positions whose seat wins with the logistic of a known table: the fit finds that table
    and predicts the held-out games' outcomes better than one constant chance does."""
    rng = np.random.default_rng(0)
    truth = np.array([0.3, -1.5, 1.0, 0.5])
    features = np.column_stack([np.ones(20_000), rng.normal(0, 1, (20_000, 3))])
    won = rng.random(20_000) < 1 / (1 + np.exp(-features @ truth))
    samples = leaf_table.Samples(
        features.astype(np.float32), np.where(won, 1.0, -1.0).astype(np.float32), np.zeros(20_000), np.arange(20_000) // 20
    )
    table, record = leaf_table.fit_outcomes(samples, ridge=1e-6)
    assert np.allclose(table, truth, atol=0.1), table
    assert record["positions"] == 20_000 and record["outcome_log_loss"] < record["outcome_log_loss_constant"] - 0.05
    one_game = leaf_table.Samples(samples.features[:20], samples.outcome[:20], samples.judged[:20], np.zeros(20, dtype=np.int64))
    with pytest.raises(ValueError, match="come from 1 game"):
        leaf_table.fit_outcomes(one_game, ridge=1e-3)


def test_a_tiny_keys_run_fits_the_heuristics_games_first_and_writes_a_turn_checkpoint(keys_game, tmp_path, capsys):
    run = tmp_path / "run"
    az = {"search": "turn", "rounds": 1, "games": 6, "eval_games": 2, "redeals": 2}
    assert train(tmp_path, KEYS, az, "--run-dir", str(run)) == 0
    rows = list(csv.DictReader(open(run / "rounds.csv")))
    assert len(rows) == 1 and int(rows[0]["positions"]) > 100 and rows[0]["teacher_r2"] == ""
    assert (
        float(rows[0]["outcome_log_loss"]) > 0 and int(rows[0]["eval_wins"]) + int(rows[0]["eval_losses"]) + int(rows[0]["eval_draws"]) == 2
    )
    best = run / "checkpoints" / "best.zip"
    agent = make_agent(f"az:{best}", keys_game)
    assert agent.name == "az:turn:redeals=2" and read_meta(best)["leaf_search"]["redeals"] == 2
    assert "held-out log loss of the outcomes" in (run / "summary.md").read_text()
    # round 1 is the heuristic's own games: the positions are those of play_games without a search
    heuristic_games = leaf_table.play_games(keys_game, None, 6, seed=leaf_table.round_seed(0, 1), random_plies=0)
    assert int(rows[0]["positions"]) == len(heuristic_games)
    # a resumed run: the turn search's worlds of round 2 come from its own seed, as unbroken
    two = {**az, "rounds": 2}
    assert train(tmp_path, KEYS, two, "--run-dir", str(tmp_path / "whole")) == 0
    assert train(tmp_path, KEYS, two, "--run-dir", str(run), "--resume") == 0

    def table(folder):
        with zipfile.ZipFile(folder / "checkpoints" / "last.zip") as archive:
            return np.load(io.BytesIO(archive.read(LEAF_TABLE_MEMBER)))

    assert np.array_equal(table(tmp_path / "whole"), table(run))
    # games of three: the search on one seat in turn, the network of that player count kept
    three = tardis_envs.make(KEYS, num_players=3).unwrapped.game
    table = make_agent(f"az:{best}", keys_game).leaf.table
    search = LeafSearch(three, table, three.heuristic.DEFAULT_WEIGHTS, redeals=1, seed=0)
    seats = []
    original = search.choose

    def choose(states):
        seats.extend(int(s) for s in states[:, CURRENT_PLAYER])
        return original(states)

    search.choose = choose
    played = leaf_table.play_games(three, search, 3, seed=0, self_share=0.0)
    assert sorted(set(seats)) == [0, 1, 2] and set(np.unique(played.outcome)) <= {-1.0, 0.0, 1.0}
    run3 = tmp_path / "three"
    assert train(tmp_path, KEYS, {**az, "eval_games": 3}, "--run-dir", str(run3), options={"num_players": 3}) == 0
    assert read_meta(run3 / "checkpoints" / "best.zip")["options"]["num_players"] == 3


def test_keys_baseline_plays_the_turn_search_at_every_player_count():
    """``az:baseline`` searches the whole turn over the two-player table in games of two, three
    and four; ``:net`` and ``:search=gumbel`` stay each player count's own network."""
    tables = []
    for players in (2, 3, 4):
        game = tardis_envs.make(KEYS, num_players=players).unwrapped.game
        agent = make_agent("az:baseline", game, seed=0)
        assert agent.name == "az:turn:redeals=8" and agent.leaf is not None and agent.leaf.search == "turn"
        tables.append(agent.leaf.table)
        for spec in ("az:baseline:net", "az:baseline:search=gumbel"):
            other = make_agent(spec, game, seed=0)
            assert other.leaf is None and other.meta["options"].get("num_players", 2) == players
    assert all(np.array_equal(table, tables[0]) for table in tables)
