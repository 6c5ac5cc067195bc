"""Bradley–Terry strengths from pairwise results, reported on the Elo scale.

``P(i beats j) = s_i / (s_i + s_j)``. The fit is Hunter's (2004) MM iteration
with draws counted as half a win each, plus one virtual draw of every agent
against an average player (strength 1) so that an unbeaten or winless agent
still gets a finite rating. Ratings are ``400 log10(s)`` shifted so that their
mean is 1500.
"""

from __future__ import annotations

import numpy as np


def bradley_terry(wins: np.ndarray, iterations: int = 10_000, tolerance: float = 1e-10) -> np.ndarray:
    """Strengths from ``wins[i, j]`` = points of i against j (a draw gives each 0.5)."""
    wins = np.asarray(wins, dtype=np.float64)
    k = wins.shape[0]
    games = wins + wins.T
    strength = np.ones(k)
    for _ in range(iterations):
        # virtual draw against a strength-1 player: +0.5 win, one more game
        numerator = wins.sum(axis=1) + 0.5
        pair = games / (strength[:, None] + strength[None, :])
        np.fill_diagonal(pair, 0.0)
        denominator = pair.sum(axis=1) + 1.0 / (strength + 1.0)
        new = numerator / denominator
        new /= np.exp(np.mean(np.log(new)))
        if np.max(np.abs(np.log(new) - np.log(strength))) < tolerance:
            strength = new
            break
        strength = new
    return strength


def elo(strengths: np.ndarray) -> np.ndarray:
    ratings = 400.0 * np.log10(strengths)
    return ratings - ratings.mean() + 1500.0
