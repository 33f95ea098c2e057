"""The names the stack gives what deploys its functions, which `make rollback` (infra.rollback) looks up again.

Pure: no CDK, no boto3, so the rollback starts at once and the stack and the rollback cannot disagree.
"""

from __future__ import annotations

from hookline.wiring.topology import LIVE_ALIAS

__all__ = ["ALL_AT_ONCE", "CANARY", "FUNCTION_TAG", "LIVE_ALIAS", "STACK_TAG", "deployment_application_name", "deployment_group_name"]

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
