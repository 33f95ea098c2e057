"""A broadcast's fan-out, as a value: where the paging through the tenant's endpoints stands, and what the API shows of it.

Pure: the broadcast's job (hookline.services.broadcast, a kind of hookline.services.jobs)
drives the steps, the event repository (hookline.adapters.dynamo.events) stores the state
on the event item, where `GET /v1/events/{id}` reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from hookline.core import ids
from hookline.core.jobs import JOB


def fanout_job_id(tenant: str, event_id: str) -> str:
    """The job fanning the broadcast out: derived, so a repeated request (or a previous release's message) starts no second one."""
    return ids.derived_id(JOB, tenant, "broadcast", event_id)


def delivery_id(tenant: str, event_id: str, created_at_ms: int, endpoint_id: str, event_keyed: bool = False) -> str:
    """A broadcast's delivery to one endpoint: derived from the broadcast's creation and the endpoint, so a repeated page
    creates none twice and a customer's can be found without paging (`event_keyed`: one an earlier release accepted)."""
    if event_keyed:
        return ids.legacy_broadcast_delivery_id(tenant, event_id, endpoint_id)
    return ids.delivery_id(tenant, event_id, endpoint_id, created_at_ms)


FanoutStatus = Literal["fanning_out", "done"]


@dataclass(frozen=True)
class Fanout:
    """A broadcast's progress. `step` counts the pages taken; every advance is conditional on it, so a page is counted once."""

    status: FanoutStatus = "fanning_out"
    step: int = 0
    cursor: str = ""  # where the next page of endpoints starts; empty before the first and after the last
    endpoints_scanned: int = 0
    deliveries: int = 0  # created for subscribed endpoints, paused ones included
    paused: int = 0  # of those, stored paused: their endpoint was disabled

    def advanced(self, next_cursor: str | None, scanned: int, deliveries: int, paused: int) -> Fanout:
        """The state after one more page: done when the page had no next."""
        return replace(
            self,
            status="fanning_out" if next_cursor else "done",
            step=self.step + 1,
            cursor=next_cursor or "",
            endpoints_scanned=self.endpoints_scanned + scanned,
            deliveries=self.deliveries + deliveries,
            paused=self.paused + paused,
        )

    def counts(self) -> dict[str, int]:
        """Its counters, named as its job's counts."""
        return {"endpoints_scanned": self.endpoints_scanned, "deliveries": self.deliveries, "paused": self.paused}

    def public(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "pages": self.step,
            "endpoints_scanned": self.endpoints_scanned,
            "deliveries": self.deliveries,
            "paused": self.paused,
        }
