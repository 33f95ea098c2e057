"""Event payload schemas: JSON Schema 2020-12 documents, checked once and then applied to many events. Pure.

A schema is self-contained: every `$ref` and `$dynamicRef` is a fragment ("#...") of the same
document, and the validators are built on a `referencing.Registry` that retrieves nothing, so no
schema can make validation open a URL or a file. `format` is an annotation only, as 2020-12's
default vocabulary says: "format": "email" describes a string, it does not reject one (jsonschema
asserts formats only when given a format checker, and none is given here).

A schema is a JSON object (2020-12 also allows `true` and `false`; `{}` and `{"not": {}}` say the same),
at most MAX_SCHEMA_BYTES as compact UTF-8 JSON, and declares no dialect but 2020-12's.

Patterns (`pattern`, and `patternProperties` wherever jsonschema reads it: that keyword, `additionalProperties`
and `unevaluatedProperties`) run on hookline.core.patterns' linear-time engine, never on Python's backtracking
`re`; that module says what they mean and bounds their cost. A schema with a pattern that engine refuses is
refused, naming the pattern and where it stands.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from types import FunctionType, ModuleType
from typing import TYPE_CHECKING, Any

import jsonschema
import jsonschema._keywords
import jsonschema._utils
import referencing
import referencing.exceptions
from jsonschema.exceptions import best_match
from referencing.jsonschema import DRAFT202012

from hookline.core import patterns
from hookline.core.jsonpatch import format_pointer

if TYPE_CHECKING:
    # Not re-exported by referencing; its own referencing.typing imports it from here the same way.
    from referencing._core import Resolver

MAX_SCHEMA_BYTES = 64 * 1024
# Checking, compiling and validating recurse per level; this keeps them far from Python's recursion limit.
MAX_SCHEMA_DEPTH = 64
MAX_MESSAGE = 300
# Compiled validators kept: the event types in active use, not every schema ever seen.
CACHED_VALIDATORS = 128
DIALECT = "https://json-schema.org/draft/2020-12/schema"
_REFERENCES = ("$ref", "$dynamicRef")
# Where 2020-12 keywords hold subschemas (as referencing.jsonschema.DRAFT202012 lists them).
_SUBSCHEMA = frozenset(
    {"additionalProperties", "contains", "contentSchema", "else", "if", "items", "not", "propertyNames", "then", "unevaluatedItems", "unevaluatedProperties"}
)
_SUBSCHEMA_ARRAYS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_SUBSCHEMA_MAPS = frozenset({"$defs", "definitions", "dependentSchemas", "patternProperties", "properties"})
# jsonschema 4.26 loses the instance location of an error from a `false` subschema (its `descend` adds the
# path only for object schemas), which under these keywords is a member or element, so there `false` is
# compiled as its equivalent {"not": {}} (2020-12 section 4.3.2). Other keywords either stay at the same
# location or report `false` themselves (additionalProperties, items, unevaluated*: at the array or object).
_LOCATING = frozenset({"properties", "patternProperties", "prefixItems"})
_PROBES: tuple[object, ...] = (None, True, 0, "", [], {})
# Where jsonschema 4.26 runs a schema's patterns, each with `re.search`: these keywords, and the helpers they call.
_PATTERN_KEYWORDS = ("pattern", "patternProperties", "additionalProperties", "unevaluatedProperties")
_PATTERN_HELPERS = ("find_additional_properties", "find_evaluated_property_keys_by_schema")


class _LinearRe:
    """`re` as the keywords of hookline's validator see it: `search` is the linear engine's (and nothing else exists)."""

    search = staticmethod(patterns.search)


def _linear(module: ModuleType, names: tuple[str, ...], **more: Any) -> dict[str, Any]:
    """jsonschema's own functions `names` of `module`, run with `re` meaning _LinearRe (and `more` for other globals).

    The same code, so every keyword keeps exactly jsonschema's evaluation and messages, rather than a copy of it;
    tests/unit/test_schemas.py checks that no other function of those modules uses `re`.
    """
    namespace = {**vars(module), "re": _LinearRe, **more}
    for name in names:
        function = namespace[name]
        namespace[name] = FunctionType(function.__code__, namespace, name, function.__defaults__, function.__closure__)
    return {name: namespace[name] for name in names}


_Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator, _linear(jsonschema._keywords, _PATTERN_KEYWORDS, **_linear(jsonschema._utils, _PATTERN_HELPERS))
)


class SchemaInvalid(ValueError):
    """Not a schema hookline accepts; `pointer` is the RFC 6901 location of the fault within the schema ("" for all of it)."""

    def __init__(self, message: str, pointer: str = ""):
        super().__init__(f"{pointer or 'schema'}: {message}")
        self.message = message
        self.pointer = pointer


@dataclass(frozen=True)
class Violation:
    """Why an instance fails its schema: where in the instance (RFC 6901), the keyword that failed, and jsonschema's words."""

    pointer: str
    rule: str
    message: str


