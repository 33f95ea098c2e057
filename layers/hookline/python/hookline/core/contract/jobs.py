"""Jobs and replays: the bodies of `/v1/jobs/{job_id}` (and its resume), `/v1/replays/{replay_id}` and
`POST /v1/endpoints/{endpoint_id}/replay`.

A replay's window is checked by the rules it had before the models, in their order and with their messages:
unknown fields first (all of them named), then a missing `since` or `until`, then each time
(hookline.core.validation.time_param, then the document's WindowTime form), `since` before `until`, and the status.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, ConfigDict, Field, JsonValue, ValidationInfo, model_validator
from pydantic.json_schema import SkipJsonSchema
from typing_extensions import TypedDict

from hookline.core import jobs
from hookline.core.clock import iso
from hookline.core.contract.common import (
    WINDOW_TIME_PATTERN,
    Answer,
    CheckedBody,
    Count,
    CustomerUid,
    EndpointId,
    EventId,
    JobId,
    ReplayId,
    Timestamp,
    absent_unless_set,
)
from hookline.core.contract.fields import RFC3339_FORM, Format
from hookline.core.errors import ValidationFailed
from hookline.core.models import REPLAYABLE_STATUSES
from hookline.core.replay import public
from hookline.core.validation import time_param

# -- the values' schemas, as the document shows them ------------------------------------------------------------

# The statuses a replay restarts (hookline.core.models.REPLAYABLE_STATUSES).
ReplayFilter = Literal["failed", "paused"]

WINDOW_TIME = re.compile(WINDOW_TIME_PATTERN)


def window_time(value: Any, name: str) -> str:
    """A window's end as the API reads it (ISO 8601 UTC, to the millisecond), or a 422 naming the field: today's
    rule (hookline.core.validation.time_param) first, then the document's form (WindowTime)."""
    moment = time_param(value, name)
    if not WINDOW_TIME.fullmatch(value):
        raise ValidationFailed(f"'{name}' is out of range" if RFC3339_FORM.fullmatch(value) else f"'{name}' is not an ISO 8601 time")
    return iso(moment)


def _window_time(value: Any, info: ValidationInfo) -> str:
    return window_time(value, info.field_name or "time")


def _replay_filter(value: Any) -> Any:
    if value not in REPLAYABLE_STATUSES:
        raise ValidationFailed(f"'status' must be one of {', '.join(REPLAYABLE_STATUSES)}")
    return value


WindowTime = Annotated[str, Field(pattern=WINDOW_TIME_PATTERN), Format("date-time"), BeforeValidator(_window_time)]

# -- requests --------------------------------------------------------------------------------------------------------


class ReplayRequest(CheckedBody):
    # The window to replay: the endpoint's deliveries of one status created in it (no docstring: the document gives
    # the schema no description). Unknown fields first (all of them), then a missing end, as before the models.

    REQUIRED_HINT = ", as an ISO 8601 time"

    since: WindowTime = Field(description="Deliveries created at or after this time (ISO 8601, with a time zone).")
    until: WindowTime = Field(description="Deliveries created at or before this time; must be after `since` (to the millisecond; 422 otherwise).")
    status: Annotated[ReplayFilter, BeforeValidator(_replay_filter)] = Field(default="failed", description="Which deliveries to replay.")

    @model_validator(mode="after")
    def _in_order(self) -> ReplayRequest:
        if self.since >= self.until:
            raise ValidationFailed("'since' must be before 'until'")
        return self


# -- answers ---------------------------------------------------------------------------------------------------------

JobStatus = Annotated[
    Literal["running", "done", "cancelled"], Field(description="`running` until its last page, then `done`; `cancelled` when it cannot go on (see `note`).")
]
JOB_KINDS = (jobs.REQUEUE_PAUSED, jobs.DELETE_CUSTOMER_ENDPOINTS, jobs.BROADCAST_JOB, jobs.REPLAY_WINDOW)  # those the API shows

_KIND_DESCRIPTION = (
    "`requeue_paused`: a re-enabled endpoint's paused deliveries back on the\n"
    "retry queue, 100 per step at the endpoint's rate.\n"
    "`delete_customer_endpoints`: a deleted customer's endpoints, 100 per step.\n"
    "`broadcast`: a broadcast's fan-out, 100 endpoints per step.\n"
    "`replay_window`: a time-window replay, 100 deliveries a page, each\n"
    "page planned in one step and queued at the endpoint's rate in the next.\n"
)
# A job's kind as answered: any string (a later release's kind, met mid-deploy, is no 500), the kinds the API lists
# (JOB_KINDS) its examples.
ShownKind = Annotated[str, Field(examples=list(JOB_KINDS))]


