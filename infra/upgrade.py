"""Upgrades that CloudFormation accepts: what an update of the stack from one template to another would be refused for, or would break.

Pure: two templates as `cdk synth` writes them (dicts) in, findings out; no CDK, no AWS. The upgrade test
(tests/infrastructure/test_upgrade.py) runs it from every release in tests/upgrade_releases.txt (and every `v*` tag) to
the current template; `make deploy`'s preflight (infra/preflight.py) runs it from the deployed stack's template to the one
`make synth` wrote, and `python -m infra.upgrade deployed.json cdk.out/<stack>.template.json` runs it by hand.
docs/operations.md ("Upgrades") explains each rule and names every entry of ALLOWED.

Each finding has an id `<rule>:<logical id>[:<detail>]`; the rules:

- `gsi-count`: more than one global secondary index created or deleted on one table. CloudFormation can "delete or add one
  global secondary index without interruption. If you do both in the same update ... the update fails" (DynamoDB's
  UpdateTable creates or deletes one index per call).
- `gsi-modified`: an index kept under its name with another key schema, key attribute type or projection. Updates of an
  index are not supported (only its throughput and contributor insights): it is a delete and a create, two deploys.
- `key-schema`: a table's KeySchema, or the type of one of its key attributes, changes: the table is replaced.
- `immutable`: a property CloudFormation refuses to change at all (AWS::KMS::Key KeySpec, KeyUsage, Origin, MultiRegion:
  "the update request fails, regardless of the value of the UpdateReplacePolicy attribute").
- `type-changed`: a logical id whose resource type changes; CloudFormation refuses to update a resource's type.
- `replace-named`: a property that requires replacement changes on a resource with a fixed physical name. CloudFormation
  creates the replacement before it deletes the old one, so the create fails: "<name> already exists".
- `replace-retained`: a resource that DeletionPolicy or UpdateReplacePolicy retains is replaced: the old one is left in the
  account outside the stack (orphaned, with its data) and the stack carries on with a new, empty one.
- `replace-stateful`: a table, queue, key or log group that is not retained is replaced: its items, messages, the data
  encrypted under it or its logs go with the old one.
- `removed-retained`: a retained resource's logical id disappears (a removal, or a rename that recreates it): the old one
  stays in the account outside the stack.
- `removed-stateful`: a table, queue, key or log group that is not retained disappears: it is deleted with its data.
- `name-collision`: a resource created by the update (a new logical id: often a rename) takes a physical name that a
  resource of the old template holds: created before the old one is deleted (or never deleted, when retained), it fails
  with "already exists".
- `unknown-type`: a changed resource of a type this module has no replacement rules for: add the type to REPLACEMENT.

Lambda versions (and layer versions) are exempt from the retained rules: CDK's `currentVersion` gives every new version a
new logical id and retains the old ones by design, so the live alias can still point back at them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Properties whose change requires replacement ("Update requires: Replacement"), per type: the CloudFormation registry
# schemas' createOnlyProperties (cfn-lint ships them; test_upgrade.py checks this table against them), plus
# AWS::DynamoDB::Table's KeySchema and LocalSecondaryIndexes, which the AWS::DynamoDB::Table reference marks Replacement.
REPLACEMENT: dict[str, frozenset[str]] = {
    "AWS::ApiGatewayV2::Api": frozenset({"ProtocolType"}),
    "AWS::ApiGatewayV2::Authorizer": frozenset({"ApiId"}),
    "AWS::ApiGatewayV2::Integration": frozenset({"ApiId"}),
    "AWS::ApiGatewayV2::Route": frozenset({"ApiId"}),
    "AWS::ApiGatewayV2::Stage": frozenset({"ApiId", "StageName"}),
    "AWS::Chatbot::SlackChannelConfiguration": frozenset({"ConfigurationName", "SlackWorkspaceId"}),
    "AWS::CloudWatch::Alarm": frozenset({"AlarmName"}),
    "AWS::CloudWatch::CompositeAlarm": frozenset({"AlarmName"}),
    "AWS::CloudWatch::Dashboard": frozenset({"DashboardName"}),
    "AWS::CodeDeploy::Application": frozenset({"ApplicationName", "ComputePlatform"}),
    "AWS::CodeDeploy::DeploymentGroup": frozenset({"ApplicationName", "DeploymentGroupName"}),
    "AWS::DynamoDB::Table": frozenset({"ImportSourceSpecification", "KeySchema", "LocalSecondaryIndexes", "TableName"}),
    "AWS::IAM::ManagedPolicy": frozenset({"Description", "ManagedPolicyName", "Path"}),
    "AWS::IAM::Policy": frozenset(),
    "AWS::IAM::Role": frozenset({"Path", "RoleName"}),
    "AWS::KMS::Alias": frozenset({"AliasName"}),
    "AWS::KMS::Key": frozenset(),
    "AWS::Lambda::Alias": frozenset({"FunctionName", "Name"}),
    "AWS::Lambda::EventSourceMapping": frozenset({"EventSourceArn", "SelfManagedEventSource", "StartingPosition", "StartingPositionTimestamp"}),
    "AWS::Lambda::Function": frozenset({"FunctionName", "PackageType", "TenancyConfig"}),
    "AWS::Lambda::LayerVersion": frozenset({"CompatibleArchitectures", "CompatibleRuntimes", "Content", "Description", "LayerName", "LicenseInfo"}),
    "AWS::Lambda::Permission": frozenset(
        {
            "Action",
            "EventSourceToken",
            "FunctionName",
            "FunctionUrlAuthType",
            "InvokedViaFunctionUrl",
            "Principal",
            "PrincipalOrgID",
            "SourceAccount",
            "SourceArn",
        }
    ),
    "AWS::Lambda::Url": frozenset({"Qualifier", "TargetFunctionArn"}),
    "AWS::Lambda::Version": frozenset({"CodeSha256", "Description", "FunctionName", "ProvisionedConcurrencyConfig", "RuntimePolicy"}),
    "AWS::Logs::LogGroup": frozenset({"LogGroupName"}),
    "AWS::Logs::MetricFilter": frozenset({"FilterName", "LogGroupName"}),
    "AWS::Logs::SubscriptionFilter": frozenset({"FilterName", "LogGroupName"}),
    "AWS::SNS::Subscription": frozenset({"Endpoint", "Protocol", "TopicArn"}),
    "AWS::SNS::Topic": frozenset({"FifoTopic", "TopicName"}),
    "AWS::SNS::TopicPolicy": frozenset(),
    "AWS::SQS::Queue": frozenset({"FifoQueue", "QueueName"}),
    "AWS::SQS::QueuePolicy": frozenset(),
    "AWS::Scheduler::Schedule": frozenset({"Name"}),
    "AWS::Scheduler::ScheduleGroup": frozenset({"Name"}),
    "AWS::StepFunctions::StateMachine": frozenset({"StateMachineName", "StateMachineType"}),
}

# Properties CloudFormation refuses to change at all: the update fails whatever the UpdateReplacePolicy.
IMMUTABLE: dict[str, frozenset[str]] = {"AWS::KMS::Key": frozenset({"KeySpec", "KeyUsage", "MultiRegion", "Origin"})}

# Fixed physical names: the property that sets one, and the properties the name is unique within (a deployment
# group's name is unique in its application, a schedule's in its group); without them, in the account and region.
NAMES: dict[str, tuple[str, tuple[str, ...]]] = {
    "AWS::CloudWatch::Alarm": ("AlarmName", ()),
    "AWS::CloudWatch::CompositeAlarm": ("AlarmName", ()),
    "AWS::CloudWatch::Dashboard": ("DashboardName", ()),
    "AWS::CodeDeploy::Application": ("ApplicationName", ()),
    "AWS::CodeDeploy::DeploymentGroup": ("DeploymentGroupName", ("ApplicationName",)),
    "AWS::DynamoDB::Table": ("TableName", ()),
    "AWS::IAM::ManagedPolicy": ("ManagedPolicyName", ()),
    "AWS::IAM::Role": ("RoleName", ()),
    "AWS::KMS::Alias": ("AliasName", ()),
    "AWS::Lambda::Function": ("FunctionName", ()),
    "AWS::Logs::LogGroup": ("LogGroupName", ()),
    "AWS::SNS::Topic": ("TopicName", ()),
    "AWS::SQS::Queue": ("QueueName", ()),
    "AWS::Scheduler::Schedule": ("Name", ("GroupName",)),
    "AWS::Scheduler::ScheduleGroup": ("Name", ()),
    "AWS::StepFunctions::StateMachine": ("StateMachineName", ()),
}

# What a property means when it is left out, so that writing the default out is not read as a change.
DEFAULTS: dict[tuple[str, str], Any] = {
    ("AWS::IAM::Role", "Path"): "/",
    ("AWS::KMS::Key", "KeySpec"): "SYMMETRIC_DEFAULT",
    ("AWS::KMS::Key", "KeyUsage"): "ENCRYPT_DECRYPT",
    ("AWS::KMS::Key", "MultiRegion"): False,
    ("AWS::KMS::Key", "Origin"): "AWS_KMS",
    ("AWS::Lambda::Function", "PackageType"): "Zip",
    ("AWS::SNS::Topic", "FifoTopic"): False,
    ("AWS::SQS::Queue", "FifoQueue"): False,
    ("AWS::StepFunctions::StateMachine", "StateMachineType"): "STANDARD",
}

# Resources that hold data: replacing or removing one without retaining it loses what it holds.
STATEFUL = frozenset({"AWS::DynamoDB::Table", "AWS::KMS::Key", "AWS::Logs::LogGroup", "AWS::SQS::Queue"})

# Retained by CDK's design and left behind on purpose (see the module docstring).
RETAINED_BY_DESIGN = frozenset({"AWS::Lambda::LayerVersion", "AWS::Lambda::Version"})

RETAIN_POLICIES = frozenset({"Retain", "RetainExceptOnCreate"})

TABLE = "AWS::DynamoDB::Table"


@dataclass(frozen=True)
class Finding:
    """One thing CloudFormation would refuse, or that would break, in the update; `id` is stable, for ALLOWED."""

    id: str
    resource: str
    type: str
    message: str

    @property
    def rule(self) -> str:
        return self.id.split(":", 1)[0]

    def __str__(self) -> str:
        return f"{self.id}: {self.message}"


@dataclass(frozen=True)
class Allowed:
    """A finding accepted on purpose: its id (or whole text) and why. docs/operations.md ("Upgrades") names each one."""

    finding: str
    reason: str

    def matches(self, finding: Finding) -> bool:
        return self.finding in (finding.id, str(finding), finding.message)


# The findings an upgrade may have, each written down in docs/operations.md's "Upgrades" section with its reason.
ALLOWED: tuple[Allowed, ...] = (
    Allowed(
        "replace-retained:StateMachinesRetryWaitLogs472F8661",
        "The retry-wait state machine's log group is named after the stack's own id since this release, so a stack created again "
        "under the same name after `cdk destroy` does not collide with the retained group. The update creates the new group "
        "and keeps the old one, with its events, outside the stack; they expire after 30 days, and the empty group can be "
        "deleted by hand.",
    ),
    Allowed(
        "removed-retained:FunctionsReplayLogs1AD89A13",
        "The function that runs every job kind is named jobs since this release (issue 51): the replay function goes, and its "
        "log group, retained like every function's, is left outside the stack with the previous release's job logs; they "
        "expire after the log retention, and the empty group can be deleted by hand.",
    ),
)


@dataclass(frozen=True)
class _Resource:
    id: str
    type: str
    properties: dict[str, Any]
    deletion_policy: str
    update_replace_policy: str

    @property
    def retained(self) -> bool:
        return self.type not in RETAINED_BY_DESIGN and bool({self.deletion_policy, self.update_replace_policy} & RETAIN_POLICIES)

    @property
    def policies(self) -> str:
        return f"DeletionPolicy {self.deletion_policy}, UpdateReplacePolicy {self.update_replace_policy}"

    @property
    def label(self) -> str:
        name = self.name
        return f"{self.type} {self.id}" + (f" ({_show(name)})" if name is not None else "")

    @property
    def name(self) -> Any:
        entry = NAMES.get(self.type)
        return None if entry is None else self.properties.get(entry[0])

    def value(self, prop: str) -> Any:
        return self.properties.get(prop, DEFAULTS.get((self.type, prop)))


def problems(
    old_template: Mapping[str, Any],
    new_template: Mapping[str, Any],
    *,
    allowed: Iterable[Allowed] = ALLOWED,
    pseudo: Mapping[str, str] | None = None,
) -> list[str]:
    """The findings of `findings()` that no `allowed` entry accepts, as text: empty when the update is legal and safe."""
    accepted = tuple(allowed)
    return [str(finding) for finding in findings(old_template, new_template, pseudo=pseudo) if not any(entry.matches(finding) for entry in accepted)]


def findings(old_template: Mapping[str, Any], new_template: Mapping[str, Any], *, pseudo: Mapping[str, str] | None = None) -> list[Finding]:
    """Every finding of the update from `old_template` to `new_template`, sorted by id.

    `pseudo` gives pseudo parameters' values (`{"AWS::StackName": "hookline"}`): names built from them with Fn::Join or
    Fn::Sub compare by the value CloudFormation resolves, not by how the template spells them.
    """
    old = _resources(old_template, pseudo or {})
    new = _resources(new_template, pseudo or {})
    found: list[Finding] = []
    kept = [logical_id for logical_id in old if logical_id in new]
    for logical_id in kept:
        if old[logical_id].type != new[logical_id].type:
            found.append(_type_changed(old[logical_id], new[logical_id]))
    same_type = [logical_id for logical_id in kept if old[logical_id].type == new[logical_id].type]
    replaced = _replacements(old, new, same_type)
    for logical_id in same_type:
        found.extend(_immutable(old[logical_id], new[logical_id]))
        found.extend(_unknown_type(old[logical_id], new[logical_id]))
        if old[logical_id].type == TABLE:
            found.extend(_table_changes(old[logical_id], new[logical_id], replaced=logical_id in replaced))
    moved = set(replaced) | _created(old, new)
    for logical_id, reasons in replaced.items():
        found.extend(_replacement(old[logical_id], new[logical_id], reasons, moved))
    for logical_id in old:
        if logical_id not in new or old[logical_id].type != new[logical_id].type:
            found.extend(_removal(old[logical_id]))
    found.extend(_collisions(old, new, replaced))
    return sorted(found, key=lambda finding: finding.id)


def _resources(template: Mapping[str, Any], pseudo: Mapping[str, str]) -> dict[str, _Resource]:
    resources: dict[str, _Resource] = {}
    for logical_id, resource in (template.get("Resources") or {}).items():
        resources[logical_id] = _Resource(
            id=logical_id,
            type=str(resource.get("Type", "")),
            properties=_resolve(resource.get("Properties") or {}, pseudo),
            deletion_policy=str(resource.get("DeletionPolicy", "Delete")),
            update_replace_policy=str(resource.get("UpdateReplacePolicy", "Delete")),
        )
    return resources


_SUB_VARIABLE = re.compile(r"\$\{([^}!][^}]*)\}")


def _resolve(value: Any, pseudo: Mapping[str, str]) -> Any:
    """The value with the pseudo parameters given put in, and Fn::Join / Fn::Sub of plain strings joined."""
    if isinstance(value, list):
        return [_resolve(item, pseudo) for item in value]
    if not isinstance(value, dict):
        return value
    resolved = {key: _resolve(item, pseudo) for key, item in value.items()}
    if set(resolved) == {"Ref"} and resolved["Ref"] in pseudo:
        return pseudo[resolved["Ref"]]
    if set(resolved) == {"Fn::Join"} and isinstance(resolved["Fn::Join"], list) and len(resolved["Fn::Join"]) == 2:
        separator, parts = resolved["Fn::Join"]
        if isinstance(separator, str) and isinstance(parts, list) and all(isinstance(part, str) for part in parts):
            return separator.join(parts)
    if set(resolved) == {"Fn::Sub"}:
        return _substitute(resolved["Fn::Sub"], pseudo, resolved)
    return resolved


def _substitute(argument: Any, pseudo: Mapping[str, str], original: Any) -> Any:
    body, variables = argument, {}
    if isinstance(argument, list) and len(argument) == 2:
        body, variables = argument
    if not isinstance(body, str) or not isinstance(variables, dict):
        return original
    known = {**pseudo, **{name: text for name, text in variables.items() if isinstance(text, str)}}
    if any(name not in known for name in _SUB_VARIABLE.findall(body)):
        return original
    return _SUB_VARIABLE.sub(lambda match: known[match.group(1)], body).replace("${!", "${")


def _show(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _changed(old: _Resource, new: _Resource, prop: str) -> bool:
    return bool(old.value(prop) != new.value(prop))


def _references(value: Any) -> set[str]:
    """The logical ids a value names through Ref and Fn::GetAtt (pseudo parameters left out)."""
    if isinstance(value, list):
        return {ref for item in value for ref in _references(item)}
    if not isinstance(value, dict):
        return set()
    if set(value) == {"Ref"} and isinstance(value["Ref"], str):
        return set() if value["Ref"].startswith("AWS::") else {value["Ref"]}
    if set(value) == {"Fn::GetAtt"}:
        target = value["Fn::GetAtt"]
        return {str(target[0] if isinstance(target, list) else str(target).split(".", 1)[0])}
    return {ref for item in value.values() for ref in _references(item)}


def _replacements(old: dict[str, _Resource], new: dict[str, _Resource], same_type: list[str]) -> dict[str, list[str]]:
    """The resources the update replaces, each with why: a replacement property that changes, or one that names a
    resource which is replaced or created (its Ref or attribute changes with it)."""
    replaced: dict[str, list[str]] = {}
    for logical_id in same_type:
        reasons = _direct_reasons(old[logical_id], new[logical_id])
        if reasons:
            replaced[logical_id] = reasons
    created = _created(old, new)
    changed = True
    while changed:
        changed = False
        for logical_id in same_type:
            if logical_id in replaced:
                continue
            resource = new[logical_id]
            for prop in sorted(REPLACEMENT.get(resource.type, frozenset())):
                moved = sorted(_references(resource.properties.get(prop)) & (set(replaced) | created))
                if moved and not _changed(old[logical_id], resource, prop):
                    replaced[logical_id] = [f"{prop} names {', '.join(moved)}, which the update replaces or creates"]
                    changed = True
                    break
    return replaced


def _direct_reasons(old: _Resource, new: _Resource) -> list[str]:
    reasons = []
    for prop in sorted(REPLACEMENT.get(new.type, frozenset())):
        if new.type == TABLE and prop == "KeySchema":
            if _table_keys(old) != _table_keys(new):
                reasons.append(f"KeySchema {_show(_table_keys(old))} -> {_show(_table_keys(new))}")
        elif _changed(old, new, prop):
            reasons.append(f"{prop} {_show(old.value(prop))} -> {_show(new.value(prop))}")
    return reasons


def _table_keys(table: _Resource) -> list[list[str]]:
    """A table's key as [attribute, HASH/RANGE, type] triples: the key schema with its attributes' types."""
    return _keys(table.properties.get("KeySchema"), _attribute_types(table))


def _keys(key_schema: Any, types: Mapping[str, str]) -> list[list[str]]:
    return [[str(key.get("AttributeName")), str(key.get("KeyType")), types.get(str(key.get("AttributeName")), "?")] for key in key_schema or []]


def _attribute_types(table: _Resource) -> dict[str, str]:
    return {str(attribute.get("AttributeName")): str(attribute.get("AttributeType")) for attribute in table.properties.get("AttributeDefinitions") or []}


def _indexes(table: _Resource) -> dict[str, dict[str, Any]]:
    """A table's global secondary indexes by name, as what an update cannot change: key schema (with types) and projection."""
    types = _attribute_types(table)
    indexes: dict[str, dict[str, Any]] = {}
    for index in table.properties.get("GlobalSecondaryIndexes") or []:
        projection = dict(index.get("Projection") or {})
        if "NonKeyAttributes" in projection:
            projection["NonKeyAttributes"] = sorted(projection["NonKeyAttributes"])
        indexes[_show(index.get("IndexName"))] = {"KeySchema": _keys(index.get("KeySchema"), types), "Projection": projection}
    return indexes


