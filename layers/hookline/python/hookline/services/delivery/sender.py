"""Sending one webhook: the body at the delivery's payload version, the signed Standard Webhooks headers, and one
send to the endpoint's destination (a POST through the SSRF-guarded client, or a message, event, record or object
in the customer's AWS account: the `Sender` port does not tell this service which). A version past its sunset is
still sent, with a deprecation warning in the log."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from hookline.core.clock import parse_iso
from hookline.core.models import DeliveryTask
from hookline.core.responses import HttpResult
from hookline.core.webhook import Outbound, request_headers
from hookline.services.delivery.plans import Plan
from hookline.services.delivery.ports import DeliveryLog, Sender

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WebhookSender:
    events: DeliveryLog
    sender: Sender
    secret_overlap_seconds: float
    clock: Callable[[], datetime]

    def send(self, task: DeliveryTask, plan: Plan) -> HttpResult:
        """One request, signed by the endpoint's schemes (and, while it migrates, its `also` schemes too). During a secret
        rotation's overlap it carries both signatures; a deleted event or endpoint sends nothing."""
        endpoint = plan.endpoint
        # Not in the batch read (or not yet visible to it): a strongly consistent read settles it.
        event = plan.event or self.events.get_event(task.tenant, task.event_id, consistent=True)
        if event is None or endpoint is None:
            missing = "event" if event is None else "endpoint"
            return HttpResult(None, f"{missing}_deleted", 0, detail=f"the {missing} no longer exists")
        body = event.body_for(task.version).encode()
        moment = self.clock()
        sunset = event.sunset_of(task.version) if task.version else None
        if sunset is not None and parse_iso(sunset) <= moment:
            _log.warning(
                "payload version past its sunset",
                extra={"tenant": task.tenant, "endpoint_id": task.endpoint_id, "event_id": task.event_id, "version": task.version, "sunset_at": sunset},
            )
        now = moment.timestamp()
        headers = request_headers(endpoint, event.id, now, body, self.secret_overlap_seconds)
        message = Outbound(body, headers, event.id, event.type, event.created_at, event.customer, endpoint.id, task.delivery_id)
        return self.sender.send(endpoint, message)
