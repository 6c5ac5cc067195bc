"""``tardis-envs play``: the seat's own hand and nothing of the others', the help command,
--num-players, the numbered actions and the first-run compile notice."""

import builtins

import numba
import pytest

import tardis_envs
from tardis_envs.cli import main
from tardis_envs.core import jit
from tardis_envs.games.keys.render import hand_words

DALEKS = next(e for e in tardis_envs.ENV_IDS if e.startswith("time_of_the_daleks"))  # the current version's id


def play(monkeypatch, capsys, *args, typed=("q",)):
    """Run ``tardis-envs play`` with ``typed`` as the lines the player types; (rc, out, err)."""
    lines = iter(typed)

    def fake_input(prompt=""):
        print(prompt, end="")
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr(builtins, "input", fake_input)
    rc = main(["play", *args])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def test_keys_shows_the_own_hand_and_never_another_seats(monkeypatch, capsys):
    env = tardis_envs.make("keys_to_the_tardis_v0")
    env.reset(seed=0)
    players = env.unwrapped.describe()["players"]
    rc, out, _ = play(monkeypatch, capsys, "keys_to_the_tardis_v0", "--seat", "0", "--seed", "0", "--opponent", "random")
    assert rc == 0
    assert f"Your hand (south): {hand_words(players['south']['hand'])}" in out
    assert players["north"]["hand"] != players["south"]["hand"]
    assert hand_words(players["north"]["hand"]) not in out and "Your hand (north)" not in out


def test_daleks_shows_the_own_cards_with_their_text_and_not_the_team_mates(monkeypatch, capsys):
    env = tardis_envs.make(DALEKS)
    env.reset(seed=0)
    doctors = env.unwrapped.describe()["doctors"]
    texts = {card.name: card.text for card in env.unwrapped.game.content.cards}
    rc, out, _ = play(monkeypatch, capsys, DALEKS, "--seat", "0", "--seed", "0")
    assert rc == 0 and "Your hand (player_0):" in out
    for card in doctors["player_0"]["hand"]:
        assert f"  {card}: {texts[card]}" in out
    hidden = set(doctors["player_1"]["hand"]) - set(doctors["player_0"]["hand"])
    assert hidden and not any(card in out for card in hidden)


def test_help_command_explains_the_actions_and_asks_again(monkeypatch, capsys):
    rc, out, _ = play(monkeypatch, capsys, "tardis_run_v0", "--seat", "0", "--seed", "1", typed=("?", "help", "q"))
    assert rc == 0
    assert out.count("take extra move       your move ended on a shortcut arrow (>n) or a teleport (Tn)") == 2
    assert out.count("Your actions (type the number on the left):") == 1  # help does not play a move
    assert "'?' or 'help' explains the actions" in out


def test_every_game_has_play_help():
    for env_id in tardis_envs.ENV_IDS:
        game = tardis_envs.make(env_id).unwrapped.game
        assert len(game.drawing.PLAY_HELP.splitlines()) >= 5, env_id


def test_actions_are_numbered_with_a_hint_and_a_wrong_entry_says_how(monkeypatch, capsys):
    rc, out, _ = play(monkeypatch, capsys, "tardis_run_v0", "--seat", "0", "--seed", "1", typed=("99", "q"))
    assert rc == 0
    assert "Your actions (type the number on the left):\n    0: move piece 1" in out
    assert "'99' is not one of the actions listed above (type a number from the list; '?' explains the actions)" in out


def test_num_players_sets_the_table(monkeypatch, capsys):
    rc, out, _ = play(monkeypatch, capsys, "keys_to_the_tardis_v0", "--num-players", "3", "--seat", "2", "--seed", "0")
    assert rc == 0
    assert "You play north (seat 2)" in out and "- 3 players" in out and "your opponents" in out


@pytest.mark.parametrize(("env_id", "players", "allowed"), [("tardis_run_v0", "3", "2"), ("keys_to_the_tardis_v0", "5", "2-4")])
def test_num_players_out_of_range_is_one_line(monkeypatch, capsys, env_id, players, allowed):
    rc, out, err = play(monkeypatch, capsys, env_id, "--num-players", players)
    assert rc == 2 and out == ""
    assert err == f"tardis-envs: error: --num-players {players}: {env_id} is for {allowed} players\n"


def test_cold_cache_notice(monkeypatch, capsys):
    monkeypatch.setattr(jit, "kernels_cached", lambda path: False)
    _, _, err = play(monkeypatch, capsys, "tardis_run_v0", "--seed", "0")
    seconds = tardis_envs.env_module("tardis_run_v0").SPEC.first_run_seconds
    assert f"compiling tardis_run_v0's kernels, first run only (about {seconds} s on 2 cores)" in err
    monkeypatch.setattr(jit, "kernels_cached", lambda path: True)
    _, _, err = play(monkeypatch, capsys, "tardis_run_v0", "--seed", "0")
    assert "compiling" not in err


def test_every_game_has_a_first_run_estimate():
    assert all(tardis_envs.env_module(env_id).SPEC.first_run_seconds > 0 for env_id in tardis_envs.ENV_IDS)


def test_kernels_cached_looks_where_numba_writes(monkeypatch, tmp_path):
    import hashlib
    import os

    import tardis_envs.games.tardis_run.game as module

    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))
    assert not jit.kernels_cached(module.__file__)
    folder = os.path.dirname(os.path.abspath(module.__file__))
    where = tmp_path / f"tardis_run_{hashlib.sha1(folder.encode()).hexdigest()}"
    where.mkdir()
    (where / "rules.step-10.py311.nbi").write_bytes(b"")
    assert jit.kernels_cached(module.__file__)
