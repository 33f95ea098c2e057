"""What a deploy changes in the stack that runs: read from the deployed template and the one to deploy.

Pure: two templates as CloudFormation returns and `cdk synth` writes them (dicts) in, facts out; no CDK, no AWS. The
preflight (infra/preflight.py) reads the deployed template (CloudFormation GetTemplate) and decides from these:

- `setting_changes`: the settings each template records (Metadata.hookline.settings, infra.stack_settings.recorded)
  that differ. A template an earlier release deployed records none (`stack_settings.from_template` is None).
- `removals`: what the update takes away from the stack's users, read from the resources themselves, so that it works
  from any earlier release: an SNS subscription (an endpoint of AWS::SNS::Subscription), an SES grant (a resource of a
  `ses:SendEmail` statement), and capacity: a function's reserved concurrency or memory, an event source's maximum
  concurrency, the API stage's throttle. Each compares the same logical id in both templates; a resource that leaves
  the template altogether is infra.upgrade's to judge.
- `leftover_log_group`: whether a log group's name is one the stack's log groups get (what a destroyed stack leaves).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from infra import stack_settings

Kind = Literal["subscription", "grant", "capacity"]
SEND_EMAIL = "ses:SendEmail"
# What a property left out means, for capacity: a function's memory is 128 MB; no reservation, no event source
# maximum and no stage throttle mean no ceiling of the stack's own (None).
DEFAULT_MEMORY = 128
# Where a property sits in its resource, for each capacity this compares: (type, path, what it is).
CAPACITY: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("AWS::Lambda::Function", ("ReservedConcurrentExecutions",), "reserved concurrency"),
    ("AWS::Lambda::Function", ("MemorySize",), "memory (MB)"),
    ("AWS::Lambda::EventSourceMapping", ("ScalingConfig", "MaximumConcurrency"), "maximum concurrency"),
    ("AWS::ApiGatewayV2::Stage", ("DefaultRouteSettings", "ThrottlingRateLimit"), "throttle rate (requests/s)"),
    ("AWS::ApiGatewayV2::Stage", ("DefaultRouteSettings", "ThrottlingBurstLimit"), "throttle burst"),
)


@dataclass(frozen=True)
class Change:
    """One recorded setting that differs; None: the template does not record it."""

    setting: str
    old: str | None
    new: str | None


@dataclass(frozen=True)
class Removal:
    """Something the update takes away: `what` names it for the report."""

    kind: Kind
    what: str


def setting_changes(old: Mapping[str, str], new: Mapping[str, str]) -> list[Change]:
    """The recorded settings (`stack_settings.from_template`) that differ, in the new template's order."""
    names = [*new, *(name for name in old if name not in new)]
    return [Change(name, old.get(name), new.get(name)) for name in names if old.get(name) != new.get(name)]


def diff_lines(changes: Iterable[Change]) -> list[str]:
    """The changes as a diff: `- NAME=old` then `+ NAME=new` (a side that does not record it is left out)."""
    lines: list[str] = []
    for change in changes:
        if change.old is not None:
            lines.append(f"- {change.setting}={change.old}")
        if change.new is not None:
            lines.append(f"+ {change.setting}={change.new}")
    return lines


def recorded_settings(template: Mapping[str, Any]) -> dict[str, str] | None:
    """The settings the template records; None for one made before templates recorded them."""
    return stack_settings.from_template(template)


def _resources(template: Mapping[str, Any], type_: str) -> dict[str, dict[str, Any]]:
    return {
        logical_id: dict(resource.get("Properties") or {})
        for logical_id, resource in (template.get("Resources") or {}).items()
        if isinstance(resource, Mapping) and resource.get("Type") == type_
    }


