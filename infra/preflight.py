"""`make preflight`: read the AWS account and the deployed stack and say, before a deploy, what would make it fail or fall short.

    python -m infra.preflight [--template cdk.out/<stack>.template.json] [--bootstrap] [--confirm]
                              [--unreadable fail|warn] [--no-input] [--strict]

Checks, each reading the account through the AWS API with the usual credentials and region:

1. credentials: STS GetCallerIdentity names the account; without it nothing else can be read. Without a region, the
   preflight says so and whether boto3 finds credentials at all, with an unusable stack file, in the same run.
2. bootstrap: the template's Rules.CheckBootstrapVersion needs the CDK bootstrap (the SSM parameter
   `/cdk-bootstrap/<qualifier>/version`, which the `CDKToolkit` stack creates) at version 6 or later. Missing,
   too old or broken is a problem; `--bootstrap` (make deploy BOOTSTRAP=1) runs `npx cdk bootstrap` then, and on a
   terminal the preflight offers to.
3. concurrency: Lambda GetAccountSettings' concurrency quota must hold what the functions reserve at
   HOOKLINE_SIZE plus AWS's unreserved minimum of 100 (infra.sizing); a new account's quota of 10 holds only
   HOOKLINE_SIZE=small.
4. SES, only with HOOKLINE_NOTIFICATION_SENDER set: the sender's identity (the address, or its domain; or the
   one HOOKLINE_NOTIFICATION_IDENTITY_ARN names) must be verified for sending, and the account out of the SES
   sandbox. Both are warnings: the stack deploys and works, but customer emails are refused, or reach only
   verified addresses.
5. the deployed stack (CloudFormation DescribeStacks, GetTemplate), compared with `--template`, the one to deploy:
   - changes: the settings the two templates record (Metadata.hookline) that differ, as a diff; a template an
     earlier release deployed records none, which is said;
   - removes: what the update takes away, read from the resources (infra.deployed.removals): an SNS subscription,
     an ses:SendEmail grant, capacity (reserved concurrency, memory, an event source's maximum concurrency, the
     API stage's throttle). Each is a problem until `--confirm` (make deploy CONFIRM=1) says it is meant;
   - upgrade: infra.upgrade's findings for the update, with the stack's name as AWS::StackName, less those
     infra.upgrade.ALLOWED accepts; each is a problem naming the release path (RELEASE_PATH), except a replaced
     or removed queue that SQS GetQueueAttributes says holds no message (visible, in flight or delayed);
   - a stack with an operation under way, or one a rollback or delete failed on, is a problem (it cannot be updated).
   With no stack (or one whose first create failed): leftovers, what a destroyed one left. The retained table
   `<stack>-data` (with its KMS key) is a problem, since creating the stack fails with "already exists"; the
   stack's log groups alone are a warning. The fix adopts them (`cdk import -c hookline:data-only=true`,
   docs/operations.md) or deletes them. The template is read only when there is a stack to compare it with.

A check that cannot read the account (no permission, throttled, no network) decides nothing: it is a problem,
or with `--unreadable warn` (make deploy PREFLIGHT=warn) a warning. Each check prints one line (ok / warning /
problem), the lines it details (the diff), then the fix when there is one; then a summary. Every problem found is
reported in the one run. Exit status: 0 when nothing blocks the deploy, 1 when a problem does (with --strict, a
warning too), 2 for a usage error. The decisions are pure functions of the facts read
(tests/infrastructure/test_preflight.py, test_preflight_deployed.py); the boto3 clients are arguments, so the tests
pass moto's, or botocore Stubber's where moto lacks the call or cannot create the stack.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, TextIO

import boto3
from botocore.exceptions import BotoCoreError, ClientError

from hookline.core.mailbox import parse_mailbox
from hookline.core.settings import Settings, SettingsError
from hookline.wiring import topology
from infra import REPO_ROOT, deployed, sizing, stack_settings, upgrade

# What the synthesized template's Rules.CheckBootstrapVersion requires (aws-cdk-lib's DefaultStackSynthesizer).
MIN_BOOTSTRAP_VERSION = 6
DEFAULT_QUALIFIER = "hnb659fds"
QUALIFIER_CONTEXT = "@aws-cdk/core:bootstrapQualifier"
TOOLKIT_STACK = "CDKToolkit"
# Statuses in which the toolkit stack's resources are in place; the others are failed or changing.
SETTLED_STATUSES = frozenset({"CREATE_COMPLETE", "UPDATE_COMPLETE", "UPDATE_ROLLBACK_COMPLETE", "IMPORT_COMPLETE", "IMPORT_ROLLBACK_COMPLETE"})
CREDENTIALS_FIX = "configure AWS credentials for the target account (aws configure sso, aws sso login, or AWS_PROFILE / AWS_ACCESS_KEY_ID ...)"
IDENTITY_ARN = re.compile(r"arn:aws[a-z-]*:ses:(?P<region>[a-z0-9-]+):(?P<account>\d{12}):identity/(?P<name>.+)")

Severity = Literal["ok", "warning", "problem"]
Unreadability = Literal["fail", "warn"]


class Unreadable(Exception):
    """An AWS call a check depends on failed (no permission, throttled, no network): the check cannot decide."""


@dataclass(frozen=True)
class Finding:
    """One check's outcome; `fix` says what to do about a warning or a problem."""

    check: str
    severity: Severity
    message: str
    fix: str = ""
    details: tuple[str, ...] = ()  # printed under the message, one a line (a diff)
    unreadable: bool = False  # the check could not read the account: with_unreadable decides what that means

    def lines(self) -> list[str]:
        out = [f"{self.severity:<8} {self.check}: {self.message}"]
        out.extend(f"{'':<8} {detail}" for detail in self.details)
        if self.fix:
            out.append(f"{'':<8} fix: {self.fix}")
        return out


@dataclass(frozen=True)
class Target:
    """The account and region the deploy goes to."""

    account: str
    region: str

    @property
    def environment(self) -> str:
        return f"aws://{self.account}/{self.region}"


