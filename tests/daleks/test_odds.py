"""The exact odds helper against brute-force enumeration of every roll."""

import itertools

import numpy as np
import pytest

from tardis_envs.games.daleks.content import DIE_FACES
from tardis_envs.games.daleks.odds import meet_probability, pool_probability


def brute(fixed, roll, need):
    colours = [c for c in range(4) for _ in range(roll[c])]
    hits = 0
    for faces in itertools.product(range(6), repeat=len(colours)):
        counts = np.array(fixed, dtype=np.int64).copy()
        for c, f in zip(colours, faces):
            counts[DIE_FACES[c, f]] += 1
        hits += bool((counts >= need).all())
    return hits / 6 ** len(colours)


CASES = [
    ((0, 0, 0, 0, 0, 0), (1, 0, 0, 0), (1, 0, 0, 0, 0, 0)),
    ((0, 0, 0, 0, 0, 0), (2, 1, 1, 1), (1, 0, 1, 0, 1, 1)),
    ((1, 0, 0, 0, 0, 0), (1, 2, 0, 1), (2, 1, 0, 1, 0, 0)),
    ((0, 0, 0, 0, 0, 0), (3, 1, 1, 1), (4, 1, 0, 1, 0, 0)),  # the Weeping Angels at Mars Future
    ((0, 2, 0, 0, 0, 0), (2, 0, 2, 1), (0, 2, 1, 0, 2, 1)),
    ((0, 0, 0, 0, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0, 0, 0)),
    ((0, 0, 0, 0, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0, 0, 0)),
]


@pytest.mark.parametrize("fixed, roll, need", CASES)
def test_meet_probability_equals_brute_force(fixed, roll, need):
    args = [np.array(x, dtype=np.int64) for x in (fixed, roll, need)]
    assert meet_probability(*args) == pytest.approx(brute(fixed, roll, need), abs=1e-12)


def test_random_pools_against_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(40):
        roll = rng.multinomial(rng.integers(1, 6), [0.4, 0.2, 0.2, 0.2])
        need = rng.multinomial(rng.integers(1, 5), [1 / 6] * 6)
        fixed = rng.multinomial(rng.integers(0, 2), [1 / 6] * 6)
        args = [np.array(x, dtype=np.int64) for x in (fixed, roll, need)]
        assert meet_probability(*args) == pytest.approx(brute(fixed, roll, need), abs=1e-12)


def test_pool_probability_known_values():
    need = np.array([1, 0, 0, 0, 0, 0], dtype=np.int64)
    assert pool_probability(np.array([1, 0, 0, 0]), need) == pytest.approx(1 / 6)
    assert pool_probability(np.array([0, 1, 0, 0]), need) == pytest.approx(1 / 2)
    assert pool_probability(np.array([0, 2, 0, 0]), need) == pytest.approx(3 / 4)


def test_describe_reports_the_exact_odds_of_the_adventure():
    from tardis_envs.games.daleks import layout as L

    from .helpers import adventure, new, put

    raw = new()
    s = adventure(
        raw,
        L.S_MANIPULATE,
        helped=[("black", "science"), ("blue", "cunning"), ("red", "running")],
        symbols=["science", "strength", "strength"],
    )
    put(raw, s)
    # kept: the science die; re-rolled once: blue and red, which must both show strength
    assert raw.describe()["adventure"]["odds"] == pytest.approx(brute((0, 0, 0, 0, 1, 0), (0, 0, 1, 1), (0, 0, 0, 0, 1, 2)), abs=1e-6)
    s[L.DIE_COLOUR : L.DIE_COLOUR + 16] = -1
    s[L.POOL : L.POOL + 8] = [2, 1, 0, 1, 0, 0, 0, 0]
    s[L.STAGE] = L.S_POOL
    put(raw, s)
    assert raw.describe()["adventure"]["odds"] == pytest.approx(brute((0,) * 6, (2, 1, 0, 1), (0, 0, 0, 0, 1, 2)), abs=1e-6)
