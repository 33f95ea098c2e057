"""JSON Patch (RFC 6902) over JSON Pointers (RFC 6901). Pure: documents in, a new document or an error out.

`apply` works on a deep copy, so a patch is all-or-nothing and the caller's document is never
touched: the first operation that fails raises `PatchFailed` and nothing of the patch is kept.
Documents are JSON values as `json.loads` makes them (dict, list, str, int, float, bool, None).

Two bounds keep a patch's cost proportional to its own size: at most MAX_OPERATIONS operations,
and at most MAX_COPIED_NODES JSON values duplicated by `copy` (the one operation that multiplies:
copying the root into a child a hundred times would otherwise double the document a hundred times).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping
from typing import Any

MAX_OPERATIONS = 100
MAX_COPIED_NODES = 100_000

OPERATIONS = frozenset({"add", "remove", "replace", "move", "copy", "test"})
_NEEDS_FROM = frozenset({"move", "copy"})
_NEEDS_VALUE = frozenset({"add", "replace", "test"})
# RFC 6901's array-index: "0", or digits without a leading zero (ASCII only: str.isdigit takes other scripts' digits).
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")
_ESCAPE = re.compile(r"~(?![01])")
# The array token that names the (nonexistent) element after the last: add appends there.
END_OF_ARRAY = "-"


class PointerInvalid(ValueError):
    """A string that is not an RFC 6901 JSON Pointer."""


class PatchInvalid(ValueError):
    """The patch document is malformed, before any operation is applied.

    `index` is the failing operation's position (None when the document as a whole is wrong:
    not a list, or too long); `pointer` locates the fault within the patch document, e.g. "/2/from".
    """

    def __init__(self, index: int | None, message: str, member: str | None = None):
        where = "patch" if index is None else f"operation {index}"
        super().__init__(f"{where}: {message}")
        self.index = index
        self.message = message
        self.pointer = format_pointer(t for t in (index, member) if t is not None)


class PatchFailed(ValueError):
    """A well-formed operation that cannot be applied to the document as it stands at that point of the patch."""

    def __init__(self, index: int, op: Mapping[str, Any], message: str):
        super().__init__(f"operation {index} ({op.get('op')} {op.get('path')}): {message}")
        self.index = index
        self.op = op
        self.path: str = str(op.get("path", ""))
        self.message = message


def parse_pointer(pointer: str) -> list[str]:
    """The reference tokens of a JSON Pointer, unescaped ("~1" is "/", then "~0" is "~"); "" is the whole document."""
    if not isinstance(pointer, str):
        raise PointerInvalid(f"a JSON Pointer is a string, not {type(pointer).__name__}")
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PointerInvalid(f"{pointer!r} is not a JSON Pointer: it must be empty or start with '/'")
    if _ESCAPE.search(pointer):
        raise PointerInvalid(f"{pointer!r} is not a JSON Pointer: '~' must be followed by '0' or '1'")
    # ~1 before ~0, so that "~01" is the two characters "~1" and not "/".
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer[1:].split("/")]


def format_pointer(tokens: Iterable[str | int]) -> str:
    """The JSON Pointer naming `tokens` (array indices may be given as ints), escaped so that parse_pointer inverts it."""
    return "".join("/" + str(token).replace("~", "~0").replace("/", "~1") for token in tokens)


def validate_ops(ops: object) -> list[dict[str, Any]]:
    """`ops` itself when it is a well-formed patch document, else PatchInvalid naming the first bad operation.

    Only structure is checked: the members each operation needs, and that pointers parse.
    Unrecognised members are ignored, as RFC 6902 section 4 says.
    """
    if not isinstance(ops, list):
        raise PatchInvalid(None, f"a JSON Patch is an array of operations, not {_json_type(ops)}")
    if len(ops) > MAX_OPERATIONS:
        raise PatchInvalid(None, f"{len(ops)} operations; the limit is {MAX_OPERATIONS}")
    for index, op in enumerate(ops):
        _validate_op(index, op)
    return ops


def _validate_op(index: int, op: object) -> None:
    if not isinstance(op, dict):
        raise PatchInvalid(index, f"an operation is an object, not {_json_type(op)}")
    name = op.get("op")
    if not isinstance(name, str) or name not in OPERATIONS:
        raise PatchInvalid(index, f"'op' must be one of {', '.join(sorted(OPERATIONS))}, not {name!r}", "op")
    members = ("path", "from") if name in _NEEDS_FROM else ("path",)
    for member in members:
        if member not in op:
            raise PatchInvalid(index, f"{name} needs a '{member}' member", member)
        try:
            parse_pointer(op[member])
        except PointerInvalid as error:
            raise PatchInvalid(index, f"'{member}': {error}", member) from None
    if name in _NEEDS_VALUE and "value" not in op:
        raise PatchInvalid(index, f"{name} needs a 'value' member", "value")


def apply(doc: Any, ops: list[dict[str, Any]]) -> Any:
    """The document `ops` make of `doc`, in a new object; `doc` is left as it was.

    PatchInvalid if `ops` is malformed (nothing is applied); PatchFailed for the first
    operation that cannot apply: a missing target, an index out of range, a failed test.
    """
    validate_ops(ops)
    state = _Patching(copy.deepcopy(doc))
    for index, op in enumerate(ops):
        try:
            state.run(op)
        except _Failure as failure:
            raise PatchFailed(index, op, str(failure)) from None
    return state.doc


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON means it (RFC 6902 4.6): 1 equals 1.0, true does not equal 1, object member order is irrelevant."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[key], b[key]) for key in a)
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return a is None and b is None


class _Failure(Exception):
    """An operation cannot apply; `apply` turns it into PatchFailed with the operation's index."""