@dataclass(frozen=True)
class BootstrapFacts:
    version: str | None  # the SSM parameter's value; None: no such parameter
    stack_status: str | None  # the CDKToolkit stack's status; None: no such stack


@dataclass(frozen=True)
class ConcurrencyFacts:
    quota: int  # AccountLimit.ConcurrentExecutions
    unreserved: int  # AccountLimit.UnreservedConcurrentExecutions: the quota less every reservation made so far


@dataclass(frozen=True)
class IdentityFacts:
    verified_for_sending: bool
    verification_status: str  # SUCCESS, PENDING, FAILED, TEMPORARY_FAILURE, NOT_STARTED


@dataclass(frozen=True)
class SesAccountFacts:
    production_access: bool  # False: the sandbox, which sends only to verified addresses
    sending_enabled: bool
    enforcement_status: str  # HEALTHY, PROBATION, SHUTDOWN


@dataclass(frozen=True)
class IdentityArn:
    region: str
    account: str
    name: str


# ---------------------------------------------------------------------------------------------------------------
# Decisions: pure functions of the facts read.
# ---------------------------------------------------------------------------------------------------------------


def bootstrap_qualifier(context: Mapping[str, Any]) -> str:
    """The bootstrap qualifier the app synthesizes for: cdk.json's context may set another than CDK's default."""
    return str(context.get(QUALIFIER_CONTEXT) or DEFAULT_QUALIFIER)


def bootstrap_command(target: Target, qualifier: str = DEFAULT_QUALIFIER) -> list[str]:
    """The command that bootstraps (or upgrades the bootstrap of) the target, run from the repository."""
    command = ["npx", "cdk", "bootstrap", target.environment]
    return command if qualifier == DEFAULT_QUALIFIER else [*command, "--qualifier", qualifier]


def bootstrap_finding(facts: BootstrapFacts, target: Target, qualifier: str = DEFAULT_QUALIFIER) -> Finding:
    """Whether the target is bootstrapped at a version the template accepts.

    The SSM parameter decides (it is what CheckBootstrapVersion reads); the stack's status explains its absence
    or says that a bootstrap is failing or under way. A problem here is one `cdk bootstrap` fixes.
    """
    fix = f"make deploy BOOTSTRAP=1 (runs the preflight with --bootstrap), or: {' '.join(bootstrap_command(target, qualifier))}"
    parameter = f"/cdk-bootstrap/{qualifier}/version"
    status = facts.stack_status
    if facts.version is None:
        if status is None:
            why = f"no {TOOLKIT_STACK} stack and no {parameter} parameter"
        elif status in SETTLED_STATUSES:
            why = f"the {TOOLKIT_STACK} stack exists ({status}) but the {parameter} parameter does not: bootstrapped with another qualifier?"
        else:
            why = f"the {TOOLKIT_STACK} stack is {status}: a bootstrap failed or is under way"
        return Finding("bootstrap", "problem", f"{target.environment} is not bootstrapped for the CDK ({why})", fix)
    if not facts.version.strip().isdigit():
        return Finding("bootstrap", "problem", f"the {parameter} parameter holds {facts.version!r}, not a version number", fix)
    version = int(facts.version)
    if version < MIN_BOOTSTRAP_VERSION:
        return Finding(
            "bootstrap",
            "problem",
            f"{target.environment} is bootstrapped at version {version}; the template needs {MIN_BOOTSTRAP_VERSION} or later (Rules.CheckBootstrapVersion)",
            fix,
        )
    if status is not None and status not in SETTLED_STATUSES:
        return Finding(
            "bootstrap",
            "warning",
            f"bootstrap version {version}, but the {TOOLKIT_STACK} stack is {status}",
            f"wait until it settles (aws cloudformation describe-stacks --stack-name {TOOLKIT_STACK}); if it failed, bootstrap again: {fix}",
        )
    return Finding("bootstrap", "ok", f"{target.environment} bootstrapped at version {version} (at least {MIN_BOOTSTRAP_VERSION} needed)")


def concurrency_findings(settings: Settings, facts: ConcurrencyFacts) -> list[Finding]:
    """Whether the account's concurrency quota holds what the stack reserves at these settings (infra.sizing).

    Problems: the real quota cannot hold the reservation, or synth would refuse it against the declared
    HOOKLINE_ACCOUNT_CONCURRENCY_QUOTA. A warning: other reservations in the account (or this stack's own, on
    an update: GetAccountSettings cannot tell them apart) may leave too little unreserved.
    """
    total = sizing.reserved_total(settings)
    found = sizing.problems(settings, facts.quota)
    if found:
        # sizing's text names every way out; the fix is the one that works on any account, a new one's quota of 10 included.
        fix = f"set HOOKLINE_SIZE to small in {_stack_file(settings)} (reserves nothing; each queue's consumers capped at 2)"
        return [Finding("concurrency", "problem", text, fix) for text in found]
    declared = settings.account_concurrency_quota
    if sizing.problems(settings, declared):
        return [
            Finding(
                "concurrency",
                "problem",
                f"the account's quota of {facts.quota} holds the {total} the functions reserve, but synth checks against "
                f"HOOKLINE_ACCOUNT_CONCURRENCY_QUOTA={declared} and would refuse it",
                f"set HOOKLINE_ACCOUNT_CONCURRENCY_QUOTA to {facts.quota} in {_stack_file(settings)}",
            )
        ]
    size = f"HOOKLINE_SIZE={settings.size}"
    reserved_elsewhere = facts.quota - facts.unreserved
    if total and facts.unreserved - total < sizing.UNRESERVED_MINIMUM:
        return [
            Finding(
                "concurrency",
                "warning",
                f"{reserved_elsewhere} of the quota of {facts.quota} is reserved already; unless that is this stack's own "
                f"(an update), reserving {total} more leaves {facts.unreserved - total}, below AWS's minimum of {sizing.UNRESERVED_MINIMUM}",
                f"set HOOKLINE_SIZE to small in {_stack_file(settings)}, or lower the other functions' reserved concurrency, or raise the quota",
            )
        ]
    reserves = f"reserves {total}" if total else "reserves nothing"
    return [Finding("concurrency", "ok", f"quota {facts.quota}; {size} {reserves}, leaving at least {sizing.UNRESERVED_MINIMUM} unreserved")]


