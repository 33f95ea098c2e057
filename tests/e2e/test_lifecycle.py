"""Local mode leaves the process as it found it, so other tests (mock_aws) are not disturbed."""

from __future__ import annotations

import os
import socket
import sys

import boto3
import pytest
import requests

from hookline.adapters import aws
from hookline.wiring import topology
from hookline.wiring.settings import get_settings
from local.lambda_runtime import module_name
from local.run import LocalHookline

pytestmark = pytest.mark.slow

TOUCHED = (
    "AWS_ENDPOINT_URL",
    "HOOKLINE_API_KEYS",
    "HOOKLINE_ALLOW_PRIVATE_NETWORKS",
    "POWERTOOLS_SERVICE_NAME",
    *(s.env for s in topology.QUEUES),
    *(s.env for s in topology.STATE_MACHINES),
    *(s.env for s in topology.TOPICS),
    topology.TABLE.env,
)


def test_stop_restores_the_environment_and_forgets_cached_clients(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given an environment without local mode's variables, and a cached settings object
    for name in TOUCHED:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOOKLINE_ALLOW_PRIVATE_NETWORKS", "10.0.0.0/8")
    before = {name: os.environ.get(name) for name in TOUCHED}
    get_settings()

    # When local mode starts
    hookline = LocalHookline(port=0, aws_port=0)
    with hookline:
        # Then boto3 points at the embedded moto server, and the resources are in the environment
        assert os.environ["AWS_ENDPOINT_URL"] == hookline.aws_endpoint
        assert os.environ[topology.TABLE.env] == topology.TABLE.physical_name(topology.DEFAULT_PREFIX)
        topic_arn = os.environ[topology.NOTIFICATIONS.env]
        assert topic_arn.startswith("arn:aws:sns:")
        assert topic_arn.endswith(":" + topology.NOTIFICATIONS.physical_name(topology.DEFAULT_PREFIX))
        # And an explicitly set variable is respected
        assert os.environ["HOOKLINE_ALLOW_PRIVATE_NETWORKS"] == "10.0.0.0/8"
        # And a fresh key was generated for tenant "local", and it works
        assert hookline.keys[0][0] == "local"
        assert hookline.api_key.startswith("hk_")
        response = requests.get(f"{hookline.base_url}/v1/endpoints", headers={"Authorization": f"Bearer {hookline.api_key}"}, timeout=10)
        assert response.status_code == 200, response.text
        aws.sqs_client()
        # And the banner tells how to use it
        banner = hookline.banner()
        assert hookline.base_url in banner and hookline.api_key in banner
        assert f"aws --endpoint-url {hookline.aws_endpoint} sqs list-queues" in banner
        assert all(t.physical_name(hookline.prefix) in banner for t in topology.TOPICS)
        assert "/v1/endpoints" in banner and "/v1/events" in banner and "local.receiver" in banner
        assert "WARNING" in banner
        assert all(module_name(spec) in sys.modules for spec in topology.FUNCTIONS)

    # Then, once stopped, every variable is back as it was
    assert {name: os.environ.get(name) for name in TOUCHED} == before
    # And no cached client or handler module outlives it
    assert aws._client.cache_info().currsize == 0
    assert get_settings.cache_info().currsize == 0
    assert not any(module_name(spec) in sys.modules for spec in topology.FUNCTIONS)
    # And a new client no longer points at the stopped server
    assert "127.0.0.1" not in boto3.client("sqs", region_name="us-east-1").meta.endpoint_url


def test_a_malformed_key_list_fails_start_and_leaves_nothing_running(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given HOOKLINE_API_KEYS without a tenant
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    hookline = LocalHookline(port=0, aws_port=0, api_keys="just-a-key")
    # When local mode starts, Then it refuses
    with pytest.raises(ValueError, match="tenant:key"):
        hookline.start()
    # And nothing it set stays behind
    assert "AWS_ENDPOINT_URL" not in os.environ


def test_a_busy_aws_port_fails_fast_instead_of_hanging() -> None:
    # Given something already listening on the AWS port
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        # When local mode starts on it, Then it refuses at once with the port in the message
        with pytest.raises(OSError, match=str(port)):
            LocalHookline(port=0, aws_port=port).start()
