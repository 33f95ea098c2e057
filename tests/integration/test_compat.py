"""Forward and backward compatible across one release: what the previous release wrote, this one reads, and the other way round.

During a canary deploy both releases run at once (docs/operations.md, "Deploys and
rollback"): a task queued by one is received by the other, and each reads the items
the other wrote. The previous release is its own code, taken from git at the commit
named in tests/compat_release.txt, and run in a separate interpreter: nothing of it is
copied here. Its writers and readers are exercised exactly as it ships them.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import tarfile
from decimal import Decimal
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from boto3.dynamodb.types import Binary

from hookline.adapters.dynamo import event_items, keys, state
from hookline.adapters.dynamo.endpoints import EndpointRepository
from hookline.core import ids
from hookline.core.models import LAYOUT_EVENT_KEYED, Delivery, DeliveryTask, Endpoint, Event, PlannedDelivery
from hookline.core.ratelimit import Limiter
from hookline.core.stats import Carried
from hookline.core.versions import BASE_VERSION, Renderings

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "layers/hookline/python"


def _encode(value: Any) -> Any:
    if isinstance(value, Binary):
        return {"__binary__": base64.b64encode(value.value).decode()}
    if isinstance(value, Decimal):
        return {"__decimal__": str(value)}
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_encode(v) for v in value]
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, dict):
        if "__binary__" in value:
            return Binary(base64.b64decode(value["__binary__"]))
        if "__decimal__" in value:
            return Decimal(value["__decimal__"])
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


# Run inside the previous release's interpreter: the same encoding, then its writers or its readers.
_PREVIOUS = """
import base64, json, sys
from dataclasses import asdict
from decimal import Decimal
from boto3.dynamodb.types import Binary
from hookline.adapters.dynamo import event_items
from hookline.adapters.dynamo.endpoints import EndpointRepository
from hookline.adapters.dynamo.state import _limiter
from hookline.core.models import Attempt, Delivery, DeliveryTask, Endpoint, Event, PlannedDelivery
from hookline.core.ratelimit import Limiter

def enc(v):
    if isinstance(v, Binary): return {"__binary__": base64.b64encode(v.value).decode()}
    if isinstance(v, Decimal): return {"__decimal__": str(v)}
    if isinstance(v, dict): return {k: enc(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)): return [enc(x) for x in v]
    return v

def dec(v):
    if isinstance(v, dict):
        if "__binary__" in v: return Binary(base64.b64decode(v["__binary__"]))
        if "__decimal__" in v: return Decimal(v["__decimal__"])
        return {k: dec(x) for k, x in v.items()}
    if isinstance(v, list): return [dec(x) for x in v]
    return v

if sys.argv[1] == "write":
    tasks = [
        DeliveryTask("acme", "evt_1", "dlv_1", "ep_1", 1, 0, fresh=True),
        DeliveryTask("acme", "evt_1", "dlv_1", "ep_1", 3, 2, trigger="manual", replay_id="rpl_1"),
        DeliveryTask("acme", "evt_1", "dlv_2", "ep_2", 8, 0, dead_lettered="exhausted"),
    ]
    event = Event.accepted("evt_1", "acme", "invoice.paid", "2026-11-30T10:00:00.000Z", {"amount": 1, "text": "x" * 900}, "h",
                           deliveries=(PlannedDelivery("dlv_1", "ep_1"), PlannedDelivery("dlv_2", "ep_2", paused=True)))
    delivery = Delivery("dlv_2", "acme", "evt_1", "ep_2", status="failed", attempts_made=2, created_at="2026-11-30T10:00:00.000Z",
                        updated_at="2026-11-30T10:05:00.000Z", generation=1, generation_first_attempt=2)
    attempt = Attempt(2, "2026-11-30T10:05:00.000Z", 503, None, 12, "retrying", "server error")
    endpoint = Endpoint("ep_1", "acme", "https://example.com/h", "whsec_x", ("invoice.paid",), customer="cus_1")
    print(json.dumps(enc({
        "tasks": [t.to_message() for t in tasks],
        "event": event_items.event_item(event, "expires_at", 1),
        "delivery": event_items.delivery_item(delivery, "expires_at", 1),
        "attempt": event_items.attempt_item(delivery, attempt, "expires_at", 1),
        "endpoint": EndpointRepository._to_item(endpoint),
        "limiter": {"pk": "LIM#acme#ep_1", "sk": "LIM", **{k: Decimal(str(v)) if isinstance(v, float) else v
                    for k, v in asdict(Limiter(tat=1796000000.5, leases=(1796000120.0,), version=4)).items() if v is not None}},
    })))
