"""Endpoint management: create, read, change, delete. Every call is tenant-scoped."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from hookline import ids, signing, validation
from hookline.clock import iso
from hookline.errors import NotFound
from hookline.models import Endpoint
from hookline.settings import Settings
from hookline.store import EndpointRepository, is_conditional_failure


class EndpointService:
    def __init__(self, repo: EndpointRepository, settings: Settings, clock: Callable[[], datetime]):
        self._repo = repo
        self._settings = settings
        self._clock = clock

    def create(self, tenant: str, body: dict[str, Any]) -> dict[str, Any]:
        data = validation.endpoint_create(body, self._settings.allow_private_networks)
        now = iso(self._clock())
        ep = Endpoint(
            id=ids.new_id(ids.ENDPOINT),
            tenant=tenant,
            url=data.url,
            secret=signing.generate_secret(),
            event_types=data.event_types,
            description=data.description,
            created_at=now,
            updated_at=now,
        )
        self._repo.create(ep)
        # The secret is shown here and on rotation, never again.
        return {**ep.public(), "secret": ep.secret}

    def get(self, tenant: str, endpoint_id: str) -> Endpoint:
        ep = self._repo.get(tenant, endpoint_id) if ids.is_id(endpoint_id, ids.ENDPOINT) else None
        if ep is None:
            raise NotFound(f"endpoint {endpoint_id[:64]} not found")
        return ep

    def list(self, tenant: str, limit: int, cursor: str | None) -> dict[str, Any]:
        items, nxt = self._repo.page(tenant, limit, cursor)
        return {"items": [e.public() for e in items], "next": nxt}

    def update(self, tenant: str, endpoint_id: str, body: dict[str, Any]) -> Endpoint:
        current = self.get(tenant, endpoint_id)
        changes = validation.endpoint_patch(body, self._settings.allow_private_networks)
        if changes.get("status") == "active":
            changes["disabled_reason"] = None
        elif changes.get("status") == "disabled" and current.status != "disabled":
            changes["disabled_reason"] = "manual"
        updated = replace(current, **changes, updated_at=iso(self._clock()))
        try:
            self._repo.save(updated)
        except ClientError as exc:
            if is_conditional_failure(exc):
                raise NotFound(f"endpoint {endpoint_id} not found") from None
            raise
        return updated

    def delete(self, tenant: str, endpoint_id: str) -> None:
        if not ids.is_id(endpoint_id, ids.ENDPOINT) or not self._repo.delete(tenant, endpoint_id):
            raise NotFound(f"endpoint {endpoint_id[:64]} not found")