class JobCounts(TypedDict, total=False, extra_items=Count):  # type: ignore[call-arg]  # PEP 728, which pydantic reads and mypy not yet
    # What a job's steps did, added up (a plain map, as the services read it): the counters the API names, and any
    # other a kind counts, each a Count.

    requeued: Annotated[Count, Field(description="`requeue_paused`: paused deliveries queued again.")]
    endpoints_deleted: Annotated[Count, Field(description="`delete_customer_endpoints`: endpoints deleted.")]
    matched: Annotated[Count, Field(description="`replay_window`: deliveries of the window planned for a restart.")]
    queued: Annotated[Count, Field(description="`replay_window`: deliveries restarted and queued.")]


_JOB_RULES: list[JsonValue] = [
    {"if": {"properties": {"kind": {"const": jobs.REQUEUE_PAUSED}}}, "then": {"required": ["endpoint_id"]}},
    {"if": {"properties": {"kind": {"const": jobs.DELETE_CUSTOMER_ENDPOINTS}}}, "then": {"required": ["customer", "customer_created_at"]}},
    {"if": {"properties": {"status": {"const": "cancelled"}}}, "then": {"required": ["note"]}},
]


class JobSummary(Answer):
    """What an answer that started a job shows of it; `GET /v1/jobs/{job_id}` shows the rest."""

    id: JobId
    status: JobStatus

    @classmethod
    def of(cls, job: jobs.Job) -> JobSummary:
        return cls(id=job.id, status=job.status)


class Job(Answer):
    """A bulk job. Besides the fields every job has, it carries its kind's
    parameters: `endpoint_id` (`requeue_paused`, `replay_window`), `customer`
    and `customer_created_at` (`delete_customer_endpoints`), `event_id`
    (`broadcast`), `replay_id`, `since`, `until` and `filter`
    (`replay_window`).
    """

    model_config = ConfigDict(json_schema_extra={"allOf": _JOB_RULES})  # which fields a kind carries: if/then across fields, one model for any kind

    id: JobId
    kind: ShownKind = Field(description=_KIND_DESCRIPTION)
    status: JobStatus
    steps: Count = Field(description="Steps taken so far (a step that waited for its endpoint to become active counts too).")
    counts: JobCounts = Field(description="What its steps did, added up; a counter appears once a step has counted it.")
    endpoint_id: EndpointId | SkipJsonSchema[None] = absent_unless_set("`requeue_paused`: the endpoint whose backlog it re-queues.")
    customer: CustomerUid | SkipJsonSchema[None] = absent_unless_set("`delete_customer_endpoints`: the deleted customer.")
    customer_created_at: Timestamp | SkipJsonSchema[None] = absent_unless_set(
        "`delete_customer_endpoints`: when the deleted customer was created (a customer made again under its uid is not touched)."
    )
    event_id: EventId | SkipJsonSchema[None] = absent_unless_set("`broadcast`: the broadcast event it fans out.")
    replay_id: ReplayId | SkipJsonSchema[None] = absent_unless_set("`replay_window`: the replay it pages for (`GET /v1/replays/{replay_id}`).")
    since: Timestamp | SkipJsonSchema[None] = absent_unless_set("`replay_window`: the window's start.")
    until: Timestamp | SkipJsonSchema[None] = absent_unless_set("`replay_window`: the window's end.")
    filter: ReplayFilter | SkipJsonSchema[None] = absent_unless_set("`replay_window`: the status of the deliveries it restarts.")
    created_at: Timestamp
    updated_at: Timestamp = Field(
        description="When a step last advanced it; a `running` job whose `updated_at` stops changing has lost its steps (`POST /v1/jobs/{job_id}/resume`)."
    )
    note: str | SkipJsonSchema[None] = absent_unless_set("`cancelled` only: why.")

    @classmethod
    def of(cls, job: jobs.Job) -> Job:
        """What the API shows of a job: its own fields and its kind's parameters."""
        return cls.model_validate(job.public())


class Replay(Answer):
    # A time-window replay's progress (no docstring: the document gives the schema no description).

    id: ReplayId
    endpoint_id: EndpointId
    status: Literal["running", "completed"]
    since: Timestamp
    until: Timestamp
    filter: ReplayFilter = Field(description="The status of the deliveries replayed.")
    matched: Count = Field(description="Deliveries found in the window so far.")
    queued: Count
    delivered: Count = Field(description="Replayed deliveries that succeeded.")
    failed: Count = Field(description="Replayed deliveries that failed for good.")
    created_at: Timestamp

    @classmethod
    def of(cls, item: dict[str, Any]) -> Replay:
        """What the API shows of a stored replay (hookline.core.replay.public)."""
        return cls.model_validate(public(item))


class ReplayAccepted(Answer):
    # A replay, started: its id, and the job that pages through its window.

    id: ReplayId
    status: Literal["running"]
    job: JobSummary = Field(description="The bulk job that pages through the window (`GET /v1/jobs/{job_id}`; `POST /v1/jobs/{job_id}/resume`).")
