"""The customer-email permission: ses:SendEmail on the sender identity alone, for the functions that send."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hookline.wiring import topology
from hookline.wiring.topology import DELIVERY, FUNCTIONS, NOTIFICATION_SENDER, RETRY
from tests.infrastructure.conftest import BASE_SETTINGS, Synth, synthesize
from tests.infrastructure.test_cfn_lint import CFN_LINT

SENDER = "alerts@hookline.example.com"
SENDERS = [spec for spec in FUNCTIONS if topology.Grant(NOTIFICATION_SENDER, "send_email") in spec.grants]


@pytest.fixture(scope="module")
def mailing(tmp_path_factory: pytest.TempPathFactory, deps_layer: Path) -> Synth:
    return synthesize(tmp_path_factory.mktemp("cdk.out.mail"), replace(BASE_SETTINGS, notification_sender=SENDER))


def _ses_statements(synth: Synth, spec: topology.FunctionSpec) -> list[dict[str, Any]]:
    return [s for s in synth.policy_statements(synth.role_id(spec)) if any(str(a).startswith("ses:") for a in _listed(s["Action"]))]


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def test_the_delivery_and_retry_functions_are_the_senders() -> None:
    assert {spec.name for spec in SENDERS} == {DELIVERY.name, RETRY.name}


def test_senders_may_send_email_from_the_sender_identity_only(mailing: Synth) -> None:
    identity_arn = {
        "Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, ":ses:", {"Ref": "AWS::Region"}, ":", {"Ref": "AWS::AccountId"}, f":identity/{SENDER}"]]
    }
    for spec in SENDERS:
        # Then the role holds exactly one SES statement: Allow ses:SendEmail on that identity's ARN
        assert _ses_statements(mailing, spec) == [{"Action": "ses:SendEmail", "Effect": "Allow", "Resource": identity_arn}], spec.name
        # And the function learns the sender from its environment
        env = mailing.resources[mailing.function_id(spec)]["Properties"]["Environment"]["Variables"]
        assert env[NOTIFICATION_SENDER.env] == SENDER


def test_no_other_function_may_use_ses(mailing: Synth) -> None:
    for spec in FUNCTIONS:
        if spec not in SENDERS:
            assert _ses_statements(mailing, spec) == [], spec.name


def test_without_a_sender_no_function_may_use_ses(synth: Synth) -> None:
    for spec in FUNCTIONS:
        assert _ses_statements(synth, spec) == [], spec.name


def test_cdk_nag_and_cfn_lint_stay_clean_with_a_sender(tmp_path: Path, mailing: Synth) -> None:
    # cdk-nag: an unacknowledged finding makes synth raise
    synthesize(tmp_path, replace(BASE_SETTINGS, notification_sender=SENDER), checks=True)
    result = subprocess.run([str(CFN_LINT), "--", str(mailing.template_path)], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
