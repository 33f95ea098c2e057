"""Endpoints in the data table: one item per endpoint under its tenant's partition (keys.endpoint), each
also in the customer-endpoints index under its owner (keys.owner_keys): one customer, or the tenant itself.

Every change is conditional on the endpoint still existing, so a concurrent
delete wins: `save`, `rotate_secret` and `delete` then answer False, `pause`
and `disable` do nothing. A rotation is also conditional on the secret it read:
of concurrent rotations one lands.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from hookline.adapters.dynamo import compat, keys
from hookline.adapters.dynamo.conditions import Attr, Key
from hookline.adapters.dynamo.ops import Refused, query_all, query_page, transact_write, try_write, write_if
from hookline.adapters.failures import translate_failures
from hookline.core.auth import EndpointAuth
from hookline.core.destinations import Destination, parse_destination
from hookline.core.errors import DependencyFailed
from hookline.core.filters import parse_filter
from hookline.core.models import DEFAULT_MAX_CONCURRENCY, DEFAULT_RATE_LIMIT_PER_SECOND, EmailOutcome, Endpoint
from hookline.core.rotation import LiveSecret, PreviousSecret, Rotation
from hookline.core.schemes import DEFAULT as DEFAULT_SIGNING
from hookline.core.schemes import Signing, parse_signing
from hookline.core.versions import BASE_VERSION

_log = logging.getLogger(__name__)

# How long the tenant's own endpoints are still read from the table once its mark says all of them are in the
# customer-endpoints index: an endpoint the mark's own read gave index keys to is in the (eventually consistent)
# index within a second or so, and an event must not miss it meanwhile.
OWN_INDEX_SETTLE_SECONDS = 60.0
OWNED_COUNT = "endpoints"  # the attribute of an owner's count of endpoints (keys.owned_endpoints)


@translate_failures
class EndpointRepository:
    def __init__(self, table: Any, settle_seconds: float = OWN_INDEX_SETTLE_SECONDS):
        self._table = table
        self._settle = settle_seconds
        # By tenant, from when its own endpoints are read from the index (its mark's `index_from`, epoch seconds).
        # A mark is never removed, so a process reads it once per tenant.
        self._own_indexed_from: dict[str, float] = {}
        # Owners (tenant, customer) whose count of endpoints this process saw stored: a count is never removed.
        self._owners_counted: set[tuple[str, str | None]] = set()

    @staticmethod
    def _to_item(ep: Endpoint) -> dict[str, Any]:
        item: dict[str, Any] = {
            **keys.endpoint(ep.tenant, ep.id),
            "id": ep.id,
            "tenant": ep.tenant,
            "url": ep.url,
            "secret": ep.secret,
            "event_types": list(ep.event_types),
            "description": ep.description,
            "status": ep.status,
            "rate_limit_per_second": Decimal(str(ep.rate_limit_per_second)),
            "max_concurrency": ep.max_concurrency,
            "headers": dict(ep.headers),
            "created_at": ep.created_at,
            "updated_at": ep.updated_at,
            "version": ep.version,
            **keys.owner_keys(ep.tenant, ep.customer, ep.id),
            **keys.version_keys(ep.tenant, ep.version, ep.id),
        }
        if ep.customer:
            item["customer"] = ep.customer
        if ep.disabled_reason:
            item["disabled_reason"] = ep.disabled_reason
        if ep.last_email is not None:
            item["last_email"] = _email_item(ep.last_email)
        if ep.filter is not None:
            item["filter"] = ep.filter.source
        if ep.destination is not None:
            item["destination"] = json.dumps(ep.destination.to_json(), separators=(",", ":"))
        if ep.external_id:
            item["external_id"] = ep.external_id
        if ep.ordered:
            item["ordered"] = True
        if not ep.signing.is_default:
            item["signing"] = _signing_item(ep.signing)
        if ep.auth is not None:
            item["auth"] = ep.auth.to_item()  # its secrets sealed (hookline.adapters.sealing): never in the clear
        return {**item, **_keys_item(ep.signing_key, ep.previous_keys)}

    @staticmethod
    def from_item(item: dict[str, Any]) -> Endpoint:
        return Endpoint(
            id=item["id"],
            tenant=item["tenant"],
            url=item["url"],
            secret=item["secret"],
            event_types=tuple(item.get("event_types") or ()),
            description=item.get("description", ""),
            status=item.get("status", "active"),
            disabled_reason=item.get("disabled_reason"),
            created_at=item.get("created_at", ""),
            updated_at=item.get("updated_at", ""),
            paused_until=float(item["paused_until"]) if item.get("paused_until") is not None else None,
            rate_limit_per_second=float(item.get("rate_limit_per_second", DEFAULT_RATE_LIMIT_PER_SECOND)),
            max_concurrency=int(item.get("max_concurrency", DEFAULT_MAX_CONCURRENCY)),
            headers=tuple((str(k), str(v)) for k, v in (item.get("headers") or {}).items()),
            previous_secrets=compat.endpoint_previous_secrets(item.get("previous_secrets"), item.get("previous_secret")),
            rotated_at=float(item["rotated_at"]) if item.get("rotated_at") is not None else None,
            customer=item.get("customer"),
            version=str(item.get("version") or BASE_VERSION),  # an endpoint stored before versions receives the first one
            last_email=_email_outcome(item.get("last_email")),
            filter=parse_filter(json.loads(item["filter"])) if item.get("filter") else None,
            destination=_destination(item.get("destination")),
            external_id=item.get("external_id", ""),
            ordered=bool(item.get("ordered", False)),
            signing=parse_signing(json.loads(item["signing"])) if item.get("signing") else DEFAULT_SIGNING,
            signing_key=item.get("signing_key", ""),
            previous_keys=tuple(PreviousSecret(str(p["secret"]), float(p["valid_until"])) for p in item.get("previous_keys") or ()),
            auth=EndpointAuth.from_item(item.get("auth")),
        )

    def create(self, ep: Endpoint, most: int) -> bool:
        """Store a new endpoint and count it on its owner (keys.owned_endpoints), in one transaction: False, and
        nothing written, when the owner already has `most` endpoints. An endpoint with the id already stored raises.

        The count can be off where something else wrote endpoints: the previous release, during a deploy, creates and
        deletes them without it. A refusal therefore counts the owner's endpoints again and, if they are fewer than
        the count says, corrects it (conditionally on the count it read) and tries once more."""
        counter = self._counted(ep.tenant, ep.customer)
        put = {"Put": {"Item": self._to_item(ep), "ConditionExpression": f"attribute_not_exists({keys.PK})"}}
        add = {
            "Update": {
                **counter,
                "UpdateExpression": "ADD #n :one",
                "ConditionExpression": "#n < :most",
                "ExpressionAttributeValues": {":one": 1, ":most": most},
            }
        }
        refused = transact_write(self._table, put, add)
        if refused == [False, True] and self._recounted(ep.tenant, ep.customer, counter):
            refused = transact_write(self._table, put, add)
        if refused == [False, True]:
            return False
        if refused:
            raise DependencyFailed(f"endpoint {ep.id} exists", cause="ConditionalCheckFailedException")
        return True

    def _recounted(self, tenant: str, customer: str | None, counter: dict[str, Any]) -> bool:
        """Whether the owner's count said more endpoints than it has, and was set to what it has."""
        stored = (self._table.get_item(Key=counter["Key"], ConsistentRead=True).get("Item") or {}).get(OWNED_COUNT)
        real = self._count_of_owner(tenant, customer)
        if stored is None or real >= int(stored):
            return False
        corrected = write_if(
            self._table.update_item,
            Key=counter["Key"],
            UpdateExpression="SET #n = :real",
            ConditionExpression="#n = :stored",
            ExpressionAttributeNames=counter["ExpressionAttributeNames"],
            ExpressionAttributeValues={":real": real, ":stored": stored},
        )
        if corrected is not None:
            _log.warning("an owner's count of endpoints corrected", extra={"tenant": tenant, "customer": customer, "counted": int(stored), "found": real})
        return corrected is not None

    def save(self, ep: Endpoint) -> bool:
        """Write the fields a caller may change; False if the endpoint no longer exists (a concurrent delete wins).

        An update, not a put, so it never overwrites state the workers own (the pause). The owner is fixed at
        creation; an item written before the customer-endpoints index existed gets its index keys (the
        tenant's own) here.
        """
        names = {
            "#u": "url",
            "#t": "event_types",
            "#d": "description",
            "#s": "status",
            "#r": "disabled_reason",
            "#at": "updated_at",
            "#rl": "rate_limit_per_second",
            "#mc": "max_concurrency",
            "#h": "headers",
            "#op": keys.GSI2_PK,
            "#oi": keys.GSI2_SK,
            "#v": "version",
            "#vp": keys.GSI3_PK,
            "#vi": keys.GSI3_SK,
            "#f": "filter",
            "#dn": "destination",
            "#x": "external_id",
            "#sg": "signing",
            "#au": "auth",
        }
        values = {
            ":u": ep.url,
            ":t": list(ep.event_types),
            ":d": ep.description,
            ":s": ep.status,
            ":r": ep.disabled_reason,
            ":at": ep.updated_at,
            ":rl": Decimal(str(ep.rate_limit_per_second)),
            ":mc": ep.max_concurrency,
            ":h": dict(ep.headers),
            ":op": keys.owner_partition(ep.tenant, ep.customer),
            ":oi": ep.id,
            ":v": ep.version,
            ":vp": keys.version_partition(ep.tenant, ep.version),
            ":f": ep.filter.source if ep.filter is not None else "",  # "": none
            ":dn": json.dumps(ep.destination.to_json(), separators=(",", ":")) if ep.destination is not None else "",  # "": HTTP to the url
            ":x": ep.external_id,
            ":sg": _signing_item(ep.signing) if not ep.signing.is_default else "",  # "": the default
            ":au": ep.auth.to_item() if ep.auth is not None else "",  # "": none
        }
        # The Ed25519 key is written once, by the change that first needed it: a rotation's later key is never overwritten.
        key = ", #sk = if_not_exists(#sk, :sk)" if ep.signing_key else ""
        if key:
            names["#sk"], values[":sk"] = "signing_key", ep.signing_key
        saved = write_if(
            self._table.update_item,
            Key=keys.endpoint(ep.tenant, ep.id),
            UpdateExpression="SET #u = :u, #t = :t, #d = :d, #s = :s, #r = :r, #at = :at, #rl = :rl, #mc = :mc, #h = :h, #op = if_not_exists(#op, :op), #oi = if_not_exists(#oi, :oi), #v = :v, #vp = :vp, #vi = :oi, #f = :f, #dn = :dn, #x = :x, #sg = :sg, #au = :au"
            + key,
            ConditionExpression=Attr(keys.PK).exists(),
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
        )
        return saved is not None

    def rotate_secret(self, tenant: str, endpoint_id: str, rotation: Rotation) -> tuple[bool, Endpoint | None]:
        """Make `rotation.new_secret` the current secret and keep `rotation.previous` (each signing until its end), only
        if the current secret is still `rotation.replaced`: one update conditional on the secret the rotation read, so
        of two rotations that read the same state one lands. (True, None) when it landed; (False, the endpoint as it
        is now) when another rotation landed first; (False, None) when the endpoint is gone.

        `previous_secret` is written too (the secret replaced): the last release reads that one previous secret, so a
        rollback keeps signing with it until rotated_at + the overlap."""
        names = {"#s": "secret", "#ps": "previous_secrets", "#p": "previous_secret", "#r": "rotated_at", "#u": "updated_at"}
        values = {
            ":s": rotation.new_secret,
            ":ps": _previous_item(rotation.previous),
            ":p": rotation.replaced,
            ":r": Decimal(str(round(rotation.at, 3))),
            ":u": rotation.at_iso,
        }
        keys_set = ""
        if rotation.new_key:  # an Ed25519 endpoint's key pair rotates with the secret
            names |= {"#sk": "signing_key", "#pk": "previous_keys"}
            stored = _keys_item(rotation.new_key, rotation.previous_keys)
            values |= {":sk": stored["signing_key"], ":pk": stored["previous_keys"]}
            keys_set = ", #sk = :sk, #pk = :pk"
        result = try_write(
            self._table.update_item,
            Key=keys.endpoint(tenant, endpoint_id),
            UpdateExpression="SET #s = :s, #ps = :ps, #p = :p, #r = :r, #u = :u" + keys_set,
            ConditionExpression=f"attribute_exists({keys.PK}) AND #s = :p",
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
        if isinstance(result, Refused):
            return False, self.from_item(result.item) if result.item else None
        return True, None

    def pause(self, tenant: str, endpoint_id: str, until_epoch: float) -> None:
        """Pause every delivery to the endpoint until `until_epoch`; a longer pause already set wins."""
        write_if(
            self._table.update_item,
            Key=keys.endpoint(tenant, endpoint_id),
            UpdateExpression="SET paused_until = :t",
            ConditionExpression=f"attribute_exists({keys.PK}) AND (attribute_not_exists(paused_until) OR paused_until < :t)",
            ExpressionAttributeValues={":t": Decimal(str(round(until_epoch, 3)))},
        )

    def disable(self, tenant: str, endpoint_id: str, reason: str, now_iso: str) -> None:
        """Disable the endpoint, unless it no longer exists."""
        write_if(
            self._table.update_item,
            Key=keys.endpoint(tenant, endpoint_id),
            UpdateExpression="SET #s = :s, disabled_reason = :r, updated_at = :now",
            ConditionExpression=f"attribute_exists({keys.PK})",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={":s": "disabled", ":r": reason, ":now": now_iso},
        )

    def record_email(self, tenant: str, endpoint_id: str, outcome: EmailOutcome) -> None:
        """Keep how the last customer email about the endpoint went (one write per email), unless the endpoint is gone.

        Not `updated_at`: that names the endpoint's configuration, and a disable's email marker is keyed by it."""
        write_if(
            self._table.update_item,
            Key=keys.endpoint(tenant, endpoint_id),
            UpdateExpression="SET last_email = :e",
            ConditionExpression=f"attribute_exists({keys.PK})",
            ExpressionAttributeValues={":e": _email_item(outcome)},
        )

    def get(self, tenant: str, endpoint_id: str) -> Endpoint | None:
        item = self._table.get_item(Key=keys.endpoint(tenant, endpoint_id)).get("Item")
        return self.from_item(item) if item else None

    def delete(self, tenant: str, endpoint_id: str) -> bool:
        """Delete the endpoint and count it off its owner, in one transaction: False if it is not there (or a
        concurrent delete won)."""
        item = self._table.get_item(Key=keys.endpoint(tenant, endpoint_id), ConsistentRead=True).get("Item")
        if item is None:
            return False
        counter = self._counted(tenant, item.get("customer"))
        refused = transact_write(
            self._table,
            {"Delete": {"Key": keys.endpoint(tenant, endpoint_id), "ConditionExpression": f"attribute_exists({keys.PK})"}},
            {"Update": {**counter, "UpdateExpression": "ADD #n :less", "ExpressionAttributeValues": {":less": -1}}},
        )
        return not refused

    def _counted(self, tenant: str, customer: str | None) -> dict[str, Any]:
        """The owner's count of endpoints, as a transaction's Update names it. An owner no count was kept for yet (its
        endpoints stored by a release before the count) is counted first, once: the count is put only if still absent,
        so two processes counting at once agree, and every create and delete after it goes through a transaction."""
        key = keys.owned_endpoints(tenant, customer)
        if (tenant, customer) not in self._owners_counted:
            if self._table.get_item(Key=key, ConsistentRead=True).get("Item") is None:
                count = self._count_of_owner(tenant, customer)
                write_if(self._table.put_item, Item={**key, OWNED_COUNT: count}, ConditionExpression=Attr(keys.PK).not_exists())
            self._owners_counted.add((tenant, customer))
        return {"Key": key, "ExpressionAttributeNames": {"#n": OWNED_COUNT}}

    def _count_of_owner(self, tenant: str, customer: str | None) -> int:
        """How many endpoints the owner has, counted where an earlier release kept them: a customer's in the
        customer-endpoints index, the tenant's own in its partition of the table (one stored before the index has no
        index keys). Once per owner (`_counted`); the reads cost what the owner's endpoints cost."""
        query: dict[str, Any] = (
            {"IndexName": keys.CUSTOMER_INDEX, "KeyConditionExpression": Key(keys.GSI2_PK).eq(keys.owner_partition(tenant, customer))}
            if customer
            else {"KeyConditionExpression": self._of_tenant(tenant), "FilterExpression": Attr("customer").not_exists()}
        )
        count = 0
        while True:
            page = self._table.query(**query, Select="COUNT")
            count += int(page.get("Count", 0))
            if "LastEvaluatedKey" not in page:
                return count
            query["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def page(self, tenant: str, limit: int, cursor: str | None) -> tuple[list[Endpoint], str | None]:
        items, cursor = query_page(self._table, limit, cursor, keys.tenant_partition(tenant), KeyConditionExpression=self._of_tenant(tenant))
        return [self.from_item(i) for i in items], cursor

    def all_of_owner(self, tenant: str, customer: str | None) -> Iterator[Endpoint]:
        """Every endpoint of one customer, or (None) the tenant's own, in id order.

        Both come from that owner's partition of the customer-endpoints index
        (all attributes projected): the read costs what the owner's endpoints
        cost, and no other customer's endpoint passes by, however many the
        tenant has. The tenant's own are read from the tenant's partition of the
        table instead (every endpoint of the tenant, filtered to those without a
        customer) until its mark (keys.own_endpoints_indexed) says they are all
        in the index: an endpoint a release before the index (cca7b4a) stored
        carries no index keys until a save, and an event must never miss it.
        The first such read gives those endpoints their keys and writes the
        mark; the index is read from OWN_INDEX_SETTLE_SECONDS later on.
        """
        if customer or self._own_indexed(tenant):
            partition = keys.owner_partition(tenant, customer)
            found: Iterable[dict[str, Any]] = query_all(self._table, IndexName=keys.CUSTOMER_INDEX, KeyConditionExpression=Key(keys.GSI2_PK).eq(partition))
        else:
            found = self._own_from_the_table(tenant)
        for item in found:
            yield self.from_item(item)

    def _own_indexed(self, tenant: str) -> bool:
        """Whether the tenant's own endpoints are read from the index now: its mark is written, and settled."""
        since = self._own_indexed_from.get(tenant)
        if since is None:
            mark = self._table.get_item(Key=keys.own_endpoints_indexed(tenant)).get("Item")
            if mark is None:
                return False
            since = self._own_indexed_from[tenant] = float(mark["index_from"])
        return time.time() >= since

    def _own_from_the_table(self, tenant: str) -> list[dict[str, Any]]:
        """The tenant's own endpoints from its partition of the table; while it has no mark, those without index
        keys get them, and the mark is written."""
        items = list(query_all(self._table, KeyConditionExpression=self._of_tenant(tenant), FilterExpression=Attr("customer").not_exists()))
        if tenant not in self._own_indexed_from:
            self._index_own(tenant, [str(i["id"]) for i in items if keys.GSI2_PK not in i])
        return items

    def _index_own(self, tenant: str, unindexed: list[str]) -> None:
        """Give the tenant's own endpoints that lack them their index keys, then mark the tenant (`index_from`: when
        the index may be read). No writer stores an endpoint without its keys any more, so once the mark is written
        every endpoint of the tenant is in the index. Best effort: the read that found them stands, and the next
        read without a mark tries again."""
        try:
            for endpoint_id in unindexed:
                write_if(
                    self._table.update_item,
                    Key=keys.endpoint(tenant, endpoint_id),
                    UpdateExpression="SET #op = if_not_exists(#op, :op), #oi = if_not_exists(#oi, :oi)",
                    ConditionExpression=Attr(keys.PK).exists() & Attr("customer").not_exists(),
                    ExpressionAttributeNames={"#op": keys.GSI2_PK, "#oi": keys.GSI2_SK},
                    ExpressionAttributeValues={":op": keys.owner_partition(tenant, None), ":oi": endpoint_id},
                )
            since = round(time.time() + self._settle, 3)
            self._table.put_item(Item={**keys.own_endpoints_indexed(tenant), "tenant": tenant, "index_from": Decimal(str(since))})
        except (ClientError, BotoCoreError) as exc:
            _log.warning(
                "the tenant's own endpoints were not marked indexed", extra={"tenant": tenant, "unindexed": len(unindexed), "cause": type(exc).__name__}
            )
            return
        self._own_indexed_from[tenant] = since

    def page_of_owner(self, tenant: str, customer: str | None, limit: int, cursor: str | None) -> tuple[list[Endpoint], str | None]:
        """A page of one owner's endpoints in id order, and the cursor to the next (None at the end)."""
        partition = keys.owner_partition(tenant, customer)
        items, nxt = query_page(self._table, limit, cursor, partition, IndexName=keys.CUSTOMER_INDEX, KeyConditionExpression=Key(keys.GSI2_PK).eq(partition))
        return [self.from_item(i) for i in items], nxt

    def pinned(self, tenant: str, version: str, bound: int) -> tuple[list[str], bool]:
        """The ids of the endpoints pinned to `version`, reading at most `bound` index keys: `more` means "at least that many"."""
        found: list[str] = []
        query: dict[str, Any] = {"IndexName": keys.VERSION_INDEX, "KeyConditionExpression": Key(keys.GSI3_PK).eq(keys.version_partition(tenant, version))}
        while len(found) <= bound:
            page = self._table.query(**query, Limit=bound + 1 - len(found))
            found.extend(str(i[keys.GSI3_SK]) for i in page.get("Items", []))
            if "LastEvaluatedKey" not in page:
                break
            query["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        return found[:bound], len(found) > bound

    @staticmethod
    def _of_tenant(tenant: str) -> Any:
        return Key(keys.PK).eq(keys.tenant_partition(tenant)) & Key(keys.SK).begins_with(keys.ENDPOINT_PREFIX)


def _destination(stored: str | None) -> Destination | None:
    """The stored destination (JSON as the API shows it), checked by the rules it was accepted by; none for an HTTP endpoint."""
    if not stored:
        return None
    parsed = parse_destination({k: v for k, v in json.loads(stored).items() if v is not None}, stored=True)
    return parsed if isinstance(parsed, Destination) else None


def _signing_item(signing: Signing) -> str:
    """A `signing` other than the default, as JSON the API takes (parse_signing reads it back); the default is left out."""
    return json.dumps(signing.to_json(), separators=(",", ":"))


def _previous_item(previous: Iterable[PreviousSecret | LiveSecret]) -> list[dict[str, Any]]:
    return [{"secret": p.secret, "valid_until": Decimal(str(round(p.valid_until or 0.0, 3)))} for p in previous]


def _keys_item(signing_key: str, previous_keys: Iterable[PreviousSecret | LiveSecret]) -> dict[str, Any]:
    """Where an endpoint's Ed25519 private keys are kept (`signing_key`, `previous_keys`), the one place that writes
    them: beside the HMAC secrets, as those are kept. Nothing for an endpoint without a key."""
    if not signing_key:
        return {}
    return {"signing_key": signing_key, "previous_keys": _previous_item(previous_keys)}


def _email_item(outcome: EmailOutcome) -> dict[str, str]:
    item = {"outcome": outcome.outcome, "at": outcome.at, "about": outcome.about}
    if outcome.error:
        item["error"] = outcome.error
    return item


def _email_outcome(item: Any) -> EmailOutcome | None:
    if not isinstance(item, dict) or item.get("outcome") not in ("sent", "failed"):
        return None
    return EmailOutcome("failed" if item["outcome"] == "failed" else "sent", str(item.get("at", "")), str(item.get("about", "")), str(item.get("error", "")))