def check_schema(schema: object) -> None:
    """Return if `schema` is one hookline accepts, else raise SchemaInvalid. Compiles it, so the check is cached too."""
    _compiled(_canonical(schema))


def violation(schema: dict[str, Any], instance: object) -> Violation | None:
    """None if `instance` is valid under `schema`, else its most relevant error (jsonschema's best_match).

    A `required` or `additionalProperties` violation points at the object that lacks or has the
    member, not at the member. SchemaInvalid if the schema itself would not pass check_schema.
    """
    validator = _compiled(_canonical(schema))
    try:
        error = best_match(validator.iter_errors(instance))
    except referencing.exceptions.Unresolvable as unresolvable:
        # Reachable only through a pointer into a non-schema keyword: check_schema resolves every other reference.
        raise SchemaInvalid(f"a reference does not resolve within the schema: {unresolvable}") from None
    except RecursionError:
        raise SchemaInvalid("the schema refers to itself without consuming the instance (a $ref cycle)") from None
    except patterns.PatternRefused as refused:  # a pattern only a reference into a non-schema keyword reaches
        raise SchemaInvalid(str(refused)) from None
    except OverflowError:
        # `multipleOf` divides the number by the divisor as a float: an integer beyond a float's range cannot be checked
        return Violation(pointer="", rule="multipleOf", message="a number of the data is too large to check against `multipleOf`")
    if error is None:
        return None
    rule, message = error.validator, error.message
    if not isinstance(rule, str) or (rule == "not" and error.validator_value == {}):
        # A `false` subschema: it fails with no keyword to name, or as the {"not": {}} it was compiled to.
        rule, message = "false", f"False schema does not allow {error.instance!r}"
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 1] + "…"
    return Violation(pointer=format_pointer(error.absolute_path), rule=rule, message=message)


def _canonical(schema: object) -> str:
    """The schema as sorted, compact JSON: the cache key, and the size the limit applies to."""
    try:
        text = json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as error:
        raise SchemaInvalid(f"a schema must be JSON: {error}") from None
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_SCHEMA_BYTES:
        raise SchemaInvalid(f"the schema is {size} bytes as compact JSON; the limit is {MAX_SCHEMA_BYTES}")
    return text


@lru_cache(maxsize=CACHED_VALIDATORS)
def _compiled(canonical: str) -> jsonschema.protocols.Validator:
    schema = json.loads(canonical)
    if not isinstance(schema, dict):
        raise SchemaInvalid("a schema must be a JSON object ({} accepts anything)")
    if _depth(schema) > MAX_SCHEMA_DEPTH:
        raise SchemaInvalid(f"the schema nests arrays and objects more than {MAX_SCHEMA_DEPTH} deep")
    dialect = schema.get("$schema", DIALECT)
    if not isinstance(dialect, str) or dialect.rstrip("#") != DIALECT:
        raise SchemaInvalid(f"only JSON Schema 2020-12 ({DIALECT}) is supported, not {dialect!r}", "/$schema")
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as error:
        raise SchemaInvalid(error.message, format_pointer(error.absolute_path)) from None
    _refuse_outside_references(schema, [])
    # A Registry's default `retrieve` refuses every URI (NoSuchResource). jsonschema's own default
    # registry would instead fetch an unknown http(s) or file: URI, so one is always passed.
    registry: referencing.Registry[Any] = referencing.Registry()
    _resolve_every_reference(schema, registry.resolver_with_root(DRAFT202012.create_resource(schema)), [])
    counted = _check_patterns(schema, [])
    if counted > patterns.MAX_SCHEMA_PATTERN_POSITIONS:
        raise SchemaInvalid(f"the schema's patterns have {counted} positions together; the limit is {patterns.MAX_SCHEMA_PATTERN_POSITIONS}")
    validator = _Validator(_false_as_not(schema), registry=registry)
    # A reference cycle that consumes nothing ({"$ref": "#"}) recurses on any instance: one value of each
    # type finds those. A cycle taken only for some members' values is caught when validating (`violation`).
    for probe in _PROBES:
        try:
            for _ in validator.iter_errors(probe):
                pass
        except RecursionError:
            raise SchemaInvalid("the schema refers to itself without consuming the instance (a $ref cycle)") from None
    return validator