else:
    written = dec(json.load(sys.stdin))
    event = event_items.event_from(written["event"])
    print(json.dumps({
        "tasks": [asdict(DeliveryTask.from_message(m)) for m in written["tasks"]],
        "event": {"body": event.body, "deliveries": [asdict(d) for d in event.deliveries], "data": event.data},
        "delivery": {k: v for k, v in asdict(event_items.delivery_from(written["delivery"])).items() if k != "attempts"},
        "endpoint": {k: v for k, v in asdict(EndpointRepository.from_item(written["endpoint"])).items() if k in ("id", "url", "customer", "event_types")},
        "limiter": {k: v for k, v in asdict(_limiter(written["limiter"])).items() if k in ("tat", "leases", "version")},
    }))
"""


@pytest.fixture(scope="module")
def previous_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The previous release's package, as git holds it at the named commit."""
    commit = (ROOT / "tests" / "compat_release.txt").read_text().split()[0]
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", commit, PACKAGE], capture_output=True, check=False)
    assert archive.returncode == 0, f"the previous release ({commit}) is not in this clone's history: {archive.stderr.decode()[:300]}"
    target = tmp_path_factory.mktemp("previous")
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(target, filter="data")
    return target / PACKAGE


def _previous(package: Path, mode: str, stdin: str = "") -> Any:
    script = f"import sys; sys.path.insert(0, {str(package)!r})\n" + _PREVIOUS
    ran = subprocess.run([sys.executable, "-c", script, mode], input=stdin, capture_output=True, text=True, cwd=package, check=False)
    assert ran.returncode == 0, ran.stderr[-2000:]
    return json.loads(ran.stdout)


def test_the_previous_release_is_what_runs_in_the_other_process(previous_release: Path) -> None:
    # It predates the endpoint-keyed layout: it keeps deliveries in their events' partitions
    assert "LAYOUT_EVENT_KEYED" not in (previous_release / "hookline" / "core" / "models.py").read_text()


def test_this_release_reads_what_the_previous_one_wrote(previous_release: Path) -> None:
    written = _decode(_previous(previous_release, "write"))
    fresh, replayed, dead = (DeliveryTask.from_message(m) for m in written["tasks"])
    assert (fresh.fresh, fresh.version, replayed.trigger, replayed.replay_id, replayed.generation, dead.dead_lettered) == (
        True,
        "",
        "manual",
        "rpl_1",
        2,
        "exhausted",
    )
    event = event_items.event_from(written["event"])
    assert event.version is None and event.renderings == () and event.data == {"amount": 1, "text": "x" * 900}
    # A delivery without a version sends the event's only body, as the previous release did.
    assert event.body_for(fresh.version) == event.body and "version" not in json.loads(event.body)
    assert [(p.id, p.paused, p.version) for p in event.deliveries] == [("dlv_1", False, ""), ("dlv_2", True, "")]
    assert event.planned_delivery("dlv_1") == Delivery(
        "dlv_1", "acme", "evt_1", "ep_1", created_at=event.created_at, updated_at=event.created_at, generation_started_at=event.created_at
    )
    delivery = event_items.delivery_from(written["delivery"])
    assert (delivery.status, delivery.generation, delivery.version) == ("failed", 1, "")
    # Both are found where that release keeps them: the delivery in its event's partition, not its endpoint's log.
    assert (event.layout, delivery.layout) == (LAYOUT_EVENT_KEYED, LAYOUT_EVENT_KEYED)
    assert keys.delivery("acme", "evt_1", "dlv_2", delivery.layout) == {keys.PK: written["delivery"][keys.PK], keys.SK: written["delivery"][keys.SK]}
    # And it wrote the endpoint-log index's keys, which this release's log reads that release's deliveries by
    assert (written["delivery"][keys.GSI4_PK], written["delivery"][keys.GSI4_SK]) == (
        keys.log_partition("acme", "ep_2", keys.log_shard("dlv_2")),
        keys.log_sort(delivery.created_at, "dlv_2"),
    )
    assert DeliveryTask.of(delivery) == DeliveryTask("acme", "evt_1", "dlv_2", "ep_2", 3, 1)
    assert event_items.attempt_from(written["attempt"]).status_code == 503
    endpoint = EndpointRepository.from_item(written["endpoint"])
    assert (endpoint.version, endpoint.customer) == (BASE_VERSION, "cus_1")  # pinned to the first version
    # Its limiter item carries no statistics: this release reads it as carrying none
    assert state._limiter(written["limiter"]) == Limiter(tat=1796000000.5, leases=(1796000120.0,), version=4)


