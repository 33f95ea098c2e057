"""One place for the logger. Created lazily, configured by POWERTOOLS_* variables."""

from __future__ import annotations

from functools import lru_cache

from aws_lambda_powertools import Logger


@lru_cache(maxsize=1)
def get_logger() -> Logger:
    return Logger(service="hookline")
