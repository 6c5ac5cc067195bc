"""Scripted TARDIS Run positions (default board) against the rulebook and the rulings.

Squares: Doctors at progress p stand on square p; Monsters on square 29 - p.
Arrows 5->10, 10->5, 19->24, 24->19; teleports 7<->22.

    row 4  28 27 26 25 24> 23 22T     (Monsters enter at 28)
    row 3  15 16 17 18 19> 20 21
    row 2  14 13 12 11 10> 9  8
    row 1   1  2  3  4  5> 6  7T      (Doctors enter at 1)
"""

import numpy as np
import pytest

from tardis_envs.games.tardis_run import layout
from tardis_envs.games.tardis_run.game import ACTION_NAMES

from .helpers import WHITE_FACES_FOR, new_env, setup

M = 29  # Monster progress = M - square


def move(env, text):
    env.step(env.unwrapped.string_to_action(text))


def pieces(env, side):
    return [p["square"] if p["where"] == "track" else p["where"] for p in env.unwrapped.describe()["pieces"][side]]


def test_monsters_move_first():
    env = new_env()
    assert env.agent_selection == "monsters"
    assert env.unwrapped.describe()["current_player"] == "monsters"


def test_capture_sends_a_single_opponent_home():
    env = new_env()
    setup(env, WHITE_FACES_FOR[2], doctors=[1], monsters=[M - 3], to_move="doctors")
    move(env, "move piece 1")
    assert pieces(env, "doctors")[0] == 3
    assert pieces(env, "monsters").count("home") == 4
    last = env.unwrapped.describe()["last_roll"]
    assert last["outcome"] == "moved" and last["captures"] == 1 and last["seals"] == 2
    assert env.agent_selection == "monsters"


def test_landing_on_a_friend_stacks():
    env = new_env()
    setup(env, WHITE_FACES_FOR[2], doctors=[3, 1], to_move="doctors")
    move(env, "move piece 2")  # the piece on square 1
    assert pieces(env, "doctors")[:2] == [3, 3]
    mask = env.observe("doctors")["action_mask"]
    # stacked pieces are interchangeable: only one of them is offered
    env.unwrapped.set_state(setup(env, None, doctors=[3, 3], to_move="doctors").get_state())
    mask = env.observe("doctors")["action_mask"]
    assert mask[0] == 1 and mask[2] == 0 and mask[4] == 1  # rank 0 (the pair), rank 2 (home group)


@pytest.mark.parametrize("occupants", ["monsters", "doctors", "mixed"])
def test_move_onto_two_pieces_is_cancelled(occupants):
    env = new_env()
    if occupants == "monsters":
        position = dict(doctors=[2], monsters=[M - 4, M - 4])
    elif occupants == "doctors":
        position = dict(doctors=[4, 4, 2])
    else:  # cannot happen in play (no mixed stacks) but two pieces is two pieces
        position = dict(doctors=[4, 2], monsters=[M - 4])
    if occupants == "mixed":
        with pytest.raises(ValueError, match="piece progress at index .*, expected at most two pieces on a square, both of one side"):
            setup(env, None, to_move="doctors", **position)
        return
    setup(env, WHITE_FACES_FOR[2], to_move="doctors", **position)
    mover_rank = 0 if occupants == "monsters" else 2
    move(env, f"move piece {mover_rank + 1}")
    assert 2 in pieces(env, "doctors")
    assert env.unwrapped.describe()["last_roll"]["outcome"] == "cancelled"
    assert env.agent_selection == "monsters"


def test_shortcut_taken():
    env = new_env()
    setup(env, WHITE_FACES_FOR[2], doctors=[3], to_move="doctors")
    move(env, "move piece 1")
    info = env.unwrapped.describe()
    assert info["phase"] == "extra_move" and env.agent_selection == "doctors"
    assert info["pending_extra_move"] == {"square": 5, "target": 10, "kind": "shortcut"}
    assert np.flatnonzero(env.observe("doctors")["action_mask"]).tolist() == [layout.TAKE_EXTRA, layout.DECLINE_EXTRA]
    move(env, "take extra move")
    assert pieces(env, "doctors")[0] == 10
    assert env.unwrapped.describe()["last_roll"]["extra_move"] == "taken"
    assert env.agent_selection == "monsters"


def test_shortcut_declined():
    env = new_env()
    setup(env, WHITE_FACES_FOR[2], doctors=[3], to_move="doctors")
    move(env, "move piece 1")
    move(env, "decline extra move")
    assert pieces(env, "doctors")[0] == 5
    assert env.unwrapped.describe()["last_roll"]["extra_move"] == "declined"
    assert env.agent_selection == "monsters"


