"""`make preflight` (infra.preflight) against moto's AWS: no account, no network.

moto 5.2.5 has STS, SSM parameters, CloudFormation stacks and SES v2 identities, so those are real moto calls; it
answers Lambda GetAccountSettings and SES v2 GetAccount with "not implemented", so those come from botocore's
Stubber, which checks each request and answer against the service's model. Every test but the pure ones runs the
command's own entry point, `main`, with the clients injected, and reads what it prints and returns.
"""

from __future__ import annotations

import io
import json
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from moto.core import DEFAULT_ACCOUNT_ID
from moto.ses.models import ses_backends

from infra import preflight
from infra.preflight import BootstrapFacts, Clients, ConcurrencyFacts, Finding, IdentityFacts, SesAccountFacts, Target

REGION = "us-east-1"
ACCOUNT = DEFAULT_ACCOUNT_ID  # moto's STS answers with it
TARGET = Target(ACCOUNT, REGION)
BOOTSTRAP_COMMAND = ["npx", "cdk", "bootstrap", f"aws://{ACCOUNT}/{REGION}"]
SENDER = "alerts@example.com"
PRODUCTION = {"ProductionAccessEnabled": True, "SendingEnabled": True, "EnforcementStatus": "HEALTHY"}
SANDBOX = {**PRODUCTION, "ProductionAccessEnabled": False}


# ---------------------------------------------------------------------------------------------------------------
# The account, arranged through the AWS API (moto) or stubbed where moto lacks the call.
# ---------------------------------------------------------------------------------------------------------------


def bootstrap_account(version: str = "21", qualifier: str = preflight.DEFAULT_QUALIFIER, region: str = REGION) -> None:
    """What `cdk bootstrap` leaves: the CDKToolkit stack, which creates the version parameter the template's rule reads."""
    template = {
        "Resources": {
            "CdkBootstrapVersion": {
                "Type": "AWS::SSM::Parameter",
                "Properties": {"Name": f"/cdk-bootstrap/{qualifier}/version", "Type": "String", "Value": version},
            }
        }
    }
    boto3.client("cloudformation", region_name=region).create_stack(StackName="CDKToolkit", TemplateBody=json.dumps(template))


def verify_identity(name: str, region: str = REGION) -> None:
    """Create an SES identity and complete its verification, as SES does once the link is opened or DKIM records
    appear in DNS; moto creates identities but never marks them verified for sending."""
    boto3.client("sesv2", region_name=region).create_email_identity(EmailIdentity=name)
    ses_backends[DEFAULT_ACCOUNT_ID][region].email_identities[name].verified_for_sending_status = True


def submit_identity(name: str) -> None:
    """Create an SES identity whose verification is pending: SES says PENDING until the link is opened or the DKIM
    records appear (moto says SUCCESS, yet not verified for sending)."""
    boto3.client("sesv2", region_name=REGION).create_email_identity(EmailIdentity=name)
    ses_backends[DEFAULT_ACCOUNT_ID][REGION].email_identities[name].verification_status = "PENDING"


def stubbed(service: str, method: str, answer: dict[str, Any] | None = None, error: str | None = None) -> Any:
    """A client whose one call `method` answers `answer` (or fails with `error`); any other call fails the test."""
    client = boto3.client(service, region_name=REGION)
    stubber = Stubber(client)
    if error is not None:
        stubber.add_client_error(method, service_error_code=error, service_message=f"{error} (stubbed)", http_status_code=400)
    elif answer is not None:
        stubber.add_response(method, answer, {})
    stubber.activate()
    return client


def lambda_with(quota: int, unreserved: int | None = None) -> Any:
    limit = {"ConcurrentExecutions": quota, "UnreservedConcurrentExecutions": quota if unreserved is None else unreserved}
    return stubbed("lambda", "get_account_settings", {"AccountLimit": limit})


class SesV2WithAccount:
    """moto's SES v2 client (identities), with GetAccount, which moto lacks, from a stubbed client.

    With no `account`, GetAccount is not expected: a call fails the test.
    """

    def __init__(self, account: dict[str, Any] | None, region: str = REGION) -> None:
        self._moto = boto3.client("sesv2", region_name=region)
        self._account = stubbed("sesv2", "get_account", account)
        self.identities_read: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._moto, name)

    def get_email_identity(self, **params: Any) -> Any:
        self.identities_read.append(params["EmailIdentity"])
        return self._moto.get_email_identity(**params)

    def get_account(self, **params: Any) -> Any:
        return self._account.get_account(**params)


