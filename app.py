#!/usr/bin/env python3
"""CDK entry point: `cdk synth` / `make synth`. Settings come from the environment at synth time."""

from infra.synth import build_app

if __name__ == "__main__":
    app, _ = build_app()
    app.synth()
