"""`make demo`: hookline's retry behaviour against a built-in misbehaving receiver.

Runs local mode in this process (free ports, short backoff base, a 3 s SQS
delay limit and hops up to 4 s, so that a 5 s wait goes through the Step Functions state machine)
and prints a readable timeline of what the receiver saw:

* /flaky answers each webhook 500, then 429 with Retry-After: 2, then 200;
* /rejects answers 400, which is never retried;
* /slow answers 503 with Retry-After: 5 (above the SQS limit), then 200;
* /down is down for its first 7 seconds: its breaker opens after 3 failures,
  probes once per cooldown (2 s, then 4 s), and closes when a probe succeeds;
  the backlog held back meanwhile then drains.

It checks what it shows and exits non-zero if hookline misbehaved. It takes
about 20 seconds.
"""

from __future__ import annotations

import itertools
import sys
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import requests

from local.run import LocalHookline

DEMO_ENV = {
    "HOOKLINE_RETRY_BASE_SECONDS": "1",
    "HOOKLINE_SQS_MAX_DELAY_SECONDS": "3",
    "HOOKLINE_SQS_HOPS_UP_TO_SECONDS": "4",
    "HOOKLINE_API_KEYS": "demo:hk_demo_key_not_secret",
    "HOOKLINE_BREAKER_THRESHOLD": "3",
    "HOOKLINE_BREAKER_COOLDOWN_SECONDS": "2",
}
DOWN_FOR_SECONDS = 7.0
DOWN_EVENTS = 6


@dataclass
class Hit:
    at: float
    path: str
    webhook_id: str
    status: int


class MisbehavingReceiver:
    def __init__(self) -> None:
        self.hits: list[Hit] = []
        self.counts: dict[tuple[str, str], int] = defaultdict(int)
        self.lock = threading.Lock()
        self.started = time.monotonic()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                status, headers = receiver.answer(self.path, self.headers.get("webhook-id", "?"))
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def answer(self, path: str, webhook_id: str) -> tuple[int, dict[str, str]]:
        with self.lock:
            self.counts[(path, webhook_id)] += 1
            n = self.counts[(path, webhook_id)]
        status, headers = 200, {}
        if path == "/flaky" and n == 1:
            status = 500
        elif path == "/flaky" and n == 2:
            status, headers = 429, {"retry-after": "2"}
        elif path == "/rejects":
            status = 400
        elif path == "/slow" and n == 1:
            status, headers = 503, {"retry-after": "5"}
        elif path == "/down" and time.monotonic() - self.started < DOWN_FOR_SECONDS:
            status = 503
        at = time.monotonic() - self.started
        with self.lock:
            self.hits.append(Hit(at, path, webhook_id, status))
        extra = f"  (Retry-After: {headers['retry-after']})" if headers else ""
        print(f"  +{at:5.1f}s  receiver {path:<9} webhook-id={webhook_id}  answers {status}{extra}", flush=True)
        return status, headers