def make_clients(*, quota: int = 1000, unreserved: int | None = None, ses_account: dict[str, Any] | None = PRODUCTION, **override: Any) -> Clients:
    """The checks' clients: moto for STS, SSM, CloudFormation, SES identities, SQS, DynamoDB and Logs; Stubber for the rest."""
    clients = {
        "sts": boto3.client("sts", region_name=REGION),
        "ssm": boto3.client("ssm", region_name=REGION),
        "cloudformation": boto3.client("cloudformation", region_name=REGION),
        "lambda_": lambda_with(quota, unreserved),
        "sesv2": SesV2WithAccount(ses_account),
        "sqs": boto3.client("sqs", region_name=REGION),
        "dynamodb": boto3.client("dynamodb", region_name=REGION),
        "logs": boto3.client("logs", region_name=REGION),
    }
    return Clients(REGION, **{**clients, **override})


class Runner:
    """Stands in for running `npx cdk bootstrap`: records the command, and bootstraps moto's account when it 'succeeds'."""

    def __init__(self, status: int = 0) -> None:
        self.status = status
        self.commands: list[list[str]] = []

    def __call__(self, command: Sequence[str]) -> int:
        self.commands.append(list(command))
        if self.status == 0:
            bootstrap_account()
        return self.status


def run(argv: Sequence[str] = (), env: dict[str, str] | None = None, **kw: Any) -> tuple[int, str]:
    """`python -m infra.preflight ARGV` with these settings (written to the stack's file, as a deploy reads them) and
    clients: its exit status and what it printed."""
    out = io.StringIO()
    kw.setdefault("run", Runner(status=99))  # a bootstrap nobody asked for would show as a failure
    stacks = Path(tempfile.mkdtemp(prefix="stacks-"))
    (stacks / "hookline.json").write_text(json.dumps(env or {}))
    status = preflight.main(list(argv), env={}, out=out, stacks_dir=stacks, **kw)
    return status, out.getvalue()


def line(output: str, check: str) -> str:
    """The outcome line of one check, with its fix line when it has one."""
    lines = output.splitlines()
    [index] = [i for i, text in enumerate(lines) if text[:9].strip() in {"ok", "warning", "problem"} and text[9:].startswith(f"{check}:")]
    following = lines[index + 1] if index + 1 < len(lines) and lines[index + 1].lstrip().startswith("fix:") else ""
    return lines[index] + ("\n" + following if following else "")


@pytest.fixture
def account(aws: None) -> Iterator[None]:
    """A moto account that is bootstrapped (the usual case; the bootstrap tests start from `aws` alone)."""
    bootstrap_account()
    yield


# ---------------------------------------------------------------------------------------------------------------
# 1. CDK bootstrap.
# ---------------------------------------------------------------------------------------------------------------


def test_a_missing_bootstrap_is_a_problem_whose_fix_bootstraps(aws: None) -> None:
    status, output = run(clients=make_clients())
    assert status == 1
    found = line(output, "bootstrap")
    assert found.startswith("problem  bootstrap:"), output
    assert f"aws://{ACCOUNT}/{REGION} is not bootstrapped" in found
    assert "no CDKToolkit stack and no /cdk-bootstrap/hnb659fds/version parameter" in found
    assert "make deploy BOOTSTRAP=1" in found and f"npx cdk bootstrap aws://{ACCOUNT}/{REGION}" in found


def test_a_bootstrap_older_than_the_templates_rule_is_a_problem(aws: None) -> None:
    bootstrap_account(version="5")
    status, output = run(clients=make_clients())
    assert status == 1
    found = line(output, "bootstrap")
    assert found.startswith("problem  bootstrap:")
    assert "bootstrapped at version 5; the template needs 6 or later" in found
    assert "make deploy BOOTSTRAP=1" in found


def test_a_current_bootstrap_passes(account: None) -> None:
    status, output = run(clients=make_clients())
    assert status == 0, output
    assert line(output, "bootstrap") == f"ok       bootstrap: aws://{ACCOUNT}/{REGION} bootstrapped at version 21 (at least 6 needed)"


