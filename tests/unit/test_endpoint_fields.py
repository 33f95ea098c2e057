"""An endpoint's request fields are declared once (issue 51, item 1): each is a type of hookline.core.contract.fields
whose constraints are both the server's check and the document's schema, never a schema written beside a rule. The
refusals are the API's as they always were (the table), bar `ordered: null`, which the document has always refused."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError, WithJsonSchema

from hookline.core import destinations
from hookline.core.contract.endpoints import CreateEndpoint, UpdateEndpoint
from hookline.entrypoints.api.routing import contract_error

URL = "https://example.com/hook"


@pytest.mark.parametrize("model", [CreateEndpoint, UpdateEndpoint], ids=lambda m: m.__name__)
def test_no_request_field_shows_a_schema_written_beside_its_rule(model: type[BaseModel]) -> None:
    # Given the request model's fields (destination is a union of models, shown as its input type)
    shown = [name for name, field in model.model_fields.items() if any(isinstance(m, WithJsonSchema) for m in field.metadata)]
    # Then none replaces its type's schema with a hand-written one
    assert shown == []


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        ({"url": 5}, "wrong_type", "'url' must be a string"),
        ({"url": None}, "wrong_type", "'url' must be a string"),
        ({"url": "http://" + "a" * 2050}, "invalid_url", "'url' is longer than 2048 characters"),
        ({"url": "ftp://x"}, "invalid_url", "'url' must be an http or https URL"),
        ({"url": " http://x"}, "invalid_url", "'url' must not contain whitespace or control characters"),
        ({"url": "http://u:p@x.com"}, "invalid_url", "'url' must not contain credentials"),
        ({"url": URL, "event_types": "x"}, "wrong_type", "'event_types' must be a list of strings"),
        ({"url": URL, "event_types": ["a"] * 101}, "validation_failed", "'event_types' holds more than 100 types"),
        ({"url": URL, "event_types": ["#"]}, "validation_failed", "event type '#' is not valid (letters, digits and _.:/-, up to 128)"),
        ({"url": URL, "description": 5}, "wrong_type", "'description' must be a string"),
        ({"url": URL, "description": "x" * 1025}, "validation_failed", "'description' is longer than 1024 characters"),
        (
            {"url": URL, "description": "a\x01"},
            "validation_failed",
            "'description' must not contain control characters other than tab and line feed (found U+0001)",
        ),
        ({"url": URL, "headers": []}, "wrong_type", "'headers' must be an object of header names to string values"),
        ({"url": URL, "headers": {"Host": "x"}}, "forbidden_header", "header 'Host' is set by hookline and cannot be overridden"),
        ({"url": URL, "headers": {"X-A": "b", "x-a": "c"}}, "validation_failed", "header 'x-a' is given twice"),
        ({"url": URL, "headers": {"X": 1}}, "wrong_type", "header 'X' must have a string value"),
        ({"url": URL, "headers": {"X": "v" * 9000}}, "validation_failed", "'headers' add up to 9001 bytes; the limit is 8192"),
        ({"url": URL, "customer": "#"}, "invalid_customer_uid", "a customer uid is 1 to 64 characters of letters, digits and ._:-"),
        ({"url": URL, "filter": {}}, "invalid_filter", "'filter': a filter needs at least one field; leave it out to receive every event"),
        ({"url": URL, "ordered": 0}, "wrong_type", "'ordered' must be true or false"),
        # Newly refused: the document's `ordered` has always been a boolean, never null.
        ({"url": URL, "ordered": None}, "wrong_type", "'ordered' must be true or false"),
        ({"status": "x"}, "validation_failed", "'status' must be 'active' or 'disabled'"),
        ({"status": None}, "validation_failed", "'status' must be 'active' or 'disabled'"),
    ],
)
def test_a_refused_field_is_answered_as_before(body: dict[str, Any], code: str, message: str) -> None:
    model = UpdateEndpoint if "status" in body else CreateEndpoint
    with pytest.raises(ValidationError) as refused:
        model.model_validate(body)
    answer = contract_error(refused.value.errors())
    assert (answer.code, answer.message) == (code, message)


def test_null_and_duplicates_read_as_the_endpoint_keeps_them() -> None:
    taken = CreateEndpoint.model_validate({"url": URL, "event_types": ["a", "b", "a"], "description": None, "headers": None, "filter": None})
    assert (taken.event_types, taken.description, taken.headers, taken.filter) == (("a", "b"), "", {}, None)


def _words(alphabet: str, longest: int) -> Iterator[str]:
    for n in range(longest + 1):
        yield from ("".join(w) for w in itertools.product(alphabet, repeat=n))


# Each destination pattern holds the refusal JSON Schema would otherwise state with `not` (a source starting with
# `aws.`, a prefix with `..` or `//`, a bucket named like an IP address): every short word over the letters that
# matter is matched exactly when the plain rule takes it.
@pytest.mark.parametrize(
    ("pattern", "alphabet", "longest", "rule"),
    [
        (destinations.SOURCE, "aws.A_", 6, lambda w: re.fullmatch(r"[A-Za-z0-9._/-]+", w) and not w.startswith("aws.")),
        (destinations.PREFIX, "./a", 7, lambda w: re.fullmatch(r"[A-Za-z0-9!_.*'()/=-]*", w) and ".." not in w and "//" not in w),
        (
            destinations.BUCKET,
            "1.a-",
            9,
            lambda w: re.fullmatch(r"[a-z0-9](?:\.?[a-z0-9-])*\.?[a-z0-9]", w) and not re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+", w),
        ),
    ],
    ids=["source", "prefix", "bucket"],
)
def test_a_destination_pattern_is_its_rule(pattern: re.Pattern[str], alphabet: str, longest: int, rule: Callable[[str], Any]) -> None:
    differ = [w for w in _words(alphabet, longest) if bool(pattern.fullmatch(w)) != bool(rule(w))]
    assert differ == []


CONTRACT = Path(__file__).resolve().parents[2] / "layers" / "hookline" / "python" / "hookline" / "core" / "contract"
