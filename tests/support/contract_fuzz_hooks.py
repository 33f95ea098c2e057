"""schemathesis hooks of `make contract-fuzz` (tests/contract_fuzz.py): refusals the document states but JSON Schema cannot.

schemathesis's `positive_data_acceptance` check expects every request the document's schemas allow to succeed
(2xx, or 401/403/404/409/429). hookline refuses a few of them for reasons docs/openapi.yaml states in words, as no
JSON Schema can:

* the tenant's state: a payload version the tenant does not have (or is past its sunset), an event its type's
  registered schema refuses or its endpoints' versions cannot carry, a sunset on the default version, the 50th
  version, an endpoint limit above its customer's, a `cursor` this list did not hand out;
* a JSON Schema document an event type registers: it must be valid against JSON Schema 2020-12's meta-schema,
  which the document names and does not embed (422 `invalid_schema`);
* the receiver: `enable` and a `version` change send a test event first, and a receiver that does not answer 2xx
  (every host the fuzzer makes up) is 424 `test_event_failed`;
* the deployment's URL policy: a private address, a port or plain http it does not allow (422 `forbidden_url`);
* a rule across fields: a window's `since` must come before its `until`;
* a size JSON Schema cannot measure: a customer's metadata over 4096 bytes of UTF-8, custom headers over 8192
  bytes, or two header names that differ only in case;
* a content filter's rules JSON Schema cannot state: its bytes of JSON, its match values in all, a `numeric` range
  whose lower bound is above its upper bound (422 `invalid_filter`).

Each is dropped here (`filter_failure`) only for the operations, statuses and error codes the document names for
it, and a window only when the request's `since` is indeed not before its `until`; any other refusal of
schema-valid data, and every other check's failure, still fails the run. schemathesis counts what was dropped.
"""

from __future__ import annotations

import atexit
import json
import re
import sys
from collections import Counter
from datetime import UTC, datetime
from typing import Any

import schemathesis

# (operation, status): the error codes that refuse schema-valid data for a reason the document states in words.
STATE_DEPENDENT: dict[tuple[str, int], frozenset[str]] = {
    ("POST /v1/endpoints", 422): frozenset({"unknown_version", "version_sunset", "above_customer_limit", "forbidden_url"}),
    ("PATCH /v1/endpoints/{endpoint_id}", 422): frozenset({"unknown_version", "version_sunset", "above_customer_limit", "forbidden_url"}),
    ("PATCH /v1/endpoints/{endpoint_id}", 424): frozenset({"test_event_failed"}),
    ("POST /v1/endpoints/{endpoint_id}/enable", 424): frozenset({"test_event_failed"}),
    ("POST /v1/events", 422): frozenset({"schema_violation", "version_unavailable", "unknown_version", "invalid_schema"}),
    ("POST /v1/events/broadcast", 422): frozenset({"schema_violation", "version_unavailable", "unknown_version", "invalid_schema"}),
    ("PUT /v1/versions/{version}", 422): frozenset({"default_sunset", "too_many_versions"}),
    ("PUT /v1/event-types/{name}", 422): frozenset({"invalid_schema"}),
    **{
        (operation, 422): frozenset({"invalid_cursor"})
        for operation in (
            "GET /v1/endpoints",
            "GET /v1/endpoints/{endpoint_id}/deliveries",
            "GET /v1/endpoints/{endpoint_id}/poll",
            "GET /v1/events/{event_id}",
            "GET /v1/event-types",
            "GET /v1/customers",
        )
    },
}

# Operations whose window (`since`, `until`: query or body) must be in order: 422 `validation_failed` otherwise.
WINDOWS = frozenset(
    {
        "GET /v1/endpoints/{endpoint_id}/stats",
        "GET /v1/endpoints/{endpoint_id}/failures",
        "GET /v1/customers/{uid}/stats",
        "POST /v1/endpoints/{endpoint_id}/replay",
    }
)

