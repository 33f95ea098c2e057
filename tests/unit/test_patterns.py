"""What a schema pattern means and which ones hookline refuses (hookline.core.patterns), and that jsonschema runs none on `re`."""

from __future__ import annotations

import inspect

import jsonschema._keywords
import jsonschema._utils
import pytest

from hookline.core import patterns, schemas
from hookline.core.patterns import MAX_PATTERN_POSITIONS, UNICODE_CLASS_POSITIONS, PatternRefused, check, positions, search


@pytest.mark.parametrize(
    ("pattern", "text", "found"),
    [
        ("b", "abc", True),  # a search: JSON Schema's patterns are unanchored
        ("^b", "abc", False),
        ("^a$", "a\n", False),  # `$` is the end of the string, as in ECMA-262 (Python's `re` would match)
        ("^a$", "a", True),
        ("^\\d$", "٣", True),  # Unicode digits, as Python's `re` had them (ECMA-262's are ASCII)
        ("^[0-9]$", "٣", False),
        ("^\\w+$", "café", True),
        ("(?i)^abc$", "ABC", True),
        ("^(a+)+$", "a" * 30 + "!", False),
        ("^(a+)+$", "a" * 100_000, True),
    ],
)
def test_a_pattern_means_what_the_module_says(pattern: str, text: str, found: bool) -> None:
    assert search(pattern, text) is found


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        ("(?=a)", "look-around"),
        ("(?<!a)b", "look-around"),
        ("(a)\\1", "backreferences"),
        ("a\\Z", "unrecognized escape"),
        ("\\w{1000}", "size limit"),
        (".{257}", f"the limit is {MAX_PATTERN_POSITIONS}"),
        ("\\w{26}", f"the limit is {MAX_PATTERN_POSITIONS}"),
        ("\\w{3}\\b", f"the limit is {MAX_PATTERN_POSITIONS}"),
    ],
)
def test_a_pattern_the_linear_engine_cannot_run_is_refused_naming_it(pattern: str, words: str) -> None:
    with pytest.raises(PatternRefused) as refused:
        check(pattern)
    assert repr(pattern) in str(refused.value) and words in str(refused.value)


@pytest.mark.parametrize(
    ("pattern", "counted"),
    [
        ("abc", 3),
        ("^a$", 1),
        ("[a-z]{8}-[0-9]{4}", 13),
        ("(?:ab|c){3}", 9),
        ("a+b*", 2),
        ("a{2,}", 2),
        ("\\d{4}", 4 * UNICODE_CLASS_POSITIONS),
        ("[a-z\\w]", UNICODE_CLASS_POSITIONS),
        ("\\bab", 2 * UNICODE_CLASS_POSITIONS),
        ("[\\b]", 1),  # a backspace in a class, not a boundary
    ],
)
def test_positions_multiply_counted_repetitions_and_weigh_unicode_classes(pattern: str, counted: int) -> None:
    assert positions(pattern) == counted


def test_every_function_of_jsonschema_that_uses_re_runs_on_the_linear_engine() -> None:
    # A jsonschema upgrade that evaluates patterns somewhere else must fail here, not open a ReDoS.
    # (A keyword counts as using `re` when it calls a helper that does.)
    for module, rebound in ((jsonschema._utils, schemas._PATTERN_HELPERS), (jsonschema._keywords, schemas._PATTERN_KEYWORDS)):
        names = {"re", *schemas._PATTERN_HELPERS}
        functions = {name: member for name, member in vars(module).items() if inspect.isfunction(member) and member.__module__ == module.__name__}
        assert {name for name, function in functions.items() if names & set(function.__code__.co_names)} == set(rebound), module.__name__
    for keyword in schemas._PATTERN_KEYWORDS:
        assert schemas._Validator.VALIDATORS[keyword].__globals__["re"] is schemas._LinearRe
    assert patterns.search is schemas._LinearRe.search
