"""`python -m local.run` stops cleanly on SIGINT or SIGTERM, to the process or to its whole group, however often it comes.

One of the starts seeds the portal demo, as `make run` does by default: its banner comes after the demo's first
attempts are logged and ends with the portal link, which `make portal-link` prints again.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.parametrize(("signum", "to_group", "demo"), [(signal.SIGTERM, True, False), (signal.SIGINT, True, True), (signal.SIGTERM, False, False)])
def test_local_mode_stops_cleanly(tmp_path: Path, signum: int, to_group: bool, demo: bool) -> None:
    env = {
        **os.environ,
        "HOOKLINE_PORT": "0",
        "HOOKLINE_AWS_PORT": "0",
        "HOOKLINE_LOCAL_STATE_DIR": str(tmp_path),
        "PYTHONUNBUFFERED": "1",
        "HOOKLINE_RUN_STARTED": f"{time.time():.3f}",  # as `make run` exports it
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "local.run", *([] if demo else ["--no-demo"]), "--json-logs"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # a process group of its own, as a terminal or supervisor starts it
    )
    lines: list[str] = []
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line)
            if (PRINT_AGAIN if demo else "s after `make run` started") in line:  # the banner's last line: it is up
                break
        assert any("hookline local mode is up" in line for line in lines), "".join(lines)
        if demo:
            _the_portal_link_comes_last(lines, tmp_path)
        assert len(list(tmp_path.glob("hookline-local-*.json"))) == 1  # it announced itself to `make dlq-drain LOCAL=1`
        # When the signal comes, and comes again while it stops (a terminal's Ctrl-C reaches make and python alike)
        send = (lambda: os.killpg(process.pid, signum)) if to_group else (lambda: process.send_signal(signum))
        send()
        time.sleep(0.2)
        send()
        out, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    output = "".join(lines) + out
    # Then it says so, leaves no traceback, exits 0 and withdraws its state file
    assert process.returncode == 0, output
    assert "stopped." in output and "Traceback" not in output, output
    # And it said how long it took to be up since `make run` started
    assert re.search(r"Up \d+ s after `make run` started", "".join(lines)), output
    assert not list(tmp_path.glob("hookline-local-*.json"))


PRINT_AGAIN = "Print this link again: `make portal-link`"


def _the_portal_link_comes_last(lines: list[str], state_dir: Path) -> None:
    """The demo's first attempts are logged before the banner, and the banner ends with the portal link, which
    `python -m local.portal_link` (what `make portal-link` runs) prints again from the state file, readable by its user only."""
    at = {what: next((i for i, line in enumerate(lines) if what in line), -1) for what in ("seeding the portal demo", "hookline local mode is up")}
    attempts = [i for i, line in enumerate(lines) if '"delivery attempt"' in line]
    links = [i for i, line in enumerate(lines) if "/portal#" in line or "/portal?" in line]
    assert 0 <= at["seeding the portal demo"] < min(attempts, default=-1) < at["hookline local mode is up"], "".join(lines)
    assert links and links[-1] > at["hookline local mode is up"], "".join(lines)
    shown = lines[links[-1]].strip()
    [state] = state_dir.glob("hookline-local-*.json")
    assert state.stat().st_mode & 0o777 == 0o600
    again = subprocess.run(
        [sys.executable, "-m", "local.portal_link"],
        check=False,
        cwd=REPO,
        env={**os.environ, "HOOKLINE_LOCAL_STATE_DIR": str(state_dir)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (again.returncode, again.stdout.strip()) == (0, shown), again.stderr


def test_the_banner_says_how_long_make_run_took() -> None:
    from local.run import ready_line

    assert ready_line("1000.5", 1062.0) == "Up 62 s after `make run` started (installing what local mode needs included)."
    assert ready_line("", 1062.0) == "" and ready_line("not a time", 1.0) == "" and ready_line("2000", 1000.0) == ""
