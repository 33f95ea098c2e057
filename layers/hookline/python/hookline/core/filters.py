"""Content filters for webhook endpoints: EventBridge event patterns over `{"type", "customer", "data"}`. Pure.

An endpoint's `filter` is an event pattern, as Amazon EventBridge documents them
(https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-create-pattern-operators.html), read
against the document `{"type": <event type>, "customer": <uid or null>, "data": <the event's data>}`.
`parse_filter` validates a pattern (JSON as `json.loads` makes it) into a frozen, hashable `EventFilter`;
`matches` says whether an event passes it.

Supported: exact values (string, number, boolean, null), `prefix` and `suffix` (a string, or
`{"equals-ignore-case": string}`), `equals-ignore-case`, `anything-but` (a string or number, a list of
strings or of numbers, `{"prefix"|"suffix": string}`, or `{"equals-ignore-case": string or list of strings}`), `numeric` (one comparison,
or a lower and an upper bound), `exists`, and `$or` (2+ alternatives, at any object level). Not supported,
and refused by name: `wildcard`, `cidr` (and no regular expressions at all).

Matching follows EventBridge: every field of the pattern must match (AND); a leaf's array matches when
any of its values or operators matches (OR); where the event holds an array, the pattern matches when
any element does (arrays of objects are looked through too); only scalar leaves are values, so a field
that is absent, an object, or an empty array is missing, and a missing field matches only
`{"exists": false}` (never `anything-but`); numeric operators match numbers only (not strings, not
booleans); numbers compare by value (5 equals 5.0), and a boolean is never a number. Not modelled:
EventBridge's rule that two fields matched inside one array of objects must come from the same element.

Bounds, each refused with the path of the part that crosses it: MAX_FILTER_BYTES of JSON, MAX_DEPTH
levels of objects (the pattern itself is 1; each nested field object and each `$or` alternative adds 1),
MAX_MATCH_VALUES match values in all (each value or operator of a leaf counts 1, each value an
`anything-but` list excludes counts 1), MAX_STRING_LENGTH characters a string (field names included).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from hookline.core.errors import ValidationFailed

MAX_FILTER_BYTES = 2048
MAX_DEPTH = 8
MAX_MATCH_VALUES = 100
MAX_STRING_LENGTH = 256
LARGEST = int(sys.float_info.max)  # a filter's numbers are finite: floats, or integers no larger in magnitude than the largest float

FIELDS = ("type", "customer", "data")  # the document's fields; type and customer are strings (or null), so leaves
OR = "$or"
NUMERIC_OPERATORS = frozenset({"=", "<", "<=", ">", ">="})
_LOWER_BOUNDS = frozenset({">", ">="})
_UPPER_BOUNDS = frozenset({"<", "<="})
UNSUPPORTED_OPERATORS = frozenset({"wildcard", "cidr"})
OPERATORS = ("prefix", "suffix", "equals-ignore-case", "anything-but", "numeric", "exists")
CODE = "invalid_filter"

Scalar = str | int | float | bool | None


# -- the parsed form: frozen, hashable, compared by meaning (a boolean is never equal to a number) --


@dataclass(frozen=True)
class Equals:
    """An exact value. `kind` keeps True apart from 1 (Python finds them equal): string, number, boolean or null."""

    kind: str
    value: Scalar

    def test(self, value: Scalar) -> bool:
        return _kind(value) == self.kind and value == self.value


@dataclass(frozen=True)
class Prefix:
    text: str
    ignore_case: bool = False

    def test(self, value: Scalar) -> bool:
        if not isinstance(value, str):
            return False
        return value.lower().startswith(self.text.lower()) if self.ignore_case else value.startswith(self.text)


@dataclass(frozen=True)
class Suffix:
    text: str
    ignore_case: bool = False

    def test(self, value: Scalar) -> bool:
        if not isinstance(value, str):
            return False
        return value.lower().endswith(self.text.lower()) if self.ignore_case else value.endswith(self.text)


@dataclass(frozen=True)
class EqualsIgnoreCase:
    text: str

    def test(self, value: Scalar) -> bool:
        return isinstance(value, str) and value.lower() == self.text.lower()


@dataclass(frozen=True)
class Numeric:
    """One comparison, or a lower and an upper bound: ((operator, number), ...). Numbers only, never booleans."""

    comparisons: tuple[tuple[str, float], ...]

    def test(self, value: Scalar) -> bool:
        if _kind(value) != "number":
            return False
        assert isinstance(value, int | float)
        return all(_compare(value, operator, bound) for operator, bound in self.comparisons)


@dataclass(frozen=True)
class AnythingBut:
    """A present value that none of `excluded` matches (exact values, or one prefix, suffix or equals-ignore-case)."""

    excluded: tuple[Equals | Prefix | Suffix | EqualsIgnoreCase, ...]

    def test(self, value: Scalar) -> bool:
        return not any(matcher.test(value) for matcher in self.excluded)


@dataclass(frozen=True)
class Exists:
    present: bool


Matcher = Equals | Prefix | Suffix | EqualsIgnoreCase | Numeric | AnythingBut | Exists


@dataclass(frozen=True)
class Leaf:
    """A field's array of match values: the event's value matches when any of them does."""

    matchers: tuple[Matcher, ...]


@dataclass(frozen=True)
class ObjectPattern:
    """Fields that must all match (sorted by name), and `$or` alternatives of which one must (none when empty)."""

    fields: tuple[tuple[str, Leaf | ObjectPattern], ...]
    alternatives: tuple[ObjectPattern, ...] = ()


@dataclass(frozen=True)
class EventFilter:
    """A validated pattern. Equal (and hashed) by its parsed form; `source` is its JSON, keys sorted, for storing."""

    root: ObjectPattern
    source: str = field(compare=False)

    def to_json(self) -> dict[str, Any]:
        parsed: dict[str, Any] = json.loads(self.source)
        return parsed


# -- matching --


def matches(filter: EventFilter, event_type: str, customer: str | None, data: Any) -> bool:
    """Whether the event `{"type": event_type, "customer": customer, "data": data}` passes the filter."""
    return _matches_object(filter.root, [{"type": event_type, "customer": customer, "data": data}])


def _matches_object(pattern: ObjectPattern, nodes: list[Any]) -> bool:
    """`nodes` are the event's values at this path (several where it went through arrays)."""
    objects = [node for node in _flatten(nodes) if isinstance(node, dict)]
    for name, sub in pattern.fields:
        children = [obj[name] for obj in objects if name in obj]
        if isinstance(sub, ObjectPattern):
            if not _matches_object(sub, children):
                return False
        elif not _matches_leaf(sub, [value for value in _flatten(children) if not isinstance(value, dict)]):
            return False
    return not pattern.alternatives or any(_matches_object(alternative, nodes) for alternative in pattern.alternatives)


