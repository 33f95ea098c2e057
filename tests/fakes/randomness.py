"""Random sources for `hookline.core.backoff.RandomSource`: reproducible, or pinned to one point of each range."""

from __future__ import annotations

import random


def seeded_random(seed: int = 7) -> random.Random:
    """The same draws on every run."""
    return random.Random(seed)


class FixedRandom:
    """Always draws the same fraction of the range: 0.0 its low end, 1.0 its high end."""

    def __init__(self, fraction: float = 0.0):
        if not 0.0 <= fraction <= 1.0:
            raise ValueError("fraction must be within [0, 1]")
        self.fraction = fraction

    def uniform(self, a: float, b: float) -> float:
        return a + (b - a) * self.fraction
