"""JSON Patch (RFC 6902) and JSON Pointer (RFC 6901): the RFCs' own examples, every operation's errors, and properties.

The cases stand on their own; the same table is also run through the `jsonpatch` package (pinned in
requirements-dev.txt, never shipped) as an independent oracle.
"""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch as oracle  # a dev-only test oracle (requirements-dev.txt), never shipped
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookline.core import jsonpatch
from hookline.core.jsonpatch import (
    MAX_COPIED_NODES,
    MAX_OPERATIONS,
    PatchFailed,
    PatchInvalid,
    PointerInvalid,
    apply,
    format_pointer,
    parse_pointer,
    validate_ops,
)

FAILS = object()  # the expected outcome of a patch that must raise PatchFailed


def op(name: str, path: str, from_: str | None = None, **members: Any) -> dict[str, Any]:
    """An operation; `from_` is its "from" member (a Python keyword)."""
    return {"op": name, "path": path, **({"from": from_} if from_ is not None else {}), **members}


# (name, document, patch, expected document or FAILS, index of the failing operation)
CASES: list[tuple[str, Any, list[dict[str, Any]], Any, int | None]] = [
    # RFC 6902 Appendix A, in order (A.13 is about duplicate JSON member names: a parser's concern, see below)
    ("A.1 add an object member", {"foo": "bar"}, [op("add", "/baz", value="qux")], {"baz": "qux", "foo": "bar"}, None),
    ("A.2 add an array element", {"foo": ["bar", "baz"]}, [op("add", "/foo/1", value="qux")], {"foo": ["bar", "qux", "baz"]}, None),
    ("A.3 remove an object member", {"baz": "qux", "foo": "bar"}, [op("remove", "/baz")], {"foo": "bar"}, None),
    ("A.4 remove an array element", {"foo": ["bar", "qux", "baz"]}, [op("remove", "/foo/1")], {"foo": ["bar", "baz"]}, None),
    ("A.5 replace a value", {"baz": "qux", "foo": "bar"}, [op("replace", "/baz", value="boo")], {"baz": "boo", "foo": "bar"}, None),
    (
        "A.6 move a value",
        {"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
        [op("move", "/qux/thud", from_="/foo/waldo")],
        {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}},
        None,
    ),
    (
        "A.7 move an array element",
        {"foo": ["all", "grass", "cows", "eat"]},
        [op("move", "/foo/3", from_="/foo/1")],
        {"foo": ["all", "cows", "eat", "grass"]},
        None,
    ),
    (
        "A.8 test a value: success",
        {"baz": "qux", "foo": ["a", 2, "c"]},
        [op("test", "/baz", value="qux"), op("test", "/foo/1", value=2)],
        {"baz": "qux", "foo": ["a", 2, "c"]},
        None,
    ),
    ("A.9 test a value: error", {"baz": "qux"}, [op("test", "/baz", value="bar")], FAILS, 0),
    ("A.10 add a nested member object", {"foo": "bar"}, [op("add", "/child", value={"grandchild": {}})], {"foo": "bar", "child": {"grandchild": {}}}, None),
    ("A.11 ignore unrecognized elements", {"foo": "bar"}, [op("add", "/baz", value="qux", xyz=123)], {"foo": "bar", "baz": "qux"}, None),
    ("A.12 add to a nonexistent target", {"foo": "bar"}, [op("add", "/baz/bat", value="qux")], FAILS, 0),
    ("A.14 ~ escape ordering", {"/": 9, "~1": 10}, [op("test", "/~01", value=10)], {"/": 9, "~1": 10}, None),
    ("A.15 compare strings and numbers", {"/": 9, "~1": 10}, [op("test", "/~01", value="10")], FAILS, 0),
    ("A.16 add an array value", {"foo": ["bar"]}, [op("add", "/foo/-", value=["abc", "def"])], {"foo": ["bar", ["abc", "def"]]}, None),
    # add
    ("add replaces an existing member", {"a": 1}, [op("add", "/a", value=2)], {"a": 2}, None),
    ("add at the root replaces the document", {"a": 1}, [op("add", "", value=[1])], [1], None),
    ("add at index len appends", {"a": [1]}, [op("add", "/a/1", value=2)], {"a": [1, 2]}, None),
    ("add past len fails", {"a": [1]}, [op("add", "/a/2", value=2)], FAILS, 0),
    ("add at a leading-zero index fails", {"a": [1, 2]}, [op("add", "/a/01", value=0)], FAILS, 0),
    ("add at a negative index fails", {"a": [1]}, [op("add", "/a/-1", value=0)], FAILS, 0),
    ("add into a scalar fails", {"a": "text"}, [op("add", "/a/0", value=0)], FAILS, 0),
    ("add to the empty-string member", {}, [op("add", "/", value=1)], {"": 1}, None),
    ("add a member whose name is a number", {}, [op("add", "/0", value=1)], {"0": 1}, None),
    # remove
    ("remove a missing member fails", {"a": 1}, [op("remove", "/b")], FAILS, 0),
    ("remove past the end fails", {"a": [1]}, [op("remove", "/a/1")], FAILS, 0),
    ("remove '-' fails", {"a": [1]}, [op("remove", "/a/-")], FAILS, 0),
    ("remove the whole document fails", {"a": 1}, [op("remove", "")], FAILS, 0),
    # replace
    ("replace an array element", {"a": [1, 2]}, [op("replace", "/a/0", value=9)], {"a": [9, 2]}, None),
    ("replace the root", {"a": 1}, [op("replace", "", value="x")], "x", None),
    ("replace a missing member fails", {"a": 1}, [op("replace", "/b", value=2)], FAILS, 0),
    ("replace at index len fails", {"a": [1]}, [op("replace", "/a/1", value=2)], FAILS, 0),
    ("replace '-' fails", {"a": [1]}, [op("replace", "/a/-", value=2)], FAILS, 0),
    # move
    ("move onto itself changes nothing", {"a": {"b": 1}}, [op("move", "/a", from_="/a")], {"a": {"b": 1}}, None),
    ("move into its own child fails", {"a": {"b": 1}}, [op("move", "/a/b/c", from_="/a")], FAILS, 0),
    ("move the root into a child fails", {"a": 1}, [op("move", "/x", from_="")], FAILS, 0),
    ("move to a sibling whose name extends it", {"a": 1}, [op("move", "/ab", from_="/a")], {"ab": 1}, None),
    ("move a member over the root", {"a": {"b": 1}}, [op("move", "", from_="/a")], {"b": 1}, None),
    ("move from a missing member fails", {"a": 1}, [op("move", "/c", from_="/b")], FAILS, 0),
    ("move to the end of an array", {"a": [1, 2, 3]}, [op("move", "/a/-", from_="/a/0")], {"a": [2, 3, 1]}, None),
    # copy
    ("copy a member", {"a": {"b": [1]}}, [op("copy", "/c", from_="/a")], {"a": {"b": [1]}, "c": {"b": [1]}}, None),
    ("copy into its own child", {"a": {"b": 1}}, [op("copy", "/a/c", from_="/a")], {"a": {"b": 1, "c": {"b": 1}}}, None),
    ("copy the root into a child", {"a": 1}, [op("copy", "/b", from_="")], {"a": 1, "b": {"a": 1}}, None),
    ("copy from a missing member fails", {"a": 1}, [op("copy", "/c", from_="/b")], FAILS, 0),
    # test
    ("test 1 equals 1.0", {"a": 1}, [op("test", "/a", value=1.0)], {"a": 1}, None),
    ("test true is not 1", {"a": True}, [op("test", "/a", value=1)], FAILS, 0),
    ("test 0 is not false", {"a": 0}, [op("test", "/a", value=False)], FAILS, 0),
    ("test null is not missing", {"a": 1}, [op("test", "/b", value=None)], FAILS, 0),
    ("test objects ignore member order", {"a": {"x": 1, "y": [1, 2]}}, [op("test", "/a", value={"y": [1, 2.0], "x": 1})], {"a": {"x": 1, "y": [1, 2]}}, None),
    ("test arrays are ordered", {"a": [1, 2]}, [op("test", "/a", value=[2, 1])], FAILS, 0),
    ("test the whole document", {"a": [1]}, [op("test", "", value={"a": [1.0]})], {"a": [1]}, None),
    # patches: operations apply in order, against the result so far, and the failing one is named
    ("later operations see earlier ones", {}, [op("add", "/a", value=[]), op("add", "/a/-", value=1), op("test", "/a/0", value=1)], {"a": [1]}, None),
    ("the index names the failing operation", {"a": 1}, [op("test", "/a", value=1), op("remove", "/a"), op("remove", "/a")], FAILS, 2),
]