def _stack_file(settings: Settings) -> str:
    """Where a fix sets a setting: the stack's file (a HOOKLINE_* variable in the shell that disagrees is refused)."""
    return f"stacks/{settings.stack_name}.json"


def parse_identity_arn(arn: str) -> IdentityArn | None:
    """`arn:aws:ses:REGION:ACCOUNT:identity/NAME` -> its parts; None for anything else."""
    match = IDENTITY_ARN.fullmatch(arn.strip())
    return IdentityArn(match["region"], match["account"], match["name"]) if match else None


def sender_address(sender: str) -> str:
    """The bare address of the sender setting (which may be written `Name <address>`), parsed as the grant and the
    emails parse it (hookline.core.mailbox; the settings refused one that does not parse)."""
    return parse_mailbox(sender).address


def sender_identities(sender: str) -> list[str]:
    """The SES identities that can verify the sender, most specific first: the address, its domain, the parents.

    SES lets a verified domain send from its subdomains' addresses too.
    """
    mailbox = parse_mailbox(sender)
    labels = mailbox.domain.lower().split(".")
    return [mailbox.address] + [".".join(labels[i:]) for i in range(len(labels) - 1)]


def covers(identity: str, sender: str) -> bool:
    """Whether a verified `identity` lets SES send as `sender` (the address itself, its domain or a parent)."""
    return identity.lower() in {name.lower() for name in sender_identities(sender)}


def _verify_fix(name: str, region: str) -> str:
    if "@" in name:
        return f"aws sesv2 create-email-identity --email-identity {name} --region {region}, then open the link AWS emails to it"
    return f"aws sesv2 create-email-identity --email-identity {name} --region {region}, then publish the DKIM CNAME records it returns in {name}'s DNS"


def _state(facts: IdentityFacts | None) -> str:
    return "not created" if facts is None else f"verification {facts.verification_status.lower()}"


def sender_finding(sender: str, target: Target, identities: Mapping[str, IdentityFacts | None]) -> Finding:
    """Whether one of the sender's own identities (sender_identities) is verified for sending in `region`.

    hookline's email grant names the address and its domain; a sender verified only through a parent domain
    sends only once HOOKLINE_NOTIFICATION_IDENTITY_ARN names that domain.
    """
    region = target.region
    address = sender_address(sender)
    names = sender_identities(sender)
    grantable = names[:2]  # the address and its domain: what infra.functions grants
    verified = [name for name in names if (facts := identities.get(name)) is not None and facts.verified_for_sending]
    if verified and verified[0] in grantable:
        how = "verified" if verified[0] == address else f"covered by the verified domain {verified[0]}"
        return Finding("ses sender", "ok", f"{address}: {how} in {region}")
    if verified:
        parent = verified[0]
        return Finding(
            "ses sender",
            "warning",
            f"{address} is verified only through the parent domain {parent}, which hookline's email grant does not name: SES would refuse its emails",
            f'"HOOKLINE_NOTIFICATION_IDENTITY_ARN": "arn:aws:ses:{region}:{target.account}:identity/{parent}" in the stack\'s file (stacks/<stack>.json), then make deploy',
        )
    states = ", ".join(f"{name}: {_state(identities.get(name))}" for name in grantable)
    domain = grantable[-1]
    return Finding(
        "ses sender",
        "warning",
        f"{address} is not verified for sending in {region} ({states}): SES refuses every customer email until it is",
        f"verify the domain: {_verify_fix(domain, region)}" + (f"; or the address alone: {_verify_fix(address, region)}" if domain != address else ""),
    )


def identity_arn_finding(sender: str, arn: IdentityArn, facts: IdentityFacts | None) -> Finding:
    """Whether the identity HOOKLINE_NOTIFICATION_IDENTITY_ARN names is verified and covers the sender."""
    address = sender_address(sender)
    if not covers(arn.name, sender):
        return Finding(
            "ses sender",
            "warning",
            f"HOOKLINE_NOTIFICATION_IDENTITY_ARN names {arn.name}, which cannot send as {address} (neither the address nor one of its domains)",
            "name the identity that verifies the sender, or leave HOOKLINE_NOTIFICATION_IDENTITY_ARN empty to grant the address and its domain",
        )
    if facts is not None and facts.verified_for_sending:
        return Finding("ses sender", "ok", f"{address}: sends through {arn.name}, verified in {arn.region}")
    return Finding(
        "ses sender",
        "warning",
        f"{arn.name} ({_state(facts)} in {arn.region}), which HOOKLINE_NOTIFICATION_IDENTITY_ARN names, is not verified for sending: SES refuses every customer email until it is",
        _verify_fix(arn.name, arn.region),
    )


def ses_account_findings(facts: SesAccountFacts, region: str) -> list[Finding]:
    """The account's SES standing in the sending region: the sandbox, paused sending or an enforcement shutdown."""
    found: list[Finding] = []
    if not facts.production_access:
        found.append(
            Finding(
                "ses account",
                "warning",
                f"the account is in the SES sandbox in {region}: customer emails go only to verified addresses (and at most 200 a day)",
                f"request production access for {region} in the SES console (https://docs.aws.amazon.com/ses/latest/dg/request-production-access.html), "
                "or with aws sesv2 put-account-details --production-access-enabled ...",
            )
        )
    if not facts.sending_enabled or facts.enforcement_status == "SHUTDOWN":
        found.append(
            Finding(
                "ses account",
                "warning",
                f"SES sending is paused for the account in {region} (enforcement status {facts.enforcement_status}): no customer email is sent",
                "see the SES console's Reputation metrics; resume with aws sesv2 put-account-sending-attributes --sending-enabled once resolved",
            )
        )
    return found or [Finding("ses account", "ok", f"production access in {region}, sending enabled")]


