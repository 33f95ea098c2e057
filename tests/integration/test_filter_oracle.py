"""Content filters (hookline.core.filters) against moto's EventBridge matcher, an oracle for generated patterns and events.

Here, not in tests/unit: the unit tests import neither moto nor boto3 (tests/unit/test_no_network.py).
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, reject, settings
from hypothesis import strategies as st
from moto.events.models import EventPattern  # a dev-only test oracle (moto is in requirements-dev.txt), never shipped

from hookline.core.errors import ValidationFailed
from hookline.core.filters import matches, parse_filter

# -- the properties: moto's EventBridge matcher agrees, on the subset where moto follows EventBridge --
#
# moto (moto.events.models.EventPattern) departs from EventBridge's documented behaviour on a few corners,
# so the generators stay clear of them (the documented behaviour is checked by the cases above instead):
# - booleans: moto compares with Python's ==, where True == 1, so [true] matches 1 and numeric matches true.
#   No booleans are generated.
# - arrays of objects and arrays of arrays: moto only flattens objects, so a field below an array of objects
#   is missing to it (EventBridge looks through them). Event arrays hold scalars only.
# - empty objects and empty arrays in the event: moto keeps them as values, so {"exists": true} matches them;
#   they hold no value in EventBridge. None are generated.
# - field names with dots: moto flattens paths by joining names with dots. Names are a, b and c.


def moto_matches(pattern: dict[str, Any], document: dict[str, Any]) -> bool:
    """moto's answer; its events are typed as EventBridge envelopes, but it matches any JSON object."""
    event: Any = document
    return bool(EventPattern.load(json.dumps(pattern)).matches_event(event))


STRINGS = st.sampled_from(["", "a", "ab", "abc", "AB", "b", "x.png", "X.PNG", "init", "initial"])
NUMBERS = st.sampled_from([-2, 0, 1, 2, 3, 2.0, 2.5, 100])
SCALARS = st.one_of(STRINGS, NUMBERS, st.none())
NAMES = st.sampled_from(["a", "b", "c"])


def ranges() -> st.SearchStrategy[list[Any]]:
    single = st.tuples(st.sampled_from(["=", "<", "<=", ">", ">="]), NUMBERS).map(list)
    bounds = st.tuples(st.sampled_from([">", ">="]), st.sampled_from(["<", "<="]), st.lists(NUMBERS, min_size=2, max_size=2).map(sorted))
    ranged = bounds.map(lambda b: [b[0], b[2][0], b[1], b[2][1]])
    return st.one_of(single, ranged)


MATCHERS: st.SearchStrategy[Any] = st.one_of(
    SCALARS,
    STRINGS.map(lambda text: {"prefix": text}),
    STRINGS.map(lambda text: {"prefix": {"equals-ignore-case": text}}),
    STRINGS.map(lambda text: {"suffix": text}),
    STRINGS.map(lambda text: {"suffix": {"equals-ignore-case": text}}),
    STRINGS.map(lambda text: {"equals-ignore-case": text}),
    st.one_of(STRINGS, NUMBERS, st.lists(STRINGS, min_size=1, max_size=3), st.lists(NUMBERS, min_size=1, max_size=3)).map(
        lambda value: {"anything-but": value}
    ),
    st.sampled_from(["prefix", "suffix", "equals-ignore-case"]).flatmap(lambda name: STRINGS.map(lambda text: {"anything-but": {name: text}})),
    ranges().map(lambda comparisons: {"numeric": comparisons}),
    st.booleans().map(lambda present: {"exists": present}),
)
LEAVES = st.lists(MATCHERS, min_size=1, max_size=3)


