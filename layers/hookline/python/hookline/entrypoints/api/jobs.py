"""Routes of bulk jobs and of time-window replays (a replay runs as a job)."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from hookline.core.access import Access
from hookline.entrypoints.api.routing import allow, caller, raw_body, respond
from hookline.wiring import container

router = APIGatewayHttpRouter()


@router.get("/v1/jobs/<job_id>")
@allow(Access.READ, "job")
def get_job(job_id: str) -> Response[Any]:
    return respond(200, container.job_runner().describe(caller().tenant, job_id))


@router.post("/v1/jobs/<job_id>/resume")
@allow(Access.PRODUCER)
def resume_job(job_id: str) -> Response[Any]:
    return respond(202, container.job_runner().resume(caller().tenant, job_id))


@router.get("/v1/replays/<replay_id>")
@allow(Access.READ, "replay")
def get_replay(replay_id: str) -> Response[Any]:
    return respond(200, container.replay_service().describe(caller().tenant, replay_id))


@router.post("/v1/endpoints/<endpoint_id>/replay")
@allow(Access.WRITE, "endpoint")
def replay_endpoint(endpoint_id: str) -> Response[Any]:
    return respond(202, container.replay_service().start(caller().tenant, endpoint_id, raw_body()))