def alarms_finding(settings: Settings) -> Finding:
    """Whether the alarms reach anyone: they all notify the notifications topic, which the stack subscribes
    HOOKLINE_ALARM_EMAIL and HOOKLINE_ALARM_HTTPS_ENDPOINT to, and nobody else."""
    recipients = [*settings.alarm_emails, *([settings.alarm_https_endpoint] if settings.alarm_https_endpoint else [])]
    if not recipients:
        return Finding(
            "alarms",
            "warning",
            f"no one is subscribed to the {settings.stack_name}-notifications topic, so the alarms reach nobody",
            f"set HOOKLINE_ALARM_EMAIL (or HOOKLINE_ALARM_HTTPS_ENDPOINT) in {_stack_file(settings)}, or subscribe to the topic yourself",
        )
    emails = "; each address confirms its subscription from the email AWS sends" if settings.alarm_emails else ""
    return Finding("alarms", "ok", f"the alarms notify {', '.join(recipients)}{emails}")


def unreadable_finding(check: str, error: Unreadable, permissions: str) -> Finding:
    """A check that could not read the account: it decides nothing; with_unreadable says whether that blocks."""
    return Finding(check, "warning", f"could not check: {error}", f"allow {permissions} to the deploying identity, or check it by hand", unreadable=True)


def with_unreadable(findings: Sequence[Finding], mode: Unreadability) -> list[Finding]:
    """A check that could not read the account is a problem (`fail`, the default: what it would have found may make
    the deploy fail), or a warning with `warn` (PREFLIGHT=warn), for an identity that lacks a read permission."""
    if mode == "warn":
        return list(findings)
    return [
        replace(finding, severity="problem", fix=f"{finding.fix}; or go on without this check: PREFLIGHT=warn make deploy")
        if finding.unreadable and finding.severity != "problem"
        else finding
        for finding in findings
    ]


# The deployed stack: what the update changes, whether CloudFormation accepts it, and what a destroyed one left.

# Statuses of a stack that holds no resources of its own: a first create that failed (RetainExceptOnCreate deleted
# its table, key and log groups with it); `cdk deploy` deletes and creates it again.
NOT_DEPLOYED = frozenset({"ROLLBACK_COMPLETE", "REVIEW_IN_PROGRESS"})
# Statuses CloudFormation updates no stack from: a rollback or a delete that failed needs a hand first.
STUCK = frozenset({"ROLLBACK_FAILED", "UPDATE_ROLLBACK_FAILED", "DELETE_FAILED"})
# What a queue holds: a replaced or removed queue with any of them loses messages.
QUEUE_DEPTH = ("ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed")
QUEUE = "AWS::SQS::Queue"
QUEUE_LOSS = frozenset({"replace-stateful", "removed-stateful"})
UPGRADES = 'docs/operations.md, "Upgrades"'
# The release path for each of infra.upgrade's rules: how to reach the new template in steps CloudFormation accepts.
RELEASE_PATH: dict[str, str] = {
    "gsi-count": "deploy one index change per release: a commit that adds or deletes one index, then, once it is ACTIVE, the next "
    f"({UPGRADES}, 'Each release's migration')",
    "gsi-modified": "delete the index in one deploy and create it in the next, or give the new index another name",
    "key-schema": "a table's key cannot change in place: keep the key, or move the data to a new table (another logical id and name) over releases",
    "immutable": "a key's KeySpec, KeyUsage, Origin and MultiRegion never change: keep them, or add a new key beside it in its own release",
    "type-changed": "give the new resource another logical id: one release removes the old resource, the next adds the new one",
    "replace-named": "two releases: one that gives the resource another name (or removes it), then the change",
    "replace-retained": "keep the resource's logical id and replacement properties; or release its removal first and adopt or delete the retained one by hand",
    "replace-stateful": "drain it first, or keep the properties that force its replacement",
    "removed-retained": "a retained resource left outside the stack: adopt it again (cdk import) or delete it by hand after this release",
    "removed-stateful": "drain or export it first: the update deletes it",
    "name-collision": "two releases: the first removes the old resource (or renames it), the second creates the new one under the name",
    "unknown-type": "add the type to infra/upgrade.py's REPLACEMENT (its createOnlyProperties) and, with a fixed name, to NAMES",
}


@dataclass(frozen=True)
class DeployedFacts:
    status: str  # the stack's StackStatus
    template: Mapping[str, Any] | None  # its template (GetTemplate); None while an operation is under way


@dataclass(frozen=True)
class LeftoverFacts:
    """What a destroyed stack left in the account: the retained table, its key and log groups."""

    table: str | None  # the table `<stack>-data`; None: no such table
    key: str | None  # the table's KMS key (SSEDescription.KMSMasterKeyArn)
    log_groups: tuple[str, ...]  # the stack's log groups (deployed.leftover_log_group)


def leftovers_finding(stack: str, facts: LeftoverFacts) -> Finding:
    """With no stack `stack`: its retained table blocks a deploy ("already exists"); its key and log groups do not,
    but they are left outside any stack. The fix adopts the table and key again, or deletes them."""
    groups = "; ".join(f"aws logs delete-log-group --log-group-name {name}" for name in facts.log_groups)
    if facts.table is None:
        if not facts.log_groups:
            return Finding("leftovers", "ok", f"no stack {stack} yet, and no table, key or log group of an earlier one: the deploy creates it")
        return Finding(
            "leftovers",
            "warning",
            f"no stack {stack}, but {len(facts.log_groups)} log group(s) of a destroyed one remain outside any stack: {', '.join(facts.log_groups)}",
            f"they do not collide (the new stack makes its own) and expire their events; delete them when unwanted: {groups}",
        )
    key = f" and its KMS key {facts.key}" if facts.key else ""
    groups_too = f", and {len(facts.log_groups)} of its log groups ({', '.join(facts.log_groups)})" if facts.log_groups else ""
    delete = f"aws dynamodb delete-table --table-name {facts.table}" + (f"; aws kms schedule-key-deletion --key-id {facts.key}" if facts.key else "")
    return Finding(
        "leftovers",
        "problem",
        f"no stack {stack}, but the table {facts.table}{key} of a destroyed one are still in the account{groups_too}: creating the "
        f"stack fails with '{facts.table} already exists'",
        "adopt them into the new stack (docs/operations.md, 'What outlives the stack, and re-attaching it': "
        f"STACK={stack} npx cdk import -c hookline:data-only=true, then make deploy STACK={stack}); or delete them, the data with them: "
        + delete
        + (f"; {groups}" if groups else ""),
    )


