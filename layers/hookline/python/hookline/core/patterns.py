"""The regular expressions of event schemas (`pattern`, `patternProperties`), searched in linear time. Pure.

A schema's patterns are the user's code run on every event of its type, so they are never run by Python's
backtracking `re`, where "^(a+)+$" against 31 characters takes minutes. They run on the Rust `regex` crate
that pydantic-core already carries (`regex_engine="rust-regex"`): a finite-automaton engine with no
backtracking, so one search costs at most (compiled pattern size) x (string length). No dependency is
added to the layer and nothing to its cold start (pydantic-core is imported by Powertools' parser anyway);
google-re2 would have added a wheel for the same guarantee.

What a pattern means (JSON Schema says ECMA-262; hookline's patterns are the Rust crate's):
- a search, not a match: "b" matches "abc", as JSON Schema's patterns are unanchored;
- `$` is the end of the string only, as in ECMA-262 ("^a$" refuses "a\\n", which Python's `re` accepts);
- `\\d`, `\\w`, `\\s` and `\\b` are Unicode-aware ("\\d" matches "٣"), as they were with Python's `re` and
  unlike ECMA-262's ASCII ones; write [0-9] for ASCII digits. `(?i)` and `\\p{L}`-style classes work;
- refused, at `PUT /v1/event-types`, with the pattern and its JSON pointer: what the crate does not compile
  (backreferences, lookahead and lookbehind, `\\Z` (write `$`), possessive and atomic groups), and what
  compiles beyond its 10 MB program limit.

The bound. A finite automaton stays fast while its states fit its cache; a pattern whose counted repetitions
are long (".{3000}", "\\w{200}") thrashes it, and one search of a 256 KB string then takes seconds. So each
pattern may have at most MAX_PATTERN_POSITIONS positions, counted as `positions` does (every character,
class or `.` once, times the counted repetitions around it; an unbounded repetition counts its body once;
a Unicode class, `\\w` or `\\d`, as UNICODE_CLASS_POSITIONS, its automaton being that much larger, and a
whole pattern with `\\b` or `\\B` UNICODE_CLASS_POSITIONS times over, since a Unicode word boundary makes the
crate simulate the automaton instead of running it), and a
schema's patterns together at most MAX_SCHEMA_PATTERN_POSITIONS. Under those limits the slowest search found
on a 256 KB string (ASCII, 2-byte and 3-byte characters; "\\w{25}0", ".{255}0", "\\w{2}\\b0"...) took 10 ms here
(".{3000}0" took 12 s, "\\w{200}0" 1.6 s, "\\w{24}\\b0" on "é"s 0.5 s: those are refused), so
one event's pattern checks take at most (its strings' total length, under HOOKLINE_MAX_EVENT_BYTES) x (the
schema's patterns, under MAX_SCHEMA_PATTERN_POSITIONS) automaton steps.
"""

from __future__ import annotations

import importlib
import re
from functools import lru_cache
from typing import Any

from pydantic_core import SchemaError, SchemaValidator, core_schema

# CPython's own parser of patterns (what re.compile runs), for counting their positions; private, so untyped.
_parser: Any = importlib.import_module("re._parser")
sre: Any = importlib.import_module("re._constants")

MAX_PATTERN_POSITIONS = 256
MAX_SCHEMA_PATTERN_POSITIONS = 4096
UNICODE_CLASS_POSITIONS = 10
# Compiled patterns kept: a few schemas' worth (a schema holds at most MAX_SCHEMA_PATTERN_POSITIONS of them).
CACHED_PATTERNS = 1024
_UNICODE_CATEGORIES = frozenset(
    {sre.CATEGORY_DIGIT, sre.CATEGORY_NOT_DIGIT, sre.CATEGORY_WORD, sre.CATEGORY_NOT_WORD, sre.CATEGORY_UNI_DIGIT, sre.CATEGORY_UNI_WORD}
)
_BOUNDARIES = frozenset({sre.AT_BOUNDARY, sre.AT_NON_BOUNDARY, sre.AT_UNI_BOUNDARY, sre.AT_UNI_NON_BOUNDARY})
_REPEATS = frozenset({sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT})


class PatternRefused(ValueError):
    """A pattern hookline does not run: the linear engine cannot compile it, or it has too many positions."""


def search(pattern: str, text: str) -> bool:
    """Whether `pattern` matches anywhere in `text` (JSON Schema's unanchored search), in linear time."""
    return _compiled(pattern).isinstance_python(text)


def check(pattern: str, most: int = MAX_PATTERN_POSITIONS) -> int:
    """The pattern's positions, if the linear engine compiles it and they are at most `most`; else PatternRefused."""
    _compiled(pattern)
    counted = positions(pattern)
    if counted > most:
        raise PatternRefused(f"the pattern {pattern!r} has {counted} positions (counted repetitions multiplied out); the limit is {most}")
    return counted


def positions(pattern: str) -> int:
    """How many positions the automaton of `pattern` holds, as the module's text counts them (PatternRefused if Python cannot parse it)."""
    try:
        parsed = _parser.parse(pattern)
    except re.error as error:
        raise PatternRefused(f"the pattern {pattern!r} is not a regular expression: {error}") from None
    tests: set[object] = set()
    counted = _count(list(parsed), tests)
    # A Unicode word boundary sends the crate from its automaton to its slower simulation for the whole search.
    return counted * UNICODE_CLASS_POSITIONS if tests & _BOUNDARIES else counted


@lru_cache(maxsize=CACHED_PATTERNS)
def _compiled(pattern: str) -> SchemaValidator:
    try:
        return SchemaValidator(core_schema.str_schema(pattern=pattern, regex_engine="rust-regex"))
    except SchemaError as error:
        # pydantic-core's message ends with the crate's own line ("error: look-around ... is not supported").
        reason = str(error).strip().splitlines()[-1].strip().removeprefix("SchemaError: ").removeprefix("error: ")
        raise PatternRefused(f"the pattern {pattern!r} cannot be run in linear time: {reason}") from None


def _count(items: list[tuple[Any, Any]], tests: set[object]) -> int:
    """The positions of parsed `items`; adds each `^`, `$`, `\\b`... met to `tests`."""
    total = 0
    for op, value in items:
        if op in _REPEATS:
            low, high, body = value
            times = max(low, 1) if high == sre.MAXREPEAT else max(high, 1)
            total += _count(list(body), tests) * times
        elif op == sre.SUBPATTERN:
            total += _count(list(value[-1]), tests)
        elif op == sre.BRANCH:
            total += sum(_count(list(branch), tests) for branch in value[1])
        elif op == sre.AT:
            tests.add(value)  # ^, $, \\b: a test, not a position
        else:
            total += _class_positions(op, value)
    return total


def _class_positions(op: Any, value: Any) -> int:
    members = value if op == sre.IN else [(op, value)]
    unicode = any(kind == sre.CATEGORY and category in _UNICODE_CATEGORIES for kind, category in members)
    return UNICODE_CLASS_POSITIONS if unicode else 1
