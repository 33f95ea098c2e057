"""The previous release's messages on the job queue, read by this one: their one home.

During a canary deploy, and until the job queue has drained after it, the queue
may hold messages the previous release queued, in its own shapes. Each starts
(or takes over) the job this release runs for the same work, so nothing the
previous release began is lost or done twice:

- `{"kind": "delete_customer_endpoints", "tenant", "customer", "created_at"}`: that customer's deletion job;
- `{"kind": "broadcast", "tenant", "event_id"}`: that broadcast's job;
- `{"kind": "replay", "tenant", "replay_id"}`: that replay's job, from where its record stands.

tests/integration/test_compat.py and the broadcast, replay and customer tests
queue these messages as the previous release wrote them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hookline.core.customers import deletion_job_id
from hookline.core.jobs import DELETE_CUSTOMER_ENDPOINTS
from hookline.services.broadcast import BroadcastService
from hookline.services.jobs import JobRunner
from hookline.services.replay import ReplayService

PREVIOUS_DELETE_CUSTOMER_MESSAGE = DELETE_CUSTOMER_ENDPOINTS  # its kind was the job kind's name
PREVIOUS_BROADCAST_MESSAGE = "broadcast"
PREVIOUS_REPLAY_MESSAGE = "replay"


@dataclass(frozen=True)
class PreviousReleaseMessages:
    jobs: JobRunner
    broadcasts: BroadcastService
    replays: ReplayService

    def handle(self, message: Mapping[str, Any]) -> bool:
        """Start the job the message stands for; False when it is no message of the previous release."""
        kind, tenant = message.get("kind"), str(message.get("tenant", ""))
        if kind == PREVIOUS_DELETE_CUSTOMER_MESSAGE:
            uid, created_at = str(message["customer"]), str(message["created_at"])
            params = {"customer": uid, "customer_created_at": created_at}
            self.jobs.start(tenant, DELETE_CUSTOMER_ENDPOINTS, params, job_id=deletion_job_id(tenant, uid, created_at))
        elif kind == PREVIOUS_BROADCAST_MESSAGE:
            self.broadcasts.fan_out(tenant, str(message["event_id"]))
        elif kind == PREVIOUS_REPLAY_MESSAGE:
            self.replays.adopt(tenant, str(message["replay_id"]))
        else:
            return False
        return True
