"""Local mode's customer emails: moto's SES keeps what hookline sends; this prints each one on the console.

The embedded moto server runs in this process, so its SES backend (`sent_messages`) is read directly,
twice a second, by one daemon thread. Each email shows as `email to <address>: <subject>` and its first
lines. Local mode only: in the cloud the recipient and the body never reach the logs.
"""

from __future__ import annotations

import html
import re
import sys
import threading
from typing import Any, TextIO

from moto.core import DEFAULT_ACCOUNT_ID
from moto.ses.models import ses_backends

FIRST_LINES = 6
# A customer email's portal link carries a session token: the console shows the link, never the token.
_TOKEN = re.compile(r"(#token=)[A-Za-z0-9_\-]+")


def render(message: Any, lines: int = FIRST_LINES) -> str:
    """One sent message: recipients and subject, then its first non-empty body lines, indented."""
    to = ", ".join(message.destinations.get("ToAddresses", []))
    text = str(message.body)
    if text.lstrip().startswith("<"):  # moto keeps the HTML part when there is one: show its text
        text = html.unescape(re.sub(r"<[^>]+>", "\n", text))
    body = [_TOKEN.sub(r"\1…(token hidden)", line.strip()) for line in text.splitlines() if line.strip()][:lines]
    return "\n".join([f"email to {to}: {message.subject}", *(f"    {line}" for line in body)])


class MailEcho:
    """Prints every email moto's SES accepted in `region`, once, in order; `check()` does one pass."""

    def __init__(self, region: str, out: TextIO | None = None, interval: float = 0.5):
        self._region = region
        self._out = out
        self._interval = interval
        self._seen = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def check(self) -> list[str]:
        sent = list(ses_backends[DEFAULT_ACCOUNT_ID][self._region].sent_messages)
        self._seen = min(self._seen, len(sent))  # moto was reset: start over
        shown = [render(m) for m in sent[self._seen :]]
        self._seen = len(sent)
        out = self._out or sys.stdout
        for text in shown:
            print(text, file=out, flush=True)
        return shown

    def start(self) -> None:
        self._seen = len(ses_backends[DEFAULT_ACCOUNT_ID][self._region].sent_messages)  # only what this run sends
        self._thread = threading.Thread(target=self._run, name="hookline-mail-echo", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            self.check()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self.check()  # what was sent since the last pass
