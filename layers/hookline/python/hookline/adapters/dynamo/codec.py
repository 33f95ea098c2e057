"""boto3's DynamoDB resource layer, compiled per operation: the same conversions in a fraction of the CPU.

A boto3 Table turns Python values into DynamoDB's attribute values and back, and Key(...)/Attr(...) conditions
into expressions, in handlers on its client's events (boto3.dynamodb.transform). On every call they deep-copy
the parameters and walk the operation's whole input and output shapes, member by member; in the delivery handler
that was about a fifth of a DynamoDB call's CPU (docs/benchmarks.md). `AttributeCodec` takes their place on
hookline's Table (hookline.adapters.aws.dynamodb_table) and does the same:

* The walk is compiled once per operation and target (`walker`): only the members that can hold an attribute value
  (or a condition) are visited, by the rules boto3's walk keeps (a structure or map is a Mapping, a list a mutable
  sequence, a shape is matched by name).
* Nothing the caller passed is changed: a converted value is a new dict or list, and so is every container on its
  way up, so the deep copy is not needed (boto3 makes it because its walk converts in place).
* Values of the common exact types (str, int, Decimal, bool, None, dict, list) are converted here, by boto3's
  rules (numbers through its DYNAMODB_CONTEXT, so an inexact one is refused as boto3 refuses it); anything else (a
  set, bytes, a Binary, a tuple, a float, a subclass) goes to boto3's own TypeSerializer and TypeDeserializer.
* Conditions are built by boto3's ConditionExpressionTransformation with the Table's own builder (the per-thread
  one hookline.adapters.aws installs); their placeholders are added to copies of the request's names and values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableSequence
from decimal import Decimal
from typing import Any

from boto3.dynamodb.transform import ConditionExpressionTransformation
from boto3.dynamodb.types import DYNAMODB_CONTEXT, TypeDeserializer, TypeSerializer

Walker = Callable[[Any, Callable[[Any], Any]], Any]  # (a value of the shape, a conversion) -> the value converted
ATTRIBUTE_VALUE, CONDITION, KEY_CONDITION = "AttributeValue", "ConditionExpression", "KeyExpression"  # boto3's target shape names
_SERIALIZER = TypeSerializer()
_DESERIALIZER = TypeDeserializer()
_NUMBERS = (int, Decimal)
# boto3's own handlers this one replaces (boto3.dynamodb.transform.DynamoDBHighLevelResource), by event and id
REPLACED = (
    ("provide-client-params.dynamodb", "dynamodb-create-params-copy"),
    ("before-parameter-build.dynamodb", "dynamodb-condition-expression"),
    ("before-parameter-build.dynamodb", "dynamodb-attr-value-input"),
    ("after-call.dynamodb", "dynamodb-attr-value-output"),
)


def serialize(value: Any) -> dict[str, Any]:
    """A Python value as a DynamoDB attribute value: boto3's TypeSerializer, the common exact types done here."""
    kind = type(value)
    if kind is str:
        return {"S": value}
    if kind in _NUMBERS:
        number = str(DYNAMODB_CONTEXT.create_decimal(value))
        if number in ("Infinity", "NaN"):
            raise TypeError("Infinity and NaN not supported")
        return {"N": number}
    if kind is bool:
        return {"BOOL": value}
    if value is None:
        return {"NULL": True}
    if kind is dict:
        return {"M": {k: serialize(v) for k, v in value.items()}}
    if kind is list:
        return {"L": [serialize(v) for v in value]}
    serialized: dict[str, Any] = _SERIALIZER.serialize(value)
    return serialized


def deserialize(value: dict[str, Any]) -> Any:
    """A DynamoDB attribute value as a Python value: boto3's TypeDeserializer, the common types done here."""
    if len(value) == 1:
        ((kind, inner),) = value.items()
        if kind == "S":
            return inner
        if kind == "N":
            return DYNAMODB_CONTEXT.create_decimal(inner)
        if kind == "M":
            return {k: deserialize(v) for k, v in inner.items()}
        if kind == "L":
            return [deserialize(v) for v in inner]
        if kind == "BOOL":
            return inner
    return _DESERIALIZER.deserialize(value)