def test_the_previous_release_reads_what_this_one_writes(previous_release: Path) -> None:
    dlv_9 = ids.delivery_id("acme", "evt_2", "ep_9", 1_796_000_000_000)  # this release's ids name their endpoint
    tasks = [
        DeliveryTask("acme", "evt_2", dlv_9, "ep_9", 1, 0, fresh=True, version="2025-06-01"),
        DeliveryTask("acme", "evt_2", dlv_9, "ep_9", 2, 1, trigger="manual"),
        DeliveryTask("acme", "evt_2", dlv_9, "ep_9", 3, 1, wait_until=1_796_000_000),  # out of a wait in Step Functions
    ]
    renderings = Renderings("2026-10-01", {"2026-10-01": {"amount_cents": 5}, "2025-06-01": {"amount": 5}})
    event = Event.accepted(
        "evt_2",
        "acme",
        "invoice.paid",
        "2026-11-30T10:00:00.000Z",
        {"amount_cents": 5},
        "h",
        renderings=renderings,
        deliveries=(PlannedDelivery(dlv_9, "ep_9", version="2025-06-01"),),
        sunsets=(("2025-06-01", "2027-01-01T00:00:00.000Z"),),
    )
    delivery = Delivery(dlv_9, "acme", "evt_2", "ep_9", status="paused", created_at=event.created_at, updated_at=event.created_at, version="2025-06-01")
    endpoint = Endpoint("ep_9", "acme", "https://example.com/h", "whsec_x", customer="cus_2", version="2025-06-01")
    written = {
        "tasks": [t.to_message() for t in tasks],
        "event": event_items.event_item(event, "expires_at", 1),
        "delivery": event_items.delivery_item(delivery, "expires_at", 1),
        "endpoint": EndpointRepository._to_item(endpoint),
        # A limiter item carrying an hour's statistics (with the give-back): the previous release reads its pacing and leases
        "limiter": {
            **keys.limiter("acme", "ep_9"),
            **state._attributes(Limiter(tat=1_796_000_000.5, leases=(1_796_000_120.0,), version=4, carried=Carried("2026-11-30T10", (("attempts", 2),), "4"))),
        },
    }
    read = _previous(previous_release, "read", json.dumps(_encode(written)))
    assert [(t["attempt"], t["generation"], t["trigger"], t["fresh"]) for t in read["tasks"]] == [
        (1, 0, "scheduled", True),
        (2, 1, "manual", False),
        (3, 1, "scheduled", False),
    ]
    # It sends the event's own body (the default version's): a mixed deploy's only difference, said in docs/operations.md.
    assert json.loads(read["event"]["body"]) == json.loads(event.body) and read["event"]["data"] == {"amount_cents": 5}
    assert [(d["id"], d["endpoint_id"]) for d in read["event"]["deliveries"]] == [(dlv_9, "ep_9")]
    assert (read["delivery"]["status"], read["delivery"]["event_id"]) == ("paused", "evt_2")
    assert read["endpoint"] == {"id": "ep_9", "url": "https://example.com/h", "customer": "cus_2", "event_types": []}
    assert read["limiter"] == {"tat": 1_796_000_000.5, "leases": [1_796_000_120.0], "version": 4}
