"""Where a running local mode can be found: `python -m local.run` writes its addresses to a file that tools
such as `make dlq-drain LOCAL=1` read, so they need not be told which ports it took.

One file per user in the temporary directory; removed when local mode stops. A file whose process is gone is
ignored (local mode was killed without its clean stop).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def state_file() -> Path:
    return Path(os.environ.get("HOOKLINE_LOCAL_STATE_FILE") or Path(tempfile.gettempdir()) / f"hookline-local-{os.getuid()}.json")


def announce(aws_endpoint: str, api_url: str) -> None:
    state_file().write_text(json.dumps({"pid": os.getpid(), "aws_endpoint": aws_endpoint, "api_url": api_url}))


def withdraw() -> None:
    try:
        state = json.loads(state_file().read_text())
    except (OSError, ValueError):
        return
    if state.get("pid") == os.getpid():
        state_file().unlink(missing_ok=True)


def _alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def running_aws_endpoint() -> str | None:
    """The embedded AWS endpoint of the local mode running now, if one announced itself."""
    try:
        state = json.loads(state_file().read_text())
    except (OSError, ValueError):
        return None
    endpoint = state.get("aws_endpoint")
    return endpoint if isinstance(endpoint, str) and endpoint and _alive(state.get("pid")) else None