def test_version_6_is_the_oldest_accepted() -> None:
    assert preflight.bootstrap_finding(BootstrapFacts("6", "UPDATE_COMPLETE"), TARGET).severity == "ok"
    assert preflight.bootstrap_finding(BootstrapFacts("5", "UPDATE_COMPLETE"), TARGET).severity == "problem"


def test_a_toolkit_stack_bootstrapped_with_another_qualifier_is_named(aws: None) -> None:
    bootstrap_account(qualifier="custom123")
    status, output = run(clients=make_clients())
    assert status == 1
    assert "the CDKToolkit stack exists (CREATE_COMPLETE) but the /cdk-bootstrap/hnb659fds/version parameter does not" in line(output, "bootstrap")


def test_the_qualifier_cdk_json_sets_is_the_one_read_and_bootstrapped(aws: None) -> None:
    qualifier = preflight.bootstrap_qualifier({"@aws-cdk/core:bootstrapQualifier": "custom123"})
    assert preflight.bootstrap_qualifier({}) == "hnb659fds"
    bootstrap_account(qualifier="custom123")
    facts = preflight.read_bootstrap(boto3.client("ssm", region_name=REGION), boto3.client("cloudformation", region_name=REGION), qualifier)
    assert facts == BootstrapFacts("21", "CREATE_COMPLETE")
    assert preflight.bootstrap_command(TARGET, qualifier) == [*BOOTSTRAP_COMMAND, "--qualifier", "custom123"]


@pytest.mark.parametrize("status", ["ROLLBACK_COMPLETE", "CREATE_FAILED", "REVIEW_IN_PROGRESS"])
def test_a_failed_toolkit_stack_without_its_parameter_is_a_problem(status: str) -> None:
    finding = preflight.bootstrap_finding(BootstrapFacts(None, status), TARGET)
    assert finding.severity == "problem"
    assert f"the CDKToolkit stack is {status}" in finding.message
    assert "BOOTSTRAP=1" in finding.fix


def test_a_toolkit_stack_being_updated_is_a_warning() -> None:
    finding = preflight.bootstrap_finding(BootstrapFacts("21", "UPDATE_IN_PROGRESS"), TARGET)
    assert (finding.severity, finding.message) == ("warning", "bootstrap version 21, but the CDKToolkit stack is UPDATE_IN_PROGRESS")


def test_a_bootstrap_that_cannot_be_read_fails_unless_told_to_warn(aws: None) -> None:
    denied = stubbed("ssm", "get_parameter", error="AccessDeniedException")
    status, output = run(clients=make_clients(ssm=denied))
    assert status == 1
    found = line(output, "bootstrap")
    assert found.startswith("problem  bootstrap: could not check: ssm:GetParameter failed")
    assert "AccessDeniedException" in found and "allow ssm:GetParameter and cloudformation:DescribeStacks" in found
    assert "or go on without this check: PREFLIGHT=warn make deploy" in found
    # PREFLIGHT=warn: the same check only warns, and the deploy goes on (except with --strict)
    status, output = run(["--unreadable", "warn"], clients=make_clients(ssm=stubbed("ssm", "get_parameter", error="AccessDeniedException")))
    assert status == 0, output
    assert line(output, "bootstrap").startswith("warning  bootstrap: could not check: ssm:GetParameter failed")
    strict_status, _ = run(["--strict", "--unreadable", "warn"], clients=make_clients(ssm=stubbed("ssm", "get_parameter", error="AccessDeniedException")))
    assert strict_status == 1


# ---------------------------------------------------------------------------------------------------------------
# The --bootstrap flag and the offer on a terminal.
# ---------------------------------------------------------------------------------------------------------------


def test_bootstrap_flag_runs_cdk_bootstrap_then_checks_again(aws: None) -> None:
    runner = Runner()
    status, output = run(["--bootstrap"], clients=make_clients(), run=runner)
    assert runner.commands == [BOOTSTRAP_COMMAND]
    assert status == 0, output
    assert f"running: {' '.join(BOOTSTRAP_COMMAND)}" in output
    assert line(output, "bootstrap").startswith("ok       bootstrap:")