class _Patching:
    """The document being patched, and the copy budget spent so far."""

    def __init__(self, doc: Any):
        self.doc = doc
        self.copied = 0

    def run(self, op: dict[str, Any]) -> None:
        name = op["op"]
        path = parse_pointer(op["path"])
        if name == "add":
            self._add(path, copy.deepcopy(op["value"]))
        elif name == "remove":
            self._remove(path)
        elif name == "replace":
            self._replace(path, copy.deepcopy(op["value"]))
        elif name == "test":
            if not json_equal(self._get(path), op["value"]):
                raise _Failure(f"the value at {op['path']!r} is not equal to the tested value")
        else:
            self._move_or_copy(name, parse_pointer(op["from"]), path)

    def _move_or_copy(self, name: str, source: list[str], path: list[str]) -> None:
        if name == "copy":
            value = self._get(source)
            self.copied += _count_nodes(value, MAX_COPIED_NODES - self.copied + 1)
            if self.copied > MAX_COPIED_NODES:
                raise _Failure(f"the patch copies more than {MAX_COPIED_NODES} JSON values")
            self._add(path, copy.deepcopy(value))
            return
        if source == path:
            self._get(source)  # moving a value onto itself changes nothing, but the value must exist
            return
        if path[: len(source)] == source:
            raise _Failure("a value cannot be moved into one of its own children")
        self._add(path, self._remove(source))

    def _get(self, tokens: list[str]) -> Any:
        node = self.doc
        for depth, token in enumerate(tokens):
            node = _child(node, token, tokens[: depth + 1])
        return node

    def _add(self, tokens: list[str], value: Any) -> None:
        if not tokens:
            self.doc = value
            return
        parent, token = self._get(tokens[:-1]), tokens[-1]
        if isinstance(parent, dict):
            parent[token] = value
        elif isinstance(parent, list):
            parent.insert(len(parent) if token == END_OF_ARRAY else _index(token, parent, tokens, insert=True), value)
        else:
            raise _Failure(f"{format_pointer(tokens[:-1]) or 'the document'} is {_json_type(parent)}: it has no members to add to")

    def _remove(self, tokens: list[str]) -> Any:
        if not tokens:
            raise _Failure("the whole document cannot be removed")
        parent, token = self._get(tokens[:-1]), tokens[-1]
        _child(parent, token, tokens)  # the target must exist
        if isinstance(parent, dict):
            return parent.pop(token)
        return parent.pop(int(token))

    def _replace(self, tokens: list[str], value: Any) -> None:
        if not tokens:
            self.doc = value
            return
        parent, token = self._get(tokens[:-1]), tokens[-1]
        _child(parent, token, tokens)  # the target must exist
        if isinstance(parent, dict):
            parent[token] = value
        else:
            parent[int(token)] = value


def _child(node: Any, token: str, where: list[str]) -> Any:
    """The member or element `token` names in `node`; `where` is its full pointer, for the message."""
    if isinstance(node, dict):
        if token not in node:
            raise _Failure(f"{format_pointer(where)} does not exist")
        return node[token]
    if isinstance(node, list):
        return node[_index(token, node, where)]
    raise _Failure(f"{format_pointer(where[:-1]) or 'the document'} is {_json_type(node)}: it has no member {token!r}")


def _index(token: str, array: list[Any], where: list[str], *, insert: bool = False) -> int:
    """The element `token` names: an existing one, or (to insert before) any up to one past the last."""
    if token == END_OF_ARRAY:
        raise _Failure(f"{format_pointer(where)}: '-' names the element after the last, which does not exist")
    if not _ARRAY_INDEX.fullmatch(token):
        raise _Failure(f"{format_pointer(where)}: {token!r} is not an array index (digits, no leading zeros)")
    index = int(token)
    if index > len(array) or (index == len(array) and not insert):
        raise _Failure(f"{format_pointer(where)}: index {index} is out of range; the array has {len(array)} elements")
    return index


def _count_nodes(value: Any, stop_after: int) -> int:
    """How many JSON values `value` holds, itself included; counting stops once past `stop_after`."""
    count, pending = 0, [value]
    while pending and count <= stop_after:
        node = pending.pop()
        count += 1
        if isinstance(node, dict):
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return count


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
