"""routing.lazy_module: a module whose code runs when it is first used, so an import can name what a request needs."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookline.entrypoints.api.routing import lazy_module


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A package `lazypkg` with a module `noted` that records, when run, that it ran."""
    (tmp_path / "lazypkg").mkdir()
    (tmp_path / "lazypkg" / "__init__.py").write_text("RAN = []\n")
    (tmp_path / "lazypkg" / "noted.py").write_text("import lazypkg\nlazypkg.RAN.append('noted')\nVALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "lazypkg"
    for name in [m for m in sys.modules if m == "lazypkg" or m.startswith("lazypkg.")]:
        del sys.modules[name]


def test_the_module_runs_when_an_attribute_is_first_read(package: str) -> None:
    # Given a module made lazy, When nothing of it is read, Then its code has not run
    module = lazy_module(f"{package}.noted")
    ran = sys.modules[package].RAN
    assert ran == []
    # When an attribute is read, Then it runs once, and the package and sys.modules name the same module
    assert module.VALUE == 7 and module.VALUE == 7
    assert ran == ["noted"]
    assert sys.modules[f"{package}.noted"] is module and sys.modules[package].noted is module


def test_a_module_imported_already_is_given_as_it_is(package: str) -> None:
    # Given a module imported already, When it is asked for lazily, Then it is that module
    imported = __import__(f"{package}.noted", fromlist=["VALUE"])
    assert lazy_module(f"{package}.noted") is imported
