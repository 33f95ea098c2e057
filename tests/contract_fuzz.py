"""`make contract-fuzz`: schemathesis checks the server against docs/openapi.yaml, in local mode.

Starts local mode in this process (free ports, a fresh producer key for tenant `fuzz`), runs schemathesis's CLI
(`python -m schemathesis.cli run`, a process of its own) against it with every check (`--checks all`), a fixed
seed and at most MAX_EXAMPLES test cases per operation (about 3 minutes in all; the operations with a content filter
without schemathesis's coverage phase: DEEP_GRAMMAR), the producer's key as
`Authorization: Bearer <key>`, then stops local mode. Exits with schemathesis's status: non-zero when it found a
failure (a status code, header or body the document does not describe, a schema-valid request refused, an
invalid one accepted, a 5xx, a wrong `Allow`, ...).

The refusals of schema-valid requests that the document states in words, because JSON Schema cannot (the tenant's
state, a receiver that is not there, `since` after `until`), are accepted by the hooks in
tests/support/contract_fuzz_hooks.py, for the operations and error codes it names; it prints what it accepted.

Other arguments go to schemathesis, e.g. `python -m tests.contract_fuzz --seed 7 --include-path /v1/customers/{uid}`.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "docs" / "openapi.yaml"
WORKDIR = ROOT / "build" / "contract-fuzz"  # schemathesis's cache of failures (`st replay`) and any --report land here
TENANT = "fuzz"
SEED = 20260314
MAX_EXAMPLES = 15
# The refusals the document states in words and JSON Schema cannot (the tenant's state, a receiver, a rule across
# fields), which schemathesis's positive_data_acceptance check is told to accept: see that module.
HOOKS = "tests.support.contract_fuzz_hooks"
# The operations whose body holds a content filter: schemathesis 4.32's coverage phase had not finished one of them
# after 20 minutes on the filter's eight-level grammar (hookline.core.contract.filter_grammar), so they run in a pass of
# their own with every other phase (examples, fuzzing: about 30 s); every other operation runs every phase.
DEEP_GRAMMAR = ("createEndpoint", "updateEndpoint", "testFilter")
SHALLOW_PHASES = "examples,fuzzing,stateful"


def passes(extra: list[str]) -> list[list[str]]:
    """The schemathesis runs' own arguments: every operation but DEEP_GRAMMAR with every phase, then DEEP_GRAMMAR
    without the coverage phase; a run that names its own operations or phases is run as given."""
    if any(arg.startswith(("--include-", "--exclude-", "--phases")) for arg in extra):
        return [extra]
    every = [arg for name in DEEP_GRAMMAR for arg in ("--exclude-operation-id", name)]
    deep = [arg for name in DEEP_GRAMMAR for arg in ("--include-operation-id", name)]
    return [[*extra, *every], [*extra, *deep, "--phases", SHALLOW_PHASES]]


def schemathesis_command(base_url: str, api_key: str, seed: int = SEED, max_examples: int = MAX_EXAMPLES, extra: list[str] | None = None) -> list[str]:
    """The schemathesis run: every check, reproducible (a fixed seed, no example database), bounded per operation."""
    return [
        sys.executable,
        "-m",
        "schemathesis.cli",
        "run",
        str(SPEC),
        "--url",
        base_url,
        "--header",
        f"Authorization: Bearer {api_key}",
        "--checks",
        "all",
        "--seed",
        str(seed),
        "--max-examples",
        str(max_examples),
        "--generation-database",
        "none",
        "--workers",
        "1",
        "--request-timeout",
        "30",
        "--no-color",
        *(extra or []),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.contract_fuzz", description=__doc__.split("\n\n", 1)[0] if __doc__ else None)
    parser.add_argument("--seed", type=int, default=SEED, help=f"schemathesis's seed (default {SEED})")
    parser.add_argument("--max-examples", type=int, default=MAX_EXAMPLES, help=f"test cases per operation, at most (default {MAX_EXAMPLES})")
    args, extra = parser.parse_known_args(argv)

    import local  # noqa: F401  - puts the layer on sys.path, as Lambda's /opt/python
    from hookline.core.apikeys import generate_api_key
    from local.run import LocalHookline, silence_werkzeug

    silence_werkzeug()
    with LocalHookline(port=0, aws_port=0, api_keys=f"{TENANT}:{generate_api_key()}", env={"POWERTOOLS_LOG_LEVEL": "WARNING"}) as hookline:
        print(f"contract-fuzz: local mode at {hookline.base_url}; schemathesis --seed {args.seed} --max-examples {args.max_examples}", flush=True)
        env = {**os.environ, "SCHEMATHESIS_HOOKS": HOOKS, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        WORKDIR.mkdir(parents=True, exist_ok=True)
        status = 0
        for own in passes(extra):
            command = schemathesis_command(hookline.base_url, hookline.api_key, args.seed, args.max_examples, own)
            returned = subprocess.run(command, cwd=WORKDIR, env=env, check=False).returncode
            status = status or returned  # every pass runs; the first failure's status is the run's
    print(f"contract-fuzz: schemathesis exited {status}" + (" (failures found)" if status else ""), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