def test_bootstrap_flag_upgrades_an_old_bootstrap(aws: None) -> None:
    bootstrap_account(version="5")

    def upgrade(command: Sequence[str]) -> int:
        boto3.client("ssm", region_name=REGION).put_parameter(Name="/cdk-bootstrap/hnb659fds/version", Value="21", Type="String", Overwrite=True)
        return 0

    status, output = run(["--bootstrap"], clients=make_clients(), run=upgrade)
    assert status == 0, output
    assert "bootstrapped at version 21" in line(output, "bootstrap")


def test_a_failed_bootstrap_is_a_problem(aws: None) -> None:
    runner = Runner(status=3)
    status, output = run(["--bootstrap"], clients=make_clients(), run=runner)
    assert status == 1
    assert runner.commands == [BOOTSTRAP_COMMAND]
    assert f"problem  bootstrap: `{' '.join(BOOTSTRAP_COMMAND)}` failed (exit 3)" in output


def test_bootstrap_flag_leaves_a_bootstrapped_account_alone(account: None) -> None:
    runner = Runner()
    status, _ = run(["--bootstrap"], clients=make_clients(), run=runner)
    assert (status, runner.commands) == (0, [])


def test_without_the_flag_and_without_a_terminal_nothing_is_run(aws: None) -> None:
    runner = Runner()
    status, _ = run(clients=make_clients(), run=runner, ask=None)  # pytest's stdin is not a terminal
    assert (status, runner.commands) == (1, [])


def test_on_a_terminal_the_preflight_offers_to_bootstrap(aws: None) -> None:
    questions: list[str] = []

    def yes(question: str) -> bool:
        questions.append(question)
        return True

    runner = Runner()
    status, _ = run(clients=make_clients(), run=runner, ask=yes)
    assert status == 0
    assert runner.commands == [BOOTSTRAP_COMMAND]
    [question] = questions
    assert question.endswith(f"Run `{' '.join(BOOTSTRAP_COMMAND)}` now?")


def test_declining_the_offer_or_no_input_runs_nothing(aws: None) -> None:
    runner = Runner()
    assert run(clients=make_clients(), run=runner, ask=lambda _: False)[0] == 1
    asked: list[str] = []
    assert run(["--no-input"], clients=make_clients(), run=runner, ask=lambda q: asked.append(q) is None)[0] == 1
    assert (runner.commands, asked) == ([], [])


# ---------------------------------------------------------------------------------------------------------------
# 2. Lambda concurrency quota.
# ---------------------------------------------------------------------------------------------------------------


def test_a_quota_of_10_fails_the_default_size_with_the_fix_naming_the_small_size(account: None) -> None:
    status, output = run(clients=make_clients(quota=10))
    assert status == 1
    found = line(output, "concurrency")
    assert found.startswith("problem  concurrency: the functions reserve 154 concurrent executions, which leaves -144 of the account's quota of 10")
    assert "fix: set HOOKLINE_SIZE to small in stacks/hookline.json" in found
    assert "raise the quota (Service Quotas: Lambda, 'Concurrent executions', L-B99A9384) to at least 254" in found


def test_a_quota_of_10_holds_the_small_size(account: None) -> None:
    status, output = run(env={"HOOKLINE_SIZE": "small"}, clients=make_clients(quota=10))
    assert status == 0, output
    assert line(output, "concurrency") == "ok       concurrency: quota 10; HOOKLINE_SIZE=small reserves nothing, leaving at least 100 unreserved"


def test_a_usual_quota_holds_the_default_size(account: None) -> None:
    status, output = run(clients=make_clients(quota=1000))
    assert status == 0, output
    assert line(output, "concurrency") == "ok       concurrency: quota 1000; HOOKLINE_SIZE=default reserves 154, leaving at least 100 unreserved"


def test_the_reservation_is_the_settings_one(account: None) -> None:
    # 120 + 60 + 4 = 184 reserved: a quota of 250 keeps only 66 unreserved.
    status, output = run(env={"HOOKLINE_DELIVERY_CONCURRENCY": "120", "HOOKLINE_ACCOUNT_CONCURRENCY_QUOTA": "250"}, clients=make_clients(quota=250))
    assert status == 1
    assert "the functions reserve 184 concurrent executions, which leaves 66" in line(output, "concurrency")


