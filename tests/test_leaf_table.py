"""The ``az`` agent's searches over a learned leaf table, ``search=alphabeta`` (Dr. Who Chess's
alpha-beta) and ``search=turn`` (Keys to the TARDIS's turn search), and their trainer,
:mod:`agents.training.leaf_table`."""

import csv
import io
import zipfile

import numpy as np
import pytest

import tardis_envs
from agents import make_agent
from agents.alphazero import LEAF_TABLE_MEMBER, LeafSearch, checkpoint_file
from agents.checkpoint import META_NAME, CheckpointError, read_meta, write_meta
from agents.tournament import play_match
from agents.training import leaf_table
from tardis_envs.core.state import RUNNING, STATUS

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


def test_a_tiny_leaf_run_writes_a_checkpoint_that_eval_plays(game, tmp_path):
    run = tmp_path / "run"
    args = ["timelord_chess_v1", "--run-dir", str(run), "--games", "2", "--eval-games", "2", "--rounds", "1", "--depth", "1"]
    assert leaf_table.main(args) == 0
    rows = list(csv.DictReader(open(run / "rounds.csv")))
    assert len(rows) == 1 and int(rows[0]["eval_wins"]) + int(rows[0]["eval_draws"]) + int(rows[0]["eval_losses"]) == 2
    assert list(rows[0]) == leaf_table.FIELDS and all(rows[0][key] != "" for key in ("positions", "teacher_r2", "teacher_beyond_material"))
    best = run / "checkpoints" / "best.zip"
    agents = [make_agent(f"az:{best}", game), make_agent("random", game, seed=1)]
    result = play_match(CHESS, agents, ["az", "random"], 2, seed=0)
    assert result.num_games == 2
    assert "vs heuristic" in (run / "summary.md").read_text()
    # the folder holds a run now: refused without --overwrite, replaced with it, and only the
    # files the run writes are replaced
    assert leaf_table.main(args) == 2
    (run / "notes.txt").write_text("mine")
    (run / "rounds.csv").write_text("round\n1\n2\n3\n")
    assert leaf_table.main(args + ["--overwrite"]) == 0
    assert (run / "notes.txt").read_text() == "mine" and len(list(csv.DictReader(open(run / "rounds.csv")))) == 1


def test_a_folder_of_something_else_is_never_replaced(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    args = ["timelord_chess_v1", "--run-dir", str(tmp_path), "--games", "2", "--eval-games", "2", "--rounds", "1", "--overwrite"]
    assert leaf_table.main(args) == 2
    assert "holds no leaf-table run" in capsys.readouterr().err
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_a_source_that_is_not_an_az_checkpoint_is_refused_by_name(tmp_path, capsys):
    run = tmp_path / "run"
    assert leaf_table.main(["timelord_chess_v1", "--from", "ppo:baseline", "--run-dir", str(run)]) == 2
    assert "--from ppo:baseline: an az checkpoint file (.zip) or az:baseline" in capsys.readouterr().err
    assert leaf_table.main(["timelord_chess_v1", "--from", str(tmp_path / "none.zip"), "--run-dir", str(run)]) == 2
    assert "does not exist" in capsys.readouterr().err and not run.exists()


def test_settings_that_would_misuse_the_run_are_refused_before_it_starts(tmp_path, capsys):
    run = tmp_path / "run"
    for extra, words in (
        (["--rounds", "10"], "--rounds 10: at most 9, or the games would take the evaluation's seeds"),
        (["--depth", "5"], "--depth 5: from 1 to 4"),
        (["--games", "1"], "--games 1: from 2 to"),
    ):
        with pytest.raises(SystemExit):
            leaf_table.main(["timelord_chess_v1", "--run-dir", str(run), *extra])
        assert words in capsys.readouterr().err
    for env_id, source, words in (
        ("tardis_run_v0", "az:baseline", "needs a game whose heuristic searches a learned leaf value"),
        ("timelord_chess_v1", "az:baseline:net", "without agent settings"),
    ):
        assert leaf_table.main([env_id, "--from", source, "--run-dir", str(run)]) == 2
        assert words in capsys.readouterr().err
    # a source inside the run folder it would replace
    (run / "checkpoints").mkdir(parents=True)
    inside = run / "checkpoints" / "best.zip"
    inside.write_bytes(checkpoint_file("baseline", tardis_envs.make(CHESS).unwrapped.game).read_bytes())
    (run / "rounds.csv").write_text("round\n")
    assert leaf_table.main([CHESS, "--from", str(inside), "--run-dir", str(run), "--overwrite"]) == 2
    assert "lies inside --run-dir" in capsys.readouterr().err and inside.exists()
    assert not run.joinpath("summary.md").exists() and (run / "rounds.csv").read_text() == "round\n"


def test_train_algo_az_refuses_the_alphabeta_search_by_name():
    from agents.training.az_train import AZConfig

    with pytest.raises(ValueError, match="python -m agents.training.leaf_table fits"):
        AZConfig.from_dict({"env_id": CHESS, "search": "alphabeta"})


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
    args = [KEYS, "--run-dir", str(run), "--games", "6", "--eval-games", "2", "--rounds", "1", "--redeals", "2"]
    assert leaf_table.main(args) == 0
    rows = list(csv.DictReader(open(run / "rounds.csv")))
    assert len(rows) == 1 and int(rows[0]["positions"]) > 100 and rows[0]["teacher_r2"] == ""
    assert (
        float(rows[0]["outcome_log_loss"]) > 0 and int(rows[0]["eval_wins"]) + int(rows[0]["eval_losses"]) + int(rows[0]["eval_draws"]) == 2
    )
    best = run / "checkpoints" / "best.zip"
    agent = make_agent(f"az:{best}", keys_game)
    assert agent.name == "az:turn:redeals=2" and read_meta(best)["leaf_search"]["redeals"] == 2
    assert "held-out log loss of the outcomes" in (run / "summary.md").read_text()
    for env_id, extra, words in (
        (KEYS, ["--depth", "2"], "--depth is a setting of the alphabeta search"),
        (CHESS, ["--redeals", "2"], "--redeals is a setting of the turn search"),
    ):
        assert leaf_table.main([env_id, "--run-dir", str(tmp_path / "other"), *extra]) == 2
        assert words in capsys.readouterr().err
    assert not (tmp_path / "other").exists()


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
