"""A customer's time-window replay, as values: the window it asks for and what the API shows of it.

Pure: the service (hookline.services.replay) drives the steps, the repository
(hookline.adapters.dynamo.replays) stores them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

REPLAY = "rpl"  # the replay id's prefix


@dataclass(frozen=True)
class ReplayWindow:
    since: str
    until: str
    status: str


def public(item: dict[str, Any]) -> dict[str, Any]:
    """What the API shows of a stored replay: running until every page is queued and every queued delivery has ended."""
    queued, delivered, failed = int(item["queued"]), int(item["delivered"]), int(item["failed"])
    running = not item.get("done_paging") or item.get("pending_tasks") or delivered + failed < queued
    return {
        "id": item["id"],
        "endpoint_id": item["endpoint_id"],
        "status": "running" if running else "completed",
        "since": item["since"],
        "until": item["until"],
        "filter": item["status_filter"],
        "matched": int(item["matched"]),
        "queued": queued,
        "delivered": delivered,
        "failed": failed,
        "created_at": item["created_at"],
    }


FAILURES_READ_BOUND = 5000  # failed (or paused) deliveries read for one histogram, newest first


def failure_histogram(created_ats: list[str], truncated: bool) -> dict[str, Any]:
    """What a replay of each hour would match: the deliveries, by the hour they were created in (ISO-8601 UTC, `…:00:00Z`).

    A replay selects deliveries by creation time, so counting them the same way makes "N failed between
    14:00 and 16:00" the N a replay of that window restarts. `truncated`: more than were read exist
    (the oldest hours then count at least what they show).
    """
    hours: dict[str, int] = {}
    for created in created_ats:
        hour = created[:13] + ":00:00Z"
        hours[hour] = hours.get(hour, 0) + 1
    return {"hours": [{"hour": h, "count": hours[h]} for h in sorted(hours)], "total": len(created_ats), "truncated": truncated}