def changes_finding(stack: str, old_template: Mapping[str, Any], new_template: Mapping[str, Any]) -> Finding:
    """The settings the deploy changes, as a diff of what the two templates record."""
    old, new = deployed.recorded_settings(old_template), deployed.recorded_settings(new_template)
    if old is None:
        return Finding(
            "changes",
            "ok",
            f"the deployed stack {stack} records no settings (an earlier release made it): what it removes is read from its resources",
        )
    changes = deployed.setting_changes(old, new or {})
    if not changes:
        return Finding("changes", "ok", f"no setting changes from the deployed stack {stack}")
    return Finding("changes", "ok", f"{len(changes)} setting(s) change from the deployed stack {stack}:", details=tuple(deployed.diff_lines(changes)))


def removal_findings(settings: Settings, old_template: Mapping[str, Any], new_template: Mapping[str, Any], *, confirm: bool) -> list[Finding]:
    """What the update takes away (infra.deployed.removals): each a problem until CONFIRM=1 says it is meant."""
    found = deployed.removals(old_template, new_template)
    if confirm:
        return [Finding("removes", "ok", f"{removal.what} (confirmed: --confirm)") for removal in found]
    fix = f"if it is meant: make deploy STACK={settings.stack_name} CONFIRM=1; if not, put it back in {_stack_file(settings)}"
    return [Finding("removes", "problem", f"the deploy removes {removal.what}", fix) for removal in found]


def upgrade_findings(found: Sequence[upgrade.Finding], depths: Mapping[str, int | str]) -> list[Finding]:
    """infra.upgrade's findings as the preflight's: each a problem naming the release path, except a replaced or removed
    queue that `depths` says is empty (its count of messages; a text: why it could not be read)."""
    if not found:
        return [Finding("upgrade", "ok", "CloudFormation accepts the update from the deployed template (infra.upgrade)")]
    out: list[Finding] = []
    for finding in found:
        depth = depths.get(finding.resource) if finding.type == QUEUE and finding.rule in QUEUE_LOSS else None
        if depth == 0:
            out.append(Finding("upgrade", "ok", f"{finding.resource}: the queue is replaced or removed, and it is empty"))
        elif isinstance(depth, str):
            out.append(
                Finding("upgrade", "problem", f"{finding}; how many messages it holds could not be read: {depth}", RELEASE_PATH[finding.rule], unreadable=True)
            )
        else:
            held = f" It holds {depth} message(s)." if isinstance(depth, int) else ""
            out.append(Finding("upgrade", "problem", f"{finding}.{held}", f"{RELEASE_PATH.get(finding.rule, '')} ({UPGRADES})"))
    return out


def summary(findings: Sequence[Finding], *, strict: bool) -> tuple[int, str]:
    """The exit status and the closing line: 1 when a problem (with `strict`, a warning too) blocks the deploy."""
    counts = {severity: sum(f.severity == severity for f in findings) for severity in ("ok", "warning", "problem")}
    tally = f"{counts['ok']} ok, {counts['warning']} warning(s), {counts['problem']} problem(s)"
    blocking = counts["problem"] + (counts["warning"] if strict else 0)
    if blocking:
        return 1, f"preflight: {tally}. The deploy would fail or fall short: apply the fixes above, then run `make preflight` again."
    return 0, f"preflight: {tally}. Nothing blocks the deploy."


# ---------------------------------------------------------------------------------------------------------------
# Reading the account: one AWS call or two per fact, errors turned into Unreadable.
# ---------------------------------------------------------------------------------------------------------------


def deploy_region(env: Mapping[str, str], configured: str | None) -> str | None:
    """The region `cdk deploy` deploys to: the CDK CLI takes AWS_REGION first, which boto3 ignores, then what boto3
    resolves too (AWS_DEFAULT_REGION, the profile's region)."""
    return env.get("AWS_REGION") or configured


def _failed(call: str, exc: Exception) -> Unreadable:
    """The error on one line, cut short: an HTML error page (a proxy's, a stand-in's) must not swamp the report."""
    reason = " ".join(str(exc).split())
    return Unreadable(f"{call} failed: {reason[:300]}{'…' if len(reason) > 300 else ''}")


def _error_code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def read_target(sts: Any, region: str) -> Target:
    try:
        return Target(account=str(sts.get_caller_identity()["Account"]), region=region)
    except (ClientError, BotoCoreError) as exc:
        raise _failed("sts:GetCallerIdentity", exc) from exc


def _read(call: str, read: Callable[[], Any], *, absent: Callable[[ClientError], bool] = lambda _: False) -> Any:
    """One AWS read's answer; None when `absent` says its error means "no such thing"; any other failure Unreadable."""
    try:
        return read()
    except ClientError as exc:
        if absent(exc):
            return None
        raise _failed(call, exc) from exc
    except BotoCoreError as exc:
        raise _failed(call, exc) from exc


def _missing_stack(exc: ClientError) -> bool:
    # CloudFormation answers a missing stack with a ValidationError "Stack with id ... does not exist".
    return _error_code(exc) == "ValidationError" and "does not exist" in str(exc)


def _stack_status(cloudformation: Any, stack: str) -> str | None:
    """The stack's StackStatus; None when there is no such stack."""
    found = _read("cloudformation:DescribeStacks", lambda: cloudformation.describe_stacks(StackName=stack)["Stacks"], absent=_missing_stack)
    return str(found[0]["StackStatus"]) if found else None


def read_bootstrap(ssm: Any, cloudformation: Any, qualifier: str) -> BootstrapFacts:
    """The bootstrap version parameter and the toolkit stack's status, each None when absent."""
    parameter = _read(
        "ssm:GetParameter",
        lambda: ssm.get_parameter(Name=f"/cdk-bootstrap/{qualifier}/version")["Parameter"],
        absent=lambda exc: _error_code(exc) == "ParameterNotFound",
    )
    version = None if parameter is None else str(parameter["Value"])
    return BootstrapFacts(version=version, stack_status=_stack_status(cloudformation, TOOLKIT_STACK))