def _compile(shape: Any, target: str, compiling: frozenset[str]) -> Walker | None:
    """A walker that converts every value of the `target` shape inside a value of `shape`, or None if `shape`
    holds none. A shape met again while it is being compiled is taken to hold none: DynamoDB's only recursive
    shape is AttributeValue (through its M and L), which is the attribute-value target itself and holds no
    condition."""
    if shape.name in compiling:
        return None
    compiling = compiling | {shape.name}
    if shape.type_name == "structure":
        plan = [(name, inner) for name, member in shape.members.items() for held, inner in [_inner(member, target, compiling)] if held]
        return _structure(plan) if plan else None
    if shape.type_name in ("map", "list"):
        held, inner = _inner(shape.value if shape.type_name == "map" else shape.member, target, compiling)
        if not held:
            return None
        return _mapping(inner) if shape.type_name == "map" else _sequence(inner)
    return None


def _inner(shape: Any, target: str, compiling: frozenset[str]) -> tuple[bool, Walker | None]:
    """For a member or element `shape`: whether it holds the target, and how: (True, None) if it is the target
    itself (converted whole), (True, its walker) if it holds some, (False, None) if it holds none."""
    if shape.name == target:
        return True, None
    walker = _compile(shape, target, compiling)
    return walker is not None, walker


def _structure(plan: list[tuple[str, Walker | None]]) -> Walker:
    def structure(value: Any, convert: Callable[[Any], Any]) -> Any:
        if not isinstance(value, Mapping):
            return value
        out = None
        for name, inner in plan:
            if name in value:
                old = value[name]
                new = convert(old) if inner is None else inner(old, convert)
                if new is not old:
                    if out is None:
                        out = dict(value)
                    out[name] = new
        return value if out is None else out

    return structure


def _mapping(inner: Walker | None) -> Walker:
    def mapping(value: Any, convert: Callable[[Any], Any]) -> Any:
        if not isinstance(value, Mapping):
            return value
        if inner is None:
            return {k: convert(v) for k, v in value.items()}
        return {k: inner(v, convert) for k, v in value.items()}

    return mapping


def _sequence(inner: Walker | None) -> Walker:
    def sequence(value: Any, convert: Callable[[Any], Any]) -> Any:
        if not isinstance(value, MutableSequence):
            return value
        if inner is None:
            return [convert(v) for v in value]
        return [inner(v, convert) for v in value]

    return sequence


class AttributeCodec:
    """The handlers that take the place of boto3's resource layer on one Table's client (the module's text)."""

    def __init__(self, condition_builder: Any):
        self._builder = condition_builder
        self._walkers: dict[tuple[str, str], Walker | None] = {}

    def walker(self, shape: Any, target: str) -> Walker | None:
        wanted = (shape.name, target)
        if wanted not in self._walkers:
            self._walkers[wanted] = _compile(shape, target, frozenset())
        return self._walkers[wanted]

    def install(self, events: Any) -> None:
        """On a Table's client's `events`, in place of boto3's handlers (REPLACED)."""
        for event, unique_id in REPLACED:
            events.unregister(event, unique_id=unique_id)
        events.register("before-parameter-build.dynamodb", self.before_parameter_build, unique_id="hookline-attribute-codec-input")
        events.register("after-call.dynamodb", self.after_call, unique_id="hookline-attribute-codec-output")

    def before_parameter_build(self, params: dict[str, Any], model: Any, **_: Any) -> None:
        """Conditions into expressions, then every Python value into an attribute value, in `params` (the request's
        own dict: botocore made it from the call's keyword arguments)."""
        shape = model.input_shape
        conditions, key_conditions = self.walker(shape, CONDITION), self.walker(shape, KEY_CONDITION)
        if conditions is not None or key_conditions is not None:
            self._builder.reset()
            names: dict[str, str] = {}
            values: dict[str, Any] = {}
            for walk, is_key in ((conditions, False), (key_conditions, True)):
                if walk is not None:
                    _update(params, walk(params, ConditionExpressionTransformation(self._builder, names, values, is_key_condition=is_key)))
            if names:
                params["ExpressionAttributeNames"] = {**params.get("ExpressionAttributeNames", {}), **names}
            if values:
                params["ExpressionAttributeValues"] = {**params.get("ExpressionAttributeValues", {}), **values}
        values_walk = self.walker(shape, ATTRIBUTE_VALUE)
        if values_walk is not None:
            _update(params, values_walk(params, serialize))

    def after_call(self, parsed: dict[str, Any], model: Any, **_: Any) -> None:
        """Every attribute value of the answer into a Python value, in `parsed`."""
        if model.output_shape is None:
            return
        walk = self.walker(model.output_shape, ATTRIBUTE_VALUE)
        if walk is not None:
            _update(parsed, walk(parsed, deserialize))


def _update(params: dict[str, Any], converted: dict[str, Any]) -> None:
    """The event's own dict takes the converted members (botocore reads the dict it emitted)."""
    if converted is not params:
        params.update(converted)
