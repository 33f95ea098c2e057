"""The route parameters the resources share: a page (`limit`, `cursor`), the ids a path names, and a window (`since`,
`until`).

Like every query parameter, each is given with a value or left out (`?limit=` is 422:
hookline.core.contract.common.given). A path's id is not checked beyond being text: a malformed id is 404 like an
unknown one (the lookup says so), except where a route says otherwise.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from pydantic import WithJsonSchema

from hookline.core import validation
from hookline.core.contract.common import (
    CURSOR_SCHEMA,
    CUSTOMER_UID_SCHEMA,
    DELIVERY_ID_SCHEMA,
    ENDPOINT_ID_SCHEMA,
    EVENT_ID_SCHEMA,
    JOB_ID_SCHEMA,
    LIMIT_SCHEMA,
    REPLAY_ID_SCHEMA,
    WINDOW_TIME_SCHEMA,
    given,
)
from hookline.wiring.settings import get_settings

# -- a page of a list ------------------------------------------------------------------------------------------------

DEFAULT_LIMIT: int = LIMIT_SCHEMA["default"]
LIMIT_DOC = "Page size; the maximum is `HOOKLINE_PAGE_LIMIT_MAX` (100 by default)."
CURSOR_DOC = """The `next` of the previous page. Opaque: anything but a `next` this list handed out (another
list's or tenant's cursor, or a made-up one) is 422 `invalid_cursor`. Like every query parameter,
it is given with a value or left out (`?cursor=` is 422).
"""


def page_limit(value: Any) -> int:
    """`limit` by today's rule and messages: an integer from 1 to the settings' `HOOKLINE_PAGE_LIMIT_MAX`."""
    return validation.page_limit(value, get_settings().page_limit_max)


def _absent_limit() -> int:
    """The page size when `limit` is left out: the default, or the settings' maximum if that is lower."""
    return validation.page_limit(None, get_settings().page_limit_max, DEFAULT_LIMIT)


# A route declares `limit: Limit = DEFAULT_LIMIT`: its default makes the parameter optional and is what the document
# shows; for an absent `limit` Powertools calls the parameter's default factory, so a page is never above the maximum.
Limit = Annotated[int, given("limit", page_limit), WithJsonSchema(LIMIT_SCHEMA), Query(description=LIMIT_DOC, default_factory=_absent_limit)]
Cursor = Annotated[str | None, given("cursor"), WithJsonSchema(CURSOR_SCHEMA), Query(description=CURSOR_DOC)]

# -- the ids a path names --------------------------------------------------------------------------------------------

EndpointId = Annotated[
    str,
    Path(
        description="An endpoint id (`ep_…`). Anything else, or another tenant's id, is 404.",
        openapi_examples={"endpoint": {"value": ENDPOINT_ID_SCHEMA["examples"][0]}},
    ),
]
EventId = Annotated[str, Path(description="An event id (`evt_…`).", examples=EVENT_ID_SCHEMA["examples"])]
DeliveryId = Annotated[str, Path(description="A delivery id (`dlv_…`) of that event.", examples=DELIVERY_ID_SCHEMA["examples"])]
JobId = Annotated[str, Path(description="A job id (`job_…`), from the answer that started the job.", examples=JOB_ID_SCHEMA["examples"])]
ReplayId = Annotated[str, Path(description="A replay id (`rpl_…`).", examples=REPLAY_ID_SCHEMA["examples"])]
# The routes take any text (the pattern is the document's only): an unknown or malformed uid is 404 `customer_not_found`.
CustomerUid = Annotated[
    str,
    Path(
        description=(
            "The customer's uid, chosen by the tenant: 1 to 64 characters of letters,\n"
            "digits and `._:-`. An unknown uid, a malformed one, or another tenant's\n"
            "customer is 404 `customer_not_found` (except on PUT, which creates it:\n"
            "a malformed uid there is 422 `invalid_customer_uid`, or 404 `not_found`\n"
            "when the path itself is not one the API serves).\n"
        ),
        json_schema_extra={k: v for k, v in CUSTOMER_UID_SCHEMA.items() if k != "type"},
    ),
]

# -- a window of time ------------------------------------------------------------------------------------------------

SINCE_DOC = "Start of the window, ISO 8601 with a time zone (e.g. `2026-03-14T00:00:00Z`); must be before `until`."
UNTIL_DOC = "End of the window, ISO 8601 with a time zone; must be after `since` (422 otherwise)."
_SINCE_SCHEMA = WithJsonSchema({**WINDOW_TIME_SCHEMA, "examples": ["2026-03-14T00:00:00Z"]})
_UNTIL_SCHEMA = WithJsonSchema({**WINDOW_TIME_SCHEMA, "examples": ["2026-03-15T00:00:00Z"]})


def _time(name: str) -> Any:
    def read(value: Any) -> datetime:
        return validation.time_param(value, name)

    return read


# A window the service reads (hookline.core.validation.stats_window) once it found what the path names: an unknown
# one is 404 whatever its window.
Since = Annotated[str | None, given("since"), _SINCE_SCHEMA, Query(description=SINCE_DOC)]
Until = Annotated[str | None, given("until"), _UNTIL_SCHEMA, Query(description=UNTIL_DOC)]
# A window read here, as times (hookline.core.validation.time_param).
SinceTime = Annotated[datetime | None, given("since", _time("since")), _SINCE_SCHEMA, Query(description=SINCE_DOC)]
UntilTime = Annotated[datetime | None, given("until", _time("until")), _UNTIL_SCHEMA, Query(description=UNTIL_DOC)]
