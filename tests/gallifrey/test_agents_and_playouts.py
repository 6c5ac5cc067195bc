"""The duel heuristic's rules of thumb, its results against random, and random playouts."""

import numpy as np
import pytest

from agents import make_agent
from agents.tournament import play_match
from tardis_envs import gallifrey_duel_v1, vector
from tardis_envs.core.state import RUNNING, STATUS
from tardis_envs.games.gallifrey import heuristic, layout, rules
from tardis_envs.games.gallifrey.content import DECK_SIZE
from tardis_envs.games.gallifrey.layout import F_FORCED, F_INJURIES, side

from .test_rules import game, start


def choice(g, state):
    return g.action_to_string(state, int(heuristic.choose(state, g.tables, heuristic.DEFAULT_WEIGHTS)))


def test_strongest_aspects_most_severe_condition_no_card_when_ahead():
    g = game("Dalek, Companion", mode="climactic", threat="dangerous")
    assert choice(g, start(g)) == "attack with dynamism, defend with stasis, fight to wound, no card"
    g = game("The Doctor, Companion", mode="climactic", threat="deadly")
    assert choice(g, start(g)) == "attack with memory, defend with foresight, fight to kill, no card, edge"


def test_draws_when_behind_and_saves_the_acquired_card_for_a_decisive_exchange():
    g = game("The Doctor, Dalek", mode="climactic", threat="dangerous")
    state = start(g)
    # the Dalek's Dynamism 9 gets through the Doctor's Foresight 8; the Doctor's Memory 8 does not beat Stasis 9
    assert "draw a time card" in choice(g, state)
    state[side(0, F_INJURIES)] = 5  # two from out of action (Stasis 7): decisive
    assert "acquired card 1 (The TARDIS) upright" in choice(g, state)
    g = game("The Doctor, Auton", mode="climactic", threat="dangerous")
    state = start(g)
    assert "no card" in choice(g, state)  # neither side gets through: not behind
    state[side(0, F_FORCED)] = 1  # not decisive: the draw the GM insists on is a plain draw
    assert "draw a time card" in choice(g, state)


def test_contest_roles():
    g = game("UNIT Soldier, Companion", mode="contest")
    state = start(g)
    text = choice(g, state)
    assert text.startswith("attack with dynamism, defend with stasis") and int(
        heuristic.choose(state, g.tables, heuristic.DEFAULT_WEIGHTS)
    ) in g.legal_actions(state)


@pytest.mark.parametrize("mode", ["contest", "dramatic", "climactic"])
def test_heuristic_beats_random_over_random_pairings(mode):
    g = gallifrey_duel_v1.Game(mode=mode)
    agents = [make_agent("heuristic", g), make_agent("random", g, seed=1)]
    result = play_match("gallifrey_duel_v1", agents, ["heuristic", "random"], 1000, seed=2, options={"mode": mode})
    record = result.record(0)
    assert record["games"] == 1000 and record["ci_low"] > 0.55, record


def test_random_playouts_keep_invariants():
    games = 64
    vec = vector.make("gallifrey_duel_v1", games, seed=4)
    rng = np.random.default_rng(0)
    _, masks, _ = vec.reset()
    finished = 0
    g = vec.game
    for _ in range(400):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, masks, _, rewards, terminated, truncated = vec.step(actions)
        finished += int((terminated | truncated).sum())
        assert (rewards.sum(axis=1) == 0).all()  # zero-sum
        for state in vec.states:
            g.check_state(state)
            assert state[STATUS] == RUNNING
            assert sorted(state[layout.DECK : layout.DECK + DECK_SIZE]) == list(range(DECK_SIZE))
            for s in range(2):
                stasis = rules.base_aspect(state, g.tables, s, 2)
                assert 0 <= state[side(s, F_INJURIES)] and (stasis < 10 or state[side(s, F_INJURIES)] == 0)
                assert state[side(s, layout.F_DEFEAT)] == 0  # a running fight has nobody defeated
    assert finished > 100
