"""Whether a function traces: Powertools' own rule, asked before a Tracer (and X-Ray) is imported."""

from __future__ import annotations

import pytest

from hookline.core.settings import Settings
from hookline.core.tracing import function_env, tracing_enabled

LAMBDA = {"LAMBDA_TASK_ROOT": "/var/task"}


@pytest.mark.parametrize(
    ("env", "traced"),
    [
        (LAMBDA, True),
        ({}, False),  # outside Lambda: tests, local mode, the benchmark
        ({**LAMBDA, "POWERTOOLS_TRACE_DISABLED": "true"}, False),
        ({**LAMBDA, "POWERTOOLS_TRACE_DISABLED": "1"}, False),
        ({**LAMBDA, "POWERTOOLS_TRACE_DISABLED": " Yes "}, False),
        ({**LAMBDA, "POWERTOOLS_TRACE_DISABLED": "false"}, True),
        ({**LAMBDA, "POWERTOOLS_TRACE_DISABLED": "0"}, True),
        ({**LAMBDA, "POWERTOOLS_TRACE_DISABLED": ""}, True),
        ({**LAMBDA, "AWS_SAM_LOCAL": "true"}, False),  # SAM's emulator
        ({**LAMBDA, "AWS_CHALICE_CLI_MODE": "true"}, False),
        ({"LAMBDA_TASK_ROOT": ""}, False),
    ],
)
def test_tracing_is_on_only_in_lambda_unless_disabled(env: dict[str, str], traced: bool) -> None:
    assert tracing_enabled(env) is traced


@pytest.mark.parametrize(
    ("stack_env", "traced"),
    [
        ({}, False),  # the default: X-Ray bills every trace it records
        ({"HOOKLINE_TRACING": "false"}, False),
        ({"HOOKLINE_TRACING": "true"}, True),
        ({"HOOKLINE_TRACING": "on"}, True),
    ],
)
def test_hookline_tracing_reaches_powertools_rule_in_lambda(stack_env: dict[str, str], traced: bool) -> None:
    # Given the stack's HOOKLINE_TRACING, When the function's environment is made of it (infra.functions), Then in
    # Lambda Powertools' rule answers the setting: a Tracer, and X-Ray, only when it is on
    settings = Settings.from_env(stack_env)
    assert settings.tracing is traced
    assert tracing_enabled({**LAMBDA, **function_env(settings.tracing)}) is traced
