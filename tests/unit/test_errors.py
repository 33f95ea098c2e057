"""The error envelope `{"error": {"code", "message"}}`: its shape, and that it is built in hookline.core.errors only."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from hookline.core import errors
from hookline.core.errors import FailedDependency, HooklineError, envelope
from tests.unit.source_trees import nodes, parsed

REPO = Path(__file__).resolve().parents[2]
ERRORS_MODULE = REPO / "layers" / "hookline" / "python" / "hookline" / "core" / "errors.py"
# Everything that answers a caller: the layer package, the Lambda entry modules and local mode's front door.
SOURCES = (REPO / "layers" / "hookline" / "python" / "hookline", REPO / "functions", REPO / "local")

DOMAIN_ERRORS = sorted((cls for cls in vars(errors).values() if isinstance(cls, type) and issubclass(cls, HooklineError)), key=lambda c: c.__name__)


def test_the_envelope_holds_code_message_and_details() -> None:
    assert envelope("not_found", "no such route") == {"error": {"code": "not_found", "message": "no such route"}}
    assert envelope("x", "y", attempt={"status": 500}) == {"error": {"code": "x", "message": "y", "attempt": {"status": 500}}}


@pytest.mark.parametrize("cls", [c for c in DOMAIN_ERRORS if c is not FailedDependency], ids=lambda c: c.__name__)
def test_each_domain_error_answers_with_its_code_and_message(cls: type[HooklineError]) -> None:
    assert cls("what went wrong").envelope() == {"error": {"code": cls.code, "message": "what went wrong"}}
    assert cls("what went wrong", code="custom").envelope()["error"]["code"] == "custom"


def test_a_failed_test_event_carries_its_attempt() -> None:
    outcome: dict[str, object] = {"status_code": 500, "error": None}
    assert FailedDependency("the receiver refused", outcome).envelope() == {
        "error": {"code": "test_event_failed", "message": "the receiver refused", "attempt": outcome}
    }


def _is_envelope(key: ast.expr | None, value: ast.expr) -> bool:
    if not (isinstance(key, ast.Constant) and key.value == "error" and isinstance(value, ast.Dict)):
        return False
    return any(isinstance(k, ast.Constant) and k.value == "code" for k in value.keys)


def _envelope_literals(path: Path) -> list[str]:
    """Where a dict literal maps "error" to a dict literal with a "code": an envelope built by hand."""
    return [
        f"{path.relative_to(REPO)}:{node.lineno}"
        for node in nodes(parsed(path))
        if isinstance(node, ast.Dict) and any(_is_envelope(k, v) for k, v in zip(node.keys, node.values, strict=True))
    ]


def test_no_module_but_core_errors_builds_an_envelope() -> None:
    # Given every module that answers callers
    paths = [p for root in SOURCES for p in sorted(root.rglob("*.py"))]
    # Then only hookline.core.errors writes the envelope's shape (once: the check does see it there); everyone else calls it
    assert len(_envelope_literals(ERRORS_MODULE)) == 1
    assert [hit for p in paths if p != ERRORS_MODULE for hit in _envelope_literals(p)] == []
