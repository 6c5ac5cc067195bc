"""Helpers shared by the test modules."""

import numpy as np


def random_legal(rng, mask):
    legal = np.flatnonzero(mask)
    assert legal.size > 0, "empty mask in a live game"
    return int(legal[rng.integers(legal.size)])
