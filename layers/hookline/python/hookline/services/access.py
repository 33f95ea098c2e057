"""What a portal session may see of its tenant: resource checks before a route runs.

The producer (an API key) passes without a read: every service call is
already scoped to its tenant. A session passes only for its own customer's
endpoints, the deliveries and replays of those endpoints, and the events
addressed to its customer; for anything else it gets the very 404 an id that
does not exist gets, so a session learns nothing about what is not its own.
An endpoint's customer is fixed when it is made, so a check made before the
route's own call still holds when that call runs. Of the event-type catalog a
session sees the types its customer's endpoints name and those sent to its
customer (hookline.core.access.customer_event_types): its endpoints from the
customer-endpoints index and one read of the types sent to it, nothing that
grows with the tenant's events or its other customers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hookline.core import ids
from hookline.core.access import Principal, customer_event_types
from hookline.core.errors import NotFound, ValidationFailed
from hookline.core.jobs import JOB
from hookline.core.replay import REPLAY
from hookline.services.events import find_event
from hookline.services.ports import CustomerTypes, EventDeliveryReader, JobReader, ReplayReader, TenantEndpoints

if TYPE_CHECKING:  # the API's model, which the API passes in: the delivery and jobs functions import this guard too
    from hookline.core.contract.endpoints import UpdateEndpoint


@dataclass(frozen=True)
class AccessGuard:
    endpoints: TenantEndpoints
    events: EventDeliveryReader
    replays: ReplayReader
    jobs: JobReader
    types: CustomerTypes

    def _owns_endpoint(self, who: Principal, endpoint_id: str) -> bool:
        endpoint = self.endpoints.get(who.tenant, endpoint_id) if ids.is_id(endpoint_id, ids.ENDPOINT) else None
        return endpoint is not None and who.sees(endpoint.customer, endpoint.created_at)

    def endpoint(self, who: Principal, endpoint_id: str) -> None:
        if not who.is_producer and not self._owns_endpoint(who, endpoint_id):
            raise NotFound(f"endpoint {endpoint_id[:64]} not found")

    def event(self, who: Principal, event_id: str) -> None:
        if who.is_producer:
            return
        event = find_event(self.events, who.tenant, event_id)
        if event is None or not (who.sees(event.customer, event.created_at) or event.broadcast is not None):
            raise NotFound(f"event {event_id[:64]} not found")

    def delivery(self, who: Principal, event_id: str, delivery_id: str) -> None:
        if who.is_producer:
            return
        valid = ids.is_id(event_id, ids.EVENT) and ids.is_id(delivery_id, ids.DELIVERY)
        delivery = self.events.get_delivery(who.tenant, event_id, delivery_id) if valid else None
        if delivery is None or not self._owns_endpoint(who, delivery.endpoint_id):
            raise NotFound(f"delivery {delivery_id[:64]} of event {event_id[:64]} not found")

    def replay(self, who: Principal, replay_id: str) -> None:
        if who.is_producer:
            return
        item = self.replays.get(who.tenant, replay_id) if ids.is_id(replay_id, REPLAY) else None
        if item is None or not self._owns_endpoint(who, str(item.get("endpoint_id", ""))):
            raise NotFound(f"replay {replay_id[:64]} not found")

    def job(self, who: Principal, job_id: str) -> None:
        """A session sees the jobs of its own endpoints (the re-queue its re-enable started), no other."""
        if who.is_producer:
            return
        job = self.jobs.get(who.tenant, job_id) if ids.is_id(job_id, JOB) else None
        if job is None or not self._owns_endpoint(who, job.params.get("endpoint_id", "")):
            raise NotFound(f"job {job_id[:64]} not found", code="job_not_found")

    def event_types(self, who: Principal) -> frozenset[str] | None:
        """The event types a session sees of the catalog; None for the producer, who sees every one."""
        if who.customer is None:
            return None
        filters = (ep.event_types for ep in self.endpoints.all_of_owner(who.tenant, who.customer) if who.sees(ep.customer, ep.created_at))
        return customer_event_types(filters, self.types.sent_to(who.tenant, who.customer))

    def event_type(self, who: Principal, name: str) -> None:
        """A type the session does not see answers as a type the catalog does not hold."""
        visible = self.event_types(who)
        if visible is not None and name not in visible:
            raise NotFound(f"event type {name[:128]} is not in the catalog", code="event_type_not_found")

    @staticmethod
    def endpoint_change(who: Principal, body: UpdateEndpoint) -> UpdateEndpoint:
        """A session may disable its endpoint but not mark it active by a PATCH: re-enabling is `POST …/enable`,
        which sends a test event first and queues the paused deliveries (a PATCH would leave them paused)."""
        if not who.is_producer and body.status == "active":
            raise ValidationFailed(
                "a portal session re-enables an endpoint with POST /v1/endpoints/{id}/enable (it sends a test event first)", code="use_enable"
            )
        return body

    @staticmethod
    def owner(who: Principal, named: str | None) -> str | None:
        """The customer a request names (an endpoint's, a list filter): a session's own, whatever it names or not.

        A session naming another customer gets the 404 of an unknown customer.
        """
        if who.is_producer:
            return named
        if named is not None and named != who.customer:
            raise NotFound(f"customer {named[:64]} not found", code="customer_not_found")
        return who.customer
