"""How a route declares its answers for the document: what it answers on success, and which shared refusals apply
(and `stored`, a PUT's answer).

    @router.put("/v1/customers/<uid>", operation_id="putCustomer", tags=["customers"], summary="…",
                responses=answers(ok(200, Customer, "Replaced.", example={...}), ok(201, Customer, "Created."),
                                  "BadRequest", "PayloadTooLarge", "ValidationFailed"))

A refusal is either a name of hookline.entrypoints.api.front.REFUSALS (the
document references it) or a `refusal(status, description, example)` of
the route's own. Every /v1 route also answers 401, 403, 429 and 500 (the
document adds them).
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import Response
from pydantic import BaseModel

from hookline.core.contract.common import Error
from hookline.core.errors import envelope
from hookline.entrypoints.api.front import REFUSALS
from hookline.entrypoints.api.routing import respond

# The status of each shared refusal.
REFUSAL_STATUS = {
    "BadRequest": 400,
    "Unauthorized": 401,
    "Forbidden": 403,
    "NotFound": 404,
    "CustomerNotFound": 404,
    "JobNotFound": 404,
    "PayloadTooLarge": 413,
    "ValidationFailed": 422,
    "EventRefused": 422,
    "InvalidQuery": 422,
    "TooManyRequests": 429,
    "InternalError": 500,
    "Unavailable": 503,
}
REF_KEY = "$ref"


def ok(status: int, model: type[BaseModel] | None, description: str, example: Any = None, examples: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
    """A success answer: its status, model (None for no body) and description, with an example or named examples."""
    if model is None:
        return status, {"description": description}
    media: dict[str, Any] = {"model": model}
    if example is not None:
        media["example"] = example
    if examples:
        media["examples"] = examples
    return status, {"description": description, "content": {"application/json": media}}


def refusal(
    status: int, description: str, example: Any = None, model: type[BaseModel] = Error, examples: dict[str, Any] | None = None
) -> tuple[int, dict[str, Any]]:
    """A refusal of the route's own (not one of the shared REFUSALS)."""
    return ok(status, model, description, example, examples)


def no_route(param: str) -> tuple[int, dict[str, Any]]:
    """The 404 of a path whose `param` holds a character no route takes: API Gateway's routing, not the route, refuses it."""
    return refusal(
        404, f"The path is not one the API serves (`not_found`): the {param} holds a character no route takes.", envelope("not_found", "no such route")
    )


def answers(*declared: tuple[int, dict[str, Any]] | str) -> dict[int, Any]:
    """The `responses` of a route: its own answers, and the shared refusals by name."""
    found: dict[int, Any] = {}
    for item in declared:
        if isinstance(item, str):
            assert item in REFUSALS, f"no shared refusal named {item}"
            status, answer = REFUSAL_STATUS[item], {"description": item, REF_KEY: f"#/components/responses/{item}"}
        else:
            status, answer = item
        assert status not in found, f"two answers for {status}"
        found[status] = answer
    return found


def stored[Model: BaseModel](result: tuple[Model, bool]) -> Response[Model]:
    """A PUT's answer, from what the service stored and whether it was new: 201 with what it created, else 200."""
    model, created = result
    return respond(201 if created else 200, model)