def read_concurrency(lambda_client: Any) -> ConcurrencyFacts:
    try:
        limit = lambda_client.get_account_settings()["AccountLimit"]
    except (ClientError, BotoCoreError) as exc:
        raise _failed("lambda:GetAccountSettings", exc) from exc
    return ConcurrencyFacts(quota=int(limit["ConcurrentExecutions"]), unreserved=int(limit["UnreservedConcurrentExecutions"]))


def read_identity(sesv2: Any, name: str) -> IdentityFacts | None:
    """The identity's verification; None when the account has no such identity in the client's region."""
    try:
        answer = sesv2.get_email_identity(EmailIdentity=name)
    except ClientError as exc:
        if _error_code(exc) == "NotFoundException":
            return None
        raise _failed(f"ses:GetEmailIdentity {name}", exc) from exc
    except BotoCoreError as exc:
        raise _failed(f"ses:GetEmailIdentity {name}", exc) from exc
    return IdentityFacts(verified_for_sending=bool(answer.get("VerifiedForSendingStatus")), verification_status=str(answer.get("VerificationStatus", "")))


def read_ses_account(sesv2: Any) -> SesAccountFacts:
    try:
        answer = sesv2.get_account()
    except (ClientError, BotoCoreError) as exc:
        raise _failed("ses:GetAccount", exc) from exc
    return SesAccountFacts(
        production_access=bool(answer.get("ProductionAccessEnabled")),
        sending_enabled=bool(answer.get("SendingEnabled", True)),
        enforcement_status=str(answer.get("EnforcementStatus", "HEALTHY")),
    )


def read_deployed(cloudformation: Any, stack: str) -> DeployedFacts | None:
    """The stack's status and template; None when there is no such stack."""
    status = _stack_status(cloudformation, stack)
    if status is None:
        return None
    if status.endswith("_IN_PROGRESS") or status in NOT_DEPLOYED | STUCK:
        return DeployedFacts(status, None)
    body = _read("cloudformation:GetTemplate", lambda: cloudformation.get_template(StackName=stack, TemplateStage="Original")["TemplateBody"])
    # boto3 decodes a JSON template into a dict; a YAML one stays text (CDK deploys JSON).
    try:
        template = json.loads(body) if isinstance(body, str) else dict(body)
    except ValueError as exc:
        raise Unreadable(f"cloudformation:GetTemplate returned a template that is not JSON ({exc})") from exc
    return DeployedFacts(status, template)


def read_queue_depth(cloudformation: Any, sqs: Any, stack: str, logical_id: str) -> int:
    """How many messages the stack's queue `logical_id` holds: visible, in flight and delayed."""
    resource = _read("cloudformation:DescribeStackResource", lambda: cloudformation.describe_stack_resource(StackName=stack, LogicalResourceId=logical_id))
    url = resource["StackResourceDetail"]["PhysicalResourceId"]
    attributes = _read("sqs:GetQueueAttributes", lambda: sqs.get_queue_attributes(QueueUrl=url, AttributeNames=list(QUEUE_DEPTH))["Attributes"])
    return sum(int(attributes.get(name, 0)) for name in QUEUE_DEPTH)


def read_leftovers(dynamodb: Any, logs: Any, stack: str) -> LeftoverFacts:
    """The retained table `<stack>-data` with its key, and the stack's log groups, as a destroyed stack leaves them."""
    table_name = topology.TABLE.physical_name(stack)
    table = _read(
        "dynamodb:DescribeTable",
        lambda: dynamodb.describe_table(TableName=table_name)["Table"],
        absent=lambda exc: _error_code(exc) == "ResourceNotFoundException",
    )
    key = (table or {}).get("SSEDescription", {}).get("KMSMasterKeyArn")
    machines = [spec.key for spec in topology.STATE_MACHINES]
    groups: list[str] = []
    try:
        for prefix in (f"{stack}-", *(f"/aws/vendedlogs/states/{stack}-{machine}" for machine in machines)):
            for page in logs.get_paginator("describe_log_groups").paginate(logGroupNamePrefix=prefix):
                groups.extend(str(group["logGroupName"]) for group in page.get("logGroups", []))
    except (ClientError, BotoCoreError) as exc:
        raise _failed("logs:DescribeLogGroups", exc) from exc
    kept = tuple(sorted({name for name in groups if deployed.leftover_log_group(name, stack, machines)}))
    return LeftoverFacts(table=table_name if table is not None else None, key=str(key) if key else None, log_groups=kept)


def _client(service: str, region: str) -> Any:
    return boto3.client(service, region_name=region)


@dataclass(frozen=True)
class Clients:
    """The boto3 clients the checks read through, all in the deploy's region; tests pass moto's or stubbed ones."""

    region: str
    sts: Any
    ssm: Any
    cloudformation: Any
    lambda_: Any
    sesv2: Any
    sqs: Any
    dynamodb: Any
    logs: Any
    # An SES identity HOOKLINE_NOTIFICATION_IDENTITY_ARN names may live in another region.
    other_region: Callable[[str, str], Any] = _client

    @classmethod
    def for_region(cls, region: str) -> Clients:
        return cls(
            region,
            sts=_client("sts", region),
            ssm=_client("ssm", region),
            cloudformation=_client("cloudformation", region),
            lambda_=_client("lambda", region),
            sesv2=_client("sesv2", region),
            sqs=_client("sqs", region),
            dynamodb=_client("dynamodb", region),
            logs=_client("logs", region),
        )

    def sesv2_in(self, region: str) -> Any:
        return self.sesv2 if region == self.region else self.other_region("sesv2", region)


def check_bootstrap(clients: Clients, target: Target, qualifier: str) -> Finding:
    try:
        return bootstrap_finding(read_bootstrap(clients.ssm, clients.cloudformation, qualifier), target, qualifier)
    except Unreadable as exc:
        return unreadable_finding("bootstrap", exc, "ssm:GetParameter and cloudformation:DescribeStacks")


