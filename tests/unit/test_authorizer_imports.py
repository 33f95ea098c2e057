"""The authorizer answers every API request API Gateway has not cached, so its cold start imports only what it
needs: its repository and session authenticator come from its own composition root (hookline.wiring.authorizer),
not the container, which imports the delivery path and the API's models. Checked on the parsed imports, function-level
ones included (as tests/unit/test_architecture.py reads them)."""

from __future__ import annotations

import pytest

from hookline.wiring import authorizer as wiring
from hookline.wiring import container
from tests.unit.test_architecture import HOOKLINE, imports_of, modules_under

AUTHORIZER = "hookline.entrypoints.authorizer"
NOT_FOR_THE_AUTHORIZER = ("hookline.services.delivery", "hookline.core.contract", "hookline.wiring.container", "hookline.entrypoints.api")


def _reached(start: str) -> set[str]:
    """Every module `start` imports, directly or through the hookline modules it imports (their packages included)."""
    modules = {m.name: m for m in modules_under(HOOKLINE)}
    known = set(modules)
    reached: set[str] = set()
    todo = [start]
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        parts = name.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts)) if ".".join(parts[:i]) in known]  # its packages' __init__
        if name in modules:
            todo += [i.target for i in imports_of(modules[name], known)]
    return reached


def test_the_authorizer_imports_neither_the_delivery_path_nor_the_api_models() -> None:
    reached = _reached(AUTHORIZER)
    assert "hookline.wiring.authorizer" in reached
    assert sorted(m for m in reached if m.startswith(NOT_FOR_THE_AUTHORIZER)) == []


def test_the_check_sees_what_the_container_would_bring() -> None:
    # The container, as the authorizer imported it before, reaches both: the check would have failed
    reached = _reached("hookline.wiring.container")
    assert any(m.startswith("hookline.services.delivery") for m in reached) and any(m.startswith("hookline.core.contract") for m in reached)


def test_resetting_the_container_forgets_what_the_authorizers_composition_root_built(monkeypatch: pytest.MonkeyPatch) -> None:
    # Tests and local mode's restarts make AWS anew and call container.reset: the authorizer's repository must be
    # built again against it, as the container's services are
    monkeypatch.setenv("HOOKLINE_TABLE_NAME", "hookline-test")
    for name, value in {"AWS_DEFAULT_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}.items():
        monkeypatch.setenv(name, value)
    before = wiring.api_keys()
    container.reset()
    assert wiring.api_keys() is not before
    container.reset()
