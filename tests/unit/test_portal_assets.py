"""The portal's script as files: ES modules the portal route serves by their flat names, each importing only its
siblings and all reached from the entry that index.html loads; none builds markup from a string or runs a string."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import hookline.entrypoints
from hookline.core.portal import ASSET, CONTENT_TYPES

STATIC = Path(hookline.entrypoints.__file__).parent / "portal_static"
MODULES = sorted(p.name for p in STATIC.glob("*.js"))
ENTRY = "portal.js"

_IMPORT = re.compile(r'^(?:import|export)\b[^;]*?\bfrom\s+"([^"]*)"', re.M)
_SIBLING = re.compile(r"^\./([^/]+)$")
_LINE_COMMENT = re.compile(r"^\s*//.*$", re.M)
# Markup from strings, or strings run as code: what the page's safety contract (dom.js) and its CSP rule out.
_UNSAFE = re.compile(r"\.(innerHTML|outerHTML)\b|\binsertAdjacentHTML\b|\bdocument\.write|\beval\s*\(|\bFunction\s*\(|\bset(Timeout|Interval)\s*\(\s*[\"'`]")


def _siblings(name: str) -> list[str]:
    """The modules `name` imports, each checked to be "./<module>.js" of the same folder (served as /portal/<module>.js)."""
    siblings = []
    for specifier in _IMPORT.findall((STATIC / name).read_text(encoding="utf-8")):
        sibling = _SIBLING.fullmatch(specifier)
        assert sibling and sibling[1] in MODULES, f"{name} imports {specifier!r}"
        siblings.append(sibling[1])
    return siblings


def test_index_loads_the_entry_as_a_module() -> None:
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    assert re.findall(r"<script\b[^>]*>", html) == [f'<script type="module" src="/portal/{ENTRY}">']


def test_every_module_is_served_by_its_flat_name_as_javascript() -> None:
    assert ENTRY in MODULES
    assert [name for name in MODULES if not ASSET.fullmatch(name)] == []
    assert CONTENT_TYPES["js"].startswith("text/javascript")


def test_modules_import_only_their_siblings_and_the_entry_reaches_every_one() -> None:
    # Given each module's imports, each a module of the same folder
    graph = {name: _siblings(name) for name in MODULES}
    # Then the entry reaches every module: none lies in the folder unused
    reached, todo = set(), [ENTRY]
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo.extend(graph[name])
    assert sorted(reached) == MODULES


@pytest.mark.parametrize(
    "code",
    [
        "el.innerHTML = x",
        "el.outerHTML=x",
        'el.insertAdjacentHTML("beforeend", x)',
        "document.write(x)",
        "eval(x)",
        'new Function("return 1")',
        'setTimeout("go()", 5)',
    ],
)
def test_the_unsafe_pattern_catches_each_kind(code: str) -> None:
    assert _UNSAFE.search(code)


@pytest.mark.parametrize("name", MODULES)
def test_a_module_never_builds_markup_from_a_string_or_runs_a_string_as_code(name: str) -> None:
    code = _LINE_COMMENT.sub("", (STATIC / name).read_text(encoding="utf-8"))
    assert not _UNSAFE.search(code), f"{name}: {_UNSAFE.search(code)}"
