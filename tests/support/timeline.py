"""Virtual time for the delivery pipeline: jump from one scheduled moment to the next.

Under freezegun, moto releases a delayed SQS message once the frozen clock
passes its delay. The timeline watches what the real code schedules (SQS
DelaySeconds on the retry queue, one message or a batch of them, Step Functions executions) through botocore
event hooks, jumps the clock to the next due moment, and plays the state
machine's part for executions (wait until `until`, then send `task` to the
retry queue). Step Functions itself is exercised for real in the tests that
run the definition under moto.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from typing import Any

from hookline.adapters import aws
from hookline.core.clock import parse_iso
from hookline.wiring import topology


class Timeline:
    def __init__(self, hookline: Any, frozen: Any):
        self._hookline = hookline
        self._frozen = frozen
        self.due: list[float] = []
        self.executions: list[dict[str, Any]] = []
        self.sqs_delays: list[int] = []
        self.dues: list[tuple[int, int, int]] = []  # (attempt, due, delay) of every task sent carrying a due time (a hop)
        aws.sqs_client().meta.events.register("before-parameter-build.sqs.SendMessage", self._on_send)
        aws.sqs_client().meta.events.register("before-parameter-build.sqs.SendMessageBatch", self._on_send_batch)
        aws.stepfunctions_client().meta.events.register("before-parameter-build.sfn.StartExecution", self._on_start)

    @staticmethod
    def now() -> float:
        return time.time()

    def _on_send(self, params: dict[str, Any], **_: Any) -> None:
        delay = int(params.get("DelaySeconds", 0))
        self.sqs_delays.append(delay)
        self.due.append(time.time() + delay)
        body = json.loads(params.get("MessageBody") or "{}") if str(params.get("MessageBody", "")).startswith("{") else {}
        if body.get("due"):
            self.dues.append((int(body["attempt"]), int(body["due"]), delay))

    def _on_send_batch(self, params: dict[str, Any], **_: Any) -> None:
        for entry in params.get("Entries", []):
            self._on_send(entry)

    def _on_start(self, params: dict[str, Any], **_: Any) -> None:
        payload = json.loads(params["input"])
        until = parse_iso(payload["until"]).timestamp()
        self.executions.append({"name": params["name"], "until": until, "task": payload["task"], "fired": False})
        self.due.append(until)

    def fire_due_executions(self) -> None:
        sqs = self._hookline.sqs  # the test's one client: making one costs more than the send
        for ex in self.executions:
            if not ex["fired"] and ex["until"] <= time.time():
                ex["fired"] = True
                sqs.send_message(QueueUrl=self._hookline.env[topology.RETRY_QUEUE.env], MessageBody=ex["task"])

    def run(self, done: Callable[[], bool], max_seconds: float) -> float:
        """Pump until `done()`; returns the virtual seconds that passed."""
        start = time.time()
        while True:
            self._hookline.pump()
            self.fire_due_executions()
            self._hookline.pump()
            if done():
                return time.time() - start
            now = time.time()
            upcoming = [d for d in self.due if d > now]
            if not upcoming or now - start > max_seconds:
                raise AssertionError(f"nothing left to wait for after {now - start:.0f} virtual seconds")
            self._frozen.tick(math.ceil(min(upcoming) - now) + 0.001)