def check_concurrency(clients: Clients, settings: Settings) -> list[Finding]:
    try:
        return concurrency_findings(settings, read_concurrency(clients.lambda_))
    except Unreadable as exc:
        return [unreadable_finding("concurrency", exc, "lambda:GetAccountSettings")]


def check_sender(clients: Clients, settings: Settings, target: Target) -> Finding:
    sender = settings.notification_sender
    try:
        if not settings.notification_identity_arn:
            names = sender_identities(sender)
            return sender_finding(sender, target, {name: read_identity(clients.sesv2, name) for name in names})
        arn = parse_identity_arn(settings.notification_identity_arn)
        if arn is None:
            return Finding(
                "ses sender",
                "problem",
                f"HOOKLINE_NOTIFICATION_IDENTITY_ARN={settings.notification_identity_arn!r} is not an SES identity ARN: the email grant would name nothing that sends",
                "HOOKLINE_NOTIFICATION_IDENTITY_ARN=arn:aws:ses:REGION:ACCOUNT:identity/DOMAIN_OR_ADDRESS, or leave it empty",
            )
        if arn.account != target.account:
            return Finding(
                "ses sender",
                "warning",
                f"{arn.name} belongs to account {arn.account}, which this account cannot read: its owner must authorize {target.account} to send (an identity policy)",
                "check the identity's sending authorization policy in account " + arn.account,
            )
        return identity_arn_finding(sender, arn, read_identity(clients.sesv2_in(arn.region), arn.name))
    except Unreadable as exc:
        return unreadable_finding("ses sender", exc, "ses:GetEmailIdentity")


def check_ses_account(clients: Clients, target: Target) -> list[Finding]:
    try:
        return ses_account_findings(read_ses_account(clients.sesv2), target.region)
    except Unreadable as exc:
        return [unreadable_finding("ses account", exc, "ses:GetAccount")]


def check_deployed(clients: Clients, settings: Settings, template: Path | None, *, confirm: bool) -> list[Finding]:
    """The deployed stack against the template to deploy; with no stack, what a destroyed one left."""
    stack = settings.stack_name
    try:
        facts = read_deployed(clients.cloudformation, stack)
    except Unreadable as exc:
        return [unreadable_finding("deployed stack", exc, "cloudformation:DescribeStacks and cloudformation:GetTemplate")]
    if facts is None or facts.status in NOT_DEPLOYED:
        try:
            return [leftovers_finding(stack, read_leftovers(clients.dynamodb, clients.logs, stack))]
        except Unreadable as exc:
            return [unreadable_finding("leftovers", exc, "dynamodb:DescribeTable and logs:DescribeLogGroups")]
    if facts.status in STUCK:
        return [
            Finding(
                "deployed stack",
                "problem",
                f"the stack {stack} is {facts.status}: CloudFormation updates it no further until that is resolved",
                f"see its events (aws cloudformation describe-stack-events --stack-name {stack}); for UPDATE_ROLLBACK_FAILED, "
                f"aws cloudformation continue-update-rollback --stack-name {stack}; otherwise retry the delete",
            )
        ]
    if facts.template is None:
        return [
            Finding(
                "deployed stack",
                "problem",
                f"the stack {stack} is {facts.status}: an operation on it is under way",
                f"wait until it settles (aws cloudformation describe-stacks --stack-name {stack}), then deploy",
            )
        ]
    if template is None:
        return [Finding("deployed stack", "ok", f"{stack} is {facts.status}; not compared: no --template given")]
    try:
        new_template = json.loads(template.read_text())
    except (OSError, ValueError) as exc:
        return [Finding("deployed stack", "problem", f"cannot read the template to deploy, {template}: {exc}", "make synth writes it")]
    old_template = facts.template
    found = [changes_finding(stack, old_template, new_template), *removal_findings(settings, old_template, new_template, confirm=confirm)]
    changed = upgrade.findings(old_template, new_template, pseudo={"AWS::StackName": stack})
    unaccepted = [finding for finding in changed if not any(entry.matches(finding) for entry in upgrade.ALLOWED)]
    depths: dict[str, int | str] = {}
    for finding in unaccepted:
        if finding.type == QUEUE and finding.rule in QUEUE_LOSS and finding.resource not in depths:
            try:
                depths[finding.resource] = read_queue_depth(clients.cloudformation, clients.sqs, stack, finding.resource)
            except Unreadable as exc:
                depths[finding.resource] = str(exc)
    return [*found, *upgrade_findings(unaccepted, depths)]


# ---------------------------------------------------------------------------------------------------------------
# The command.
# ---------------------------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m infra.preflight",
        description="Check the AWS account (credentials and region as for `cdk deploy`) before deploying hookline: "
        "CDK bootstrap, Lambda concurrency quota, SES sender and sandbox, and the deployed stack (what the deploy changes or removes, whether "
        "CloudFormation accepts the update, or what a destroyed stack left). Exit 0 when nothing blocks the deploy.",
    )
    parser.add_argument(
        "--bootstrap", action="store_true", help="run `npx cdk bootstrap aws://ACCOUNT/REGION` when the bootstrap is missing or too old (make ... BOOTSTRAP=1)"
    )
    parser.add_argument("--no-input", action="store_true", help="never ask (the default when stdin is not a terminal)")
    parser.add_argument("--strict", action="store_true", help="warnings block too (exit 1)")
    parser.add_argument(
        "--template", type=Path, default=None, help="the synthesized template to deploy (cdk.out/<stack>.template.json), compared with the deployed stack's"
    )
    parser.add_argument("--confirm", action="store_true", help="let the deploy remove a subscription, an SES grant or capacity (make deploy CONFIRM=1)")
    parser.add_argument(
        "--unreadable",
        choices=["fail", "warn"],
        default="fail",
        help="a check that cannot read the account is a problem (fail, the default) or a warning (warn: make deploy PREFLIGHT=warn)",
    )
    return parser


def run_command(command: Sequence[str]) -> int:
    """Run a command from the repository root (npx finds the pinned aws-cdk CLI there), its output on the terminal."""
    return subprocess.run(list(command), cwd=REPO_ROOT, check=False).returncode  # noqa: S603  - a fixed argv, no shell