# Operation: the 422 `validation_failed` messages of limits the document states and JSON Schema cannot measure.
HEADERS = re.compile(r"'headers' add up to \d+ bytes; the limit is \d+|header .* is given twice", re.DOTALL)
UNMEASURED: dict[str, re.Pattern[str]] = {
    "PUT /v1/customers/{uid}": re.compile(r"'metadata' adds up to \d+ bytes; the limit is \d+"),
    "POST /v1/endpoints": HEADERS,
    "PATCH /v1/endpoints/{endpoint_id}": HEADERS,
}


# Operation: parse_filter's `invalid_filter` messages for what a filter's schema cannot state (hookline.core.filters).
_FILTER = re.compile(
    r"'filter.*': (is \d+ bytes of JSON; at most \d+|a filter holds at most \d+ match values in all"
    r"|the numeric range's lower bound \S+ is above its upper bound \S+)",
    re.DOTALL,
)
UNSTATED_IN_FILTERS = {"POST /v1/endpoints": _FILTER, "PATCH /v1/endpoints/{endpoint_id}": _FILTER, "POST /v1/filters/test": _FILTER}


def _error(response: Any) -> dict[str, Any]:
    try:
        body = json.loads(response.content)
    except ValueError:
        return {}
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, dict) else {}


def _moment(value: Any) -> datetime | None:
    """A window's end as the API reads it (ISO 8601 with a zone, to the millisecond, in UTC); None if it is not one."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    moment = moment.astimezone(UTC)
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def _window_out_of_order(case: Any, error: dict[str, Any]) -> bool:
    """The request's window is indeed empty: `since` not before `until` (a left-out end as the API fills it in)."""
    if error.get("code") != "validation_failed" or error.get("message") != "'since' must be before 'until'":
        return False
    values = case.body if isinstance(case.body, dict) else dict(case.query or {})
    since = _moment(values.get("since"))
    until = _moment(values["until"]) if "until" in values else datetime.now(UTC)  # the API's default end: now
    return since is not None and until is not None and since >= until


UNREADABLE_PEM = re.compile(
    r"'auth': (the certificate or the private key cannot be read \(PEM; the key unencrypted\)|the private key is not the certificate's)"
)


def accepted_refusal(operation: str, status: int, error: dict[str, Any], case: Any) -> bool:
    """Whether a schema-valid request's refusal is one the document states in words (see the module's docstring)."""
    code = error.get("code")
    if code in STATE_DEPENDENT.get((operation, status), ()):
        return True
    if status != 422:
        return False
    if operation in WINDOWS and _window_out_of_order(case, error):
        return True
    if code == "invalid_auth" and operation in ("POST /v1/endpoints", "PATCH /v1/endpoints/{endpoint_id}"):
        # An mTLS pair must be PEM a TLS handshake can present (the document says so in words; JSON Schema cannot read PEM).
        return UNREADABLE_PEM.fullmatch(str(error.get("message"))) is not None
    message, limit = error.get("message"), UNMEASURED.get(operation) if code == "validation_failed" else UNSTATED_IN_FILTERS.get(operation)
    return code in ("validation_failed", "invalid_filter") and isinstance(message, str) and limit is not None and limit.fullmatch(message) is not None


ACCEPTED: Counter[tuple[str, int, str]] = Counter()


@schemathesis.hook
def filter_failure(context: Any, failure: Any, case: Any, response: Any) -> bool:
    """Keep every failure but a `positive_data_acceptance` one (ST202) that `accepted_refusal` accepts."""
    if getattr(failure, "code", None) != "ST202":
        return True
    error = _error(response)
    if not accepted_refusal(case.operation.label, response.status_code, error, case):
        return True
    ACCEPTED[case.operation.label, response.status_code, str(error.get("code"))] += 1
    return False


@atexit.register
def _report() -> None:
    """What was accepted, once schemathesis is done: which documented refusals, how often."""
    if ACCEPTED:
        lines = [f"  {n:4} x {status} {code:22} {operation}" for (operation, status, code), n in sorted(ACCEPTED.items())]
        print("contract-fuzz: schema-valid requests refused as the document states in words (accepted):", *lines, sep="\n", file=sys.stderr)
