"""Paddle odds: exact charts by enumeration through the roll code, and a chi-square check."""

from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from scipy.stats import chisquare

from tardis_envs import vector
from tardis_envs.games.tardis_run.layout import LAST_SEALS, STATE_SIZE
from tardis_envs.games.tardis_run.rules import roll_paddles

from .helpers import rig_paddles

# The paddle ruling (tardis_run_v0 docstring): the rulebook's 5-paddle chart is exact; its 4-paddle chart is
# misprinted and fair paddles give these sixteenths.
FOUR_PADDLES = {0: 1, 1: 2, 2: 3, 3: 4, 4: 3, 5: 2, 6: 1}  # /16
FIVE_PADDLES = {0: 1, 1: 1, 2: 4, 3: 3, 4: 7, 5: 3, 6: 6, 7: 1, 8: 3, 10: 2, 12: 1}  # /32 (rulebook)
RULEBOOK_FOUR_PADDLES_MISPRINT = {0: 1, 1: 2, 2: 3, 3: 5, 4: 2, 5: 2, 6: 1}


def enumerate_roll(use_black: bool) -> dict[int, Fraction]:
    """Every face combination, each rolled by the game's own roll code."""
    n = 5 if use_black else 4
    chart: dict[int, Fraction] = {}
    base = np.zeros(STATE_SIZE, dtype=np.int64)
    for faces in product((0, 1), repeat=n):
        state = rig_paddles(base, faces)
        seals = int(roll_paddles(state, 1 if use_black else 0))
        chart[seals] = chart.get(seals, Fraction(0)) + Fraction(1, 2**n)
    return chart


def test_five_paddle_chart_is_the_rulebooks():
    chart = enumerate_roll(use_black=True)
    assert chart == {k: Fraction(v, 32) for k, v in FIVE_PADDLES.items()}


def test_four_paddle_chart_follows_the_paddles_not_the_misprint():
    chart = enumerate_roll(use_black=False)
    assert chart == {k: Fraction(v, 16) for k, v in FOUR_PADDLES.items()}
    assert chart != {k: Fraction(v, 16) for k, v in RULEBOOK_FOUR_PADDLES_MISPRINT.items()}


def test_first_roll_follows_the_four_paddle_distribution():
    """Monsters' first roll (no black paddle yet) over 8,000 seeds, chi-square."""
    games = 8000
    vec = vector.make("tardis_run_v0", games, seed=1000)
    _, masks, _ = vec.reset()
    vec.step(np.zeros(games, dtype=np.int64))  # move piece 1, no black paddle
    seals = vec.states[:, LAST_SEALS]
    observed = np.array([np.sum(seals == k) for k in range(7)])
    assert observed.sum() == games
    expected = np.array([FOUR_PADDLES[k] for k in range(7)]) * games / 16
    statistic, p_value = chisquare(observed, expected)
    assert p_value > 1e-3, (observed, expected, statistic)
    # and the misprinted chart is rejected by the same data
    misprint = np.array([RULEBOOK_FOUR_PADDLES_MISPRINT[k] for k in range(7)]) * games / 16
    assert chisquare(observed, misprint)[1] < 1e-6


@pytest.mark.parametrize("use_black", [False, True])
def test_black_paddle_faces(use_black):
    base = np.zeros(STATE_SIZE, dtype=np.int64)
    # white 3 (1 + 2) with the black paddle on "1 seal" -> 4, on "2x" -> 6
    for black_face, expected in ((1, 4), (0, 6)):
        state = rig_paddles(base, (1, 0, 1, 0, black_face))
        got = int(roll_paddles(state, 1 if use_black else 0))
        assert got == (expected if use_black else 3)
