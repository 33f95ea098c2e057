"""`make portal-link`: print the portal demo's link of the running local mode again (`make run` printed it last).

The link is read from the state file local mode writes (local/running.py). PORT= names one local mode when several run.
"""

from __future__ import annotations

import argparse
import sys

from local import running


def link(port: int | None = None) -> str:
    """The running local mode's portal demo link; raises running.NotRunning (saying why) when there is none."""
    mode = running.find(port)
    if not mode.portal_link:
        raise running.NotRunning(f"the local mode at {mode.api_url} has no portal demo link (started without the demo, or it is still being seeded)")
    return mode.portal_link


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m local.portal_link", description="Print the portal demo's link of the running local mode.")
    parser.add_argument("--port", type=int, default=None, help="the local mode's API or embedded AWS port, when several run")
    args = parser.parse_args(argv)
    try:
        print(link(args.port))
    except running.NotRunning as exc:
        print(f"make portal-link: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