def index_changes(
    old_template: Mapping[str, Any], new_template: Mapping[str, Any], *, pseudo: Mapping[str, str] | None = None
) -> dict[str, tuple[list[str], list[str]]]:
    """Per table both templates hold (by logical id): the global secondary indexes the update creates and those it
    deletes, by name, sorted (an index whose key schema or projection changes counts in neither: findings refuse it)."""
    pseudo = pseudo or {}
    old, new = _resources(old_template, pseudo), _resources(new_template, pseudo)
    changes: dict[str, tuple[list[str], list[str]]] = {}
    for logical_id, table in new.items():
        if table.type != "AWS::DynamoDB::Table" or logical_id not in old:
            continue
        before, after = _indexes(old[logical_id]), _indexes(table)
        changes[logical_id] = (sorted(set(after) - set(before)), sorted(set(before) - set(after)))
    return changes


def _table_changes(old: _Resource, new: _Resource, *, replaced: bool) -> list[Finding]:
    found: list[Finding] = []
    if _table_keys(old) != _table_keys(new):
        found.append(
            Finding(
                f"key-schema:{new.id}",
                new.id,
                new.type,
                f"{new.label}: the table's key changes from {_show(_table_keys(old))} to {_show(_table_keys(new))}. "
                "A table's KeySchema cannot be updated: CloudFormation replaces the table with a new, empty one",
            )
        )
    if replaced:
        return found
    before, after = _indexes(old), _indexes(new)
    added, deleted = sorted(set(after) - set(before)), sorted(set(before) - set(after))
    if len(added) + len(deleted) > 1:
        found.append(
            Finding(
                f"gsi-count:{new.id}",
                new.id,
                new.type,
                f"{new.label}: {len(added) + len(deleted)} global secondary index changes in one update (created: {', '.join(added) or 'none'}; "
                f"deleted: {', '.join(deleted) or 'none'}). CloudFormation adds or deletes one index per table per update and fails the "
                "update (rolling it back) otherwise: deploy them one at a time, each after the previous index is ACTIVE",
            )
        )
    for name in sorted(set(before) & set(after)):
        if before[name] != after[name]:
            found.append(
                Finding(
                    f"gsi-modified:{new.id}:{name}",
                    new.id,
                    new.type,
                    f"{new.label}: the index {name} changes from {_show(before[name])} to {_show(after[name])}. An existing global secondary "
                    "index cannot be updated (only its throughput and contributor insights): CloudFormation fails the update. "
                    "Delete it in one deploy and create it in the next, or give the new index another name",
                )
            )
    return found