# RFC 6901 section 5: each pointer into this document and what it names.
RFC6901_DOC = {"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, 'k"l': 6, " ": 7, "m~n": 8}
RFC6901_POINTERS = [
    ("", RFC6901_DOC),
    ("/foo", ["bar", "baz"]),
    ("/foo/0", "bar"),
    ("/", 0),
    ("/a~1b", 1),
    ("/c%d", 2),
    ("/e^f", 3),
    ("/g|h", 4),
    ("/i\\j", 5),
    ('/k"l', 6),
    ("/ ", 7),
    ("/m~0n", 8),
]


@pytest.mark.parametrize(("name", "doc", "patch", "expected", "failing"), CASES, ids=[c[0] for c in CASES])
def test_patch_cases(name: str, doc: Any, patch: list[dict[str, Any]], expected: Any, failing: int | None) -> None:
    # Given a document and a patch, and a copy of each to compare with afterwards
    doc_before, patch_before = copy.deepcopy(doc), copy.deepcopy(patch)
    # When the patch is applied
    if expected is FAILS:
        with pytest.raises(PatchFailed) as raised:
            apply(doc, patch)
        # Then it fails at the named operation, and says which operation and path
        assert raised.value.index == failing
        assert raised.value.op is patch[failing]
        assert raised.value.path == patch[failing]["path"]
        assert str(raised.value).startswith(f"operation {failing} ({patch[failing]['op']} {patch[failing]['path']}): ")
    else:
        # Then the result is the RFC's
        assert apply(doc, patch) == expected
    # And neither the document nor the patch was touched
    assert doc == doc_before
    assert patch == patch_before


@pytest.mark.parametrize(("name", "doc", "patch", "expected", "failing"), CASES, ids=[c[0] for c in CASES])
def test_the_jsonpatch_package_agrees(name: str, doc: Any, patch: list[dict[str, Any]], expected: Any, failing: int | None) -> None:
    # Given the same case run through an independent implementation
    # When it applies the patch
    # Then it succeeds with the same document, or fails too
    if expected is FAILS:
        with pytest.raises((oracle.JsonPatchException, oracle.JsonPointerException)):
            oracle.apply_patch(doc, patch)
    else:
        assert oracle.apply_patch(doc, patch) == expected


@pytest.mark.parametrize(("pointer", "value"), RFC6901_POINTERS, ids=[p for p, _ in RFC6901_POINTERS])
def test_rfc6901_examples(pointer: str, value: Any) -> None:
    # Given RFC 6901's example document, when a test operation names each of its pointers, then it finds the RFC's value
    assert apply(RFC6901_DOC, [op("test", pointer, value=value)]) == RFC6901_DOC


def test_parse_and_format_pointers() -> None:
    assert parse_pointer("") == []
    assert parse_pointer("/") == [""]
    assert parse_pointer("/a~1b/m~0n/~01/0") == ["a/b", "m~n", "~1", "0"]
    assert format_pointer(["a/b", "m~n", "~1", 0]) == "/a~1b/m~0n/~01/0"
    assert format_pointer([]) == ""


@pytest.mark.parametrize("pointer", ["a", "a/b", "/~", "/a~2", "/~a", "#/a"])
def test_malformed_pointers_are_refused(pointer: str) -> None:
    with pytest.raises(PointerInvalid):
        parse_pointer(pointer)


@pytest.mark.parametrize(
    ("patch", "index", "pointer"),
    [
        ({"op": "add", "path": "/a", "value": 1}, None, ""),
        ("[]", None, ""),
        ([op("add", "/a", value=1), "remove /a"], 1, "/1"),
        ([{"path": "/a"}], 0, "/0/op"),
        ([{"op": "delete", "path": "/a"}], 0, "/0/op"),
        ([{"op": ["add"], "path": "/a", "value": 1}], 0, "/0/op"),
        ([{"op": "remove"}], 0, "/0/path"),
        ([{"op": "remove", "path": "a"}], 0, "/0/path"),
        ([{"op": "remove", "path": 1}], 0, "/0/path"),
        ([op("test", "/a", value=1), {"op": "add", "path": "/b"}], 1, "/1/value"),
        ([{"op": "replace", "path": "/b"}], 0, "/0/value"),
        ([{"op": "test", "path": "/b"}], 0, "/0/value"),
        ([{"op": "move", "path": "/b"}], 0, "/0/from"),
        ([{"op": "copy", "path": "/b", "from": "b"}], 0, "/0/from"),
        ([op("remove", "/a")] * (MAX_OPERATIONS + 1), None, ""),
    ],
)
def test_malformed_patches_are_refused_before_anything_applies(patch: Any, index: int | None, pointer: str) -> None:
    # When a malformed patch is validated, or applied
    for attempt in (validate_ops, lambda p: apply({"a": 1}, p)):
        with pytest.raises(PatchInvalid) as raised:
            attempt(patch)
        # Then it is refused, naming the operation and the member at fault
        assert raised.value.index == index
        assert raised.value.pointer == pointer
        assert isinstance(raised.value, ValueError)


def test_a_well_formed_patch_validates_to_itself() -> None:
    patch = [op("add", "/a", value=None), op("remove", "/a"), op("replace", "", value=1), op("move", "/b", from_="/a"), op("copy", "/b", from_="/a")]
    patch += [op("test", "/a", value=0)] * (MAX_OPERATIONS - len(patch))
    assert validate_ops(patch) is patch


def test_a_failed_patch_leaves_nothing_half_applied() -> None:
    # Given a document, and a patch whose last operation fails
    doc = {"a": [1, 2], "b": {"c": 1}}
    patch = [op("remove", "/a/0"), op("move", "/d", from_="/b"), op("test", "/a", value=[])]
    # When it is applied, then it fails and the document is as it was
    with pytest.raises(PatchFailed):
        apply(doc, patch)
    assert doc == {"a": [1, 2], "b": {"c": 1}}


def test_the_result_shares_nothing_with_the_patch_or_the_document() -> None:
    # Given values added and copied by a patch
    value = {"x": [1]}
    doc = {"keep": {"y": [2]}}
    result = apply(doc, [op("add", "/a", value=value), op("copy", "/b", from_="/a"), op("copy", "/k", from_="/keep")])
    # When the result is changed
    result["a"]["x"].append(9)
    result["k"]["y"].append(9)
    # Then neither the patch's value, the copy, nor the original document changed with it
    assert value == {"x": [1]}
    assert result["b"] == {"x": [1]}
    assert doc == {"keep": {"y": [2]}}


def test_copies_cannot_grow_the_document_without_bound() -> None:
    # Given a patch that copies the whole document into itself over and over (doubling it each time)
    doubling = [op("copy", f"/{n}", from_="") for n in range(MAX_OPERATIONS)]
    # When it is applied, then it fails once the copies exceed the budget, before memory does
    with pytest.raises(PatchFailed, match=f"more than {MAX_COPIED_NODES}") as raised:
        apply({"seed": list(range(10))}, doubling)
    assert raised.value.index < 20
    # And a copy within the budget applies
    assert len(apply({"a": list(range(MAX_COPIED_NODES - 2))}, [op("copy", "/b", from_="/a")])["b"]) == MAX_COPIED_NODES - 2


# Hypothesis: JSON values as json.loads makes them.
json_scalars = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8)
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4), max_leaves=12)
json_objects = st.dictionaries(st.text(max_size=4), json_values, max_size=5)
# Member names that exercise escaping: '/', '~', the empty name, digits, '-'.
member_names = st.text(alphabet="ab/~01-", max_size=4)


