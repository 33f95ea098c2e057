"""A content filter's grammar as pydantic types: the schema the document shows for a filter is the one they check.

The grammar is hookline.core.filters.parse_filter's, but for what JSON Schema cannot state, which the filter's
description says in words: the byte total (MAX_FILTER_BYTES), the count of match values (MAX_MATCH_VALUES) and a
numeric range whose lower bound is above its upper bound. parse_filter stays the rule: it words every refusal
(hookline.core.contract.fields.Worded), and it reads the JSON as it came, since these types keep the value given.

A `$ref` in the document resolves against its root, so the filter's depth (MAX_DEPTH levels of objects) is unrolled:
one type per level, each a component. `FilterLevel{n}` is a pattern's top level (`type`, `customer`, `data`, `$or`) at
level n (the filter itself is 1, each `$or` alternative one more); `FilterObject{n}` is a nested field object under
`data` at level n (any field names, and `$or`). At the last level there is neither `$or` nor a nested object.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, Literal, TypeAliasType

from pydantic import ConfigDict, Field, Strict, WrapValidator, with_config
from pydantic_core.core_schema import ValidatorFunctionWrapHandler
from typing_extensions import TypedDict

from hookline.core import filters

# An object of fields: at least one, each name at most MAX_STRING_LENGTH characters, and at the last level none `$or`
# (pydantic states none of these for a TypedDict; parse_filter checks them).
_NAMES = {"maxLength": filters.MAX_STRING_LENGTH}
_LAST_NAMES = {**_NAMES, "not": {"const": filters.OR}}


def _fields(names: dict[str, Any]) -> Any:
    return with_config(ConfigDict(json_schema_extra={"minProperties": 1, "propertyNames": names}))  # no constraint states them


_typed_dict: Any = TypedDict  # the names are made in a loop (one per level), which mypy's TypedDict cannot follow

Text: Any = Annotated[str, Field(max_length=filters.MAX_STRING_LENGTH)]
# A finite number: an integer or a float within a float's range (filters.LARGEST; JSON Schema's number holds integers).
FilterNumber: Any = TypeAliasType(
    "FilterNumber",
    Annotated[int, Field(ge=-filters.LARGEST, le=filters.LARGEST)]
    | Annotated[float, Field(ge=-sys.float_info.max, le=sys.float_info.max, allow_inf_nan=False)],
)

IgnoringCase = _typed_dict("FilterEqualsIgnoreCase", {"equals-ignore-case": Text}, closed=True)
Prefix = _typed_dict("FilterPrefix", {"prefix": Text | IgnoringCase}, closed=True)
Suffix = _typed_dict("FilterSuffix", {"suffix": Text | IgnoringCase}, closed=True)
Exists = _typed_dict("FilterExists", {"exists": bool}, closed=True)

_Operator = Literal["=", "<", "<=", ">", ">="]
_Lower = Literal[">", ">="]
_Upper = Literal["<", "<="]
# A JSON array, shown and checked as a tuple's items: lax, since a strict tuple refuses a list (the value kept is the list).
_Comparisons: Any = (
    Annotated[tuple[_Operator, FilterNumber], Strict(False)]
    | Annotated[tuple[_Lower, FilterNumber, _Upper, FilterNumber], Strict(False)]
    | Annotated[tuple[_Upper, FilterNumber, _Lower, FilterNumber], Strict(False)]
)
Numeric = _typed_dict("FilterNumeric", {"numeric": _Comparisons}, closed=True)

_Texts: Any = Annotated[list[Text], Field(min_length=1)]
_Excluded: Any = (
    Text
    | FilterNumber
    | _Texts
    | Annotated[list[FilterNumber], Field(min_length=1)]
    | _typed_dict("FilterButPrefix", {"prefix": Text}, closed=True)
    | _typed_dict("FilterButSuffix", {"suffix": Text}, closed=True)
    | _typed_dict("FilterButEqualsIgnoreCase", {"equals-ignore-case": Text | _Texts}, closed=True)
)
AnythingBut = _typed_dict("FilterAnythingBut", {"anything-but": _Excluded}, closed=True)

MatchValue: Any = Text | FilterNumber | bool | None | Prefix | Suffix | IgnoringCase | Exists | Numeric | AnythingBut
# A field's array of match values (its count, all leaves together, is at most MAX_MATCH_VALUES: parse_filter's).
FilterMatchValues: Any = TypeAliasType("FilterMatchValues", Annotated[list[MatchValue], Field(min_length=1)])


def _alternatives(level: Any) -> Any:
    return Annotated[list[level], Field(min_length=2)]


def _levels() -> Any:
    """The pattern's top level at level 1, built from the last level up: each level's `data` may be the nested field
    object one level down, and its `$or` alternatives are the top level one level down."""
    top: Any = None
    nested: Any = None
    for depth in range(filters.MAX_DEPTH, 0, -1):
        last = depth == filters.MAX_DEPTH
        data = FilterMatchValues if last else FilterMatchValues | nested
        members = {"type": FilterMatchValues, "customer": FilterMatchValues, "data": data} | ({} if last else {filters.OR: _alternatives(top)})
        if depth > 1:
            alternatives = {} if last else {filters.OR: _alternatives(nested)}
            nested = _fields(_LAST_NAMES if last else _NAMES)(_typed_dict(f"FilterObject{depth}", alternatives, total=False, extra_items=data))
        top = _fields(_NAMES)(_typed_dict(f"FilterLevel{depth}", members, total=False, closed=True))
    return top


def _as_given(value: Any, check: ValidatorFunctionWrapHandler) -> Any:
    """The value given, once the grammar takes it (pydantic's reading would turn a numeric pair into a tuple)."""
    check(value)
    return value


# A filter as given, checked by the grammar: parse_filter reads the value the client sent (a numeric pair stays a list).
Grammar: Any = Annotated[_levels(), WrapValidator(_as_given)]