def _immutable(old: _Resource, new: _Resource) -> list[Finding]:
    return [
        Finding(
            f"immutable:{new.id}:{prop}",
            new.id,
            new.type,
            f"{new.label}: {prop} changes from {_show(old.value(prop))} to {_show(new.value(prop))}. CloudFormation refuses to change it "
            "on an existing resource, whatever the UpdateReplacePolicy: the update fails",
        )
        for prop in sorted(IMMUTABLE.get(new.type, frozenset()))
        if _changed(old, new, prop)
    ]


def _type_changed(old: _Resource, new: _Resource) -> Finding:
    return Finding(
        f"type-changed:{new.id}",
        new.id,
        new.type,
        f"{old.type} {old.id} becomes a {new.type} under the same logical id: CloudFormation refuses to update a resource's type",
    )


def _unknown_type(old: _Resource, new: _Resource) -> list[Finding]:
    if new.type in REPLACEMENT or old.properties == new.properties:
        return []
    return [
        Finding(
            f"unknown-type:{new.id}",
            new.id,
            new.type,
            f"{new.label} changes, and infra/upgrade.py does not know which of a {new.type}'s properties force replacement: add the type "
            "to REPLACEMENT (its createOnlyProperties) and, if it has a fixed name, to NAMES",
        )
    ]


