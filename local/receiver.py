"""A tiny webhook receiver for trying hookline locally (and for the e2e tests).

    python -m local.receiver --port 9000 [--secret whsec_...] [--status 200]

Prints every request's headers and body and answers `--status` (200). With
`--secret`, it verifies the Standard Webhooks signature with the official
`standardwebhooks` package (requirements-local.txt) and answers 401 when it
fails; without that package it refuses to start rather than accept unverified.
`--status 500` is handy for watching failed attempts.

Tests use `WebhookReceiver` directly: it runs in a thread on 127.0.0.1 and
keeps every request in `.received`.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TextIO

Verifier = Callable[[bytes, dict[str, str]], None]


def make_verifier(secret: str) -> Verifier | None:
    """A Standard Webhooks verifier for `secret`, or None if the package is missing."""
    try:
        from standardwebhooks.webhooks import Webhook
    except ImportError:  # pragma: no cover - the dev venv has it
        return None
    webhook = Webhook(secret)

    def verify(body: bytes, headers: dict[str, str]) -> None:
        webhook.verify(body, headers)

    return verify


@dataclass(frozen=True)
class ReceivedWebhook:
    method: str
    path: str
    headers: dict[str, str]  # names lowercased
    body: bytes
    status: int  # what the receiver answered
    verified: bool | None  # None: no secret to verify with
    error: str = ""

    def json(self) -> Any:
        return json.loads(self.body)


class _Server(ThreadingHTTPServer):
    # socketserver's default listen backlog is 5: a batch of 100 concurrent webhooks would see connection resets.
    request_queue_size = 256


class WebhookReceiver:
    """An HTTP server on 127.0.0.1 that records (and optionally verifies and prints) every webhook."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        secret: str | None = None,
        status: int = 200,
        script: list[int] | None = None,
        out: TextIO | None = None,
        delay_seconds: float = 0.0,
    ):
        self.secret = secret  # may be set later, e.g. once the endpoint is registered
        self.status = status
        self.script = list(script or [])  # statuses for the first requests, then `status`
        self.out = out
        self.delay_seconds = delay_seconds  # how long each answer takes (a slow receiver)
        self.received: list[ReceivedWebhook] = []
        self.arrived = threading.Event()
        self._lock = threading.Lock()
        self._server = _Server((host, port), _handler_for(self))
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/webhook"

    def handle(self, method: str, path: str, headers: dict[str, str], body: bytes) -> int:
        verified: bool | None = None
        error = ""
        with self._lock:
            status = self.script.pop(0) if self.script else self.status
        verifier = make_verifier(self.secret) if self.secret else None
        if verifier is not None:
            try:
                verifier(body, headers)
                verified = True
            except Exception as exc:  # WebhookVerificationError, or ValueError/binascii.Error on a malformed header
                verified, error, status = False, repr(exc), 401
        webhook = ReceivedWebhook(method, path, headers, body, status, verified, error)
        with self._lock:
            self.received.append(webhook)
            if self.out is not None:
                self._print(webhook, self.out)
        self.arrived.set()
        if self.delay_seconds > 0:
            time.sleep(self.delay_seconds)
        return status

    @staticmethod
    def _print(webhook: ReceivedWebhook, out: TextIO) -> None:
        verdict = {None: "", True: "signature OK", False: f"signature FAILED: {webhook.error}"}[webhook.verified]
        print(f"--- {time.strftime('%H:%M:%S')} {webhook.method} {webhook.path} -> {webhook.status} {verdict}", file=out)
        for name, value in webhook.headers.items():
            print(f"{name}: {value}", file=out)
        try:
            print(json.dumps(webhook.json(), indent=2), file=out)
        except ValueError:
            print(webhook.body.decode("utf-8", errors="replace"), file=out)
        print(file=out, flush=True)

    def start(self) -> WebhookReceiver:
        self._thread = threading.Thread(target=self._server.serve_forever, name="webhook-receiver", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._server.serve_forever()

    def stop(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> WebhookReceiver:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _handler_for(receiver: WebhookReceiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            headers = {k.lower(): v for k, v in self.headers.items()}
            status = receiver.handle(self.command, self.path, headers, body)
            reply = json.dumps({"received": status < 300}).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def do_PUT(self) -> None:
            self.do_POST()

        def log_message(self, format: str, *args: Any) -> None:
            return None

    return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m local.receiver", description="Print incoming webhooks.")
    parser.add_argument("--port", type=int, default=9000)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--secret", help="whsec_... signing secret of the endpoint, to verify signatures")
    parser.add_argument("--status", type=int, default=200, help="HTTP status to answer (default 200)")
    args = parser.parse_args(argv)
    if args.secret and make_verifier(args.secret) is None:
        print("cannot verify signatures: standardwebhooks is not installed (pip install -r requirements-local.txt)", file=sys.stderr)
        return 2
    receiver = WebhookReceiver(host=args.host, port=args.port, secret=args.secret, status=args.status, out=sys.stdout)
    print(f"receiving webhooks on http://{args.host}:{receiver.port}/ (answering {args.status})", flush=True)
    try:
        receiver.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        receiver.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
