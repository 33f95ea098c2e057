"""Fixtures of the client tests that run against the real service: one local mode per test module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from local.run import LocalHookline
from tests.e2e.conftest import running_local_mode


@pytest.fixture(scope="module")
def hookline() -> Iterator[LocalHookline]:
    """Local mode on free ports with the e2e key (tests.e2e.conftest); retries wait about a second, not a minute."""
    with running_local_mode(HOOKLINE_RETRY_BASE_SECONDS="0.5") as running:
        yield running