def main() -> int:
    print("hookline demo: retries against a misbehaving receiver\n", flush=True)
    receiver = MisbehavingReceiver()
    with LocalHookline(port=0, aws_port=0, env=DEMO_ENV, readable_logs=True) as hl:
        api = requests.Session()
        api.headers["authorization"] = f"Bearer {hl.api_key}"
        events: dict[str, str] = {}
        endpoint_ids: dict[str, str] = {}
        for path in ("/flaky", "/rejects", "/slow", "/down"):
            r = api.post(f"{hl.base_url}/v1/endpoints", json={"url": receiver.url(path), "event_types": [path.strip("/")]}, timeout=10)
            r.raise_for_status()
            endpoint_ids[path] = r.json()["id"]
        receiver.started = time.monotonic()
        down_events = []
        for i in range(DOWN_EVENTS):
            r = api.post(f"{hl.base_url}/v1/events", json={"type": "down", "data": {"n": i}}, timeout=10)
            r.raise_for_status()
            down_events.append(r.json()["id"])
        print(f"  +{time.monotonic() - receiver.started:5.1f}s  posted {DOWN_EVENTS} events for /down, which is down for {DOWN_FOR_SECONDS:.0f} s", flush=True)
        for path in ("/flaky", "/rejects", "/slow"):
            r = api.post(f"{hl.base_url}/v1/events", json={"type": path.strip("/"), "data": {"demo": path}}, timeout=10)
            r.raise_for_status()
            events[path] = r.json()["id"]
            print(f"  +{time.monotonic() - receiver.started:5.1f}s  posted event {events[path]} for {path}", flush=True)
        deadline = time.monotonic() + 50
        details: dict[str, Any] = {}
        down: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            details = {p: api.get(f"{hl.base_url}/v1/events/{e}", timeout=10).json() for p, e in events.items()}
            down = [api.get(f"{hl.base_url}/v1/events/{e}", timeout=10).json() for e in down_events]
            if all(d["deliveries"][0]["status"] != "pending" for d in [*details.values(), *down]):
                break
            time.sleep(0.5)
        health = api.get(f"{hl.base_url}/v1/endpoints/{endpoint_ids['/down']}", timeout=10).json()["health"]
    print("\nWhat hookline recorded:")
    for path, event in details.items():
        d = event["deliveries"][0]
        trail = ", ".join(f"#{a['number']} {a['status_code'] or a['error']}" for a in d["attempts"])
        print(f"  {path:<9} {d['status']:<10} {trail}")
    done = sum(e["deliveries"][0]["status"] == "succeeded" for e in down)
    print(f"  /down     {done} of {DOWN_EVENTS} delivered; breaker {health['circuit']['state']} after {health['circuit']['trips']} trip(s)")
    return 0 if check(receiver, details, down, health) else 1


def check(receiver: MisbehavingReceiver, details: dict[str, Any], down: list[dict[str, Any]], health: dict[str, Any]) -> bool:
    problems = []
    by_path: dict[str, list[Hit]] = defaultdict(list)
    for h in receiver.hits:
        by_path[h.path].append(h)
    flaky = by_path["/flaky"]
    if [h.status for h in flaky] != [500, 429, 200] or len({h.webhook_id for h in flaky}) != 1:
        problems.append(f"/flaky saw {[h.status for h in flaky]}, expected 500, 429, 200 with one webhook-id")
    elif flaky[2].at - flaky[1].at < 2:
        problems.append("/flaky was contacted again before its Retry-After ran out")
    if [h.status for h in by_path["/rejects"]] != [400]:
        problems.append("/rejects was not tried exactly once")
    slow = by_path["/slow"]
    if [h.status for h in slow] != [503, 200] or slow[1].at - slow[0].at < 5:
        problems.append("/slow did not wait out its 5 s Retry-After through the state machine")
    down_hits = by_path["/down"]
    failed = [h for h in down_hits if h.status != 200]
    probes = [h for h in failed if h.at > 2.0]  # past the first cooldown only probes go out
    if any(e["deliveries"][0]["status"] != "succeeded" for e in down) or health["circuit"]["trips"] < 1 or health["circuit"]["state"] != "closed":
        problems.append("/down did not open its breaker and recover with its whole backlog delivered")
    elif len(failed) > 3 + 4 + len(probes) or any(b.at - a.at < 1.9 for a, b in itertools.pairwise(probes)):
        problems.append(f"/down was hammered while its breaker was open: {[round(h.at, 1) for h in failed]}")
    statuses = {p: e["deliveries"][0]["status"] for p, e in details.items()}
    if statuses != {"/flaky": "succeeded", "/rejects": "failed", "/slow": "succeeded"}:
        problems.append(f"final statuses {statuses}")
    print()
    for p in problems:
        print(f"  PROBLEM: {p}")
    if not problems:
        print("  OK: 500 retried with jitter; 429 paused the endpoint for its Retry-After; third attempt succeeded with the")
        print("      same webhook-id; 400 not retried; the 5 s wait went through the Step Functions state machine;")
        print("      /down's breaker opened, probed once per cooldown, closed on recovery, and its backlog drained.")
    return not problems


if __name__ == "__main__":
    sys.exit(main())
