"""An answer's named values are checked against the forms the document shows (issue 51, item 1): an id, a secret, a
customer uid, an event type or a version name is one declared type, whose pattern is both the schema and the check.
So every value the API makes, the ways this release and the previous one make them, must pass its type, or the
answer would be a 500; and a value of another form is refused, not shown."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from hookline.core import ids, signing
from hookline.core.contract import fields
from hookline.core.contract.common import DeliveryId, EndpointId, EventId, JobId, ReplayId, schema_of
from hookline.core.contract.endpoints import Secret
from hookline.core.jobs import JOB
from hookline.core.replay import REPLAY

NOW_MS = 1_773_480_413_589  # 2026-03-14T09:26:53.589Z

# Each type, values the code makes for it (this release's way and the previous release's), and one it does not make.
MADE: list[tuple[str, Any, list[str], str]] = [
    ("endpoint id", EndpointId, [ids.new_id(ids.ENDPOINT, NOW_MS), ids.new_id(ids.ENDPOINT, 0)], "ep_1"),
    ("event id", EventId, [ids.event_id("acme", None, NOW_MS), ids.event_id("acme", "order-1", NOW_MS)], "evt_nope"),
    (
        "delivery id",
        DeliveryId,
        [ids.delivery_id("acme", "evt_a", "ep_b", NOW_MS), ids.legacy_broadcast_delivery_id("acme", "evt_a", "ep_b")],
        "dlv_01KKNTQ2CNERX003W04YPT75J4",
    ),
    ("job id", JobId, [ids.new_id(JOB, NOW_MS), ids.derived_id(JOB, "acme", "broadcast", "evt_a")], "job_"),
    ("replay id", ReplayId, [ids.derived_id(REPLAY, "acme", "ep_a", "2026-03-14T00:00:00.000Z")], "rpl_01kkntq2cnerx003w04ypt75j"),
    ("secret", Secret, [signing.generate_secret(), signing.generate_secret()], "whsec_dGVzdHNlY3JldA=="),
    ("customer uid", fields.CustomerUid, ["org_4711", "a", "A.b:c-d_" + "x" * 56], "org#4711"),
    ("event type", fields.EventTypeName, ["invoice.paid", "a/b:c-d_e"], ".invoice"),
    ("version name", fields.VersionName, ["2026-01-01", "0001-12-31"], "2026-13-01"),
]


@pytest.mark.parametrize(("what", "named", "made", "other"), MADE, ids=[row[0] for row in MADE])
def test_what_the_api_makes_passes_its_answer_type_and_another_form_does_not(what: str, named: Any, made: list[str], other: str) -> None:
    # Given the type an answer shows the value as
    check = TypeAdapter(named)
    # Then every value the code makes passes it, as it is
    assert [check.validate_python(value) for value in made] == made
    # And a value of another form is refused
    with pytest.raises(ValidationError):
        check.validate_python(other)


@pytest.mark.parametrize(("what", "named", "made", "other"), MADE, ids=[row[0] for row in MADE])
def test_the_document_shows_the_pattern_the_type_checks(what: str, named: Any, made: list[str], other: str) -> None:
    # Given the schema the document shows for the type
    shown = schema_of(named)
    # Then it is a string with a pattern and an example, and the example passes the type
    assert (shown["type"], "pattern" in shown) == ("string", True)
    TypeAdapter(named).validate_python(shown["examples"][0])
