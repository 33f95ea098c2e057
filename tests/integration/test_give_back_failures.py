"""`LeasesNotGivenBack`, through the real delivery handler over moto: a batch whose give-back fails leaves its
leases on the endpoint until they expire, and an operator must hear of it (its alarm, infra/monitoring.py). Once a
fault in the limiter's rules failed every give-back, logged and swallowed, and nothing counted it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hookline.core import ratelimit
from hookline.services.delivery import health
from hookline.wiring import container
from tests.conftest import Hookline
from tests.support.receiver import running_receiver


def _emf(out: str, name: str) -> list[dict[str, Any]]:
    """The EMF documents on stdout that carry the metric `name` (log lines are JSON too: they carry no `_aws`)."""
    documents = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return [d for d in documents if "_aws" in d and name in d]


def test_a_give_back_that_fails_is_counted_for_its_alarm_and_the_deliveries_stand(
    hookline: Hookline, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    # Given metrics on, and limiter rules that fail when a batch gives its leases back (a fault in hookline itself)
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    container.reset()

    def broken(*_args: object, **_kwargs: object) -> ratelimit.Limiter:
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(health, "give_back", broken)
    with running_receiver() as receiver:
        assert hookline.api("POST", "/v1/endpoints", {"url": f"{receiver.url}/hook"})[0] == 201
        for n in range(3):
            assert hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"n": n}})[0] == 202
        capsys.readouterr()
        # When the delivery function sends the three in one batch
        assert hookline.drain() == 3
        assert len(receiver.requests) == 3
    out = capsys.readouterr().out
    # Then one LeasesNotGivenBack was written, dimensioned by service alone (what the alarm sums), and the log names the endpoint
    [counted] = _emf(out, "LeasesNotGivenBack")
    assert counted["LeasesNotGivenBack"] == [1.0]
    assert counted["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [["service"]] and counted["service"] == "hookline"
    assert counted["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "hookline"
    [line] = [r for r in caplog.records if r.getMessage() == health.LEASES_NOT_GIVEN_BACK]
    assert line.endpoint_id.startswith("ep_") and line.leases == 3  # type: ignore[attr-defined]
