"""Routes of content filters: try a filter on a sample event before an endpoint takes it (the portal's tester)."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body

from hookline.core import filters
from hookline.core.access import Access
from hookline.core.contract.filters import FilterTest, FilterTestResult
from hookline.core.errors import envelope
from hookline.entrypoints.api.answers import answers, ok, refusal
from hookline.entrypoints.api.routing import Router, allow, respond

router = Router()

# -- descriptions and examples ------------------------------------------------------------------------------------------

_OVER_100 = {"data": {"amount": [{"numeric": [">=", 100]}]}}
BODIES: Any = {
    "matching": {
        "summary": "An order of 150 against a filter for orders of 100 or more",
        "value": {"filter": _OVER_100, "event": {"type": "order.paid", "customer": "org_4711", "data": {"amount": 150, "currency": "eur"}}},
    },
    "not_matching": {
        "summary": "An order of 50 against the same filter",
        "value": {"filter": _OVER_100, "event": {"type": "order.paid", "data": {"amount": 50}}},
    },
    "customer_prefix": {
        "summary": "A broadcast (no customer) against a filter for the customers whose uid starts with eu-",
        "value": {"filter": {"customer": [{"prefix": "eu-"}]}, "event": {"type": "terms.updated", "customer": None, "data": {"region": "eu"}}},
    },
}
RESULTS: Any = {"matches": {"summary": "It passes", "value": {"matches": True}}, "filtered_out": {"summary": "It is filtered out", "value": {"matches": False}}}
REFUSED: Any = {
    "invalid_filter": {
        "value": envelope("invalid_filter", "'filter.data.amount': must be an array of match values (EventBridge requires arrays), or an object of fields")
    },
    "missing_field": {"value": envelope("missing_field", "'event.data' is required")},
}
TEST_DOC = """Whether an event would pass a content filter: the same evaluation an
endpoint's `filter` gets when an event is accepted or a broadcast fans
out, of the document `{"type", "customer", "data"}` (`customer` null for
a broadcast or the tenant's own event). The filter is read as
`POST /v1/endpoints` reads one (422 `invalid_filter`, the message naming
the bad part), so a filter that passes here is one an endpoint takes.
Whether the event's type is one an endpoint subscribes to is not part of
it. Nothing is read or stored: any API key or portal session (read-only
too) may call it. The body is at most `HOOKLINE_MAX_EVENT_BYTES`, as an
event's.
"""

# -- routes -----------------------------------------------------------------------------------------------------------


@router.post(
    "/v1/filters/test",
    operation_id="testFilter",
    tags=["endpoints", "portal"],
    summary="Try a content filter on a sample event",
    description=TEST_DOC,
    responses=answers(
        ok(200, FilterTestResult, "Whether the event passes the filter.", examples=RESULTS),
        "BadRequest",
        "PayloadTooLarge",
        refusal(
            422,
            "The filter is not one an endpoint takes (`invalid_filter`, naming the bad part), or the\n"
            "body is invalid as for any route (`missing_field`, `wrong_type`, `unknown_field`,\n"
            "`validation_failed`: an event type that is not one; `invalid_customer_uid`).\n",
            examples=REFUSED,
        ),
    ),
)
@allow(Access.READ)  # the event limit, as an event's body: the sample is one event and a filter of at most 2 KB
def try_filter(body: Annotated[FilterTest, Body(openapi_examples=BODIES)]) -> Response[FilterTestResult]:
    """The pure core rule delivery applies (hookline.core.filters.matches): nothing to read, so no service."""
    event = body.event
    return respond(200, FilterTestResult(matches=filters.matches(body.filter, event.type, event.customer, event.data)))
