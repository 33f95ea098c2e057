"""The report: docs/benchmarks.md and its plots, rendered from the typed results `python -m bench` measured."""
