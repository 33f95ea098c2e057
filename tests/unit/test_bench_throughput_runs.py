"""The one-invocation throughput benchmark keeps whole batches only: a run that deferred a task is run again."""

from __future__ import annotations

from typing import Any

import pytest

from bench.measurement import throughput


class _Clock:
    calls = 0


def _runs(monkeypatch: pytest.MonkeyPatch, outcomes: list[tuple[float, float] | None]) -> tuple[list[float], list[float], int, int]:
    clock = _Clock()
    left = iter(outcomes)

    def one(batch: int, harness: Any, receiver: Any, types: list[str], clock_: Any = None) -> tuple[float, float] | None:
        clock.calls += 7  # every run makes its calls, kept or not
        return next(left)

    monkeypatch.setattr(throughput, "one_invocation", one)
    return throughput.measured_runs(2, 10, None, None, [], clock)  # type: ignore[arg-type]


def test_a_run_that_deferred_a_task_is_discarded_and_another_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    times, cpus, calls, discarded = _runs(monkeypatch, [None, (0.3, 0.1), None, None, (0.2, 0.05)])
    # Two whole batches kept, three discarded, and only the kept runs' AWS calls counted
    assert (times, cpus, calls, discarded) == ([0.3, 0.2], [0.1, 0.05], 14, 3)


def test_a_machine_too_busy_for_any_whole_batch_stops_the_measurement_with_a_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(RuntimeError, match="too busy"):
        _runs(monkeypatch, [None] * (throughput.MAX_DISCARDED * 2 + 1))
