"""The contract's hand-written schema is the exception (issue 51, item 1): a field's rule and its schema come from one
declaration, and each remaining override (WithJsonSchema, json_schema_extra) says on its own line why it is needed.
Each is written out where it is made (`pydantic.WithJsonSchema(…)`), under no other name, so that a line naming it
is one override and the issue's grep counts every one."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from pydantic import WithJsonSchema

CONTRACT = Path(__file__).resolve().parents[2] / "layers" / "hookline" / "python" / "hookline" / "core" / "contract"
OVERRIDE = re.compile(r"WithJsonSchema|json_schema_extra")
# Every module of the contract; their overrides together, at most (issue 51's goal).
DECLARED = tuple(sorted(path.name for path in CONTRACT.glob("*.py")))
BUDGET = 10


def _overrides(name: str) -> list[str]:
    return [line for line in (CONTRACT / name).read_text(encoding="utf-8").splitlines() if OVERRIDE.search(line)]


def test_the_contract_keeps_at_most_ten_overrides() -> None:
    # Given every line of those modules that writes a schema by hand
    lines = [line for name in DECLARED for line in _overrides(name)]
    # Then there are at most BUDGET of them
    assert len(lines) <= BUDGET, "\n".join(lines)


@pytest.mark.parametrize("name", DECLARED)
def test_each_override_gives_its_reason_on_its_line(name: str) -> None:
    # Given a line that writes a schema by hand
    for line in _overrides(name):
        # Then a comment on it says why
        assert "#" in line and len(line.split("#", 1)[1].strip()) >= 20, f"{name}: {line.strip()}"


@pytest.mark.parametrize("name", DECLARED)
def test_no_module_names_the_override_otherwise(name: str) -> None:
    # Given a module of the contract
    module = importlib.import_module(f"hookline.core.contract.{name.removesuffix('.py')}")
    # Then none of its names is pydantic's override (an alias such as `shown = WithJsonSchema`, or the class imported
    # by its name), whose calls the count above would not see
    assert [key for key, value in vars(module).items() if value is WithJsonSchema] == []
