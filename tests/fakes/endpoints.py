"""Endpoints in memory, as hookline.adapters.dynamo.endpoints.EndpointRepository keeps them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from hookline.core.errors import DependencyFailed
from hookline.core.models import EmailOutcome, Endpoint
from hookline.core.rotation import PreviousSecret, Rotation
from tests.fakes import paging
from tests.fakes.atomic import atomic, new_lock
from tests.fakes.faults import Faults

# What `save` writes: the fields a caller may change. The secret, its rotation and the
# Retry-After pause belong to other writers and survive a save, as the adapter's update does.
SAVED_FIELDS = (
    "url",
    "destination",
    "external_id",
    "event_types",
    "description",
    "status",
    "disabled_reason",
    "updated_at",
    "rate_limit_per_second",
    "max_concurrency",
    "headers",
    "version",
    "filter",
    "signing",
    "auth",
)


class FakeEndpointStore:
    """EndpointStore and TenantEndpoints (the services' ports), EndpointControl (the delivery service's) and
    EmailOutcomes (the customer emails').

    Contract, as the adapter's: `create` refuses an id that exists
    (DependencyFailed, the adapter's failed condition), and answers False past its owner's `most`; `save`, `delete` and
    `rotate_secret` answer False for an endpoint that is gone; `pause` keeps
    the later of two pauses; `pause`, `disable` and `record_email` on a missing
    endpoint do nothing. Epochs are kept to the millisecond, as the adapter stores them.
    """

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], Endpoint] = {}
        self.faults = Faults()
        self._lock = new_lock()

    @atomic
    def add(self, endpoint: Endpoint) -> Endpoint:
        """Test setup: put an endpoint in place as it is, whatever is there."""
        self.items[(endpoint.tenant, endpoint.id)] = endpoint
        return endpoint

    @atomic
    def create(self, ep: Endpoint, most: int) -> bool:
        self.faults.check("create")
        if (ep.tenant, ep.id) in self.items:
            raise DependencyFailed(f"endpoint {ep.id} exists", cause="ConditionalCheckFailedException")
        if sum(1 for e in self.items.values() if (e.tenant, e.customer) == (ep.tenant, ep.customer)) >= most:
            return False
        # The adapter's item holds neither a pause nor a rotation yet, and no empty reason.
        self.items[(ep.tenant, ep.id)] = replace(ep, paused_until=None, previous_secrets=(), rotated_at=None, disabled_reason=ep.disabled_reason or None)
        return True

    def get(self, tenant: str, endpoint_id: str) -> Endpoint | None:
        self.faults.check("get")
        return self.items.get((tenant, endpoint_id))

    @atomic
    def save(self, ep: Endpoint) -> bool:
        self.faults.check("save")
        stored = self.items.get((ep.tenant, ep.id))
        if stored is None:
            return False
        saved = replace(stored, **{name: getattr(ep, name) for name in SAVED_FIELDS})
        # The Ed25519 key is written once, by the change that first needed it (as the table's `if_not_exists`).
        self.items[(ep.tenant, ep.id)] = replace(saved, signing_key=stored.signing_key or ep.signing_key)
        return True

    @atomic
    def delete(self, tenant: str, endpoint_id: str) -> bool:
        self.faults.check("delete")
        return self.items.pop((tenant, endpoint_id), None) is not None

    @atomic
    def rotate_secret(self, tenant: str, endpoint_id: str, rotation: Rotation) -> tuple[bool, Endpoint | None]:
        self.faults.check("rotate_secret")
        stored = self.items.get((tenant, endpoint_id))
        if stored is None:
            return False, None
        if stored.secret != rotation.replaced:
            return False, stored
        previous = tuple(PreviousSecret(p.secret, round(p.valid_until, 3)) for p in rotation.previous)
        if rotation.new_key:
            keys = tuple(PreviousSecret(p.secret, round(p.valid_until, 3)) for p in rotation.previous_keys)
            stored = replace(stored, signing_key=rotation.new_key, previous_keys=keys)
        self.items[(tenant, endpoint_id)] = replace(
            stored, secret=rotation.new_secret, previous_secrets=previous, rotated_at=round(rotation.at, 3), updated_at=rotation.at_iso
        )
        return True, None

    def page(self, tenant: str, limit: int, cursor: str | None) -> tuple[list[Endpoint], str | None]:
        self.faults.check("page")
        mine = (ep for (t, _), ep in self.items.items() if t == tenant)
        return paging.page(mine, lambda ep: ep.id, f"endpoints#{tenant}", limit, cursor)

    def page_of_owner(self, tenant: str, customer: str | None, limit: int, cursor: str | None) -> tuple[list[Endpoint], str | None]:
        self.faults.check("page_of_owner")
        mine = (ep for (t, _), ep in self.items.items() if t == tenant and ep.customer == customer)
        return paging.page(mine, lambda ep: ep.id, f"owner#{tenant}#{customer or ''}", limit, cursor)

    def all_of_owner(self, tenant: str, customer: str | None) -> Iterator[Endpoint]:
        self.faults.check("all_of_owner")
        yield from sorted((ep for (t, _), ep in self.items.items() if t == tenant and ep.customer == customer), key=lambda ep: ep.id)

    def pinned(self, tenant: str, version: str, bound: int) -> tuple[list[str], bool]:
        self.faults.check("pinned")
        ids = sorted(ep.id for (t, _), ep in self.items.items() if t == tenant and ep.version == version)
        return ids[:bound], len(ids) > bound

    @atomic
    def pause(self, tenant: str, endpoint_id: str, until_epoch: float) -> None:
        self.faults.check("pause")
        stored = self.items.get((tenant, endpoint_id))
        until = round(until_epoch, 3)
        if stored is not None and (stored.paused_until is None or stored.paused_until < until):
            self.items[(tenant, endpoint_id)] = replace(stored, paused_until=until)

    @atomic
    def disable(self, tenant: str, endpoint_id: str, reason: str, now_iso: str) -> None:
        self.faults.check("disable")
        stored = self.items.get((tenant, endpoint_id))
        if stored is not None:
            self.items[(tenant, endpoint_id)] = replace(stored, status="disabled", disabled_reason=reason, updated_at=now_iso)

    @atomic
    def record_email(self, tenant: str, endpoint_id: str, outcome: EmailOutcome) -> None:
        self.faults.check("record_email")
        stored = self.items.get((tenant, endpoint_id))
        if stored is not None:
            self.items[(tenant, endpoint_id)] = replace(stored, last_email=outcome)