def _show(value: Any) -> str:
    """A template value as text: a Ref as `${Name}`, an Fn::Join joined (an ARN reads as one); anything else as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and set(value) == {"Ref"}:
        return f"${{{value['Ref']}}}"
    if isinstance(value, Mapping) and set(value) == {"Fn::Join"} and isinstance(value["Fn::Join"], list) and len(value["Fn::Join"]) == 2:
        separator, parts = value["Fn::Join"]
        if isinstance(separator, str) and isinstance(parts, list):
            return separator.join(_show(part) for part in parts)
    return json.dumps(value, sort_keys=True)


def subscriptions(template: Mapping[str, Any]) -> set[tuple[str, str]]:
    """(protocol, endpoint) of every SNS subscription the template makes."""
    return {(_show(props.get("Protocol")), _show(props.get("Endpoint"))) for props in _resources(template, "AWS::SNS::Subscription").values()}


def _actions(statement: Mapping[str, Any]) -> list[str]:
    actions = statement.get("Action") or []
    return [actions] if isinstance(actions, str) else [str(action) for action in actions]


def ses_grants(template: Mapping[str, Any]) -> set[str]:
    """The resources (SES identities) that `ses:SendEmail` statements of the template's IAM policies allow."""
    granted: set[str] = set()
    for props in _resources(template, "AWS::IAM::Policy").values():
        for statement in (props.get("PolicyDocument") or {}).get("Statement") or []:
            if statement.get("Effect", "Allow") != "Allow" or SEND_EMAIL not in _actions(statement):
                continue
            resources = statement.get("Resource")
            granted.update(_show(resource) for resource in (resources if isinstance(resources, list) else [resources]))
    return granted


def _at(props: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = props
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def _number(value: Any) -> float | None:
    try:
        return float(value) if value is not None and not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None  # an intrinsic function: not comparable here


def _label(logical_id: str, props: Mapping[str, Any]) -> str:
    name = props.get("FunctionName") or props.get("StageName")
    return f"{logical_id} ({name})" if isinstance(name, str) else logical_id


def _shown_number(value: float | None, unset: str) -> str:
    return unset if value is None else f"{value:g}"


def capacity_removals(old_template: Mapping[str, Any], new_template: Mapping[str, Any]) -> list[Removal]:
    """Each capacity (CAPACITY) of a resource kept under its logical id that the update lowers or drops.

    A reservation that goes is a removal (the function is no longer guaranteed its concurrency); a maximum or a
    throttle that goes is not (none is no ceiling).
    """
    found: list[Removal] = []
    for type_, path, what in CAPACITY:
        old, new = _resources(old_template, type_), _resources(new_template, type_)
        default = DEFAULT_MEMORY if path == ("MemorySize",) else None
        for logical_id in sorted(set(old) & set(new)):
            before = _number(_at(old[logical_id], path)) if _at(old[logical_id], path) is not None else default
            after = _number(_at(new[logical_id], path)) if _at(new[logical_id], path) is not None else default
            if before is None:
                continue
            lowered = after is not None and after < before
            dropped = after is None and path == ("ReservedConcurrentExecutions",)
            if lowered or dropped:
                shown = _shown_number(after, "none")
                found.append(Removal("capacity", f"{_label(logical_id, new[logical_id])} {what} {before:g} -> {shown}"))
    return found


def removals(old_template: Mapping[str, Any], new_template: Mapping[str, Any]) -> list[Removal]:
    """What the update takes away (the module docstring): subscriptions, SES grants, then capacity."""
    found = [
        Removal("subscription", f"the {protocol} subscription {endpoint}")
        for protocol, endpoint in sorted(subscriptions(old_template) - subscriptions(new_template))
    ]
    found.extend(Removal("grant", f"the SES grant to send as {resource}") for resource in sorted(ses_grants(old_template) - ses_grants(new_template)))
    found.extend(capacity_removals(old_template, new_template))
    return found


def leftover_log_group(name: str, stack: str, state_machines: Iterable[str]) -> bool:
    """Whether a log group is one of the stack's: CloudFormation names a log group without a name of its own
    `<stack>-<LogicalId>-<suffix>` (CDK's logical ids start with a capital, which tells `hookline-Api...` from another
    stack's `hookline-staging-...`); a state machine's is `/aws/vendedlogs/states/<stack>-<key>-<stack id>` (before
    26ed2cd, without the stack id)."""
    generated = name.startswith(f"{stack}-") and name[len(stack) + 1 : len(stack) + 2].isupper()
    vended = (f"/aws/vendedlogs/states/{stack}-{key}" for key in state_machines)
    return generated or any(name == base or name.startswith(f"{base}-") for base in vended)
