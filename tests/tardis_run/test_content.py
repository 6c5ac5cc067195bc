"""Boards as data: the shipped board, a second board under configs/, and bad files."""

from pathlib import Path

import numpy as np
import pytest

import tardis_envs
from tardis_envs.games.tardis_run.content import load_board, parse_board

ROOT = Path(__file__).resolve().parents[2]
GRAND_TOUR = ROOT / "configs/tardis_run/boards/grand_tour.yaml"


def test_default_board_is_the_ruling():
    board = load_board("default")
    assert board.track_length == 28 and (board.rows, board.columns) == (4, 7)
    assert set(board.shortcuts) == {(5, 10), (10, 5), (19, 24), (24, 19)}
    assert board.teleports == ((7, 22),)
    # snaking rows: 1..7 left to right, 8..14 right to left
    assert board.cell_of_square(1) == (0, 0) and board.cell_of_square(7) == (0, 6)
    assert board.cell_of_square(8) == (1, 6) and board.cell_of_square(14) == (1, 0)


def test_second_board_loads_and_plays_without_code_changes():
    env = tardis_envs.make("tardis_run_v0", board=str(GRAND_TOUR))
    env.reset(seed=0)
    assert env.unwrapped.game.track_length == 40
    assert env.observation_space("doctors")["observation"].shape == (16, 42)
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter(max_iter=3000):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert "Grand Tour" in tardis_envs.make("tardis_run_v0", board=str(GRAND_TOUR), render_mode="ansi").unwrapped.game.render_ansi(
        env.unwrapped.get_state()
    )


def test_variant_config_file_resolves_its_board():
    env = tardis_envs.make("tardis_run_v0", config=ROOT / "configs/tardis_run/grand_tour.yaml")
    assert env.unwrapped.game.track_length == 40
    assert env.unwrapped.game.options["max_turns"] == 1500
    env = tardis_envs.make("tardis_run_v0", config=ROOT / "configs/tardis_run/default.yaml", max_turns=7)
    assert env.unwrapped.game.options["max_turns"] == 7


@pytest.mark.parametrize(
    "data, message",
    [
        ([1, 2], "must be a mapping"),
        ({"rows": 0, "columns": 7}, "rows: must be a positive integer"),
        ({"rows": 4, "columns": 7, "colour": "blue"}, "colour: unknown key"),
        ({"rows": 4, "columns": 7, "shortcuts": [{"from": 5, "to": 99}]}, r"shortcuts\[0\].to: square 99"),
        ({"rows": 4, "columns": 7, "shortcuts": [{"from": 5}]}, r"shortcuts\[0\]: must be a mapping"),
        ({"rows": 4, "columns": 7, "teleports": [[3, 3]]}, "cannot link a square to itself"),
        ({"rows": 4, "columns": 7, "teleports": [[3, 4, 5]]}, "must be a pair"),
        ({"rows": 4, "columns": 7, "shortcuts": [{"from": 7, "to": 9}], "teleports": [[7, 22]]}, "both an arrow and a teleport"),
        ({"rows": 40, "columns": 7}, "allowed 4..120"),
    ],
)
def test_bad_board_data_names_the_key(data, message):
    with pytest.raises(ValueError, match=message):
        parse_board(data, "test.yaml")


def test_bad_board_files_and_options(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("rows: [4\ncolumns: 7\n")
    with pytest.raises(ValueError, match="not valid YAML"):
        tardis_envs.make("tardis_run_v0", board=str(broken))
    with pytest.raises(ValueError, match="neither a shipped board"):
        tardis_envs.make("tardis_run_v0", board="no/such/board.yaml")
    with pytest.raises(ValueError, match="option 'max_turns' got 0; expected a int >= 1"):
        tardis_envs.make("tardis_run_v0", max_turns=0)
    with pytest.raises(ValueError, match="option 'max_turns' got '10'"):
        tardis_envs.make("tardis_run_v0", max_turns="10")
    with pytest.raises(ValueError, match="option 'board' got 3"):
        tardis_envs.make("tardis_run_v0", board=3)


def test_bad_config_files(tmp_path):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("env_id: tardis_run_v0\nrules: {}\n")
    with pytest.raises(ValueError, match="unknown key 'rules'"):
        tardis_envs.make("tardis_run_v0", config=cfg)
    cfg.write_text("env_id: keys_to_the_tardis_v0\n")
    with pytest.raises(ValueError, match="is for 'keys_to_the_tardis_v0'"):
        tardis_envs.make("tardis_run_v0", config=cfg)
    cfg.write_text("options: [1, 2]\n")
    with pytest.raises(ValueError, match="'options' must be a mapping"):
        tardis_envs.make("tardis_run_v0", config=cfg)
    cfg.write_text("options: {max_turns: -4}\n")
    with pytest.raises(ValueError, match="max_turns"):
        tardis_envs.make("tardis_run_v0", config=cfg)
    with pytest.raises(ValueError, match="cannot read config file"):
        tardis_envs.make("tardis_run_v0", config=tmp_path / "missing.yaml")