def _replacement(old: _Resource, new: _Resource, reasons: list[str], moved: set[str]) -> list[Finding]:
    """What replacing the resource breaks. A name or scope that names a replaced or created resource resolves to another
    value after the update (a deployment group in a new application), so the name is free there."""
    found: list[Finding] = []
    why = "; ".join(reasons)
    same_name = old.name == new.name and _scope(old) == _scope(new) and not (_references(new.name) | _scope_references(new)) & moved
    if new.name is not None and same_name:
        found.append(
            Finding(
                f"replace-named:{new.id}",
                new.id,
                new.type,
                f"{new.label} is replaced ({why}) but keeps its fixed name: CloudFormation creates the replacement before deleting the "
                f"old one, and the create fails with '{_show(new.name)} already exists'",
            )
        )
    if old.retained or new.retained:
        outcome = (
            "the old one is left in the account outside the stack (orphaned, with its data) and the stack carries on with a new, empty one"
            if RETAIN_POLICIES & {old.update_replace_policy, new.update_replace_policy}
            else "UpdateReplacePolicy Delete deletes the old one with its data, though the resource is meant to be retained"
        )
        found.append(Finding(f"replace-retained:{new.id}", new.id, new.type, f"{new.label} is replaced ({why}) and is retained ({new.policies}): {outcome}"))
    elif new.type in STATEFUL:
        found.append(
            Finding(
                f"replace-stateful:{new.id}",
                new.id,
                new.type,
                f"{new.label} is replaced ({why}) and is not retained ({new.policies}): what it holds is deleted with the old one",
            )
        )
    return found


