"""cdk-nag's AwsSolutions pack passes, and every acknowledgement answers a finding that really exists."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from constructs import IConstruct

from infra import nag
from tests.infrastructure.conftest import BASE_SETTINGS, synthesize


def _violations(outdir: Path) -> list[tuple[str, str]]:
    """(rule id, construct path) for every finding in the validation report."""
    report = json.loads((outdir / "validation-report.json").read_text())
    return [
        (violation["ruleName"], construct["constructPath"])
        for plugin in report["pluginReports"]
        for violation in plugin["violations"]
        for construct in violation["violatingConstructs"]
    ]


def test_cdk_nag_passes(tmp_path: Path, deps_layer: Path) -> None:
    # Given the app with the AwsSolutions validation plugin and the stack's acknowledgements
    # When it is synthesized (an unacknowledged finding makes synth raise)
    synthesize(tmp_path, BASE_SETTINGS, checks=True)
    # Then the validation report lists no finding
    assert _violations(tmp_path) == []


@pytest.mark.parametrize("tracing", [False, True], ids=["tracing-off", "tracing-on"])
def test_every_acknowledgement_matches_a_finding(tmp_path: Path, deps_layer: Path, monkeypatch: pytest.MonkeyPatch, tracing: bool) -> None:
    # Given the acknowledgements are recorded instead of applied, with HOOKLINE_TRACING off (the default) or on (its
    # X-Ray grants on '*' are acknowledged only then)
    acknowledged: list[tuple[str, str, str]] = []

    def record(scope: IConstruct, rule: str, reason: str) -> None:
        acknowledged.append((rule, scope.node.path, reason))

    monkeypatch.setattr(nag, "_ack", record)
    # When the app is synthesized with the checks
    with pytest.raises(RuntimeError, match="ValidationFailed"):
        synthesize(tmp_path, replace(BASE_SETTINGS, tracing=tracing), checks=True)
    findings = _violations(tmp_path)

    # Then every finding is one the stack acknowledges, on that construct or a parent of it
    def covered(finding: tuple[str, str], ack: tuple[str, str, Any]) -> bool:
        return finding[0] == ack[0] and (finding[1] == ack[1] or finding[1].startswith(ack[1] + "/"))

    assert [f for f in findings if not any(covered(f, a) for a in acknowledged)] == []
    # And no acknowledgement is stale, and each gives a real reason
    assert [a for a in acknowledged if not any(covered(f, a) for f in findings)] == []
    assert all(len(reason) > 40 for _, _, reason in acknowledged)
    # And the only routes acknowledged as unauthorized (APIG4) are the liveness probe, the portal's static page and files,
    # and $default (what no route matches, answered with a JSON 404 or 405)
    public = sorted(path.rsplit("/", 1)[-1] for rule, path, _ in acknowledged if rule == "AwsSolutions-APIG4")
    assert public == ["DefaultRoute", "GET--health", "GET--portal", "GET--portal--{name}"], public
