"""Jobs and replays: the bodies of `/v1/jobs/{job_id}` (and its resume), `/v1/replays/{replay_id}` and
`POST /v1/endpoints/{endpoint_id}/replay`.

A replay's window is checked by the rules it had before the models, in their order and with their messages:
unknown fields first (all of them named), then a missing `since` or `until`, then each time
(hookline.core.validation.time_param, then the document's WindowTime form), `since` before `until`, and the status.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, ConfigDict, Field, JsonValue, ValidationInfo, WithJsonSchema, model_validator
from pydantic.json_schema import SkipJsonSchema

from hookline.core import jobs
from hookline.core.clock import iso
from hookline.core.contract.common import Answer, RequestBody
from hookline.core.errors import ValidationFailed
from hookline.core.models import REPLAYABLE_STATUSES
from hookline.core.replay import public
from hookline.core.validation import reject_unknown, time_param

# -- the values' schemas, as the document shows them ------------------------------------------------------------

_ID_BODY = "[0-9a-hjkmnp-tv-z]{26}$"
TIMESTAMP_SCHEMA: dict[str, Any] = {"type": "string", "format": "date-time", "description": "UTC, ISO 8601 (RFC 3339), e.g. `2026-03-14T09:26:53.589Z`."}


def _id_schema(prefix: str, example: str) -> dict[str, Any]:
    return {"type": "string", "pattern": f"^{prefix}_{_ID_BODY}", "examples": [example]}


JOB_ID_SCHEMA = _id_schema("job", "job_01km5392zyx2x3fnt8zam6tbwc")
REPLAY_ID_SCHEMA = _id_schema("rpl", "rpl_bh2s1be9ng8g0p4z59zep35xe8")
ENDPOINT_ID_SCHEMA = _id_schema("ep", "ep_01kkntq2cnt8b8hz3pj95wjvcc")
EVENT_ID_SCHEMA = _id_schema("evt", "evt_01kkntq2cne6s1c99tvp6dvkt6")
CUSTOMER_UID_SCHEMA: dict[str, Any] = {
    "type": "string",
    "pattern": "^[A-Za-z0-9._:-]{1,64}$",
    "description": "A customer's uid, chosen by the tenant.",
    "examples": ["org_4711"],
}
REPLAY_FILTER_SCHEMA: dict[str, Any] = {"type": "string", "enum": list(REPLAYABLE_STATUSES)}

# A time the API reads: RFC 3339 (upper-case `T`, a zone) in 1970..9000, the range's first and last day left out.
_DATE = (
    "(1970-(0[2-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])|1970-01-(0[2-9]|[12][0-9]|3[01])"
    "|(197[1-9]|19[89][0-9]|[2-8][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    "|9000-(0[1-9]|1[01])-(0[1-9]|[12][0-9]|3[01])|9000-12-(0[1-9]|[12][0-9]|30))"
)
_TIME = "T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$"
WINDOW_TIME = re.compile(f"^{_DATE}{_TIME}")
_RFC3339_FORM = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")
WINDOW_TIME_DESCRIPTION = (
    "A time the API reads (a window's `since` or `until`): RFC 3339 with an upper-case `T` and a time\n"
    "zone (`Z` or `±hh:mm`), in the years 1970 to 9000 (UTC; the first and the last day of that\n"
    "range are left out, so that no offset takes it outside). Anything else is 422.\n"
)


def window_time(value: Any, name: str) -> str:
    """A window's end as the API reads it (ISO 8601 UTC, to the millisecond), or a 422 naming the field: today's
    rule (hookline.core.validation.time_param) first, then the document's form (WindowTime)."""
    moment = time_param(value, name)
    if not WINDOW_TIME.match(value):
        raise ValidationFailed(f"'{name}' is out of range" if _RFC3339_FORM.match(value) else f"'{name}' is not an ISO 8601 time")
    return iso(moment)


def _window_time(value: Any, info: ValidationInfo) -> str:
    return window_time(value, info.field_name or "time")


def _replay_filter(value: Any) -> Any:
    if value not in REPLAYABLE_STATUSES:
        raise ValidationFailed(f"'status' must be one of {', '.join(REPLAYABLE_STATUSES)}")
    return value


def _shown(description: str) -> Any:
    """A field an answer shows only when it has a value: absent (never null) otherwise, and not nullable in the schema."""

    def schema(found: dict[str, Any]) -> None:
        found.pop("default", None)

    return Field(default=None, description=description, exclude_if=lambda v: v is None, json_schema_extra=schema)


WindowTime = Annotated[str, BeforeValidator(_window_time), WithJsonSchema({"type": "string", "format": "date-time", "pattern": WINDOW_TIME.pattern})]
Timestamp = Annotated[str, WithJsonSchema(TIMESTAMP_SCHEMA)]
Counter = Annotated[int, Field(ge=0)]

# -- requests --------------------------------------------------------------------------------------------------------