def _removal(old: _Resource) -> list[Finding]:
    if old.retained:
        return [
            Finding(
                f"removed-retained:{old.id}",
                old.id,
                old.type,
                f"{old.label} leaves the template and is retained ({old.policies}): CloudFormation leaves it in the account outside the "
                "stack (orphaned); if it was renamed, the stack gets a new, empty one (and a fixed name collides)",
            )
        ]
    if old.type in STATEFUL:
        return [
            Finding(
                f"removed-stateful:{old.id}",
                old.id,
                old.type,
                f"{old.label} leaves the template and is not retained ({old.policies}): CloudFormation deletes it with what it holds; "
                "if it was renamed, the new one starts empty",
            )
        ]
    return []


def _scope(resource: _Resource) -> str:
    entry = NAMES.get(resource.type)
    return "" if entry is None else _show([resource.properties.get(prop) for prop in entry[1]])


def _scope_references(resource: _Resource) -> set[str]:
    """The logical ids a name's scope names: a deployment group in a new application has its name free there."""
    entry = NAMES.get(resource.type)
    return set() if entry is None else _references([resource.properties.get(prop) for prop in entry[1]])


def _name_key(resource: _Resource) -> tuple[str, str, str] | None:
    return None if resource.name is None else (resource.type, _scope(resource), _show(resource.name))


