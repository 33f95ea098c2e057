"""Per-endpoint delivery state in DynamoDB: the breaker and the limiter.

Each lives in an item of its own (keys.breaker, keys.limiter):
the limiter is written on every grant, the breaker only when health changes,
and the endpoint item almost never, so a busy endpoint's breaker and
configuration never become hot keys. Every save is conditional on the version
read, so all Lambda instances agree on one history; re-enabling an endpoint
resets its breaker outright.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, fields
from decimal import Decimal
from typing import Any

from hookline.adapters.dynamo import compat, keys
from hookline.adapters.dynamo.endpoints import EndpointRepository
from hookline.adapters.dynamo.ops import Refused, batch_get, try_write
from hookline.adapters.failures import translate_failures
from hookline.core.breaker import Breaker
from hookline.core.conflicts import Lost
from hookline.core.models import Endpoint
from hookline.core.ratelimit import Limiter, TokenLease
from hookline.core.stats import Carried

# The statistics a limiter item carries (hookline.core.stats.Carried): their hour, counters (a map) and token.
STATS_HOUR, STATS, STATS_TOKEN = "stats_hour", "stats", "stats_token"


def _to_dynamo(value: Any) -> Any:
    if isinstance(value, float):
        return Decimal(str(round(value, 6)))
    if isinstance(value, tuple | list):
        return [_to_dynamo(v) for v in value]
    return value


def _from_dynamo(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, list):
        return tuple(_from_dynamo(v) for v in value)
    return value


def _breaker(item: dict[str, Any] | None) -> Breaker:
    if not item:
        return Breaker()
    names = {f.name for f in fields(Breaker)}
    values = {k: _from_dynamo(v) for k, v in item.items() if k in names}
    for name in ("open_until", "open_since", "probe_until", "last_failure_at", "cooldown_seconds"):
        if isinstance(values.get(name), int):
            values[name] = float(values[name])
    return Breaker(**values)


def _limiter(item: dict[str, Any] | None) -> Limiter:
    if not item:
        return Limiter()
    names = {f.name for f in fields(Limiter)}
    values = {k: _from_dynamo(v) for k, v in item.items() if k in names}
    values["tat"] = float(values.get("tat", 0.0))
    values["leases"] = tuple(float(x) for x in values.get("leases", ()))
    if values.get("effective_rate") is not None:
        values["effective_rate"] = float(values["effective_rate"])
    values["adjusted_at"] = float(values.get("adjusted_at", 0.0))
    values["carried"] = carried_of(item)
    values["token_leases"] = tuple(_token_lease(entry) for entry in item.get("token_leases") or ())
    return Limiter(**values)


def _token_lease(entry: dict[str, Any]) -> TokenLease:
    return TokenLease(
        holder=str(entry["holder"]),
        rate=float(entry["rate"]),
        slots=int(entry["slots"]),
        start=float(entry["start"]),
        until=float(entry["until"]),
        slot_expiry=float(entry["slot_expiry"]),
    )


def carried_of(item: dict[str, Any] | None) -> Carried:
    """The statistics a limiter item carries (compat.limiter_carried: none on an item an earlier release wrote)."""
    item = item or {}
    return compat.limiter_carried(item.get(STATS_HOUR), item.get(STATS), item.get(STATS_TOKEN))


def _attributes(state: Breaker | Limiter) -> dict[str, Any]:
    values = asdict(state)
    values.pop("carried", None)
    token_leases = values.pop("token_leases", ())
    out = {k: _to_dynamo(v) for k, v in values.items() if v is not None}
    if token_leases:  # only a hot endpoint's item has them (an earlier release's reader leaves them alone)
        out["token_leases"] = [{k: _to_dynamo(v) for k, v in entry.items()} for entry in token_leases]
    if isinstance(state, Limiter) and state.carried.hour:
        out |= {STATS_HOUR: state.carried.hour, STATS: state.carried.as_dict(), STATS_TOKEN: state.carried.token}
    return out


@translate_failures
class EndpointStateRepository:
    def __init__(self, table: Any):
        self._table = table

    def load(self, tenant: str, endpoint_id: str) -> tuple[Endpoint | None, Breaker, Limiter]:
        """The endpoint, its breaker and its limiter in one BatchGetItem."""
        return self.load_many([(tenant, endpoint_id)])[(tenant, endpoint_id)]

    def load_many(self, endpoints: Sequence[tuple[str, str]]) -> dict[tuple[str, str], tuple[Endpoint | None, Breaker, Limiter]]:
        """`load` for each of a batch's endpoints (tenant, endpoint id), in one BatchGetItem per 100 keys (33 endpoints)."""
        pairs = list(dict.fromkeys(endpoints))
        wanted = {pair: (keys.endpoint(*pair), keys.breaker(*pair), keys.limiter(*pair)) for pair in pairs}
        found = {(item[keys.PK], item[keys.SK]): item for item in batch_get(self._table, [k for ks in wanted.values() for k in ks])}
        out: dict[tuple[str, str], tuple[Endpoint | None, Breaker, Limiter]] = {}
        for pair, ks in wanted.items():
            endpoint_item, breaker_item, limiter_item = (found.get((key[keys.PK], key[keys.SK])) for key in ks)
            out[pair] = (EndpointRepository.from_item(endpoint_item) if endpoint_item else None, _breaker(breaker_item), _limiter(limiter_item))
        return out

    def breaker(self, tenant: str, endpoint_id: str) -> Breaker:
        return _breaker(self._table.get_item(Key=keys.breaker(tenant, endpoint_id), ConsistentRead=True).get("Item"))

    def limiter(self, tenant: str, endpoint_id: str) -> Limiter:
        return _limiter(self._table.get_item(Key=keys.limiter(tenant, endpoint_id), ConsistentRead=True).get("Item"))

    def _save(self, key: keys.Key, state: Breaker | Limiter, expected_version: int) -> dict[str, Any] | None:
        """Write `state` if the item's version is still `expected_version`: None when it landed, else the item as it
        is now ({} if the refusal did not carry it). The refusal returns the item (ALL_OLD) at no read units, and the
        caller proposes again from it instead of reading it (hookline.services.cas)."""
        result = try_write(
            self._table.put_item,
            Item={**key, **_attributes(state)},
            ConditionExpression=f"attribute_not_exists({keys.PK}) OR version = :v",
            ExpressionAttributeValues={":v": expected_version},
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
        return (result.item or {}) if isinstance(result, Refused) else None

    def save_breaker(self, tenant: str, endpoint_id: str, state: Breaker, expected_version: int) -> bool | Lost[Breaker]:
        """Write the breaker if nobody changed it since `expected_version`: True, or Lost with the breaker as it is."""
        now = self._save(keys.breaker(tenant, endpoint_id), state, expected_version)
        return True if now is None else Lost(_breaker(now) if now else None)

    def reset_breaker(self, tenant: str, endpoint_id: str) -> None:
        """A fresh, closed breaker (re-enabling an endpoint); it keeps counting trips."""
        old = self.breaker(tenant, endpoint_id)
        self._table.put_item(Item={**keys.breaker(tenant, endpoint_id), "state": "closed", "trips": old.trips, "version": old.version + 1})

    def save_limiter(self, tenant: str, endpoint_id: str, state: Limiter, expected_version: int) -> bool | Lost[Limiter]:
        """Write the limiter if nobody changed it since `expected_version`: True, or Lost with the limiter as it is."""
        now = self._save(keys.limiter(tenant, endpoint_id), state, expected_version)
        return True if now is None else Lost(_limiter(now) if now else None)