def test_backward_arrow_is_open_to_both_sides_and_extra_moves_do_not_chain():
    env = new_env()
    # Doctors may take the arrow 10 -> 5 although it points back; landing on 5
    # (itself an arrow) offers nothing more.
    setup(env, WHITE_FACES_FOR[1], doctors=[9], to_move="doctors")
    move(env, "move piece 1")
    move(env, "take extra move")
    assert pieces(env, "doctors")[0] == 5
    assert env.unwrapped.describe()["phase"] == "choose_piece"
    assert env.agent_selection == "monsters"
    # Monsters use 24 -> 19, toward their exit.
    setup(env, WHITE_FACES_FOR[1], monsters=[M - 25], to_move="monsters")
    move(env, "move piece 1")
    move(env, "take extra move")
    assert pieces(env, "monsters")[0] == 19


def test_extra_move_onto_two_pieces_is_cancelled():
    env = new_env()
    setup(env, WHITE_FACES_FOR[2], doctors=[3], monsters=[M - 10, M - 10], to_move="doctors")
    move(env, "move piece 1")
    move(env, "take extra move")
    assert pieces(env, "doctors")[0] == 5
    assert env.unwrapped.describe()["last_roll"]["extra_move"] == "cancelled"
    assert pieces(env, "monsters")[:2] == [10, 10]


def test_teleport_captures_on_both_landings():
    env = new_env()
    setup(env, WHITE_FACES_FOR[3], doctors=[4], monsters=[M - 7, M - 22], to_move="doctors")
    move(env, "move piece 1")
    assert pieces(env, "monsters").count("home") == 3  # captured on square 7
    assert env.unwrapped.describe()["pending_extra_move"]["kind"] == "teleport"
    move(env, "take extra move")
    assert pieces(env, "doctors")[0] == 22
    assert pieces(env, "monsters").count("home") == 4  # and again on square 22
    last = env.unwrapped.describe()["last_roll"]
    assert last["captures"] == 1 and last["extra_move_captures"] == 1


def test_cancelled_move_offers_no_extra_move():
    env = new_env()
    setup(env, WHITE_FACES_FOR[2], doctors=[3], monsters=[M - 5, M - 5], to_move="doctors")
    move(env, "move piece 1")
    assert env.unwrapped.describe()["phase"] == "choose_piece"
    assert env.agent_selection == "monsters"


def test_zero_claims_the_unclaimed_black_paddle():
    env = new_env()
    setup(env, WHITE_FACES_FOR[0], doctors=[3], to_move="doctors")
    move(env, "move piece 1")
    info = env.unwrapped.describe()
    assert info["black_paddle_owner"] == "doctors"
    assert info["last_roll"]["outcome"] == "claimed the black paddle"
    assert pieces(env, "doctors")[0] == 3  # nothing moves


def test_zero_steals_the_black_paddle():
    env = new_env()
    setup(env, WHITE_FACES_FOR[0], doctors=[3], black_paddle_owner="monsters", to_move="doctors")
    assert env.observe("doctors")["action_mask"][1] == 0  # cannot roll a paddle it does not hold
    move(env, "move piece 1")
    info = env.unwrapped.describe()
    assert info["black_paddle_owner"] == "doctors"
    assert info["last_roll"]["outcome"] == "stole the black paddle"
    assert pieces(env, "doctors")[0] == 3


@pytest.mark.parametrize("with_black", [False, True])
def test_zero_while_holding_the_black_paddle_sends_the_piece_home(with_black):
    env = new_env()
    faces = WHITE_FACES_FOR[0] + ((0,) if with_black else ())  # "2x" on zero white seals is zero
    setup(env, faces, doctors=[12, 3], black_paddle_owner="doctors", to_move="doctors")
    move(env, "move piece 1 with black paddle" if with_black else "move piece 1")
    info = env.unwrapped.describe()
    assert info["last_roll"]["outcome"] == "sent home" and info["last_roll"]["seals"] == 0
    assert pieces(env, "doctors")[:2] == [3, "home"]
    assert info["black_paddle_owner"] == "doctors"


def test_black_paddle_doubles_white_seals():
    env = new_env()
    setup(env, WHITE_FACES_FOR[3] + (0,), doctors=[1], black_paddle_owner="doctors", to_move="doctors")
    move(env, "move piece 1 with black paddle")
    assert env.unwrapped.describe()["last_roll"]["seals"] == 6
    assert pieces(env, "doctors")[0] == 7


def test_escaping_with_an_overshoot():
    env = new_env()
    setup(env, WHITE_FACES_FOR[6], doctors=[27, 1], to_move="doctors")
    move(env, "move piece 1")
    assert pieces(env, "doctors")[0] == "escaped"
    assert env.unwrapped.describe()["last_roll"]["outcome"] == "escaped"
    # an escaped piece is never offered again
    setup(env, None, doctors=[29, 1], to_move="doctors")
    assert np.flatnonzero(env.observe("doctors")["action_mask"]).tolist() == [2, 4]


