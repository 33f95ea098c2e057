"""Whether a function traces: Powertools' own rule, asked before a Tracer (and X-Ray) is imported."""

from __future__ import annotations

import pytest

from hookline.core.tracing import tracing_enabled

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
