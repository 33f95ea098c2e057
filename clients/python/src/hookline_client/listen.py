"""`hookline listen`: receive a polling endpoint's webhooks on a machine that takes no inbound request.

It polls the endpoint (`GET /v1/endpoints/{id}/poll`, with the API key or a poll token of the endpoint) and POSTs each
webhook, its exact body and headers (the signature included), to a local URL, printing one status line each. The
cursor is written to a file after each page, so a restart resumes after the last page forwarded. A webhook whose
forward fails (no answer, or not 2xx) is reported and not sent again: `hookline deliveries list` and a fresh cursor
file read them again. Ctrl-C stops it cleanly, the cursor kept.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import requests

from .client import HooklineClient

DEFAULT_INTERVAL_SECONDS = 2.0
FORWARD_TIMEOUT_SECONDS = 10.0


def cursor_file(endpoint_id: str, given: str | None) -> Path:
    """Where the cursor is kept: the file given, else `.hookline-listen-<endpoint>.cursor` in the working directory."""
    return Path(given) if given else Path(f".hookline-listen-{endpoint_id}.cursor")


def read_cursor(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except FileNotFoundError:
        return None


def write_cursor(path: Path, cursor: str) -> None:
    """Replace the file whole (a crash leaves the old cursor or the new one, never half of one)."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(cursor + "\n", encoding="utf-8")
    os.replace(partial, path)


def forward(url: str, webhook: dict[str, Any], out: TextIO) -> bool:
    """POST one webhook to `url` as a push would have sent it; one status line; whether the answer was 2xx."""
    started = time.monotonic()
    label = f"{webhook['event_type']} {webhook['id']}"
    try:
        answer = requests.post(url, data=webhook["body"].encode("utf-8"), headers=webhook["headers"], timeout=FORWARD_TIMEOUT_SECONDS)
    except requests.RequestException as exc:
        out.write(f"--> {label}: not forwarded ({type(exc).__name__})\n")
        out.flush()
        return False
    ms = int((time.monotonic() - started) * 1000)
    out.write(f"<-- {answer.status_code} {label} ({ms} ms)\n")
    out.flush()
    return 200 <= answer.status_code < 300


def listen(client: HooklineClient, args: argparse.Namespace, sleep: Callable[[float], None] = time.sleep) -> None:
    """Poll and forward until Ctrl-C (or, with --once, until the endpoint has nothing more to read)."""
    out: TextIO = args.out
    path = cursor_file(args.endpoint, args.cursor_file)
    cursor = read_cursor(path)
    out.write(f"Listening to {args.endpoint}, forwarding to {args.forward} (cursor in {path}); Ctrl-C stops.\n")
    out.flush()
    try:
        while True:
            page = client.endpoints.poll(args.endpoint, cursor=cursor, limit=args.limit)
            for webhook in page["webhooks"]:
                forward(args.forward, webhook, out)
            if page["cursor"] and page["cursor"] != cursor:
                cursor = page["cursor"]
                write_cursor(path, cursor)
            if page["done"]:
                if args.once:
                    return
                sleep(args.interval)
    except KeyboardInterrupt:
        out.write(f"Stopped; the cursor is kept in {path}.\n")