def test_a_declared_quota_synth_would_refuse_is_a_problem(account: None) -> None:
    # The account holds 1,564 reserved (quota 2,000), but synth checks the declared default of 1,000.
    status, output = run(env={"HOOKLINE_DELIVERY_CONCURRENCY": "1500"}, clients=make_clients(quota=2000))
    assert status == 1
    found = line(output, "concurrency")
    assert "synth checks against HOOKLINE_ACCOUNT_CONCURRENCY_QUOTA=1000 and would refuse it" in found
    assert "fix: set HOOKLINE_ACCOUNT_CONCURRENCY_QUOTA to 2000 in stacks/hookline.json" in found


def test_reservations_made_already_leave_a_warning(account: None) -> None:
    status, output = run(clients=make_clients(quota=1000, unreserved=220))
    assert status == 0
    found = line(output, "concurrency")
    assert found.startswith("warning  concurrency: 780 of the quota of 1000 is reserved already")
    assert "leaves 66, below AWS's minimum of 100" in found


def test_a_quota_that_cannot_be_read_is_a_problem_or_with_warn_a_warning(account: None) -> None:
    status, output = run(clients=make_clients(lambda_=stubbed("lambda", "get_account_settings", error="AccessDeniedException")))
    assert status == 1
    assert line(output, "concurrency").startswith("problem  concurrency: could not check: lambda:GetAccountSettings failed")
    status, output = run(["--unreadable", "warn"], clients=make_clients(lambda_=stubbed("lambda", "get_account_settings", error="AccessDeniedException")))
    assert status == 0
    assert line(output, "concurrency").startswith("warning  concurrency: could not check: lambda:GetAccountSettings failed")


def test_an_error_page_is_reported_on_one_short_line(aws: None) -> None:
    client = boto3.client("lambda", region_name=REGION)
    stubber = Stubber(client)
    page = "<!doctype html>\n<title>404 Not Found</title>\n" + "<p>Not found.</p>\n" * 100
    stubber.add_client_error("get_account_settings", service_error_code="404", service_message=page, http_status_code=404)
    stubber.activate()
    [finding] = preflight.check_concurrency(make_clients(lambda_=client), preflight.Settings.from_env({}))
    assert finding.severity == "warning"
    assert "\n" not in finding.message and "<!doctype html> <title>404 Not Found</title>" in finding.message
    assert len(finding.message) < 400 and finding.message.endswith("…")


def test_the_concurrency_decision_uses_the_sizing_rules() -> None:
    settings = preflight.Settings.from_env({})
    small = preflight.Settings.from_env({"HOOKLINE_SIZE": "small"})
    assert [f.severity for f in preflight.concurrency_findings(settings, ConcurrencyFacts(254, 254))] == ["ok"]
    assert [f.severity for f in preflight.concurrency_findings(settings, ConcurrencyFacts(253, 253))] == ["problem"]
    assert [f.severity for f in preflight.concurrency_findings(small, ConcurrencyFacts(10, 0))] == ["ok"]


# ---------------------------------------------------------------------------------------------------------------
# 3. SES: the sender's identity and the sandbox.
# ---------------------------------------------------------------------------------------------------------------


def test_no_sender_reads_nothing_from_ses(account: None) -> None:
    ses = SesV2WithAccount(account=None)  # GetAccount would fail the test
    status, output = run(clients=make_clients(sesv2=ses))
    assert status == 0
    assert ses.identities_read == []
    assert line(output, "ses") == "ok       ses: not checked: HOOKLINE_NOTIFICATION_SENDER is not set, so customers get no emails (the SNS topic still does)"


def test_an_unverified_sender_is_a_warning_with_the_fix(account: None) -> None:
    # The address was submitted for verification but its link never opened; the domain was never created.
    submit_identity(SENDER)
    status, output = run(env={"HOOKLINE_NOTIFICATION_SENDER": SENDER}, clients=make_clients())
    assert status == 0
    found = line(output, "ses sender")
    assert found.startswith(
        f"warning  ses sender: {SENDER} is not verified for sending in {REGION} ({SENDER}: verification pending, example.com: not created)"
    ), found
    assert "SES refuses every customer email" in found
    assert f"fix: verify the domain: aws sesv2 create-email-identity --email-identity example.com --region {REGION}" in found
    assert run(["--strict"], env={"HOOKLINE_NOTIFICATION_SENDER": SENDER}, clients=make_clients())[0] == 1


def test_a_verified_address_passes(account: None) -> None:
    verify_identity(SENDER)
    status, output = run(env={"HOOKLINE_NOTIFICATION_SENDER": SENDER}, clients=make_clients())
    assert status == 0
    assert line(output, "ses sender") == f"ok       ses sender: {SENDER}: verified in {REGION}"


