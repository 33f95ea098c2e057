"""hookline uses Powertools through its public interface only (issue 51): nothing Powertools names with a leading `_`
(an attribute, a method, a context key, a module) is read, written or overridden anywhere in the tree, so an upgrade
cannot silently change who may call what. The private names are Powertools' own, read from its installed source; an
attribute is flagged by a name of Powertools' that the tree does not define for itself (`receiver._lock` is the test
receiver's), a method override and a key of the resolver's `context` by any of Powertools' private names."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import aws_lambda_powertools
import pytest

from tests.unit.source_trees import nodes, parsed

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("layers/hookline/python", "functions", "local", "bench", "infra", "tests", "clients")
SKIPPED = {"node_modules", ".venv", "build", "cdk.out", "__pycache__"}
ACCESSORS = {"getattr", "setattr", "hasattr", "delattr"}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


@cache
def powertools_private_names() -> frozenset[str]:
    """Every `_name` Powertools defines or uses as an attribute, a method, a keyword or a string key."""
    names: set[str] = set()
    for source in Path(aws_lambda_powertools.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_bytes())):
            if isinstance(node, ast.Attribute | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = node.attr if isinstance(node, ast.Attribute) else node.name
            elif isinstance(node, ast.keyword):
                name = node.arg or ""
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                name = node.value
            else:
                continue
            if _private(name) and name.isidentifier():
                names.add(name)
    return frozenset(names)


def _powertools_names(tree: ast.AST) -> set[str]:
    """The names a module imports from Powertools (its classes, which a hookline class may subclass)."""
    return {
        alias.asname or alias.name
        for node in nodes(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("aws_lambda_powertools")
        for alias in node.names
    }


def own_private_names(trees: list[ast.AST]) -> frozenset[str]:
    """The `_name`s the tree defines itself: functions, methods, classes, and what it assigns (`self._lock = …`)."""
    names: set[str] = set()
    for tree in trees:
        for node in nodes(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id in ("self", "cls"):
                        names.add(target.attr)
                    elif isinstance(target, ast.Name):
                        names.add(target.id)
    return frozenset(n for n in names if _private(n))


def touches(tree: ast.AST, private: frozenset[str], own: frozenset[str] = frozenset()) -> list[str]:
    """Where a module reaches a Powertools private name: `x._name` (other than on self/cls), a `_name` method of a
    class derived from a Powertools class, a `"_name"` key of a `context` or getattr argument, a `_name=` keyword, a
    private import. `own` are names the tree defines itself, not flagged as attributes or keywords."""
    theirs = private - own
    found: list[str] = []
    imported = _powertools_names(tree)
    for node in nodes(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("aws_lambda_powertools"):
            names = [*node.module.split("."), *(a.name for a in node.names)] if node.module else []
            found += [f"{line}: imports {n}" for n in names if _private(n)]
        elif isinstance(node, ast.Attribute) and node.attr in theirs:
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.append(f"{line}: .{node.attr}")
        elif isinstance(node, ast.ClassDef) and any(isinstance(b, ast.Name) and b.id in imported for b in node.bases):
            found += [f"{item.lineno}: overrides {item.name}" for item in node.body if isinstance(item, ast.FunctionDef) and item.name in private]
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value in private and _is_context(node.value):
            found.append(f"{line}: [{node.slice.value!r}]")
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id in ACCESSORS and len(node.args) > 1:
                key = node.args[1]
                if isinstance(key, ast.Constant) and key.value in theirs:
                    found.append(f"{line}: {node.func.id}(…, {key.value!r})")
            found += [f"{line}: {k.arg}=" for k in node.keywords if k.arg in theirs]
    return found


def _is_context(node: ast.AST) -> bool:
    """`app.context`, `router.context`: the resolver's per-request context, where Powertools keeps its own keys."""
    return isinstance(node, ast.Attribute) and node.attr == "context"


def _sources() -> list[Path]:
    return [
        path
        for top in SCANNED
        for path in sorted((ROOT / top).rglob("*.py"))
        if not SKIPPED.intersection(path.relative_to(ROOT).parts) and path.name != Path(__file__).name
    ]


def test_no_module_reaches_a_private_name_of_powertools() -> None:
    # Given every Python module of the tree and the private names of the installed Powertools
    private = powertools_private_names()
    assert {"_route", "_static_routes", "_request_validation_middleware", "_get_body", "_route_args"} <= private
    # When each is read for the ways code reaches a name (a module whose text holds none of the names cannot reach
    # one, nor define one, so it is not parsed: most of the tree)
    spelled = re.compile(rb"\b(?:" + b"|".join(re.escape(name.encode()) for name in sorted(private)) + rb")\b")
    trees = {path: parsed(path) for path in _sources() if spelled.search(path.read_bytes())}
    own = own_private_names(list(trees.values()))
    problems = [f"{path.relative_to(ROOT)}:{where}" for path, tree in trees.items() for where in touches(tree, private, own)]
    # Then none reaches one of Powertools'
    assert problems == []


@pytest.mark.parametrize(
    ("code", "found"),
    [
        ("resolver._request_validation_middleware = m", ["1: ._request_validation_middleware"]),
        ("routes = app._static_routes + app._dynamic_routes", ["1: ._static_routes", "1: ._dynamic_routes"]),
        ("route = app.context['_route']", ["1: ['_route']"]),
        ("routes = getattr(app, '_static_routes', [])", ["1: getattr(…, '_static_routes')"]),
        ("app.append_context(_route_args={})", ["1: _route_args="]),
        (
            "from aws_lambda_powertools.event_handler.middlewares.openapi_validation import OpenAPIRequestValidationMiddleware as M\n"
            "class C(M):\n    def _get_body(self, app): ...",
            ["3: overrides _get_body"],
        ),
        ("from aws_lambda_powertools.event_handler.openapi.compat import _model_dump", ["1: imports _model_dump"]),
        # hookline's own private names, Powertools' names on self in a class of hookline's own, a key of another dict
        ("class Mine:\n    def _get_body(self): return self._route", []),
        ("def _event_bytes(s): return s._hookline_only", []),
        ("blob = line['_aws']", []),
    ],
)
def test_what_the_reader_flags(code: str, found: list[str]) -> None:
    # Given a snippet; When it is read; Then exactly its reaches into Powertools' privates are named
    assert touches(ast.parse(code), powertools_private_names()) == found


def test_a_name_the_tree_defines_itself_is_not_flagged_as_an_attribute() -> None:
    # Given a module whose own object keeps `_lock`, a name Powertools uses too
    tree = ast.parse("class R:\n    def __init__(self): self._lock = 1\nwith r._lock: pass\napp._static_routes")
    assert "_lock" in powertools_private_names()
    # When it is read with the names it defines itself; Then only Powertools' own attribute is named
    assert touches(tree, powertools_private_names(), own_private_names([tree])) == ["4: ._static_routes"]
