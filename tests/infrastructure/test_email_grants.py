"""The customer-email permission: ses:SendEmail on the sender identity alone, for the functions that send.

The sender is written as people write it, `Name <address>`: the grant names the parsed address and its domain."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hookline.core.settings import SettingsError
from hookline.wiring import topology
from hookline.wiring.topology import DELIVERY, FUNCTIONS, NOTIFICATION_SENDER, ORDERED, RETRY
from infra.synth import build_app
from tests.infrastructure.conftest import BASE_SETTINGS, SENDER, Synth, synthesize

SENDERS = [spec for spec in FUNCTIONS if topology.Grant(NOTIFICATION_SENDER, "send_email") in spec.grants]
NAMED_SENDER = "Hookline <noreply@mail.example.com>"


@pytest.fixture(scope="module")
def mailing(tmp_path_factory: pytest.TempPathFactory, deps_layer: Path) -> Synth:
    return synthesize(tmp_path_factory.mktemp("cdk.out.mail"), replace(BASE_SETTINGS, notification_sender=NAMED_SENDER))


def _ses_statements(synth: Synth, spec: topology.FunctionSpec) -> list[dict[str, Any]]:
    return [s for s in synth.policy_statements(synth.role_id(spec)) if any(str(a).startswith("ses:") for a in _listed(s["Action"]))]


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def test_the_delivery_retry_and_ordered_functions_are_the_senders() -> None:
    assert {spec.name for spec in SENDERS} == {DELIVERY.name, RETRY.name, ORDERED.name}


def _identity_arn(identity: str) -> dict[str, Any]:
    return {"Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, ":ses:", {"Ref": "AWS::Region"}, ":", {"Ref": "AWS::AccountId"}, f":identity/{identity}"]]}


def test_senders_may_send_email_from_the_sender_identity_and_its_domain_only(mailing: Synth) -> None:
    # Given a sender written with a display name, `Hookline <noreply@mail.example.com>`
    for spec in SENDERS:
        # Then the role holds exactly one SES statement: Allow ses:SendEmail on the address's identity and on its domain's,
        # whichever verified it (SES checks the domain identity when the domain is what was verified), the name left out
        (statement,) = _ses_statements(mailing, spec)
        assert (set(statement), statement["Action"], statement["Effect"]) == ({"Action", "Effect", "Resource"}, "ses:SendEmail", "Allow"), spec.name
        assert sorted(map(json.dumps, statement["Resource"])) == sorted(
            map(json.dumps, [_identity_arn("noreply@mail.example.com"), _identity_arn("mail.example.com")])
        )
        # And the function learns the sender, name included, from its environment
        env = mailing.resources[mailing.function_id(spec)]["Properties"]["Environment"]["Variables"]
        assert env[NOTIFICATION_SENDER.env] == NAMED_SENDER


@pytest.mark.parametrize("sender", ["Hookline", "Hookline <a@example.com> <b@example.com>", "Hookline <noreply@>", "noreply@example.com\nBcc: x@example.net"])
def test_a_malformed_sender_fails_synth_with_the_reason(sender: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a sender that is no one address SES could send from, in the environment synth reads
    monkeypatch.setenv(NOTIFICATION_SENDER.env, sender)
    # Then synth stops before any construct, naming the variable: no stack with a grant on no identity
    with pytest.raises(SettingsError, match=NOTIFICATION_SENDER.env):
        build_app(checks=False)


def test_a_configured_identity_arn_is_granted_instead(tmp_path: Path, deps_layer: Path) -> None:
    # Given a sender verified through another identity (HOOKLINE_NOTIFICATION_IDENTITY_ARN)
    arn = "arn:aws:ses:eu-west-1:123456789012:identity/example.com"
    synth = synthesize(tmp_path, replace(BASE_SETTINGS, notification_sender=SENDER, notification_identity_arn=arn))
    # Then the senders may send from that identity alone, and the ARN reaches no function's environment
    for spec in SENDERS:
        assert _ses_statements(synth, spec) == [{"Action": "ses:SendEmail", "Effect": "Allow", "Resource": arn}], spec.name
        assert arn not in synth.resources[synth.function_id(spec)]["Properties"]["Environment"]["Variables"].values()


def test_no_other_function_may_use_ses(mailing: Synth) -> None:
    for spec in FUNCTIONS:
        if spec not in SENDERS:
            assert _ses_statements(mailing, spec) == [], spec.name


def test_without_a_sender_no_function_may_use_ses(synth: Synth) -> None:
    for spec in FUNCTIONS:
        assert _ses_statements(synth, spec) == [], spec.name