def test_a_verified_domain_covers_the_address(account: None) -> None:
    verify_identity("example.com")
    ses = SesV2WithAccount(PRODUCTION)
    status, output = run(env={"HOOKLINE_NOTIFICATION_SENDER": f"Hookline <{SENDER}>"}, clients=make_clients(sesv2=ses))
    assert status == 0, output
    assert line(output, "ses sender") == f"ok       ses sender: {SENDER}: covered by the verified domain example.com in {REGION}"
    assert ses.identities_read[:2] == [SENDER, "example.com"]


def test_a_sender_verified_only_through_a_parent_domain_needs_the_identity_arn(account: None) -> None:
    verify_identity("example.com")
    status, output = run(env={"HOOKLINE_NOTIFICATION_SENDER": "alerts@mail.example.com"}, clients=make_clients())
    found = line(output, "ses sender")
    assert status == 0
    assert found.startswith("warning  ses sender: alerts@mail.example.com is verified only through the parent domain example.com")
    assert f'fix: "HOOKLINE_NOTIFICATION_IDENTITY_ARN": "arn:aws:ses:{REGION}:{ACCOUNT}:identity/example.com" in the stack\'s file' in found


def test_the_identity_arn_names_the_identity_checked(account: None) -> None:
    verify_identity("example.com")
    ses = SesV2WithAccount(PRODUCTION)
    env = {
        "HOOKLINE_NOTIFICATION_SENDER": "alerts@mail.example.com",
        "HOOKLINE_NOTIFICATION_IDENTITY_ARN": f"arn:aws:ses:{REGION}:{ACCOUNT}:identity/example.com",
    }
    status, output = run(env=env, clients=make_clients(sesv2=ses))
    assert status == 0
    assert line(output, "ses sender") == f"ok       ses sender: alerts@mail.example.com: sends through example.com, verified in {REGION}"
    assert ses.identities_read == ["example.com"]


def test_an_identity_arn_in_another_region_is_read_there(account: None) -> None:
    verify_identity("example.com", region="eu-west-1")
    env = {"HOOKLINE_NOTIFICATION_SENDER": SENDER, "HOOKLINE_NOTIFICATION_IDENTITY_ARN": f"arn:aws:ses:eu-west-1:{ACCOUNT}:identity/example.com"}
    status, output = run(env=env, clients=make_clients())
    assert status == 0
    assert line(output, "ses sender") == f"ok       ses sender: {SENDER}: sends through example.com, verified in eu-west-1"


def test_an_unverified_identity_arn_is_a_warning(account: None) -> None:
    env = {"HOOKLINE_NOTIFICATION_SENDER": SENDER, "HOOKLINE_NOTIFICATION_IDENTITY_ARN": f"arn:aws:ses:{REGION}:{ACCOUNT}:identity/example.com"}
    status, output = run(env=env, clients=make_clients())
    assert status == 0
    assert line(output, "ses sender").startswith(f"warning  ses sender: example.com (not created in {REGION}), which HOOKLINE_NOTIFICATION_IDENTITY_ARN names")


def test_a_malformed_identity_arn_is_a_problem(account: None) -> None:
    env = {"HOOKLINE_NOTIFICATION_SENDER": SENDER, "HOOKLINE_NOTIFICATION_IDENTITY_ARN": "example.com"}
    status, output = run(env=env, clients=make_clients())
    assert status == 1
    assert line(output, "ses sender").startswith("problem  ses sender: HOOKLINE_NOTIFICATION_IDENTITY_ARN='example.com' is not an SES identity ARN")


@pytest.mark.parametrize(
    ("sender", "reason"),
    [
        ("Hookline", "no address"),
        ("Hookline <noreply@mail.example.com> <b@example.com>", "two addresses"),
        ("noreply@", "no domain"),
        ("noreply@mail.example.com\nBcc: victim@example.net", "control character"),
    ],
)
def test_a_malformed_sender_is_a_settings_problem_with_the_reason(account: None, sender: str, reason: str) -> None:
    # Given a sender parseaddr would have read as some address (or as none, silently)
    ses = SesV2WithAccount(account=None)
    status, output = run(env={"HOOKLINE_NOTIFICATION_SENDER": sender}, clients=make_clients(sesv2=ses))
    # Then the preflight refuses it as synth does, naming why, and reads no SES identity for it
    assert status == 1
    found = line(output, "settings")
    assert found.startswith("problem  settings: ") and "hookline.json: HOOKLINE_NOTIFICATION_SENDER=" in found and reason in found, found
    assert ses.identities_read == []


