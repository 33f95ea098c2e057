"""The repository's modules as syntax trees, parsed and walked once per test process and shared.

Several unit tests check a rule over every module of the tree (test_architecture: the layers' imports and cycles;
test_errors: who builds an error envelope; test_powertools_seams: who reaches Powertools' private names), each of
them parsing and walking the same few hundred files, several times over: seconds of `make unit`'s budget. A tree is
cached by its file's name and bytes (a file written again is parsed again), its walk by the tree. The trees are
shared: the checks read them and must not change them.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path


def parsed(path: Path) -> ast.Module:
    """The module at `path` parsed, as `ast.parse` of its bytes would."""
    return _parse(str(path), path.read_bytes())


@cache
def _parse(filename: str, source: bytes) -> ast.Module:
    return ast.parse(source, filename=filename)


@cache
def nodes(tree: ast.AST) -> tuple[ast.AST, ...]:
    """Every node of the tree, in `ast.walk`'s order."""
    return tuple(ast.walk(tree))
