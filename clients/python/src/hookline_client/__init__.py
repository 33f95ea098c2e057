"""The hookline webhooks API in Python: `HooklineClient`, `verify` for receivers, and the `hookline` command.

Sending an event::

    from hookline_client import HooklineClient

    client = HooklineClient("http://127.0.0.1:8787", "hk_...")
    client.events.send("invoice.paid", {"invoice": "in_123", "amount": 4200}, id="invoice-in_123-paid")
"""

from ._version import __version__
from .client import HooklineClient, Paginator
from .errors import HooklineConnectionError, HooklineError, WebhookVerificationError
from .models import (
    Attempt,
    BroadcastAccepted,
    Customer,
    CustomerLimits,
    CustomerLimitsInput,
    Delivery,
    DeliveryDetail,
    Endpoint,
    EndpointCreated,
    EndpointDelivery,
    EndpointDetail,
    Event,
    EventAccepted,
    EventBatchAccepted,
    EventBatchResult,
    EventInput,
    JobSummary,
    Page,
    PortalSession,
    Replay,
    ReplayAccepted,
    WebhookMessage,
)
from .webhooks import verify

__all__ = [
    "Attempt",
    "BroadcastAccepted",
    "Customer",
    "CustomerLimits",
    "CustomerLimitsInput",
    "Delivery",
    "DeliveryDetail",
    "Endpoint",
    "EndpointCreated",
    "EndpointDelivery",
    "EndpointDetail",
    "Event",
    "EventAccepted",
    "EventBatchAccepted",
    "EventBatchResult",
    "EventInput",
    "HooklineClient",
    "HooklineConnectionError",
    "HooklineError",
    "JobSummary",
    "Page",
    "Paginator",
    "PortalSession",
    "Replay",
    "ReplayAccepted",
    "WebhookMessage",
    "WebhookVerificationError",
    "__version__",
    "verify",
]