def ask_on_terminal(question: str) -> bool:
    try:
        return input(f"{question} [y/N] ").strip().lower() in {"y", "yes"}
    except EOFError:
        return False


def _cdk_context() -> dict[str, Any]:
    context: dict[str, Any] = json.loads((REPO_ROOT / "cdk.json").read_text()).get("context", {})
    return context


def wants_bootstrap(finding: Finding, *, flag: bool, ask: Callable[[str], bool] | None, command: Sequence[str]) -> bool:
    """Whether to run `cdk bootstrap`: for a bootstrap problem only, with --bootstrap or when the terminal says yes."""
    if finding.severity != "problem":
        return False
    return flag or (ask is not None and ask(f"{finding.message}. Run `{' '.join(command)}` now?"))


def preflight(
    settings: Settings,
    clients: Clients,
    *,
    bootstrap: bool = False,
    ask: Callable[[str], bool] | None = None,
    run: Callable[[Sequence[str]], int] = run_command,
    qualifier: str = DEFAULT_QUALIFIER,
    out: TextIO = sys.stdout,
    template: Path | None = None,
    confirm: bool = False,
) -> list[Finding]:
    """Every check's findings, in order; `cdk bootstrap` runs between reading the bootstrap and reading it again.
    `template` is the one to deploy, compared with the deployed stack's; `confirm` lets it remove what it removes."""
    target, credentials = check_credentials(clients, settings.stack_name)
    if target is None:
        return [credentials]
    findings = [credentials]
    finding = check_bootstrap(clients, target, qualifier)
    command = bootstrap_command(target, qualifier)
    if wants_bootstrap(finding, flag=bootstrap, ask=ask, command=command):
        print(f"running: {' '.join(command)}", file=out, flush=True)
        status = run(command)
        if status == 0:
            finding = check_bootstrap(clients, target, qualifier)
        else:
            finding = Finding("bootstrap", "problem", f"`{' '.join(command)}` failed (exit {status}): its output is above", finding.fix)
    findings.append(finding)
    findings.extend(check_concurrency(clients, settings))
    findings.append(alarms_finding(settings))
    if not settings.notification_sender:
        findings.append(Finding("ses", "ok", "not checked: HOOKLINE_NOTIFICATION_SENDER is not set, so customers get no emails (the SNS topic still does)"))
    else:
        findings.append(check_sender(clients, settings, target))
        findings.extend(check_ses_account(clients, target))
    findings.extend(check_deployed(clients, settings, template, confirm=confirm))
    return findings


def check_credentials(clients: Clients, stack: str | None) -> tuple[Target | None, Finding]:
    """The account the credentials reach (STS), with its finding; None when they reach none."""
    try:
        target = read_target(clients.sts, clients.region)
    except Unreadable as exc:
        return None, Finding("credentials", "problem", f"cannot read the account ({exc}); no other check can run", CREDENTIALS_FIX)
    named = f", stack {stack}" if stack else ""
    return target, Finding("credentials", "ok", f"account {target.account}, region {target.region}{named}")


def credentials_findings(found: bool) -> list[Finding]:
    """Without a region STS cannot be asked who the credentials are: whether there are any at all is what can be told."""
    if found:
        return [Finding("credentials", "ok", "credentials found; the account they reach is read once a region is set")]
    return [Finding("credentials", "problem", "no AWS credentials found", CREDENTIALS_FIX)]


def main(
    argv: Sequence[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    clients: Clients | None = None,
    ask: Callable[[str], bool] | None = None,
    run: Callable[[Sequence[str]], int] = run_command,
    out: TextIO | None = None,
    stacks_dir: Path = stack_settings.STACKS_DIR,
) -> int:
    """The command: the exit status. The settings are the stack file's (`stacks_dir`/<STACK>.json, checked against
    `env`'s HOOKLINE_* variables: infra.stack_settings). Without `clients`, they are made for the region boto3 resolves (AWS_REGION,
    AWS_DEFAULT_REGION, the profile's); without `ask`, the preflight asks on a terminal only."""
    args = build_parser().parse_args(argv)
    out = out if out is not None else sys.stdout
    env = env if env is not None else os.environ
    # What stops the checks early is reported together: settings, region and credentials in one run.
    early: list[Finding] = []
    try:
        settings: Settings | None = stack_settings.load(env, stacks_dir=stacks_dir)
    except SettingsError as exc:
        settings = None
        early.append(Finding("settings", "problem", str(exc), "correct the stack file, or unset the variable"))
    if clients is None:
        session = boto3.session.Session()
        region = deploy_region(env, session.region_name)
        if not region:
            fix = "export AWS_DEFAULT_REGION=<region> (or set region for the profile in ~/.aws/config); cdk deploy deploys there too"
            early.append(Finding("region", "problem", "no AWS region is configured", fix))
            early.extend(credentials_findings(session.get_credentials() is not None))
        else:
            clients = Clients.for_region(region)
    if settings is None and clients is not None:
        early.append(check_credentials(clients, None)[1])
    if settings is None or clients is None:
        return _report(early, strict=args.strict, out=out)
    if args.no_input:
        ask = None
    elif ask is None and sys.stdin.isatty() and sys.stdout.isatty():
        ask = ask_on_terminal
    print(f"preflight: stack {settings.stack_name}, HOOKLINE_SIZE={settings.size}, region {clients.region}", file=out)
    findings = preflight(
        settings,
        clients,
        bootstrap=args.bootstrap,
        ask=ask,
        run=run,
        qualifier=bootstrap_qualifier(_cdk_context()),
        out=out,
        template=args.template,
        confirm=args.confirm,
    )
    return _report(with_unreadable(findings, args.unreadable), strict=args.strict, out=out)


def _report(findings: Sequence[Finding], *, strict: bool, out: TextIO) -> int:
    for finding in findings:
        for line in finding.lines():
            print(line, file=out)
    status, closing = summary(findings, strict=strict)
    print(closing, file=out)
    return status


if __name__ == "__main__":
    sys.exit(main())