def _matches_leaf(leaf: Leaf, values: list[Scalar]) -> bool:
    """`values` are the scalars at the leaf's path: none when the field is missing."""
    for matcher in leaf.matchers:
        if isinstance(matcher, Exists):
            if matcher.present == bool(values):
                return True
        elif any(matcher.test(value) for value in values):
            return True
    return False


def _flatten(nodes: Iterable[Any]) -> Iterator[Any]:
    for node in nodes:
        if isinstance(node, list):
            yield from _flatten(node)
        else:
            yield node


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "other"


def _compare(value: float, operator: str, bound: float) -> bool:
    if operator == "=":
        return value == bound
    if operator == "<":
        return value < bound
    if operator == "<=":
        return value <= bound
    if operator == ">":
        return value > bound
    return value >= bound


# -- parsing --


def _refuse(path: str, problem: str) -> ValidationFailed:
    return ValidationFailed(f"'{path}': {problem}", code=CODE)


class _Budget:
    """Match values counted so far, across the whole pattern."""

    def __init__(self) -> None:
        self.used = 0

    def spend(self, path: str, count: int = 1) -> None:
        self.used += count
        if self.used > MAX_MATCH_VALUES:
            raise _refuse(path, f"a filter holds at most {MAX_MATCH_VALUES} match values in all")


def parse_filter(value: Any) -> EventFilter:
    """Validate an event pattern (parsed JSON) into an EventFilter; refuse it with ValidationFailed(code="invalid_filter")."""
    if not isinstance(value, dict):
        raise _refuse("filter", "must be an object (an EventBridge event pattern)")
    if not value:
        raise _refuse("filter", "a filter needs at least one field; leave it out to receive every event")
    root = _parse_object(value, "filter", 1, _Budget(), top=True)
    source = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    size = len(source.encode("utf-8"))
    if size > MAX_FILTER_BYTES:
        raise _refuse("filter", f"is {size} bytes of JSON; at most {MAX_FILTER_BYTES}")
    return EventFilter(root, source)


