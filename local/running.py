"""Where running local modes can be found: `python -m local.run` writes its addresses to a state file that tools
such as `make dlq-drain LOCAL=1` read, so they need not be told which ports it took.

One file per local mode, named by the user and the mode's port pair (API, embedded AWS), in the temporary directory
(HOOKLINE_LOCAL_STATE_DIR to put them elsewhere); removed when that local mode stops. A second local mode on other
ports has a file of its own, so its start and stop never hide the first. A file whose process is gone is ignored
(local mode was killed without its clean stop).
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

PREFIX = "hookline-local"

_announced: Path | None = None  # the file this process wrote, for withdraw()


class NotRunning(LookupError):
    """No running local mode fits the request; the message says which were looked for and what to do."""


@dataclass(frozen=True)
class LocalMode:
    pid: int
    api_url: str
    aws_endpoint: str
    portal_link: str = ""  # the portal demo's link, once seeded ('' without the demo)

    @property
    def ports(self) -> tuple[int, int]:
        """(API port, embedded AWS port)."""
        return _port(self.api_url), _port(self.aws_endpoint)

    def __str__(self) -> str:
        return f"API {self.api_url}, embedded AWS {self.aws_endpoint} (pid {self.pid})"


def state_dir() -> Path:
    return Path(os.environ.get("HOOKLINE_LOCAL_STATE_DIR") or tempfile.gettempdir())


def state_file(api_port: int, aws_port: int) -> Path:
    return state_dir() / f"{PREFIX}-{os.getuid()}-{api_port}-{aws_port}.json"


def _port(url: str) -> int:
    port = urlsplit(url).port
    if port is None:
        raise ValueError(f"no port in {url!r}")
    return port


def _has_port(url: str) -> bool:
    try:
        return urlsplit(url).port is not None
    except ValueError:
        return False


def announce(aws_endpoint: str, api_url: str, portal_link: str = "") -> Path:
    """Record this process's local mode (its file, by its port pair), and the portal demo's link once it has one; the
    file written. Readable by this user only: the link holds a portal session's token."""
    global _announced
    path = state_file(_port(api_url), _port(aws_endpoint))
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {"pid": os.getpid(), "aws_endpoint": aws_endpoint, "api_url": api_url, **({"portal_link": portal_link} if portal_link else {})}
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as out:
        out.write(json.dumps(state))
    _announced = path
    return path


def withdraw() -> None:
    """Remove the file this process announced (unless another process has written it since)."""
    global _announced
    path, _announced = _announced, None
    if path is None:
        return
    state = _read(path)
    if state is not None and state.get("pid") == os.getpid():
        path.unlink(missing_ok=True)


def _read(path: Path) -> dict[str, Any] | None:
    try:
        state = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) else None


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


def running() -> list[LocalMode]:
    """This user's local modes running now, by API port."""
    found = []
    for path in state_dir().glob(f"{PREFIX}-{os.getuid()}-*-*.json"):
        state = _read(path) or {}
        pid, api_url, aws_endpoint = state.get("pid"), state.get("api_url"), state.get("aws_endpoint")
        if (
            isinstance(pid, int)
            and isinstance(api_url, str)
            and isinstance(aws_endpoint, str)
            and _has_port(api_url)
            and _has_port(aws_endpoint)
            and _alive(pid)
        ):
            link = state.get("portal_link")
            found.append(LocalMode(pid, api_url, aws_endpoint, link if isinstance(link, str) else ""))
    return sorted(found, key=lambda mode: mode.ports)


def find(port: int | None = None) -> LocalMode:
    """The running local mode whose API or embedded AWS listens on `port`; without a port, the only one running.
    Raises NotRunning, saying so, when there is no such local mode (or several and no port to choose by)."""
    modes = running()
    listed = "".join(f"\n  {mode}" for mode in modes)
    if port:
        for mode in modes:
            if port in mode.ports:
                return mode
        if modes:
            raise NotRunning(f"no local mode is running on port {port}; these are:{listed}")
        raise NotRunning(f"no local mode is running on port {port} (none is running: start one with `make run`)")
    if len(modes) == 1:
        return modes[0]
    if modes:
        raise NotRunning(f"{len(modes)} local modes are running; name one by its API or embedded AWS port (make dlq-drain LOCAL=1 PORT=…):{listed}")
    raise NotRunning(f"no local mode is running (none announced itself in {state_dir()}): start one with `make run`")
