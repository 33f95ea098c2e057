"""Build the CDK app: shared by app.py and the infrastructure tests."""

from __future__ import annotations

import json
import os
from typing import Any

from aws_cdk import App

from hookline.core.settings import Settings
from infra import REPO_ROOT, nag, sizing, stack_settings
from infra.stack import HooklineStack

# The context key that synthesizes the data alone, for `cdk import`.
DATA_ONLY_CONTEXT = "hookline:data-only"


def cdk_json_context() -> dict[str, Any]:
    """The feature flags in cdk.json, so `python app.py` and the tests synthesize what `cdk synth` does."""
    context: dict[str, Any] = json.loads((REPO_ROOT / "cdk.json").read_text()).get("context", {})
    return context


def build_app(
    settings: Settings | None = None, *, outdir: str | None = None, checks: bool = True, context: dict[str, Any] | None = None
) -> tuple[App, HooklineStack]:
    """The app with the one hookline stack; `checks` adds cdk-nag's AwsSolutions validation.

    Settings default to the stack file's (infra.stack_settings: `stacks/<STACK>.json`, STACK from the environment,
    `hookline` without it), read at synth time; a HOOKLINE_* variable that disagrees with the file raises
    StackSettingsError. Raises sizing.SizingError when the reserved concurrency does not fit
    HOOKLINE_ACCOUNT_CONCURRENCY_QUOTA.
    """
    settings = settings if settings is not None else stack_settings.load(os.environ)
    # Before any construct: a reservation the declared quota cannot hold would only fail in CloudFormation.
    sizing.check(settings)
    app = App(outdir=outdir, context={**cdk_json_context(), **(context or {})})
    # `cdk import -c hookline:data-only=true`: the key and the table alone (docs/operations.md, "Re-attaching the data").
    data_only = str(app.node.try_get_context(DATA_ONLY_CONTEXT)).lower() == "true"
    stack = HooklineStack(app, settings.stack_name, settings=settings, data_only=data_only)
    if checks:
        nag.add_checks(app)
    return app, stack
