"""The authorizer's first requests import no boto3 resource layer: its key lookup and session check read with
botocore's DynamoDB client (hookline.adapters.dynamo.lookup). Run in a fresh interpreter, from what Lambda loads (the
function's folder and the hookline layer), against a moto server, so no other test's imports are in its sys.modules."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from moto.server import ThreadedMotoServer

from hookline.adapters.dynamo.apikeys import ApiKeyRepository
from hookline.adapters.dynamo.customers import CustomerRepository
from hookline.adapters.dynamo.sessions import SessionRepository
from hookline.core.customers import Customer
from hookline.core.sessions import PortalSession, generate_token, hash_token
from hookline.wiring import topology
from hookline.wiring.topology import AUTHORIZER
from infra import FUNCTIONS_DIR, HOOKLINE_LAYER_PYTHON
from local.resources import create_table
from local.run import silence_werkzeug
from tests.e2e.conftest import find_free_port

CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}
KEY, SESSION_TOKEN = "hk_first_request_key", generate_token()
# Lambda's handler, called as Lambda calls it: an allowed key, an unknown key, an allowed portal session; then what
# the process had imported
SCRIPT = """
import json, sys
from local.lambda_runtime import LambdaContext
import handler

def event(header):
    return {"type": "REQUEST", "version": "2.0", "routeArn": "arn:x", "identitySource": [header], "headers": {"authorization": header}}

context = LambdaContext(function_name="hookline-authorizer", memory_limit_in_mb=256, timeout_seconds=10, region="us-east-1")
answers = [handler.handler(event(header), context) for header in sys.argv[1:]]
print(json.dumps({"answers": answers, "modules": sorted(m for m in sys.modules if m.split(".")[0] == "boto3")}))
"""


@pytest.fixture
def seeded_table(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """A moto server holding the data table with one API key, one customer and one portal session of it."""
    silence_werkzeug()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=find_free_port(), verbose=False)
    server.start()
    try:
        url = f"http://127.0.0.1:{server.get_host_and_port()[1]}"
        for name, value in CREDENTIALS.items():
            monkeypatch.setenv(name, value)
        session = boto3.Session()
        name = create_table(session.client("dynamodb", endpoint_url=url), topology.TABLE, "hookline-first")
        table = session.resource("dynamodb", endpoint_url=url).Table(name)
        ApiKeyRepository(table).add("acme", KEY, "2026-01-01T00:00:00Z")
        CustomerRepository(table).put(Customer(tenant="acme", uid="cus-1", name="Cus", created_at="2026-01-01T00:00:00Z"))
        expires = int(time.time()) + 3600
        SessionRepository(table, topology.TABLE.ttl_attribute).add(
            PortalSession(hash_token(SESSION_TOKEN), "acme", "cus-1", "2026-01-01T00:00:00Z", 0, True, "2026-01-01T00:00:00Z", expires)
        )
        yield {"AWS_ENDPOINT_URL": url, topology.TABLE.env: name, "EXPIRES": str(expires)}
    finally:
        server.stop()


def test_the_authorizers_first_requests_import_no_boto3_resource_layer(seeded_table: dict[str, str]) -> None:
    # Given a fresh interpreter with only the authorizer's folder, the hookline layer and the repository (for its
    # LambdaContext) on the path, pointed at the seeded table
    folder = FUNCTIONS_DIR / AUTHORIZER.source_dir
    env = {k: v for k, v in os.environ.items() if not k.startswith(("POWERTOOLS_", "PYTHON", "LAMBDA_", "HOOKLINE_"))}
    env |= CREDENTIALS | {k: v for k, v in seeded_table.items() if k != "EXPIRES"}
    env["PYTHONPATH"] = os.pathsep.join([str(folder), str(HOOKLINE_LAYER_PYTHON), str(Path.cwd())])
    # When its handler answers an allowed key, an unknown key and an allowed session, its first requests
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, f"Bearer {KEY}", "Bearer hk_unknown", f"Bearer {SESSION_TOKEN}"],
        capture_output=True,
        text=True,
        env=env,
        cwd=folder,
        check=True,
        timeout=120,
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    # Then it answered each as the authorizer does (the same items read)
    session = {"tenant": "acme", "customer": "cus-1", "read_only": True, "expires_at": int(seeded_table["EXPIRES"]), "customer_since": "2026-01-01T00:00:00Z"}
    assert report["answers"] == [
        {"isAuthorized": True, "context": {"tenant": "acme"}},
        {"isAuthorized": False},
        {"isAuthorized": True, "context": session},
    ]
    # And no module of boto3 was imported, so neither its resource layer nor the resource model
    assert report["modules"] == []
