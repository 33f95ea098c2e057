#!/usr/bin/env python3
"""CDK entry point: `cdk synth` / `make synth STACK=<name>`. Settings come from `stacks/<STACK>.json` (infra/stack_settings.py)."""

import sys

from infra.stack_settings import StackSettingsError
from infra.synth import build_app

if __name__ == "__main__":
    try:
        app, _ = build_app()
    except StackSettingsError as exc:  # the stack file, or a shell variable that disagrees with it: the reason, no traceback
        print(f"synth: {exc}", file=sys.stderr)
        sys.exit(2)
    app.synth()