class ReplayRequest(RequestBody):
    # The window to replay: the endpoint's deliveries of one status created in it (no docstring: the document gives
    # the schema no description).

    since: WindowTime = Field(description="Deliveries created at or after this time (ISO 8601, with a time zone).")
    until: WindowTime = Field(description="Deliveries created at or before this time; must be after `since` (to the millisecond; 422 otherwise).")
    status: Annotated[Literal["failed", "paused"], BeforeValidator(_replay_filter)] = Field(default="failed", description="Which deliveries to replay.")

    @model_validator(mode="before")
    @classmethod
    def _window_named(cls, data: Any) -> Any:
        """Unknown fields first (all of them), then a missing end, as before the models."""
        if isinstance(data, dict):
            reject_unknown(data, set(cls.model_fields))
            for name in ("since", "until"):
                if name not in data:
                    raise ValidationFailed(f"'{name}' is required, as an ISO 8601 time", code="missing_field")
        return data

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
_COUNTS = {
    "requeued": "`requeue_paused`: paused deliveries queued again.",
    "endpoints_deleted": "`delete_customer_endpoints`: endpoints deleted.",
    "matched": "`replay_window`: deliveries of the window planned for a restart.",
    "queued": "`replay_window`: deliveries restarted and queued.",
}
_JOB_RULES: list[JsonValue] = [
    {"if": {"properties": {"kind": {"const": jobs.REQUEUE_PAUSED}}}, "then": {"required": ["endpoint_id"]}},
    {"if": {"properties": {"kind": {"const": jobs.DELETE_CUSTOMER_ENDPOINTS}}}, "then": {"required": ["customer", "customer_created_at"]}},
    {"if": {"properties": {"status": {"const": "cancelled"}}}, "then": {"required": ["note"]}},
]


class JobSummary(Answer):
    """What an answer that started a job shows of it; `GET /v1/jobs/{job_id}` shows the rest."""

    id: Annotated[str, WithJsonSchema(JOB_ID_SCHEMA)]
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

    model_config = ConfigDict(json_schema_extra={"allOf": _JOB_RULES})

    id: Annotated[str, WithJsonSchema(JOB_ID_SCHEMA)]
    # Typed as any kind: a job of a kind the API does not list (a later release's, met mid-deploy) is answered, not a 500.
    kind: Annotated[str, WithJsonSchema({"type": "string", "enum": list(JOB_KINDS)})] = Field(description=_KIND_DESCRIPTION)
    status: JobStatus
    steps: Counter = Field(description="Steps taken so far (a step that waited for its endpoint to become active counts too).")
    counts: dict[str, Counter] = Field(
        description="What its steps did, added up; a counter appears once a step has counted it.",
        json_schema_extra={"properties": {name: {"type": "integer", "minimum": 0, "description": text} for name, text in _COUNTS.items()}},
    )
    endpoint_id: Annotated[str, WithJsonSchema(ENDPOINT_ID_SCHEMA)] | SkipJsonSchema[None] = _shown(
        "`requeue_paused`: the endpoint whose backlog it re-queues."
    )
    customer: Annotated[str, WithJsonSchema(CUSTOMER_UID_SCHEMA)] | SkipJsonSchema[None] = _shown("`delete_customer_endpoints`: the deleted customer.")
    customer_created_at: Timestamp | SkipJsonSchema[None] = _shown(
        "`delete_customer_endpoints`: when the deleted customer was created (a customer made again under its uid is not touched)."
    )
    event_id: Annotated[str, WithJsonSchema(EVENT_ID_SCHEMA)] | SkipJsonSchema[None] = _shown("`broadcast`: the broadcast event it fans out.")
    replay_id: Annotated[str, WithJsonSchema(REPLAY_ID_SCHEMA)] | SkipJsonSchema[None] = _shown(
        "`replay_window`: the replay it pages for (`GET /v1/replays/{replay_id}`)."
    )
    since: Timestamp | SkipJsonSchema[None] = _shown("`replay_window`: the window's start.")
    until: Timestamp | SkipJsonSchema[None] = _shown("`replay_window`: the window's end.")
    filter: Annotated[str, WithJsonSchema(REPLAY_FILTER_SCHEMA)] | SkipJsonSchema[None] = _shown("`replay_window`: the status of the deliveries it restarts.")
    created_at: Timestamp
    updated_at: Timestamp = Field(
        description="When a step last advanced it; a `running` job whose `updated_at` stops changing has lost its steps (`POST /v1/jobs/{job_id}/resume`)."
    )
    note: str | SkipJsonSchema[None] = _shown("`cancelled` only: why.")

    @classmethod
    def of(cls, job: jobs.Job) -> Job:
        """What the API shows of a job: its own fields and its kind's parameters."""
        return cls.model_validate(job.public())


class Replay(Answer):
    # A time-window replay's progress (no docstring: the document gives the schema no description).

    id: Annotated[str, WithJsonSchema(REPLAY_ID_SCHEMA)]
    endpoint_id: Annotated[str, WithJsonSchema(ENDPOINT_ID_SCHEMA)]
    status: Literal["running", "completed"]
    since: Timestamp
    until: Timestamp
    filter: Literal["failed", "paused"] = Field(description="The status of the deliveries replayed.")
    matched: Counter = Field(description="Deliveries found in the window so far.")
    queued: Counter
    delivered: Counter = Field(description="Replayed deliveries that succeeded.")
    failed: Counter = Field(description="Replayed deliveries that failed for good.")
    created_at: Timestamp

    @classmethod
    def of(cls, item: dict[str, Any]) -> Replay:
        """What the API shows of a stored replay (hookline.core.replay.public)."""
        return cls.model_validate(public(item))


class ReplayAccepted(Answer):
    # A replay, started: its id, and the job that pages through its window.

    id: Annotated[str, WithJsonSchema(REPLAY_ID_SCHEMA)]
    status: Literal["running"]
    job: JobSummary = Field(description="The bulk job that pages through the window (`GET /v1/jobs/{job_id}`; `POST /v1/jobs/{job_id}/resume`).")
