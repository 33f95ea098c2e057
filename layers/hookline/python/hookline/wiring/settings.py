"""The settings of this process: `Settings` parsed from the environment once, on first use."""

from __future__ import annotations

import os
from functools import lru_cache

from hookline.core.settings import Settings


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings.from_env(os.environ)
