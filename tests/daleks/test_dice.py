"""Story dice: faces per colour (exact, by enumeration and by sampling the kernel), matching a Challenge."""

from collections import Counter

import numpy as np
import pytest
from numba import njit
from scipy.stats import chisquare

from tardis_envs.games.daleks import layout as L
from tardis_envs.games.daleks.components.challenge import challenge_met, roll_die, supply_left
from tardis_envs.games.daleks.content import DIE_FACES, SYMBOLS

from .helpers import challenge, new, set_dice

EXPECTED = {
    "black": {"running": 1, "cunning": 1, "diplomacy": 1, "tactics": 1, "science": 1, "strength": 1},
    "green": {"running": 3, "diplomacy": 2, "tactics": 1},
    "blue": {"science": 3, "cunning": 2, "diplomacy": 1},
    "red": {"strength": 3, "tactics": 2, "science": 1},
}


@pytest.mark.parametrize("colour", list(EXPECTED))
def test_die_faces_by_enumeration(colour):
    c = list(EXPECTED).index(colour)
    faces = Counter(SYMBOLS[DIE_FACES[c, k]] for k in range(6))
    assert dict(faces) == EXPECTED[colour]


@njit
def _sample(state, colour, n, out):
    for _ in range(n):
        out[roll_die(state, colour)] += 1


@pytest.mark.parametrize("colour", list(EXPECTED))
def test_rolled_faces_follow_the_table(colour):
    c = list(EXPECTED).index(colour)
    state = new().get_state()
    counts = np.zeros(6, dtype=np.int64)
    n = 60_000
    _sample(state, c, n, counts)
    expected = np.array([EXPECTED[colour].get(s, 0) for s in SYMBOLS]) / 6 * n
    seen = expected > 0
    assert counts[~seen].sum() == 0, "a face the die does not have"
    assert chisquare(counts[seen], expected[seen]).pvalue > 1e-3


def met(helped, symbols, helper=()):
    s = new().get_state()
    set_dice(s, helped, helper)
    challenge(s, symbols)
    return challenge_met(s)


def test_challenge_needs_a_different_die_per_symbol():
    assert met([("black", "running"), ("green", "running")], ["running", "running"])
    assert not met([("black", "running")], ["running", "running"])
    assert met([("blue", "science"), ("red", "strength"), ("black", "cunning")], ["science", "strength"])
    assert not met([("blue", "science"), ("red", "science")], ["science", "strength"])
    assert met([("green", "running")], ["running", "tactics"], helper=[("red", "tactics")]), "both pools count"
    assert met([], []), "an empty challenge is met"


def test_dice_supply_limits_what_a_pool_gathers():
    s = new().get_state()
    s[L.POOL : L.POOL + 8] = 0
    s[L.POOL + 4 + 1] = 2  # the other pool holds two green dice
    assert supply_left(s, new().game.tables, 1, 0) == 1
    assert supply_left(s, new().game.tables, 0, 0) == 8
