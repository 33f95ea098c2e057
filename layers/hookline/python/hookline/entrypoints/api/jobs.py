"""Routes of bulk jobs and of time-window replays (a replay runs as a job)."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body

from hookline.core.access import Access
from hookline.core.contract.jobs import Job, Replay, ReplayAccepted, ReplayRequest
from hookline.entrypoints.api.answers import answers, ok
from hookline.entrypoints.api.params import EndpointId, JobId, ReplayId
from hookline.entrypoints.api.routing import Router, allow, caller, container, respond

router = Router()

_JOB = {
    "id": "job_01km5392zyx2x3fnt8zam6tbwc",
    "kind": "requeue_paused",
    "status": "running",
    "steps": 3,
    "counts": {"requeued": 300},
    "endpoint_id": "ep_01kkntq2cnnx6b2cektj3mapxa",
    "created_at": "2026-03-20T07:45:09.118Z",
    "updated_at": "2026-03-20T07:45:39.204Z",
}
_JOB_EXAMPLES = {
    "requeue": {"summary": "A re-enabled endpoint's paused backlog, under way", "value": _JOB},
    "customer_deletion": {
        "summary": "A deleted customer's endpoints, all gone",
        "value": {
            "id": "job_exq5fb5rbqe9fn7bmsqm8830am",
            "kind": "delete_customer_endpoints",
            "status": "done",
            "steps": 1,
            "counts": {"endpoints_deleted": 3},
            "customer": "org_4711",
            "customer_created_at": "2026-03-14T09:26:53.589Z",
            "created_at": "2026-03-20T08:00:00.021Z",
            "updated_at": "2026-03-20T08:00:00.517Z",
        },
    },
    "cancelled": {
        "summary": "A re-queue whose endpoint was deleted meanwhile",
        "value": {
            **_JOB,
            "status": "cancelled",
            "steps": 2,
            "counts": {"requeued": 100},
            "updated_at": "2026-03-20T07:45:19.530Z",
            "note": "the endpoint was deleted",
        },
    },
}
_REPLAY = {
    "id": "rpl_bh2s1be9ng8g0p4z59zep35xe8",
    "endpoint_id": "ep_01kkntq2cnt8b8hz3pj95wjvcc",
    "status": "completed",
    "since": "2026-03-14T00:00:00.000Z",
    "until": "2026-03-14T12:00:00.000Z",
    "filter": "failed",
    "matched": 18,
    "queued": 18,
    "delivered": 17,
    "failed": 1,
    "created_at": "2026-03-14T13:02:40.417Z",
}
_WINDOW = {"since": "2026-03-14T00:00:00Z", "until": "2026-03-14T12:00:00Z", "status": "failed"}
_ACCEPTED = {"id": "rpl_bh2s1be9ng8g0p4z59zep35xe8", "status": "running", "job": {"id": "job_01km5392zyx2x3fnt8zam6tbwc", "status": "running"}}


@router.get(
    "/v1/jobs/<job_id>",
    operation_id="getJob",
    tags=["jobs"],
    summary="A bulk job's progress",
    description=(
        "The job an answer named: `POST /v1/endpoints/{endpoint_id}/enable`'s\n"
        "`requeue` (kind `requeue_paused`, counting `requeued`),\n"
        "`DELETE /v1/customers/{uid}`'s `job` (kind `delete_customer_endpoints`,\n"
        "counting `endpoints_deleted`), `POST /v1/events/broadcast`'s `job` (kind\n"
        "`broadcast`) or `POST /v1/endpoints/{endpoint_id}/replay`'s `job` (kind\n"
        "`replay_window`, counting `matched` and `queued`). `status` is `running` until its last\n"
        "page, then `done`; `cancelled` (with a `note`) when it cannot go on (the\n"
        "endpoint was deleted, or was never marked active: its backlog stays\n"
        "paused). A portal session sees the jobs of\n"
        "its own endpoints and no other (404). A job is kept for the retention\n"
        "period (`HOOKLINE_RETENTION_DAYS`).\n"
    ),
    responses=answers(ok(200, Job, "The job.", examples=_JOB_EXAMPLES), "JobNotFound"),
)
@allow(Access.READ, "job")
def get_job(job_id: JobId) -> Response[Job]:
    return respond(200, container.job_runner().describe(caller().tenant, job_id))


@router.post(
    "/v1/jobs/<job_id>/resume",
    operation_id="resumeJob",
    tags=["jobs"],
    summary="Resume a job that stopped moving",
    description=(
        "Queues a step of a `running` job again: the operator's tool for a job\n"
        "whose chain of steps was lost (its `updated_at` no longer changes, e.g.\n"
        "a step went to the job queue's dead-letter queue). A second chain is\n"
        "harmless: each step advances the job only from the step it read, so a\n"
        "page is counted once. A `done` or `cancelled` job is answered as it is\n"
        "and nothing is queued. Producer only (a portal session: 403). No request\n"
        "body.\n"
    ),
    responses=answers(ok(202, Job, "The job as it is now; a step is queued if it is running.", example=_JOB), "JobNotFound"),
)
@allow(Access.PRODUCER)
def resume_job(job_id: JobId) -> Response[Job]:
    return respond(202, container.job_runner().resume(caller().tenant, job_id))


@router.get(
    "/v1/replays/<replay_id>",
    operation_id="getReplay",
    tags=["replays"],
    summary="A replay's progress",
    responses=answers(ok(200, Replay, "The replay.", example=_REPLAY), "NotFound"),
)
@allow(Access.READ, "replay")
def get_replay(replay_id: ReplayId) -> Response[Replay]:
    return respond(200, container.replay_service().describe(caller().tenant, replay_id))


@router.post(
    "/v1/endpoints/<endpoint_id>/replay",
    operation_id="replayEndpoint",
    tags=["replays"],
    summary="Replay a time window",
    description=(
        "Restarts the endpoint's `failed` (or `paused`) deliveries created in\n"
        "`[since, until]` as manual attempts with a fresh attempt budget, queued at\n"
        "the endpoint's pace. Runs in the background as a bulk job (`job`); follow\n"
        "it with `GET /v1/replays/{replay_id}` (what it matched, queued, delivered\n"
        "and failed) or `GET /v1/jobs/{job_id}` (its paging). The same request within\n"
        "the same minute names the same replay (and starts nothing new).\n"
    ),
    responses=answers(
        ok(202, ReplayAccepted, "The replay is running.", example=_ACCEPTED),
        "BadRequest",
        "NotFound",
        "PayloadTooLarge",
        "ValidationFailed",
    ),
)
@allow(Access.WRITE, "endpoint")
def replay_endpoint(endpoint_id: EndpointId, body: Annotated[ReplayRequest, Body(openapi_examples={"window": {"value": _WINDOW}})]) -> Response[ReplayAccepted]:
    return respond(202, container.replay_service().start(caller().tenant, endpoint_id, body))