def test_all_out_without_the_black_paddle_does_not_win():
    env = new_env()
    setup(env, WHITE_FACES_FOR[2], doctors=[29, 29, 29, 27], black_paddle_owner="monsters", to_move="doctors")
    move(env, "move piece 4")  # the last piece escapes
    info = env.unwrapped.describe()
    assert info["status"] == "running" and info["winner"] is None
    env.step(0)  # the Monsters move
    assert env.agent_selection == "doctors"
    assert np.flatnonzero(env.observe("doctors")["action_mask"]).tolist() == [layout.ROLL]
    # a non-zero roll does nothing; a zero claims the paddle and wins
    env.unwrapped.set_state(setup(env, WHITE_FACES_FOR[4], doctors=[29] * 4, black_paddle_owner="monsters", to_move="doctors").get_state())
    move(env, "roll")
    assert env.unwrapped.describe()["last_roll"]["outcome"] == "rolled only"
    assert env.unwrapped.describe()["status"] == "running"
    setup(env, WHITE_FACES_FOR[0], doctors=[29] * 4, black_paddle_owner="monsters", to_move="doctors")
    move(env, "roll")
    info = env.unwrapped.describe()
    assert info["status"] == "terminated" and info["winner"] == "doctors"
    assert env.rewards == {"monsters": -1.0, "doctors": 1.0}


def test_escaping_the_last_piece_with_the_black_paddle_wins_at_once():
    env = new_env()
    setup(env, WHITE_FACES_FOR[2], monsters=[29, 29, 29, 27], black_paddle_owner="monsters", to_move="monsters")
    move(env, "move piece 4")
    info = env.unwrapped.describe()
    assert info["winner"] == "monsters" and info["status"] == "terminated"
    assert all(env.terminations.values())
    assert env.rewards == {"monsters": 1.0, "doctors": -1.0}


def test_max_turns_truncates_as_a_draw():
    env = new_env(max_turns=3)
    for _ in range(3):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
        if env.unwrapped.describe()["phase"] == "extra_move":
            move(env, "decline extra move")
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.unwrapped.describe()["turn"] == 3
    assert all(r == 0 for r in env.rewards.values())


def test_action_names_read_like_table_talk():
    assert ACTION_NAMES[0] == "move piece 1"
    assert ACTION_NAMES[1] == "move piece 1 with black paddle"
    assert ACTION_NAMES[layout.ROLL] == "roll"
    assert ACTION_NAMES[layout.TAKE_EXTRA] == "take extra move"


def test_observation_is_from_the_observers_side():
    env = new_env()
    setup(env, None, doctors=[3], monsters=[M - 10], black_paddle_owner="doctors", to_move="doctors")
    width = 30
    doc = env.observe("doctors")["observation"]
    mon = env.observe("monsters")["observation"]
    assert doc.shape == (layout.NUM_PLANES, width)
    assert doc[layout.OBS_OWN_PIECE, 3] == 1  # own leader at progress 3
    assert doc[layout.OBS_OPPONENT_PIECE, 10] == 1  # monster on square 10 = doctors' column 10
    assert mon[layout.OBS_OWN_PIECE, M - 10] == 1
    assert mon[layout.OBS_OPPONENT_PIECE, M - 3] == 1
    assert doc[layout.OBS_HOLD_BLACK].all() and not doc[layout.OBS_OPPONENT_HOLDS_BLACK].any()
    assert mon[layout.OBS_OPPONENT_HOLDS_BLACK].all()
    # arrows: doctors see 5 -> 10 as +5 squares; monsters see square 5 at their column 24
    assert doc[layout.OBS_ARROW, 5] == 1 and doc[layout.OBS_ARROW_SHIFT, 5] == pytest.approx(5 / 28)
    assert mon[layout.OBS_ARROW, M - 5] == 1 and mon[layout.OBS_ARROW_SHIFT, M - 5] == pytest.approx(-5 / 28)
    # home pieces of the opponent sit past the exit, at column L + 1
    assert doc[layout.OBS_OPPONENT_PIECE + 1, 29] == 1


def test_position_builder_validates():
    env = new_env()
    game = env.unwrapped.game
    with pytest.raises(ValueError, match="piece progress at index .* is 5, expected at most two pieces on a square"):
        game.position(doctors=[5, 5, 5])
    with pytest.raises(ValueError, match="4 pieces"):
        game.position(doctors=[1, 2, 3, 4, 5])
    with pytest.raises(ValueError, match=r"piece progress at index .* is 40, expected 0 \(home\) .. track length \+ 1"):
        game.position(doctors=[40])
