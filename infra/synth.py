"""Build the CDK app: shared by app.py and the infrastructure tests."""

from __future__ import annotations

import json
import os
from typing import Any

from aws_cdk import App

from hookline.core.settings import Settings
from infra import REPO_ROOT, nag, sizing
from infra.stack import HooklineStack


def cdk_json_context() -> dict[str, Any]:
    """The feature flags in cdk.json, so `python app.py` and the tests synthesize what `cdk synth` does."""
    context: dict[str, Any] = json.loads((REPO_ROOT / "cdk.json").read_text()).get("context", {})
    return context


def build_app(settings: Settings | None = None, *, outdir: str | None = None, checks: bool = True) -> tuple[App, HooklineStack]:
    """The app with the one hookline stack; `checks` adds cdk-nag's AwsSolutions validation.

    Settings default to `Settings.from_env(os.environ)`, read at synth time; HOOKLINE_STACK_NAME names the stack.
    Raises sizing.SizingError when the reserved concurrency does not fit HOOKLINE_ACCOUNT_CONCURRENCY_QUOTA.
    """
    settings = settings if settings is not None else Settings.from_env(os.environ)
    # Before any construct: a reservation the declared quota cannot hold would only fail in CloudFormation.
    sizing.check(settings)
    app = App(outdir=outdir, context=cdk_json_context())
    stack = HooklineStack(app, settings.stack_name, settings=settings)
    if checks:
        nag.add_checks(app)
    return app, stack