def _parse_object(obj: dict[Any, Any], path: str, depth: int, budget: _Budget, *, top: bool) -> ObjectPattern:
    if depth > MAX_DEPTH:
        raise _refuse(path, f"nests deeper than {MAX_DEPTH} levels of objects")
    if not obj:
        raise _refuse(path, "is an empty object; it needs at least one field")
    fields: list[tuple[str, Leaf | ObjectPattern]] = []
    alternatives: tuple[ObjectPattern, ...] = ()
    for name, value in obj.items():
        if not isinstance(name, str):
            raise _refuse(path, f"has a field name that is not a string: {name!r}")
        here = f"{path}.{name}"
        _check_length(here, name, "a field name")
        if name == OR:
            alternatives = _parse_or(value, here, depth, budget, top=top)
        elif top and name not in FIELDS:
            raise _refuse(here, f"is not a field a filter reads; a filter reads only {', '.join(FIELDS)}")
        elif isinstance(value, list):
            fields.append((name, _parse_leaf(value, here, budget)))
        elif isinstance(value, dict) and not (top and name != "data"):
            fields.append((name, _parse_object(value, here, depth + 1, budget, top=False)))
        elif isinstance(value, dict):
            raise _refuse(here, f"must be an array of match values (the event's {name} is a string or null, not an object)")
        else:
            raise _refuse(here, "must be an array of match values (EventBridge requires arrays), or an object of fields")
    return ObjectPattern(tuple(sorted(fields, key=lambda item: item[0])), alternatives)


def _parse_or(value: Any, path: str, depth: int, budget: _Budget, *, top: bool) -> tuple[ObjectPattern, ...]:
    if not isinstance(value, list) or len(value) < 2:
        raise _refuse(path, "must be an array of at least 2 alternative patterns (objects)")
    alternatives = []
    for index, alternative in enumerate(value):
        here = f"{path}[{index}]"
        if not isinstance(alternative, dict):
            raise _refuse(here, "an alternative of $or must be an object of fields")
        alternatives.append(_parse_object(alternative, here, depth + 1, budget, top=top))
    return tuple(alternatives)


def _parse_leaf(values: list[Any], path: str, budget: _Budget) -> Leaf:
    if not values:
        raise _refuse(path, "is an empty array; it needs at least one match value")
    matchers: list[Matcher] = []
    for index, item in enumerate(values):
        here = f"{path}[{index}]"
        budget.spend(here)
        if isinstance(item, dict):
            matchers.append(_parse_operator(item, here, budget))
        elif isinstance(item, list):
            raise _refuse(here, "is an array inside an array; match values are strings, numbers, booleans, null or operators")
        else:
            matchers.append(_exact(item, here))
    return Leaf(tuple(matchers))


def _finite(number: float) -> bool:
    """A number a filter may hold: finite, and an integer within a float's range (-LARGEST to LARGEST)."""
    return -LARGEST <= number <= LARGEST


def _exact(value: Any, path: str) -> Equals:
    kind = _kind(value)
    if kind == "other":
        raise _refuse(path, f"is not a match value (a string, number, boolean or null) but a {type(value).__name__}")
    if kind == "string":
        _check_length(path, value, "a string")
    if kind == "number" and not _finite(value):
        raise _refuse(path, "is not a finite number")
    return Equals(kind, value)


def _check_length(path: str, text: str, what: str) -> None:
    if len(text) > MAX_STRING_LENGTH:
        raise _refuse(path, f"{what} of {len(text)} characters; at most {MAX_STRING_LENGTH}")


def _parse_operator(operator: dict[Any, Any], path: str, budget: _Budget) -> Matcher:
    unsupported = sorted(str(name) for name in operator if name in UNSUPPORTED_OPERATORS)
    if unsupported:
        raise _refuse(path, f"'{unsupported[0]}' is not supported (nor are regular expressions)")
    if len(operator) != 1:
        raise _refuse(path, f'an operator object holds exactly one operator, e.g. {{"prefix": "inv"}} (it has {len(operator)})')
    name, argument = next(iter(operator.items()))
    here = f"{path}.{name}"
    if name in ("prefix", "suffix"):
        text, ignore_case = _text_argument(argument, here, name, allow_ignore_case=True)
        return Prefix(text, ignore_case) if name == "prefix" else Suffix(text, ignore_case)
    if name == "equals-ignore-case":
        return EqualsIgnoreCase(_text_argument(argument, here, name, allow_ignore_case=False)[0])
    if name == "exists":
        if not isinstance(argument, bool):
            raise _refuse(here, "exists takes true or false")
        return Exists(argument)
    if name == "numeric":
        return _parse_numeric(argument, path)
    if name == "anything-but":
        return _parse_anything_but(argument, here, budget)
    raise _refuse(path, f"unknown operator {name!r}; the operators are {', '.join(OPERATORS)}")