def with_or(fields: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """An object of fields, sometimes with a $or of 2 or 3 more such objects."""
    alternatives = st.lists(fields, min_size=2, max_size=3)
    return st.one_of(fields, st.tuples(fields, alternatives).map(lambda both: {**both[0], "$or": both[1]}), alternatives.map(lambda alts: {"$or": alts}))


DATA_PATTERNS = st.recursive(
    with_or(st.dictionaries(NAMES, LEAVES, min_size=1, max_size=2)),
    lambda inner: with_or(st.dictionaries(NAMES, st.one_of(LEAVES, inner), min_size=1, max_size=2)),
    max_leaves=4,
)
TOP_FIELDS = st.fixed_dictionaries({}, optional={"type": LEAVES, "customer": LEAVES, "data": st.one_of(LEAVES, DATA_PATTERNS)}).filter(bool)
PATTERNS = with_or(TOP_FIELDS)

# Objects hold most of the names, so that a pattern's fields are often there to be judged.
EVENT_VALUES = st.recursive(
    st.one_of(SCALARS, st.lists(SCALARS, min_size=1, max_size=3)),
    lambda inner: st.dictionaries(NAMES, inner, min_size=2, max_size=3),
    max_leaves=8,
)
EVENT_TYPES = STRINGS
CUSTOMERS = st.one_of(st.none(), STRINGS)


@st.composite
def shaped(draw: st.DrawFn, pattern: Any) -> Any:
    """A value shaped like the pattern (its fields mostly there, with values from the pattern's own pools), so that
    the operators get judged on the very paths they read; now and then anything at all instead."""
    if draw(st.integers(0, 9)) == 0:
        return draw(EVENT_VALUES)
    if isinstance(pattern, list):
        return draw(st.one_of(SCALARS, st.lists(SCALARS, min_size=1, max_size=3)))
    candidates: dict[str, list[Any]] = {}
    for sub in [pattern, *pattern.get("$or", [])]:
        for name, value in sub.items():
            if name != "$or":
                candidates.setdefault(name, []).append(value)
    shape = {name: draw(shaped(draw(st.sampled_from(subs)))) for name, subs in candidates.items() if draw(st.integers(0, 4))}
    return shape or {draw(NAMES): draw(SCALARS)}  # never an empty object (see above)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(pattern=PATTERNS, event_type=EVENT_TYPES, customer=CUSTOMERS, draw=st.data())
def test_matching_agrees_with_motos_eventbridge(pattern: dict[str, Any], event_type: str, customer: str | None, draw: st.DataObject) -> None:
    # Given a pattern of the supported operators (the few generated past a bound are refused as such, and skipped)
    try:
        event_filter = parse_filter(pattern)
    except ValidationFailed as refused:
        assert any(bound in refused.message for bound in ("deeper than", "match values in all", "bytes of JSON")), refused.message
        reject()
    # And an event, its data mostly shaped like the pattern
    document = draw.draw(shaped(pattern), label="document")
    data = document["data"] if isinstance(document, dict) and "data" in document else draw.draw(EVENT_VALUES, label="data")
    event = {"type": event_type, "customer": customer, "data": data}
    # When both matchers judge the event, then they agree
    oracle = moto_matches(pattern, event)
    assert matches(event_filter, event_type, customer, data) is oracle


def near(leaf: list[Any]) -> list[Any]:
    """The leaf's own constants and their neighbours: other cases, longer strings, numbers beside each bound."""
    constants: list[Any] = []

    def collect(value: Any) -> None:
        if isinstance(value, dict):
            for inner in value.values():
                collect(inner)
        elif isinstance(value, list):
            for inner in value:
                collect(inner)
        elif isinstance(value, str) and value not in NUMERIC_OPERATOR_NAMES:
            constants.extend([value.swapcase(), value, value + "z", "z" + value])
        elif isinstance(value, int | float):
            constants.extend([value, float(value), value - 1, value + 1, value - 0.5, value + 0.5])

    collect(leaf)
    return constants or [""]


NUMERIC_OPERATOR_NAMES = frozenset({"=", "<", "<=", ">", ">="})


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(matcher=MATCHERS, draw=st.data(), present=st.integers(0, 9))
def test_each_operator_agrees_with_motos_eventbridge(matcher: Any, draw: st.DataObject, present: int) -> None:
    # Given one field with one match value (alone, so that nothing else decides the answer), and an event that
    # mostly has that field, with values mostly near the pattern's own
    leaf = [matcher]
    nearby = st.sampled_from(near(leaf))
    scalars = st.one_of(nearby, nearby, nearby, SCALARS)
    value = draw.draw(st.one_of(scalars, st.lists(scalars, min_size=1, max_size=3)), label="value")
    pattern = {"data": {"a": leaf}}
    data = {"a": value} if present else {"b": value}
    # When both matchers judge the event, then they agree
    oracle = moto_matches(pattern, {"type": "t", "customer": None, "data": data})
    assert matches(parse_filter(pattern), "t", None, data) is oracle