def test_the_identity_decisions() -> None:
    verified, pending = IdentityFacts(True, "SUCCESS"), IdentityFacts(False, "PENDING")
    assert preflight.sender_identities("Ops <ops@a.b.example.com>") == ["ops@a.b.example.com", "a.b.example.com", "b.example.com", "example.com"]
    assert preflight.sender_identities('"Ops, Inc." <ops@example.com>') == ["ops@example.com", "example.com"]
    assert preflight.sender_address("Hookline <noreply@mail.example.com>") == "noreply@mail.example.com"
    assert preflight.sender_finding(SENDER, TARGET, {SENDER: pending, "example.com": pending}).severity == "warning"
    assert preflight.sender_finding(SENDER, TARGET, {SENDER: pending, "example.com": verified}).severity == "ok"
    arn = preflight.parse_identity_arn(f"arn:aws:ses:{REGION}:{ACCOUNT}:identity/other.org")
    assert arn is not None
    assert "cannot send as" in preflight.identity_arn_finding(SENDER, arn, verified).message
    assert preflight.parse_identity_arn("arn:aws:sns:us-east-1:123456789012:topic") is None


def test_the_sandbox_is_a_warning_with_the_way_out(account: None) -> None:
    verify_identity(SENDER)
    status, output = run(env={"HOOKLINE_NOTIFICATION_SENDER": SENDER, "HOOKLINE_ALARM_EMAIL": "ops@example.com"}, clients=make_clients(ses_account=SANDBOX))
    assert status == 0
    found = line(output, "ses account")
    assert found.startswith(f"warning  ses account: the account is in the SES sandbox in {REGION}: customer emails go only to verified addresses")
    assert f"fix: request production access for {REGION} in the SES console" in found


def test_production_access_passes(account: None) -> None:
    verify_identity(SENDER)
    status, output = run(env={"HOOKLINE_NOTIFICATION_SENDER": SENDER}, clients=make_clients(ses_account=PRODUCTION))
    assert status == 0
    assert line(output, "ses account") == f"ok       ses account: production access in {REGION}, sending enabled"


def test_paused_sending_is_a_warning() -> None:
    findings = preflight.ses_account_findings(SesAccountFacts(True, False, "SHUTDOWN"), REGION)
    assert [(f.severity, f.message.split(":")[0]) for f in findings] == [
        ("warning", f"SES sending is paused for the account in {REGION} (enforcement status SHUTDOWN)")
    ]


# ---------------------------------------------------------------------------------------------------------------
# The command: its output, exit statuses and what stops it early.
# ---------------------------------------------------------------------------------------------------------------


def test_every_check_prints_one_outcome_line_and_a_summary(account: None) -> None:
    verify_identity("example.com")
    status, output = run(env={"HOOKLINE_NOTIFICATION_SENDER": SENDER, "HOOKLINE_ALARM_EMAIL": "ops@example.com"}, clients=make_clients(ses_account=SANDBOX))
    lines = output.splitlines()
    assert status == 0
    assert lines[0] == f"preflight: stack hookline, HOOKLINE_SIZE=default, region {REGION}"
    outcomes = [text.split(":", 1)[0].split(maxsplit=1) for text in lines[1:-1] if not text.lstrip().startswith("fix:")]
    assert outcomes == [
        ["ok", "credentials"],
        ["ok", "bootstrap"],
        ["ok", "concurrency"],
        ["ok", "alarms"],
        ["ok", "ses sender"],
        ["warning", "ses account"],
        ["ok", "leftovers"],
    ]
    assert lines[-1] == "preflight: 6 ok, 1 warning(s), 0 problem(s). Nothing blocks the deploy."


def test_a_problem_exits_1_and_says_so(aws: None) -> None:
    status, output = run(clients=make_clients(quota=10))
    assert status == 1
    assert output.splitlines()[-1].startswith("preflight: 3 ok, 1 warning(s), 2 problem(s). The deploy would fail or fall short")


