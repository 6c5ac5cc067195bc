"""Win rates with 95% intervals (Wilson score interval)."""

from __future__ import annotations

import math


def wilson_interval(successes: float, trials: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (well-behaved near 0 and 1)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denom = 1.0 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    # the bounds are exactly 0 with no successes and 1 with no failures; the formula's
    # rounding leaves ~1e-18 there (8.67e-19 for 0 of 400), which would reach the CSV files
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= trials else min(1.0, centre + half)
    return (low, high)