def _collisions(old: dict[str, _Resource], new: dict[str, _Resource], replaced: Mapping[str, list[str]]) -> list[Finding]:
    """Resources the update creates under a physical name a resource of the old template holds."""
    holders: dict[tuple[str, str, str], str] = {}
    for resource in old.values():
        key = _name_key(resource)
        if key is not None:
            holders[key] = resource.id
    created = _created(old, new)
    moved = set(replaced) | created
    found: list[Finding] = []
    for resource in new.values():
        key = _name_key(resource)
        if key is None or resource.id not in created or key not in holders or _scope_references(resource) & moved:
            continue
        holder = old[holders[key]]
        fate = "is retained, so it is never deleted" if holder.retained else "is deleted only after the new one is created"
        found.append(
            Finding(
                f"name-collision:{resource.id}",
                resource.id,
                resource.type,
                f"{resource.label} is created under the name {holder.id} holds in the old template, which {fate}: the create fails with "
                f"'{_show(resource.name)} already exists' (a renamed logical id keeps neither the resource nor its name free)",
            )
        )
    return found


def _created(old: dict[str, _Resource], new: dict[str, _Resource]) -> set[str]:
    return {logical_id for logical_id in new if logical_id not in old or old[logical_id].type != new[logical_id].type}


def main(argv: list[str] | None = None, *, load: Callable[[str], Any] | None = None) -> int:
    """`python -m infra.upgrade OLD NEW`: OLD the deployed template (`aws cloudformation get-template --stack-name <stack>
    --query TemplateBody > deployed.json`), NEW the synthesized one (`cdk.out/<stack>.template.json`). Exit 1 on problems."""
    parser = argparse.ArgumentParser(prog="python -m infra.upgrade", description=main.__doc__)
    parser.add_argument("old", help="the template the stack runs now (JSON)")
    parser.add_argument("new", help="the template to deploy (JSON)")
    parser.add_argument("--stack-name", default=None, help="the stack's name, for names built from AWS::StackName")
    args = parser.parse_args(argv)
    read = load or (lambda path: json.loads(Path(path).read_text()))
    pseudo = {"AWS::StackName": args.stack_name} if args.stack_name else None
    found = problems(read(args.old), read(args.new), pseudo=pseudo)
    for line in found:
        print(line)
    if not found:
        print("upgrade: no problems (CloudFormation accepts the update)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
