"""The real clock, sleep and randomness, injected into services by the container (tests inject fakes)."""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime

from hookline.core.backoff import RandomSource

SYSTEM_RANDOM: RandomSource = random.SystemRandom()
sleep = time.sleep
monotonic = time.monotonic


def utcnow() -> datetime:
    return datetime.now(UTC)
