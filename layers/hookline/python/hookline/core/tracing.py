"""Whether a function traces with X-Ray: Powertools' own rule, read before its Tracer is made.

Powertools' Tracer imports aws_xray_sdk when it is made, even when it then finds tracing disabled: about a fifth
of a function's cold start. `hookline.adapters.observability` asks this first and makes no Tracer when the answer
is no, so a function with tracing off never imports X-Ray. The answer is Powertools' (`Tracer._is_tracer_disabled`):
off when POWERTOOLS_TRACE_DISABLED is true, and off outside Lambda (no LAMBDA_TASK_ROOT) or under SAM's or
Chalice's local emulators.

Whether a deployed function traces is the stack's HOOKLINE_TRACING (`Settings.tracing`): the stack gives each function
active tracing or none, and the environment `function_env` makes of the setting, so Powertools agrees.
"""

from __future__ import annotations

from collections.abc import Mapping

TRACE_DISABLED = "POWERTOOLS_TRACE_DISABLED"
IN_LAMBDA = "LAMBDA_TASK_ROOT"
EMULATORS = ("AWS_SAM_LOCAL", "AWS_CHALICE_CLI_MODE")
# Powertools' strtobool: what POWERTOOLS_TRACE_DISABLED reads as true (any other value, false).
TRUE_WORDS = frozenset({"y", "yes", "t", "true", "on", "1"})


def tracing_enabled(env: Mapping[str, str]) -> bool:
    """True when Powertools' Tracer would trace in a process with this environment."""
    if env.get(TRACE_DISABLED, "false").strip().lower() in TRUE_WORDS:
        return False
    return bool(env.get(IN_LAMBDA)) and not any(env.get(name) for name in EMULATORS)


def function_env(traced: bool) -> dict[str, str]:
    """What a function's environment says of tracing, for HOOKLINE_TRACING's value: in Lambda, `tracing_enabled` of
    it is `traced`."""
    return {TRACE_DISABLED: "false" if traced else "true"}