def _pointers(doc: Any, at: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every location in `doc`, as tokens."""
    found = [at]
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += _pointers(value, (*at, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            found += _pointers(value, (*at, str(index)))
    return found


@given(st.lists(member_names | st.integers(0, 99).map(str), max_size=5))
def test_pointers_round_trip(tokens: list[str]) -> None:
    assert parse_pointer(format_pointer(tokens)) == tokens


@given(json_objects, member_names, json_values)
def test_add_then_remove_restores_an_object(doc: dict[str, Any], name: str, value: Any) -> None:
    # Given a member the document does not have
    doc.pop(name, None)
    path = format_pointer([name])
    # When it is added and then removed, then the document is as it was, and the input untouched
    before = copy.deepcopy(doc)
    assert apply(doc, [op("add", path, value=value), op("test", path, value=value), op("remove", path)]) == before
    assert doc == before


@given(st.lists(json_values, max_size=5), st.data())
def test_add_then_remove_restores_an_array(items: list[Any], data: st.DataObject) -> None:
    index = data.draw(st.integers(0, len(items)), label="index")
    value = data.draw(json_values, label="value")
    patched = apply({"a": items}, [op("add", f"/a/{index}", value=value)])
    assert patched["a"][index] == value
    assert len(patched["a"]) == len(items) + 1
    assert apply(patched, [op("remove", f"/a/{index}")]) == {"a": items}


@given(json_objects, st.data())
def test_test_after_replace_holds(doc: dict[str, Any], data: st.DataObject) -> None:
    # Given any location in the document and any value
    location = format_pointer(data.draw(st.sampled_from(_pointers(doc)), label="location"))
    value = data.draw(json_values, label="value")
    before = copy.deepcopy(doc)
    # When it is replaced by the value, then testing for the value succeeds (apply raises otherwise)
    apply(doc, [op("replace", location, value=value), op("test", location, value=value)])
    # And the document itself is unchanged
    assert doc == before


@given(json_objects, st.data())
def test_move_there_and_back_restores(doc: dict[str, Any], data: st.DataObject) -> None:
    # Given a member moved to a new top-level name and back
    names = [key for key in doc if key]
    if not names:
        return
    name = data.draw(st.sampled_from(names), label="name")
    away = format_pointer(["~moved/" + name])
    patch = [op("move", away, from_=format_pointer([name])), op("move", format_pointer([name]), from_=away)]
    before = copy.deepcopy(doc)
    # Then the document is as it was
    assert jsonpatch.json_equal(apply(doc, patch), before)


@given(json_objects, st.data())
def test_the_jsonpatch_package_agrees_on_random_patches(doc: dict[str, Any], data: st.DataObject) -> None:
    # Given a short random patch over the document's own locations and some that do not exist
    locations = [format_pointer(p) for p in _pointers(doc)] + ["/missing", "/missing/0", "/-"]
    operation = st.builds(op, st.sampled_from(sorted(jsonpatch.OPERATIONS)), st.sampled_from(locations), st.sampled_from(locations), value=json_values)
    patch = data.draw(st.lists(operation, min_size=1, max_size=3), label="patch")
    # When both apply it
    try:
        ours: Any = apply(doc, patch)
    except PatchFailed:
        ours = FAILS
    try:
        theirs: Any = oracle.apply_patch(doc, patch)
    except (oracle.JsonPatchException, oracle.JsonPointerException):
        theirs = FAILS
    # Then they agree on the outcome
    if ours is FAILS or theirs is FAILS:
        assert ours is theirs, (ours, theirs)
    else:
        assert jsonpatch.json_equal(ours, theirs)