def _check_patterns(schema: dict[str, Any], at: list[str]) -> int:
    """The positions of the patterns of `schema` and its subschemas; SchemaInvalid, at the pattern, for one the engine refuses."""

    def checked(pattern: str, tokens: list[str], most: int = patterns.MAX_PATTERN_POSITIONS) -> int:
        try:
            return patterns.check(pattern, most)
        except patterns.PatternRefused as refused:
            raise SchemaInvalid(str(refused), format_pointer([*at, *tokens])) from None

    total = 0
    if isinstance(pattern := schema.get("pattern"), str):
        total += checked(pattern, ["pattern"])
    if isinstance(named := schema.get("patternProperties"), dict):
        total += sum(checked(name, ["patternProperties", name]) for name in named)
        if len(named) > 1:  # additionalProperties searches them as one pattern, joined with "|"
            checked("|".join(named), ["patternProperties"], patterns.MAX_SCHEMA_PATTERN_POSITIONS)
    for tokens, subschema in _subschemas(schema):
        if isinstance(subschema, dict):
            total += _check_patterns(subschema, [*at, *tokens])
    return total


def _false_as_not(schema: Any, keyword: str = "") -> Any:
    """`schema` with each `false` directly under a _LOCATING keyword spelled {"not": {}}, at any depth."""
    if schema is False and keyword in _LOCATING:
        return {"not": {}}
    if not isinstance(schema, dict):
        return schema
    spelled = dict(schema)
    for key, value in schema.items():
        if key in _SUBSCHEMA:
            spelled[key] = _false_as_not(value)
        elif key in _SUBSCHEMA_ARRAYS and isinstance(value, list):
            spelled[key] = [_false_as_not(item, key) for item in value]
        elif key in _SUBSCHEMA_MAPS and isinstance(value, dict):
            spelled[key] = {name: _false_as_not(item, key) for name, item in value.items()}
    return spelled


def _refuse_outside_references(node: Any, at: list[str | int]) -> None:
    """SchemaInvalid for the first $ref or $dynamicRef that is not a fragment of this document.

    Every member so named is looked at, including ones under keywords that hold data (`const`,
    `default`): a "#/..." reference may point into any part of the document and use it as a schema.
    """
    if isinstance(node, dict):
        for key, value in node.items():
            if key in _REFERENCES and isinstance(value, str) and not value.startswith("#"):
                raise SchemaInvalid(f"{key} {value!r} points outside the schema; only references within it ('#...') are allowed", format_pointer([*at, key]))
            _refuse_outside_references(value, [*at, key])
    elif isinstance(node, list):
        for index, value in enumerate(node):
            _refuse_outside_references(value, [*at, index])


def _resolve_every_reference(schema: dict[str, Any], resolver: Resolver[Any], at: list[str]) -> None:
    """SchemaInvalid for a reference, in any subschema, whose target is not a schema in the document (a typo in "#/$defs/...").

    Targets are not followed: a reference that only a reference's target holds, under a keyword
    that holds data, is resolved when validation reaches it (and `violation` reports it then).
    """
    for key in _REFERENCES:
        reference = schema.get(key)
        if isinstance(reference, str):
            try:
                target = resolver.lookup(reference).contents
            except (referencing.exceptions.Unresolvable, ValueError):  # ValueError: a non-numeric token into an array
                raise SchemaInvalid(f"{key} {reference!r} does not resolve within the schema", format_pointer([*at, key])) from None
            if not isinstance(target, dict | bool):
                raise SchemaInvalid(f"{key} {reference!r} points at {type(target).__name__}, not a schema", format_pointer([*at, key]))
    for tokens, subschema in _subschemas(schema):
        if isinstance(subschema, dict):
            # in_subresource: a subschema with its own $id is the base its references resolve against.
            _resolve_every_reference(subschema, resolver.in_subresource(DRAFT202012.create_resource(subschema)), [*at, *tokens])


def _subschemas(schema: dict[str, Any]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Each direct subschema of `schema` (dict or bool, or whatever stands there), with the tokens leading to it."""
    for key, value in schema.items():
        if key in _SUBSCHEMA:
            yield (key,), value
        elif key in _SUBSCHEMA_ARRAYS and isinstance(value, list):
            yield from (((key, str(index)), item) for index, item in enumerate(value))
        elif key in _SUBSCHEMA_MAPS and isinstance(value, dict):
            yield from (((key, name), item) for name, item in value.items())


def _depth(value: Any) -> int:
    """How deeply arrays and objects nest in `value` (a scalar is 0), without recursing."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        node, depth = pending.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is not None:
            deepest = max(deepest, depth)
            pending.extend((child, depth + 1) for child in children)
    return deepest
