"""Bad input refused at once with one line naming what is wrong, and the envs' answers
to illegal actions where a game is cooperative or simultaneous."""

import numpy as np
import pytest

import tardis_envs
from tardis_envs import gallifrey_duel_v1, vector


def test_vector_make_checks_its_seed_at_once():
    for seed in (True, -1, 1.5, "7"):
        with pytest.raises(ValueError, match="seed must be a non-negative int or None, got"):
            vector.make("tardis_run_v0", 2, seed=seed)
    vec = vector.make("tardis_run_v0", 2, seed=np.int64(3))
    assert vec.seed == 3 and type(vec.seed) is int
    with pytest.raises(ValueError, match="seed must be a non-negative int or None, got True"):
        vec.reset(seed=True)


def test_options_take_numpy_numbers_and_refuse_bools():
    env = tardis_envs.make("tardis_run_v0", max_turns=np.int64(5))
    assert env.unwrapped.game.options["max_turns"] == 5 and type(env.unwrapped.game.options["max_turns"]) is int
    duel = tardis_envs.make("gallifrey_duel_v1", forced_draw_p=np.float32(0.5), max_exchanges=np.int32(9))
    assert duel.unwrapped.game.options["forced_draw_p"] == 0.5
    for bad in (True, np.True_):
        with pytest.raises(ValueError, match=r"option 'max_turns' got (np\.)?True_?; expected a int"):
            tardis_envs.make("tardis_run_v0", max_turns=bad)
    keys = tardis_envs.make("keys_to_the_tardis_v0", reveal_tiles=np.True_)
    assert keys.unwrapped.game.options["reveal_tiles"] is True


def test_illegal_action_in_the_cooperative_game_costs_the_whole_team():
    env = tardis_envs.make("time_of_the_daleks_v2", num_players=3)
    env.reset(seed=0)
    offender = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(offender)["action_mask"] == 0)[0])
    with pytest.warns(UserWarning, match="every seat gets -1"):
        env.step(illegal)
    assert env._cumulative_rewards == {agent: -1.0 for agent in env.possible_agents}
    raw = env.unwrapped
    assert raw.describe()["illegal_action_by"] == offender
    assert f"illegal action by {offender} (every seat -1: the team shares the outcome)" in raw.game.render_ansi(raw.get_state())
    raw.set_state(raw.get_state())
    assert raw.describe()["illegal_action_by"] == offender


def test_parallel_step_with_two_illegal_actions_blames_both():
    par = gallifrey_duel_v1.parallel_env(illegal_action="raise")
    obs, _ = par.reset(seed=1)
    illegal = {agent: int(np.flatnonzero(obs[agent]["action_mask"] == 0)[0]) for agent in par.agents}
    with pytest.raises(ValueError, match=f"illegal action {illegal['first']} by first.*illegal action {illegal['second']} by second"):
        par.step(illegal)
    par = gallifrey_duel_v1.parallel_env()
    par.reset(seed=1)
    with pytest.warns(UserWarning, match="by first.*by second.*each offender gets -1"):
        _, rewards, terms, _, _ = par.step(illegal)
    assert rewards == {"first": -1.0, "second": -1.0} and all(terms.values())
    words = par.describe()
    assert words["illegal_action_by"] == "first, second" and words["winner"] is None
    assert "illegal action by first, second (first, second -1 each, the others 0)" in par.game.render_ansi(par.get_state())
    par.set_state(par.get_state())  # the stored state keeps both offenders
    assert par.describe()["illegal_action_by"] == "first, second"
    state = par.get_state()
    state[tardis_envs.core.state.ILLEGAL_BY] = -1  # one seat's bit alone is not a valid set of several
    with pytest.raises(ValueError, match="illegal-action word -1"):
        par.set_state(state)


@pytest.mark.parametrize(
    "weights, message",
    [
        ({"random": float("nan")}, "the weight of 'random' must be a finite number >= 0, got nan"),
        ({"random": 1.0, "heuristic": float("inf")}, "the weight of 'heuristic' must be a finite number >= 0, got inf"),
        ({"random": True}, "the weight of 'random' must be a finite number >= 0, got True"),
        ({"randon": 1.0}, "unknown kind 'randon'"),
        ({}, "'opponents' must map"),
        ({"snapshot": 1.0}, "random or heuristic must have a weight > 0"),
    ],
)
def test_opponent_weights_are_checked_in_config_and_pool(weights, message):
    pytest.importorskip("stable_baselines3")
    from agents.training.config import TrainConfig
    from agents.training.selfplay import OpponentPool

    with pytest.raises(ValueError, match=f"train config: opponents: {message}|train config: {message}"):
        TrainConfig.from_dict({"opponents": weights})
    game = tardis_envs.env_module("tardis_run_v0").Game()
    with pytest.raises(ValueError, match=f"OpponentPool: opponents: {message}|OpponentPool: {message}"):
        OpponentPool(game, weights)


def test_action_checks_hold_under_python_O(tmp_path):
    """python -O strips assert statements: the checks of user input are raised instead."""
    import subprocess
    import sys

    code = (
        "import tardis_envs\n"
        "env = tardis_envs.make('tardis_run_v0')\n"
        "env.reset(seed=0)\n"
        "try:\n"
        "    env.step(99)\n"
        "except ValueError as exc:\n"
        "    print('refused:', exc)\n"
    )
    out = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "refused: tardis_run_v0: action 99 by monsters is not in the action space Discrete(" in out.stdout


def test_no_assert_checks_user_input_in_the_package():
    """Every assert left in tardis_envs/ and agents/ states an internal invariant (a narrowing
    for the type checker, a table's size), never a check of what a user handed in."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    internal = {
        ("tardis_envs/core/game.py", "self.tables.dtype == np.int64 and self.tables.ndim == 1"),
        ("tardis_envs/core/game.py", "1 <= self.num_players <= MAX_PLAYERS"),
        ("tardis_envs/core/game.py", "(denominators >= 1).all()"),
        ("tardis_envs/core/game.py", "kinds.size * PLANE_ENTRIES == int(np.prod(self.observation_shape))"),
        ("tardis_envs/core/game.py", "(per_entry == per_entry[:, :1]).all()"),
        ("tardis_envs/core/chance.py", "self.base is not None"),
        ("tardis_envs/games/tardis_run/notation.py", "len(names) == layout.NUM_ACTIONS"),
        ("tardis_envs/games/tardis_run/notation.py", "square is not None"),
        ("tardis_envs/games/chess/notation.py", "found is not None"),
        ("agents/training/train.py", "data is not None"),
        ("agents/training/az_train.py", "data is not None"),
    }
    found = set()
    for folder in ("tardis_envs", "agents"):
        for path in (root / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Assert):
                    found.add((path.relative_to(root).as_posix(), ast.unparse(node.test)))
    assert found <= internal, f"asserts that may check user input (raise instead): {sorted(found - internal)}"


def test_a_binary_config_file_is_refused_naming_the_file(tmp_path, capsys):
    from tardis_envs.cli import main

    binary = tmp_path / "weights.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(ValueError, match=f"config file '{binary}' is not a UTF-8 text file"):
        tardis_envs.make("tardis_run_v0", config=binary)
    assert main(["play", "tardis_run_v0", "--config", str(binary)]) == 2
    err = capsys.readouterr().err
    assert f"config file '{binary}' is not a UTF-8 text file" in err and err.count("\n") == 1
