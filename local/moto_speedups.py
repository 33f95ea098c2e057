"""A fix for a cost in moto (5.2.5) that grows with a queue's backlog, installed by local mode.

moto's `SendMessage` asks the queue for all its attributes to read one (`ContentBasedDeduplication`, a FIFO
queue's), and three of those attributes count the queue's messages by scanning them with a clock call each.
With a few thousand messages queued, each send took tens of milliseconds, so a 100-event batch with fan-out 5
(50 `SendMessageBatch` calls) took seconds more for every thousand deliveries waiting. While moto sends a message,
the queue's attributes are the one it reads, computed as moto computes it; everywhere else they are moto's own.
"""

from __future__ import annotations

import threading
from typing import Any

from moto.sqs.models import Queue, SQSBackend

_sending = threading.local()
_installed = False


def install() -> None:
    global _installed
    if _installed:
        return
    every_attribute = Queue.attributes.fget  # type: ignore[attr-defined]
    send_message = SQSBackend.send_message

    def attributes(self: Queue) -> dict[str, Any]:
        if getattr(_sending, "active", False):
            return {"ContentBasedDeduplication": str(getattr(self, "content_based_deduplication", False)).lower()} if self.fifo_queue else {}
        result: dict[str, Any] = every_attribute(self)
        return result

    def sending(self: SQSBackend, *args: Any, **kwargs: Any) -> Any:
        _sending.active = True
        try:
            return send_message(self, *args, **kwargs)
        finally:
            _sending.active = False

    Queue.attributes = property(attributes)  # type: ignore[assignment, method-assign]
    SQSBackend.send_message = sending  # type: ignore[method-assign]
    _installed = True
