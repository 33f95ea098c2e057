"""Orchestration over ports: load state, call the core, apply its decisions. No boto3, no HTTP."""