def test_without_credentials_nothing_else_is_read(aws: None) -> None:
    clients = make_clients(sts=stubbed("sts", "get_caller_identity", error="ExpiredToken"), lambda_=stubbed("lambda", "get_account_settings"))
    status, output = run(clients=clients)
    assert status == 1
    found = line(output, "credentials")
    assert found.startswith("problem  credentials: cannot read the account (sts:GetCallerIdentity failed")
    assert "aws sso login" in found
    assert "bootstrap" not in output and "concurrency" not in output


def test_without_a_region_it_says_how_to_set_one(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    status, output = run()
    assert status == 1
    assert line(output, "region") == (
        "problem  region: no AWS region is configured\n"
        "         fix: export AWS_DEFAULT_REGION=<region> (or set region for the profile in ~/.aws/config); cdk deploy deploys there too"
    )


def test_a_missing_region_and_missing_credentials_and_bad_settings_are_reported_together(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    # Given no region, no credentials anywhere boto3 looks, and a stack file that cannot be used
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    for name in ("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_WEB_IDENTITY_TOKEN_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    # When the preflight runs once
    status, output = run(env={"HOOKLINE_SIZE": "huge"})
    # Then it names all three, not one per run
    assert status == 1
    assert line(output, "settings").startswith("problem  settings: ")
    assert line(output, "region").startswith("problem  region: no AWS region is configured")
    assert line(output, "credentials").startswith("problem  credentials: no AWS credentials found\n         fix: configure AWS credentials")
    assert output.splitlines()[-1].startswith("preflight: 0 ok, 0 warning(s), 3 problem(s).")


def test_without_a_region_credentials_found_are_named() -> None:
    assert [f.severity for f in preflight.credentials_findings(True)] == ["ok"]
    assert [f.severity for f in preflight.credentials_findings(False)] == ["problem"]


def test_the_region_is_the_one_cdk_deploys_to() -> None:
    assert preflight.deploy_region({"AWS_REGION": "eu-west-1"}, "us-east-1") == "eu-west-1"  # the CDK CLI's first choice
    assert preflight.deploy_region({}, "us-east-1") == "us-east-1"  # AWS_DEFAULT_REGION or the profile's, as boto3 resolved
    assert preflight.deploy_region({}, None) is None


def test_unusable_settings_are_a_problem_and_the_credentials_are_still_checked(aws: None) -> None:
    status, output = run(env={"HOOKLINE_SIZE": "huge"}, clients=make_clients(sts=stubbed("sts", "get_caller_identity", error="ExpiredToken")))
    assert status == 1
    assert line(output, "credentials").startswith("problem  credentials: cannot read the account (sts:GetCallerIdentity failed")
    assert line(output, "settings").startswith("problem  settings: ")
    assert "hookline.json: HOOKLINE_SIZE='huge': must be one of small, default" in line(output, "settings")


def test_help_and_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        preflight.main(["--help"])
    assert done.value.code == 0
    assert "--bootstrap" in capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        preflight.main(["--bootstrp"])
    assert done.value.code == 2


def test_the_finding_lines() -> None:
    assert Finding("x", "problem", "broken", "mend it").lines() == ["problem  x: broken", "         fix: mend it"]
    assert Finding("x", "ok", "fine").lines() == ["ok       x: fine"]


def test_alarms_that_reach_nobody_are_a_warning_and_a_subscriber_is_named() -> None:
    # Given no HOOKLINE_ALARM_EMAIL nor HOOKLINE_ALARM_HTTPS_ENDPOINT
    finding = preflight.alarms_finding(preflight.Settings.from_env({}))
    # Then the preflight warns that the alarms reach nobody, with the fix
    assert finding.severity == "warning" and "reach nobody" in finding.message
    assert finding.fix.startswith("set HOOKLINE_ALARM_EMAIL (or HOOKLINE_ALARM_HTTPS_ENDPOINT) in stacks/hookline.json")
    # And with subscribers it names them, and says an address must confirm
    settings = preflight.Settings.from_env({"HOOKLINE_ALARM_EMAIL": "ops@example.com", "HOOKLINE_ALARM_HTTPS_ENDPOINT": "https://pager.example.com/hook"})
    finding = preflight.alarms_finding(settings)
    assert finding.severity == "ok" and "ops@example.com, https://pager.example.com/hook" in finding.message and "confirms" in finding.message
