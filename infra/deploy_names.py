"""The names the stack gives what deploys its functions, which `make rollback` (infra.rollback) looks up again.

Pure: no CDK, no boto3, so the rollback starts at once and the stack and the rollback cannot disagree.
"""

from __future__ import annotations

from hookline.wiring.topology import API, LIVE_ALIAS, FunctionSpec

__all__ = [
    "ALL_AT_ONCE",
    "CANARY",
    "CANARY_LEAST",
    "CANARY_PERCENT",
    "CANARY_SIGNALS",
    "FUNCTION_TAG",
    "LIVE_ALIAS",
    "STACK_TAG",
    "canary_alarm_name",
    "canary_signals",
    "deployment_application_name",
    "deployment_group_name",
]

# `canary` or `all_at_once`: the values Settings.deploy_strategy accepts.
CANARY = "canary"
ALL_AT_ONCE = "all_at_once"

# Tags on each function: generated function names say neither the stack nor the topology name, these do.
STACK_TAG = "hookline:stack"
FUNCTION_TAG = "hookline:function"


def deployment_application_name(prefix: str) -> str:
    """The one CodeDeploy application of the stack: its name, like the dashboard's."""
    return prefix


def deployment_group_name(prefix: str, function: str) -> str:
    """`<prefix>-<function>`, e.g. `hookline-delivery`: the CodeDeploy deployment group that shifts that function's alias."""
    return f"{prefix}-{function}"


# What rolls a canary back, each judged on the new version alone (infra/deploys.py): a count of failures against the
# invocations of that version in one alarm period (5 minutes), as a rate. An alarm goes off when more than
# CANARY_PERCENT failed per 100 invocations, once at least CANARY_LEAST failed: one throttled write on a task's last
# receive is a blip at any volume, and at low volume CANARY_LEAST failures in 5 minutes still roll a broken version back.
CANARY_PERCENT = 1
CANARY_LEAST = 3
# signal -> metric: Lambda's Errors (the invocation raised or timed out), the functions' EMF InternalFailures (a queue
# consumer's task dead-lettered through hookline's fault) and ServerErrors (the api function answered 5xx).
CANARY_SIGNALS = {"errors": "Errors", "internal-failures": "InternalFailures", "server-errors": "ServerErrors"}


def canary_signals(spec: FunctionSpec) -> tuple[str, ...]:
    """What rolls a canary of the function back: its errors; a queue consumer's internal failures; the api's 5xx answers.

    Never a customer's receiver failing (a delivery out of attempts, a dead letter in the delivery DLQ): at real traffic
    some receiver always is, and it says nothing of the new version.
    """
    signals = ["errors"]
    if spec.sqs_source is not None:
        signals.append("internal-failures")
    if spec.name == API.name:
        signals.append("server-errors")
    return tuple(signals)


def canary_alarm_name(prefix: str, function: str, signal: str) -> str:
    """`<prefix>-<function>-canary-<signal>`, e.g. `hookline-delivery-canary-errors`: an alarm on the version the
    function's last deploy published, which its deployment group rolls back on."""
    return f"{prefix}-{function}-canary-{signal}"
