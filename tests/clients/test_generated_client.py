"""A client generated from docs/openapi.yaml by a third-party tool, against the real service in local mode.

openapi-python-client (pinned in requirements-dev.txt) generates a package from the document, which must come
out whole: no warning, no schema dropped. The package is imported and drives local mode through a producer's day:
a customer, an endpoint for it, an event and a batch, the event and its deliveries read back, the failed ones
listed, a portal session. Every answer must parse into the document's typed model: a response the document
describes wrongly parses to None (or raises), and a request it describes wrongly is refused.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from local.receiver import WebhookReceiver
from local.run import LocalHookline
from tests.support.waiting import wait_for

pytestmark = pytest.mark.slow

SPEC = Path(__file__).resolve().parents[2] / "docs" / "openapi.yaml"
PACKAGE = "hookline_api_client"  # the generator's name for the document's title, "hookline API"
UID = "org_generated"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The generated package, imported from a temporary directory (and forgotten afterwards)."""
    where = tmp_path_factory.mktemp("generated")
    config = where / "config.yaml"
    config.write_text("post_hooks: []\n")  # no formatter run on the output: it is imported, not read
    command = [sys.executable, "-m", "openapi_python_client", "generate", "--path", str(SPEC), "--meta", "none"]
    done = subprocess.run(
        [*command, "--output-path", str(where / PACKAGE), "--config", str(config), "--fail-on-warning"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "warning" not in output.lower(), output
    assert "unable to" not in output.lower(), output
    sys.path.insert(0, str(where))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(where))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def module(name: str) -> Any:
    """A module of the generated package, e.g. `api.customers.put_customer` or `models`."""
    return importlib.import_module(f"{PACKAGE}.{name}")


def parsed[T](response: Any, model: type[T], status: int) -> T:
    """The typed model a call answered with, after checking its status: never None, never another type."""
    assert response.status_code == status, (response.status_code, response.content[:500])
    assert isinstance(response.parsed, model), (type(response.parsed), response.content[:500])
    return response.parsed


def test_generated_client_drives_local_mode(generated: ModuleType, hookline: LocalHookline) -> None:
    m = module("models")
    api = generated.AuthenticatedClient(base_url=hookline.base_url, token=hookline.api_key, raise_on_unexpected_status=True, timeout=10)
    with WebhookReceiver(port=0) as ok_receiver, WebhookReceiver(port=0, status=400) as failing_receiver, api as client:
        # A customer, created, read back and listed
        put = module("api.customers.put_customer").sync_detailed
        body = m.PutCustomer(name="Generated Client Org", metadata=m.CustomerMetadata.from_dict({"plan": "pro"}))
        customer = parsed(put(UID, client=client, body=body), m.Customer, 201)
        assert (customer.uid, customer.metadata.to_dict(), customer.limits.max_concurrency) == (UID, {"plan": "pro"}, 100)
        assert parsed(module("api.customers.get_customer").sync_detailed(UID, client=client), m.Customer, 200).created_at == customer.created_at
        page = parsed(module("api.customers.list_customers").sync_detailed(client=client, limit=10), m.CustomerPage, 200)
        assert UID in [c.uid for c in page.items]

        # Two endpoints of it: one that accepts invoice.paid, one that refuses invoice.failed (400: not retried)
        create = module("api.endpoints.create_endpoint").sync_detailed
        ok = parsed(create(client=client, body=m.CreateEndpoint(url=ok_receiver.url, customer=UID, event_types=["invoice.paid"])), m.EndpointCreated, 201)
        failing_body = m.CreateEndpoint(url=failing_receiver.url, customer=UID, event_types=["invoice.failed"])
        failing = parsed(create(client=client, body=failing_body), m.EndpointCreated, 201)
        assert ok.secret.startswith("whsec_") and failing.customer == UID

        # An event to it, and a batch of two (one refused by its receiver)
        event_body = m.CreateEvent(type_="invoice.paid", data=m.CreateEventData.from_dict({"invoice": "in_1", "amount": 4200}), customer=UID)
        sent = parsed(module("api.events.create_event").sync_detailed(client=client, body=event_body), m.EventAccepted, 202)
        assert sent.id.startswith("evt_") and sent.deliveries == 1
        batch_body = m.CreateEventBatch(
            events=[
                m.CreateEvent(type_="invoice.paid", data=m.CreateEventData.from_dict({"invoice": "in_2"}), customer=UID, id="generated-in_2-paid"),
                m.CreateEvent(type_="invoice.failed", data=m.CreateEventData.from_dict({"invoice": "in_3"}), customer=UID),
            ]
        )
        batch = parsed(module("api.events.create_events").sync_detailed(client=client, body=batch_body), m.EventBatchAccepted, 202)
        assert (batch.accepted, batch.failed) == (2, 0)
        assert all(isinstance(r, m.EventBatchResultType0) and r.deliveries == 1 for r in batch.results), batch.results

        # The event read back once delivered, and its delivery with its attempts
        get_event = module("api.events.get_event").sync_detailed

        def delivered() -> Any:
            event = parsed(get_event(sent.id, client=client), m.Event, 200)
            return event if [d.status for d in event.deliveries] == [m.DeliveryStatus.SUCCEEDED] else None

        event = wait_for(delivered)
        assert (event.type_, event.customer, event.data.to_dict()) == ("invoice.paid", UID, {"invoice": "in_1", "amount": 4200})
        [delivery] = event.deliveries
        detail = parsed(module("api.events.get_delivery").sync_detailed(sent.id, delivery.id, client=client), m.DeliveryDetail, 200)
        assert (detail.endpoint_id, detail.event_type, [a.status_code for a in detail.attempts]) == (ok.id, "invoice.paid", [200])

        # The refused one listed as failed under its endpoint
        listing = module("api.endpoints.list_endpoint_deliveries").sync_detailed

        def failed() -> Any:
            return parsed(listing(failing.id, client=client, status=m.ListEndpointDeliveriesStatus.FAILED), m.DeliveryPage, 200).items

        [failure] = wait_for(failed)
        assert (failure.event_id, failure.endpoint_id, failure.status) == (batch.results[1].id, failing.id, m.DeliveryStatus.FAILED)
        detail = parsed(module("api.events.get_delivery").sync_detailed(failure.event_id, failure.id, client=client), m.DeliveryDetail, 200)
        assert [(a.status_code, a.outcome) for a in detail.attempts] == [(400, m.AttemptOutcome.FAILED)]

        # A portal session for the customer
        session_body = m.CreatePortalSession(ttl_seconds=600, read_only=True)
        session = parsed(module("api.customers.create_portal_session").sync_detailed(UID, client=client, body=session_body), m.PortalSession, 201)
        assert session.token.startswith("hps_") and (session.customer, session.read_only) == (UID, True)


def test_the_generated_client_has_one_model_per_destination_type_with_the_servers_patterns(generated: ModuleType) -> None:
    # Given the generated package and the document it was made from
    from hookline.core.contract.destinations import MODELS
    from hookline.core.destinations import KINDS, ROLE_ARN

    m = module("models")
    spec = yaml.load(SPEC.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)["components"]["schemas"]
    # Then each destination type is a model of its own that writes its `type` (the union is told apart by it)
    for kind, model in zip(KINDS, MODELS, strict=True):
        made = getattr(m, model.__name__)
        assert made.__annotations__["type_"] == f"Literal['{kind}']"
        if kind != "http" and not KINDS[kind].pulled:  # a polling endpoint's destination has no address and no role
            # And the patterns it was generated from are the ones the server matches whole: it cannot be handed an
            # address or role the server refuses for its pattern without the document saying so
            shown = spec[model.__name__]["properties"]
            assert shown[KINDS[kind].address_field]["pattern"] == KINDS[kind].pattern.pattern  # type: ignore[union-attr]
            assert shown["role_arn"]["pattern"] == ROLE_ARN.pattern
    role = "arn:aws:iam::111122223333:role/hookline-delivery-orders"
    body = m.CreateEndpoint(destination=m.SqsDestination(type_="sqs", queue_url=KINDS["sqs"].example, role_arn=role))
    assert body.to_dict()["destination"] == {"type": "sqs", "queue_url": KINDS["sqs"].example, "role_arn": role}
