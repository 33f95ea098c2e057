"""bench/ as a package with rooms: no import circle among its modules (function-level imports included), no function of
the report over 80 lines, and no reference to a numbered issue or seed (the thing is named instead)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
LONGEST_REPORT_FUNCTION = 80


def _module_name(path: Path) -> str:
    parts = path.relative_to(BENCH.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(BENCH.rglob("*.py"))}


def _imported(name: str, tree: ast.AST, modules: set[str], package: str) -> set[str]:
    """The `modules` that module `name` (of `package`) imports anywhere in its body, function-level imports included:
    `from bench.x import y` is bench.x.y when y is a module, else bench.x."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], *([base] if base else [])])
            found |= {f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names}
    return {m for m in found if m in modules and m != name}


def graph() -> dict[str, set[str]]:
    def package(name: str) -> str:
        return name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]

    return {name: _imported(name, ast.parse(path.read_text()), set(MODULES), package(name)) for name, path in MODULES.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every import circle, each as the path that closes it (a depth-first search; [] when there is none)."""
    found: list[list[str]] = []
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> None:
        if node in path:
            found.append([*path[path.index(node) :], node])
            return
        if node in done:
            return
        for nxt in sorted(edges.get(node, ())):
            visit(nxt, [*path, node])
        done.add(node)

    for start in sorted(edges):
        visit(start, [])
    return found


def test_the_circle_finder_finds_a_circle_through_a_function_level_import() -> None:
    # Given the circle the tree had: cost imports meter, meter duration, and duration cost inside a function
    source = {"bench.cost": "from bench import meter", "bench.meter": "import bench.duration", "bench.duration": "def f():\n    from bench.cost import x"}
    names = {"bench.cost", "bench.meter", "bench.duration"}
    edges = {name: _imported(name, ast.parse(text), names, "bench") for name, text in source.items()}
    # Then it is found
    assert circles(edges) == [["bench.cost", "bench.meter", "bench.duration", "bench.cost"]]


def test_bench_has_no_import_circle() -> None:
    edges = graph()
    # The graph is real: the entry point reaches every room
    assert {"bench.measurement.meter", "bench.models.cost", "bench.scenarios.catalog", "bench.report.document"} <= set(edges)
    assert circles(edges) == []


def test_bench_is_split_into_its_rooms() -> None:
    rooms = {name.split(".")[1] for name in MODULES if name.count(".") >= 2}
    assert rooms == {"measurement", "models", "scenarios", "report"}
    assert {p.name for p in BENCH.glob("*.py")} == {"__init__.py", "__main__.py"}


REPORT_FUNCTIONS = [
    pytest.param(node, id=f"{path.name}:{node.name}")
    for path in sorted((BENCH / "report").glob("*.py"))
    for node in ast.walk(ast.parse(path.read_text()))
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
]


@pytest.mark.parametrize("function", REPORT_FUNCTIONS)
def test_no_function_of_the_report_is_over_80_lines(function: ast.FunctionDef) -> None:
    assert function.end_lineno is not None
    assert function.end_lineno - function.lineno + 1 <= LONGEST_REPORT_FUNCTION


NUMBERED = re.compile(r"\b(issue|seed)s?\s+#?\d", re.IGNORECASE)


@pytest.mark.parametrize("path", [p for p in sorted(BENCH.rglob("*")) if p.suffix in {".py", ".json"}], ids=lambda p: str(p.relative_to(BENCH)))
def test_nothing_in_bench_names_a_numbered_issue_or_seed(path: Path) -> None:
    assert [line for line in path.read_text().splitlines() if NUMBERED.search(line)] == []
