"""local.priority: local mode's pollers hold off their next batch while an API request is answered, never for longer than the bound."""

from __future__ import annotations

import threading
import time

from local.priority import ApiFirst


def test_a_poller_waits_for_the_request_in_flight_then_goes() -> None:
    first = ApiFirst(max_wait_seconds=5)
    waited: list[float] = []
    with first:
        assert first.busy
        poller = threading.Thread(target=lambda: waited.append(first.yield_to_requests()))
        poller.start()
        time.sleep(0.2)
        assert waited == []  # still holding off while the request is answered
    poller.join(5)
    assert not first.busy and len(waited) == 1 and 0.15 < waited[0] < 5


def test_no_stream_of_requests_starves_delivery_and_an_idle_api_costs_nothing() -> None:
    first = ApiFirst(max_wait_seconds=0.2)
    with first:
        assert 0.15 < first.yield_to_requests() < 1.0  # the bound, however long the request runs
    assert first.yield_to_requests() < 0.05
