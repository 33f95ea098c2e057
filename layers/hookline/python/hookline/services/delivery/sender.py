"""Sending one webhook: the body, the signed Standard Webhooks headers, one POST through the SSRF-guarded client."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from hookline.core.models import DeliveryTask
from hookline.core.responses import HttpResult
from hookline.core.webhook import webhook_headers
from hookline.services.delivery.plans import Plan
from hookline.services.delivery.ports import DeliveryLog, HttpSender


@dataclass(frozen=True)
class WebhookSender:
    events: DeliveryLog
    http: HttpSender
    secret_overlap_seconds: float
    clock: Callable[[], datetime]

    def send(self, task: DeliveryTask, plan: Plan) -> HttpResult:
        """One request. During a secret rotation's overlap it carries both signatures; a deleted event or endpoint sends nothing."""
        endpoint = plan.endpoint
        # Not in the batch read (or not yet visible to it): a strongly consistent read settles it.
        event = plan.event or self.events.get_event(task.tenant, task.event_id, consistent=True)
        if event is None or endpoint is None:
            missing = "event" if event is None else "endpoint"
            return HttpResult(None, f"{missing}_deleted", 0, detail=f"the {missing} no longer exists")
        body = event.body.encode()
        now = self.clock().timestamp()
        headers = {**dict(endpoint.headers), **webhook_headers(event.id, int(now), body, endpoint.signing_secrets(now, self.secret_overlap_seconds))}
        return self.http.post(endpoint.url, body, headers)
