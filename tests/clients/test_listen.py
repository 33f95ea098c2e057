"""A polling endpoint through the real API in local mode, and `hookline listen` forwarding its webhooks to a local
receiver that verifies them with the official standardwebhooks library (local.receiver.WebhookReceiver).

One local mode for the module, and one test: its steps build on each other (the endpoint, its token, its webhooks).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from standardwebhooks.webhooks import Webhook

from hookline_client import HooklineClient, HooklineError, cli
from local.receiver import WebhookReceiver
from local.run import LocalHookline
from tests.support.waiting import wait_for

pytestmark = pytest.mark.slow

SETTLED = 30  # seconds: a webhook is readable SETTLE_SECONDS after its acceptance, plus the delivery's own time


def test_a_polling_endpoint_and_hookline_listen(
    hookline: LocalHookline, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    producer = HooklineClient(hookline.base_url, hookline.api_key, timeout=10)
    endpoint = producer.endpoints.create(destination={"type": "poll"}, event_types=["order.created"])
    assert endpoint["destination"] == {"type": "poll"}
    token = producer.endpoints.create_poll_token(endpoint["id"])
    assert token["token"].startswith("hlpt_") and token["id"].startswith("pt_")
    sent = [producer.events.send("order.created", {"order": i})["id"] for i in range(7)]

    receiver_gets_every_webhook_once_in_order(hookline, endpoint, token["token"], sent, tmp_path / "receiver.cursor")
    # And each delivery says when a poll moved past it: the receiver has it
    deliveries = [producer.events.get(event_id)["deliveries"] for event_id in sent]
    assert all([d["status"] for d in ds] == ["succeeded"] and d.get("polled_at") for ds in deliveries for d in ds), deliveries
    a_poll_token_polls_its_endpoint_and_nothing_else(hookline, endpoint, token["token"])
    listen_forwards_them_verified_across_restarts(hookline, producer, endpoint, token["token"], sent, tmp_path, monkeypatch, capsys)


def receiver_gets_every_webhook_once_in_order(hookline: LocalHookline, endpoint: dict[str, Any], token: str, sent: list[str], cursor_file: Path) -> None:
    # Given a receiver that polls pages of 3 with the poll token, keeping its cursor in a file and starting afresh
    # (a new client: a restart) after every page
    got: list[str] = []

    def one_page() -> bool:
        cursor = cursor_file.read_text() if cursor_file.exists() else None
        page = HooklineClient(hookline.base_url, token, timeout=10).endpoints.poll(endpoint["id"], cursor=cursor, limit=3)
        assert len(page["webhooks"]) <= 3
        for webhook in page["webhooks"]:
            # Then each is the exact webhook a push sends, signed with the endpoint's secret
            Webhook(endpoint["secret"]).verify(webhook["body"].encode(), webhook["headers"])
            assert webhook["headers"]["webhook-id"] == webhook["id"] and json.loads(webhook["body"])["type"] == "order.created"
            got.append(webhook["id"])
        if page["cursor"]:
            cursor_file.write_text(page["cursor"])
        return len(got) >= len(sent)

    wait_for(one_page, SETTLED)
    # Then every webhook came once, in order of acceptance, and later polls (the first acknowledges the last page) find
    # nothing new
    assert got == sent
    receiver = HooklineClient(hookline.base_url, token, timeout=10).endpoints
    last = receiver.poll(endpoint["id"], cursor=cursor_file.read_text())
    assert (last["webhooks"], last["done"]) == ([], True)
    assert (receiver.poll(endpoint["id"], cursor=last["cursor"])["webhooks"], receiver.poll(endpoint["id"], cursor=last["cursor"])["cursor"]) == (
        [],
        last["cursor"],
    )


def a_poll_token_polls_its_endpoint_and_nothing_else(hookline: LocalHookline, endpoint: dict[str, Any], token: str) -> None:
    as_token = HooklineClient(hookline.base_url, token, timeout=10, max_retries=0)
    with pytest.raises(HooklineError) as refused:
        as_token.endpoints.get(endpoint["id"])
    assert refused.value.status == 403
    with pytest.raises(HooklineError) as refused:
        as_token.events.send("order.created", {"order": "x"})
    assert refused.value.status == 403


def listen_forwards_them_verified_across_restarts(
    hookline: LocalHookline,
    producer: HooklineClient,
    endpoint: dict[str, Any],
    token: str,
    sent: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("HOOKLINE_URL", hookline.base_url)
    monkeypatch.setenv("HOOKLINE_KEY", token)
    cursor = tmp_path / "listen.cursor"
    argv = ["listen", endpoint["id"], "--forward", "", "--cursor-file", str(cursor), "--once", "--limit", "4"]
    with WebhookReceiver(port=0, secret=endpoint["secret"]) as receiver:
        argv[3] = receiver.url

        def listened(count: int) -> bool:
            assert cli.main(argv) == 0
            return len(receiver.received) >= count

        # When `hookline listen` runs until caught up, it forwards every webhook, verified by the receiver, in order
        wait_for(lambda: listened(len(sent)), SETTLED)
        assert [w.headers["webhook-id"] for w in receiver.received] == sent
        assert all(w.verified for w in receiver.received)
        out = capsys.readouterr().out
        assert f"<-- 200 order.created {sent[0]}" in out and str(cursor) in out
        # And run again (a restart) after two more events, it forwards only those, from the cursor in its file
        more = [producer.events.send("order.created", {"order": i})["id"] for i in (7, 8)]
        wait_for(lambda: listened(len(sent) + 2), SETTLED)
        assert [w.headers["webhook-id"] for w in receiver.received] == sent + more
        assert all(w.verified for w in receiver.received)