def _text_argument(argument: Any, path: str, name: str, *, allow_ignore_case: bool) -> tuple[str, bool]:
    """A string, or (where allowed) {"equals-ignore-case": string}: the text, and whether case is ignored."""
    if isinstance(argument, str):
        _check_length(path, argument, "a string")
        return argument, False
    if allow_ignore_case and isinstance(argument, dict) and list(argument) == ["equals-ignore-case"]:
        text = argument["equals-ignore-case"]
        if isinstance(text, str):
            _check_length(f"{path}.equals-ignore-case", text, "a string")
            return text, True
    also = ', or {"equals-ignore-case": string}' if allow_ignore_case else ""
    raise _refuse(path, f"{name} takes a string{also}")


def _parse_numeric(argument: Any, path: str) -> Numeric:
    problem = 'numeric needs an operator and a number, or a lower and an upper bound: e.g. [">", 0, "<=", 5]'
    if not isinstance(argument, list) or len(argument) not in (2, 4):
        raise _refuse(path, problem)
    comparisons = []
    for operator, bound in zip(argument[::2], argument[1::2], strict=True):
        if not isinstance(operator, str) or operator not in NUMERIC_OPERATORS or _kind(bound) != "number" or not _finite(bound):
            raise _refuse(path, problem)
        comparisons.append((str(operator), bound))
    if len(comparisons) == 2:
        lower, upper = sorted(comparisons, key=lambda comparison: comparison[0] not in _LOWER_BOUNDS)
        if lower[0] not in _LOWER_BOUNDS or upper[0] not in _UPPER_BOUNDS:
            raise _refuse(path, "a numeric range needs one lower bound (> or >=) and one upper bound (< or <=)")
        if lower[1] > upper[1]:
            raise _refuse(path, f"the numeric range's lower bound {lower[1]} is above its upper bound {upper[1]}")
        comparisons = [lower, upper]
    return Numeric(tuple(comparisons))


def _parse_anything_but(argument: Any, path: str, budget: _Budget) -> AnythingBut:
    problem = 'anything-but takes a string, a number, a list of strings or of numbers, or {"prefix"|"suffix"|"equals-ignore-case": string}'
    if isinstance(argument, dict):
        if any(name in UNSUPPORTED_OPERATORS for name in argument):
            raise _refuse(path, f"'{sorted(n for n in argument if n in UNSUPPORTED_OPERATORS)[0]}' is not supported (nor are regular expressions)")
        if len(argument) != 1 or next(iter(argument)) not in ("prefix", "suffix", "equals-ignore-case"):
            raise _refuse(path, problem)
        name, text = next(iter(argument.items()))
        here = f"{path}.{name}"
        if name == "equals-ignore-case" and isinstance(text, list) and text:  # EventBridge's documented list form
            budget.spend(here, len(text) - 1)
            texts = [_text_argument(item, f"{here}[{index}]", name, allow_ignore_case=False)[0] for index, item in enumerate(text)]
            return AnythingBut(tuple(EqualsIgnoreCase(item) for item in texts))
        value = _text_argument(text, here, name, allow_ignore_case=False)[0]
        inner: Prefix | Suffix | EqualsIgnoreCase = Prefix(value) if name == "prefix" else Suffix(value) if name == "suffix" else EqualsIgnoreCase(value)
        return AnythingBut((inner,))
    values = argument if isinstance(argument, list) else [argument]
    if not values:
        raise _refuse(path, "is an empty array; anything-but needs at least one value")
    excluded = [_exact(value, f"{path}[{index}]" if argument is values else path) for index, value in enumerate(values)]
    kinds = {matcher.kind for matcher in excluded}
    if len(kinds) != 1 or kinds & {"boolean", "null"}:
        raise _refuse(path, problem)
    budget.spend(path, len(excluded) - 1)
    return AnythingBut(tuple(excluded))
