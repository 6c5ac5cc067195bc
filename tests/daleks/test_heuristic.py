"""The heuristic Doctor: it plays legally, wins as a team, reads only what its seat may know,
and takes the dice decisions the exact odds call for."""

import numpy as np

from tardis_envs.core.state import CURRENT_PLAYER, RUNNING, STATUS
from tardis_envs.games.daleks import heuristic as H
from tardis_envs.games.daleks import layout as L
from tardis_envs.games.daleks import rules

from .helpers import adventure, clear_hand, hide_differently, new, put, set_companions


def team_games(num_players, games, seed=0):
    raw = new(num_players=num_players)
    game = raw.game
    wins = 0
    for g in range(games):
        s = game.new_state(seed + g)
        while s[STATUS] == RUNNING:
            action = H.choose(s, game.tables, H.DEFAULT_WEIGHTS)
            mask = np.zeros(L.NUM_ACTIONS, dtype=np.int8)
            rules.legal_mask(s, game.tables, mask)
            assert mask[action], "the heuristic chose an illegal action"
            rules.step(s, game.tables, action)
        wins += s[L.WINNER] == L.WIN_DOCTORS
    return wins


def test_a_pair_of_heuristic_doctors_wins_often():
    wins = team_games(2, 200)
    assert wins >= 70, f"{wins}/200: the balance target is 35-65% for two heuristic Doctors"


def test_it_reads_only_what_its_seat_may_know():
    raw = new(num_players=3)
    game = raw.game
    rng = np.random.default_rng(0)
    checked = 0
    for g in range(40):
        s = game.new_state(500 + g)
        for _ in range(int(rng.integers(5, 60))):
            if s[STATUS] != RUNNING:
                break
            rules.step(s, game.tables, H.choose(s, game.tables, H.DEFAULT_WEIGHTS))
        if s[STATUS] != RUNNING:
            continue
        changed = hide_differently(s, (int(s[CURRENT_PLAYER]) + 1) % 3)
        assert H.choose(s, game.tables, H.DEFAULT_WEIGHTS) == H.choose(changed, game.tables, H.DEFAULT_WEIGHTS)
        checked += 1
    assert checked >= 10


def test_it_buys_the_face_change_that_completes_the_challenge():
    raw = new()
    s = adventure(raw, L.S_MANIPULATE, helped=[("black", "running"), ("red", "strength")], symbols=["strength", "science"], sonic=3)
    clear_hand(s, 0)
    put(raw, s)
    action = H.choose(raw.get_state(), raw.game.tables, H.DEFAULT_WEIGHTS)
    assert raw.action_to_string(action) == "turn black die 1 (running) to science for 3 sonic"


def test_it_rerolls_only_dice_that_do_not_help():
    raw = new(doctors="Eleventh Doctor, Twelfth Doctor")
    s = adventure(
        raw,
        L.S_MANIPULATE,
        helped=[("black", "science"), ("black", "running"), ("black", "running")],
        symbols=["science", "strength", "strength"],
        sonic=0,
    )
    set_companions(s, 0, ["Amy Pond"])
    clear_hand(s, 0)
    put(raw, s)
    action = H.choose(raw.get_state(), raw.game.tables, H.DEFAULT_WEIGHTS)
    assert raw.action_to_string(action) == "use eleventh doctor: re-roll up to 2 black dice"
    raw.step(action)
    picks = set()
    while raw.get_state()[L.STAGE] == L.S_SELECT:
        action = H.choose(raw.get_state(), raw.game.tables, H.DEFAULT_WEIGHTS)
        picks.add(raw.action_to_string(action))
        raw.step(action)
    assert "choose black die 1 (science)" not in picks, "the Science die is kept"


def test_it_stops_when_nothing_is_worth_its_cost():
    raw = new()
    s = adventure(raw, L.S_MANIPULATE, helped=[("black", "running")], symbols=["strength"] * 5, sonic=0)
    clear_hand(s, 0)
    put(raw, s)
    options = raw.legal_actions()
    action = H.choose(raw.get_state(), raw.game.tables, H.DEFAULT_WEIGHTS)
    assert action in options
    assert raw.action_to_string(action) == "stop"
