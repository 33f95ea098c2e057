"""Bulk jobs in the data table: one item per job (keys.job), replaced whole by each step, conditionally on the step it read."""

from __future__ import annotations

from typing import Any

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.conditions import Attr, Key
from hookline.adapters.dynamo.ops import query_all, write_if
from hookline.adapters.failures import translate_failures
from hookline.core.jobs import Job

Item = dict[str, Any]


def job_item(job: Job, ttl: str, expires_at: int) -> Item:
    return {
        **keys.job(job.tenant, job.id),
        "id": job.id,
        "tenant": job.tenant,
        "kind": job.kind,
        "params": dict(job.params),
        "status": job.status,
        "step": job.step,
        "cursor": job.cursor,
        "counts": dict(job.counts),
        "created_at": job.created_at,
        "updated_at": job.updated_at,
        **({"note": job.note} if job.note else {}),
        **({"pending": list(job.pending)} if job.pending else {}),
        ttl: expires_at,
    }


def job_from(item: Item) -> Job:
    return Job(
        id=str(item["id"]),
        tenant=str(item["tenant"]),
        kind=str(item["kind"]),
        params={str(k): str(v) for k, v in (item.get("params") or {}).items()},
        status=item.get("status", "running"),
        step=int(item.get("step", 0)),
        cursor=str(item.get("cursor") or ""),
        counts={str(k): int(v) for k, v in (item.get("counts") or {}).items()},
        created_at=str(item.get("created_at", "")),
        updated_at=str(item.get("updated_at", "")),
        note=str(item.get("note", "")),
        pending=tuple(str(p) for p in item.get("pending") or ()),
    )


@translate_failures
class JobRepository:
    def __init__(self, table: Any, ttl_attribute: str = keys.TTL):
        self._table = table
        self._ttl = ttl_attribute

    def create(self, job: Job, expires_at: int) -> bool:
        """The job, and its mark as running (keys.running_job) for the sweeper."""
        created = write_if(self._table.put_item, Item=job_item(job, self._ttl, expires_at), ConditionExpression=Attr(keys.PK).not_exists()) is not None
        if created:
            self._table.put_item(Item={**keys.running_job(job.tenant, job.id), "tenant": job.tenant, "job_id": job.id, self._ttl: expires_at})
        return created

    def running(self) -> list[tuple[str, str]]:
        """(tenant, job id) of every job marked running."""
        items = query_all(self._table, KeyConditionExpression=Key(keys.PK).eq(keys.RUNNING_JOBS))
        return [(str(i["tenant"]), str(i["job_id"])) for i in items]

    def forget_running(self, tenant: str, job_id: str) -> None:
        self._table.delete_item(Key=keys.running_job(tenant, job_id))

    def get(self, tenant: str, job_id: str) -> Job | None:
        item = self._table.get_item(Key=keys.job(tenant, job_id), ConsistentRead=True).get("Item")
        return job_from(item) if item else None

    def advance(self, current: Job, advanced: Job) -> bool:
        """The job as `advanced`, if it is still at `current.step` and running (one UpdateItem; it keeps its expiry)."""
        updated = write_if(
            self._table.update_item,
            Key=keys.job(current.tenant, current.id),
            UpdateExpression="SET #st = :status, step = :step, #cur = :cursor, counts = :counts, updated_at = :now, note = :note, pending = :pending",
            ConditionExpression="attribute_exists(pk) AND step = :was AND #st = :running",
            ExpressionAttributeNames={"#st": "status", "#cur": "cursor"},
            ExpressionAttributeValues={
                ":status": advanced.status,
                ":step": advanced.step,
                ":cursor": advanced.cursor,
                ":counts": dict(advanced.counts),
                ":now": advanced.updated_at,
                ":note": advanced.note,
                ":pending": list(advanced.pending),
                ":was": current.step,
                ":running": "running",
            },
        )
        if updated is not None and advanced.status != "running":
            self.forget_running(current.tenant, current.id)
        return updated is not None
