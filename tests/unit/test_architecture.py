"""Dependencies point inward, checked by parsing imports (nothing is imported to check it).

Layers of the `hookline` package, innermost first: core, services, adapters,
wiring, entrypoints. Every `import` and `from ... import` counts wherever it
stands: at module level, inside a function, or under `if TYPE_CHECKING:`.
Relative imports are resolved against the importing module's package, and
`from hookline import services` counts as importing `hookline.services`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.unit.source_trees import nodes, parsed

REPO = Path(__file__).resolve().parents[2]
HOOKLINE = REPO / "layers" / "hookline" / "python" / "hookline"
# The packages the cycle check spans: the layer package and the two trees that build on it.
CYCLE_ROOTS = (HOOKLINE, REPO / "infra", REPO / "local")

IO_LIBRARIES = frozenset({"boto3", "botocore", "requests", "urllib3", "socket"})
# Besides I/O, the core takes no clock, randomness, environment, threads or processes: they are injected.
CORE_FORBIDDEN = IO_LIBRARIES | frozenset({"aws_lambda_powertools", "time", "random", "os", "threading", "concurrent", "subprocess"})


@dataclass(frozen=True)
class Layer:
    """What one sub-package of `hookline` may import.

    `allowed` (when set) lists the only hookline packages it may import;
    `denied` lists hookline packages it must not import; `libraries` lists
    top-level third-party or standard-library modules it must not import.
    """

    name: str
    allowed: tuple[str, ...] | None = None
    denied: tuple[str, ...] = ()
    libraries: frozenset[str] = frozenset()


LAYERS = (
    Layer("core", allowed=("core",), libraries=CORE_FORBIDDEN),
    Layer("services", allowed=("core", "services"), libraries=IO_LIBRARIES),
    Layer("adapters", denied=("services", "entrypoints", "wiring")),
    Layer("wiring", denied=("entrypoints",)),
    Layer("entrypoints"),
)


@dataclass(frozen=True)
class Module:
    name: str  # dotted, e.g. hookline.core.backoff
    path: Path
    is_package: bool


@dataclass(frozen=True)
class Import:
    importer: Module
    target: str  # dotted, resolved
    line: int

    def where(self) -> str:
        return f"{_shown(self.importer.path)}:{self.line}: {self.importer.name} imports {self.target}"


def _shown(path: Path) -> str:
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def modules_under(package_dir: Path) -> list[Module]:
    """Every .py file below a package directory, named as Python would import it."""
    found = []
    for path in sorted(package_dir.rglob("*.py")):
        parts = [package_dir.name, *path.relative_to(package_dir).with_suffix("").parts]
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        found.append(Module(".".join(parts), path, is_package))
    return found


def _absolute(module: Module, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    package = module.name.split(".") if module.is_package else module.name.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def imports_of(module: Module, known: set[str]) -> Iterator[Import]:
    """Each module `module` imports, at any depth of its syntax tree.

    `from pkg import name` is an import of `pkg.name` when that is a module
    (known, or `pkg` is not in the parsed tree at all), else of `pkg`.
    """
    seen: set[tuple[str, int]] = set()
    for node in nodes(parsed(module.path)):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            source = _absolute(module, node)
            for alias in node.names:
                candidate = f"{source}.{alias.name}"
                named_module = alias.name != "*" and (candidate in known or source not in known)
                targets.append(candidate if named_module else source)
        for target in targets:
            if (target, node.lineno) not in seen:
                seen.add((target, node.lineno))
                yield Import(module, target, node.lineno)


def _within(target: str, package: str) -> bool:
    return target == package or target.startswith(package + ".")


def _layer_of(module: Module, root: str) -> Layer | None:
    parts = module.name.split(".")
    return next((layer for layer in LAYERS if len(parts) > 1 and parts[:2] == [root, layer.name]), None)


def _rule_broken(layer: Layer, target: str, root: str) -> str | None:
    if _within(target, root):
        inner = target.split(".")[1] if "." in target else ""
        if layer.allowed is not None and inner not in layer.allowed:
            return f"{layer.name} may import only {', '.join(f'{root}.{p}' for p in layer.allowed)}"
        if inner in layer.denied:
            return f"{layer.name} must not import {root}.{inner}"
        return None
    top = target.partition(".")[0]
    if top in layer.libraries:
        return f"{layer.name} must not import {top}"
    return None


def layer_violations(package_dir: Path) -> list[str]:
    """Every broken layer rule in the package at `package_dir`, one readable line each."""
    root = package_dir.name
    modules = modules_under(package_dir)
    known = {m.name for m in modules}
    layer_names = {layer.name for layer in LAYERS}
    found = []
    for entry in sorted(package_dir.iterdir()):
        stray_module = entry.suffix == ".py" and entry.name != "__init__.py"
        stray_package = entry.is_dir() and (entry / "__init__.py").exists() and entry.name not in layer_names
        if stray_module or stray_package:
            found.append(f"{_shown(entry)}: {root}.{entry.stem} lives at the package root; it belongs in one of {', '.join(sorted(layer_names))}")
    for module in modules:
        layer = _layer_of(module, root)
        if layer is None:
            continue
        for imp in imports_of(module, known):
            reason = _rule_broken(layer, imp.target, root)
            if reason:
                found.append(f"{imp.where()}: {reason}")
    return found


def import_graph(package_dirs: Iterable[Path]) -> dict[str, set[str]]:
    """Module -> the modules it imports, restricted to modules of the given packages."""
    modules = [m for d in package_dirs for m in modules_under(d)]
    known = {m.name for m in modules}
    graph: dict[str, set[str]] = {m.name: set() for m in modules}
    for module in modules:
        graph[module.name] |= {imp.target for imp in imports_of(module, known) if imp.target in known and imp.target != module.name}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted; sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(cycles)


def _describe(cycles: list[list[str]], graph: dict[str, set[str]]) -> list[str]:
    return [" <-> ".join(c) + ": " + "; ".join(f"{a} -> {b}" for a in c for b in sorted(graph[a] & set(c))) for c in cycles]


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_hookline_layers_import_inward_only() -> None:
    # Given the hookline package as it is on disk
    # When every module's imports are parsed
    found = layer_violations(HOOKLINE)
    # Then no layer reaches outward
    assert not found, f"{len(found)} import(s) break the layer rules:\n" + "\n".join(found)


def test_a_planted_violation_is_reported(tmp_path: Path) -> None:
    # Given a package where the core imports boto3 (at module level), a clock (inside a function) and a
    # service (relatively), a service imports boto3 under TYPE_CHECKING, an adapter imports a service
    # through `from hookline import services`, wiring imports an entry point, and a module sits at the root
    package = tmp_path / "hookline"
    _write(
        package,
        {
            "__init__.py": "",
            "stray.py": "",
            "core/__init__.py": "",
            "core/rules.py": "import boto3\nfrom .models import Thing\n\ndef now():\n    import time\n    return time.time()\n",
            "core/models.py": "from ..services import events\nThing = object\n",
            "services/__init__.py": "",
            "services/events.py": "from typing import TYPE_CHECKING\nfrom hookline.core import rules\nif TYPE_CHECKING:\n    from botocore.client import BaseClient\n",
            "adapters/__init__.py": "",
            "adapters/store.py": "import json\nfrom hookline.core.models import Thing\nfrom hookline import services\n",
            "wiring/__init__.py": "",
            "wiring/container.py": "from hookline.adapters import store\nfrom hookline.entrypoints.api import app\n",
            "entrypoints/__init__.py": "",
            "entrypoints/api.py": "import boto3\nfrom hookline.wiring import container\nfrom hookline.services import events\napp = None\n",
        },
    )
    # When the checker runs on it
    found = layer_violations(package)
    # Then it reports exactly the planted violations, where they are, and nothing the rules allow
    assert found == [
        f"{package}/stray.py: hookline.stray lives at the package root; it belongs in one of adapters, core, entrypoints, services, wiring",
        f"{package}/adapters/store.py:3: hookline.adapters.store imports hookline.services: adapters must not import hookline.services",
        f"{package}/core/models.py:1: hookline.core.models imports hookline.services.events: core may import only hookline.core",
        f"{package}/core/rules.py:1: hookline.core.rules imports boto3: core must not import boto3",
        f"{package}/core/rules.py:5: hookline.core.rules imports time: core must not import time",
        f"{package}/services/events.py:4: hookline.services.events imports botocore.client.BaseClient: services must not import botocore",
        f"{package}/wiring/container.py:2: hookline.wiring.container imports hookline.entrypoints.api: wiring must not import hookline.entrypoints",
    ]


def test_no_import_cycles_in_hookline_infra_or_local() -> None:
    # Given the import graph of hookline, infra and local (TYPE_CHECKING imports included)
    graph = import_graph(CYCLE_ROOTS)
    # When its cycles are looked for
    cycles = import_cycles(graph)
    # Then there are none
    assert not cycles, "import cycles:\n" + "\n".join(_describe(cycles, graph))


def test_a_planted_cycle_is_reported(tmp_path: Path) -> None:
    # Given a package where a imports b at module level and b imports a only under TYPE_CHECKING, and c imports a
    _write(
        tmp_path / "pkg",
        {
            "__init__.py": "",
            "a.py": "from pkg import b\n",
            "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import Thing\n",
            "c.py": "from . import a\n",
        },
    )
    # When its cycles are looked for
    cycles = import_cycles(import_graph([tmp_path / "pkg"]))
    # Then the one cycle is a <-> b, and c, which only imports, is not part of it
    assert cycles == [["pkg.a", "pkg.b"]]


def _protocols_outside_ports(root: Path) -> list[str]:
    """The services' Protocol classes not in a ports module: `module.Class` each."""
    found = []
    for path in sorted((root / "services").rglob("*.py")):
        if path.name == "ports.py":
            continue
        for node in nodes(parsed(path)):
            if isinstance(node, ast.ClassDef) and any(_names_protocol(base) for base in node.bases):
                found.append(f"{path.relative_to(root).with_suffix('')}.{node.name}".replace("/", "."))
    return found


def _names_protocol(base: ast.expr) -> bool:
    return (isinstance(base, ast.Name) and base.id == "Protocol") or (isinstance(base, ast.Attribute) and base.attr == "Protocol")


def test_every_port_of_the_services_lives_in_a_ports_module() -> None:
    # What a service needs from outside (a Protocol) is declared in services/ports.py or services/delivery/ports.py,
    # one name each, so an adapter or a fake finds every contract it implements in one place
    assert _protocols_outside_ports(HOOKLINE) == []


def test_a_protocol_planted_outside_the_ports_is_reported(tmp_path: Path) -> None:
    (tmp_path / "services").mkdir()
    (tmp_path / "services" / "ports.py").write_text("from typing import Protocol\nclass Fine(Protocol): ...\n")
    (tmp_path / "services" / "jobs.py").write_text("import typing\nclass Stray(typing.Protocol): ...\n")
    assert _protocols_outside_ports(tmp_path) == ["services.jobs.Stray"]
