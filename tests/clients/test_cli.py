"""The `hookline` command over a fake API: --help everywhere, where the URL and key come from, tables, JSON, errors."""

from __future__ import annotations

import argparse
import io
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from hookline_client import HooklineClient, cli
from hookline_client.listen import listen
from tests.clients.fake_api import Answer, FakeApi, Request, fake_api

KEY = "hk_cli_key"


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeApi]:
    with fake_api() as server:
        monkeypatch.setenv("HOOKLINE_URL", server.url)
        monkeypatch.setenv("HOOKLINE_KEY", KEY)
        yield server


def commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every command line the parser knows (`("events", "send")`, `("replay",)`, ...)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*prefix, name)
                yield from commands(sub, (*prefix, name))


EXPECTED = {
    ("events", "send"),
    ("events", "get"),
    ("endpoints", "list"),
    ("endpoints", "create"),
    ("deliveries", "failed"),
    ("deliveries", "list"),
    ("replay",),
    ("portal-link",),
    ("listen",),
}


def test_every_command_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    known = set(commands(cli.build_parser()))
    assert known >= EXPECTED
    for line in [(), *sorted(known)]:
        assert cli.main([*line, "--help"]) == 0, line
        shown = capsys.readouterr().out
        assert shown.startswith(f"usage: hookline {' '.join(line)}".rstrip()), shown
        assert "HOOKLINE_URL" in shown


def test_the_url_and_key_are_needed(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("HOOKLINE_URL", raising=False)
    monkeypatch.delenv("HOOKLINE_KEY", raising=False)
    assert cli.main(["events", "get", "evt_1"]) == 2
    assert "HOOKLINE_URL" in capsys.readouterr().err
    assert cli.main(["--url", "http://127.0.0.1:1", "events", "get", "evt_1"]) == 2
    assert "HOOKLINE_KEY" in capsys.readouterr().err
    assert cli.main(["events", "nope"]) == 2


def test_flags_override_the_environment_before_or_after_the_command(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    api.answer(Answer(202, {"id": "evt_1", "deliveries": 2}), Answer(202, {"id": "evt_2", "deliveries": 1}))
    assert cli.main(["events", "send", "invoice.paid", '{"invoice": "in_1"}', "--id", "inv-1", "--customer", "org_1", "--key", "hk_flag"]) == 0
    assert capsys.readouterr().out == "accepted evt_1: 2 deliveries\n"
    assert cli.main(["--json", "--url", api.url, "events", "send", "user.created"]) == 0
    assert json.loads(capsys.readouterr().out) == {"id": "evt_2", "deliveries": 1}
    first, second = api.requests
    assert first.headers["authorization"] == "Bearer hk_flag"
    assert first.json() == {"type": "invoice.paid", "data": {"invoice": "in_1"}, "id": "inv-1", "customer": "org_1"}
    assert second.headers["authorization"] == f"Bearer {KEY}"
    assert second.json()["data"] == {}


def test_endpoints_list_reads_every_page_into_a_table(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    def pages(request: Request) -> Answer:
        ep = {"status": "active", "customer": None, "version": "2026-01-01", "event_types": [], "url": "https://a.example/h"}
        if request.query.get("cursor") == "c1":
            return Answer(200, {"items": [{**ep, "id": "ep_2", "event_types": ["a.b", "c.d"], "customer": "org_1"}], "next": None})
        return Answer(200, {"items": [{**ep, "id": "ep_1"}], "next": "c1"})

    api.responder = pages
    assert cli.main(["endpoints", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["ID", "STATUS", "CUSTOMER", "VERSION", "EVENT", "TYPES", "URL"]
    assert lines[1].split() == ["ep_1", "active", "-", "2026-01-01", "*", "https://a.example/h"]
    assert lines[2].split() == ["ep_2", "active", "org_1", "2026-01-01", "a.b,c.d", "https://a.example/h"]
    assert cli.main(["endpoints", "list", "--json", "--limit", "1"]) == 0
    assert [e["id"] for e in json.loads(capsys.readouterr().out)] == ["ep_1"]


def test_an_api_error_exits_1_with_its_code(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    api.answer(Answer(404, {"error": {"code": "customer_not_found", "message": "customer org_9 not found"}}))
    assert cli.main(["portal-link", "org_9"]) == 1
    assert capsys.readouterr().err == "hookline: error: 404 customer_not_found: customer org_9 not found\n"


def test_replay_takes_relative_times_and_ends_now(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    api.answer(Answer(202, {"id": "rpl_1", "status": "running", "job": {"id": "job_1", "status": "running"}}))
    assert cli.main(["replay", "ep_1", "--since", "2h", "--status", "failed"]) == 0
    assert capsys.readouterr().out.startswith("replay rpl_1 running (job job_1)")
    body = api.requests[0].json()
    since, until = (datetime.fromisoformat(body[k].replace("Z", "+00:00")) for k in ("since", "until"))
    assert 7199 <= (until - since).total_seconds() <= 7201
    assert abs((datetime.now(UTC) - until).total_seconds()) < 60
    assert body["status"] == "failed"


def test_times_on_the_command_line() -> None:
    now = datetime(2026, 3, 14, 12, 0, tzinfo=UTC)
    assert cli.moment("30m", now=lambda: now) == "2026-03-14T11:30:00.000Z"
    assert cli.moment("7d", now=lambda: now) == "2026-03-07T12:00:00.000Z"
    assert cli.moment("2026-03-14T01:00:00+01:00") == "2026-03-14T00:00:00.000Z"
    for bad in ("yesterday", "2026-03-14T00:00:00"):
        with pytest.raises(argparse.ArgumentTypeError):
            cli.moment(bad)


def test_a_bad_json_argument_is_a_usage_error(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["events", "send", "a.b", "[1, 2]"]) == 2
    assert "must be a JSON object" in capsys.readouterr().err
    assert api.requests == []


def test_an_empty_list_says_so_without_a_header(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    api.answer(Answer(200, {"items": [], "next": None}))
    assert cli.main(["deliveries", "failed", "ep_1", "--status", "paused"]) == 0
    assert capsys.readouterr().out == "no paused deliveries\n"
    assert api.requests[0].query == {"status": "paused"}


def test_the_delivery_log_lists_every_status_newest_first_or_one_event(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    api.answer(Answer(200, {"items": [], "next": None}), Answer(200, {"items": [], "next": None}))
    assert cli.main(["deliveries", "list", "ep_1"]) == 0
    assert capsys.readouterr().out == "no deliveries\n"
    assert api.requests[0].path == "/v1/endpoints/ep_1/deliveries"
    assert api.requests[0].query == {"status": "all", "order": "desc"}
    assert cli.main(["deliveries", "list", "ep_1", "--status", "succeeded", "--event", "invoice-in_123-paid", "--oldest-first"]) == 0
    assert api.requests[1].query == {"status": "succeeded", "event": "invoice-in_123-paid"}


def test_a_batch_with_failed_events_exits_1_and_shows_each_events_key(api: FakeApi, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # Given a batch of two events without ids, the second of which the API could not queue
    unavailable = {"code": "unavailable", "message": "repeat the request with the same id"}
    results = [{"index": 0, "status": 202, "id": "evt_a", "deliveries": 1}, {"index": 1, "status": 503, "error": unavailable}]
    api.answer(Answer(207, {"accepted": 1, "failed": 1, "results": results}))
    path = tmp_path / "batch.json"
    path.write_text(json.dumps([{"type": "a.b", "data": {"n": 1}}, {"type": "a.b", "data": {"n": 2}}]))
    # When it is sent, Then the command exits 1, and the table shows the key each event went with
    assert cli.main(["events", "batch", str(path)]) == 1
    out, err = capsys.readouterr()
    [sent] = api.requests
    keys = [e["id"] for e in sent.json()["events"]]
    assert all(k.startswith("hlc_") for k in keys)
    assert "KEY" in out and all(k in out for k in keys)
    assert "1 of the batch's events failed" in err


def test_customers_put_sends_the_limits_it_is_given_and_none_it_is_not(api: FakeApi, capsys: pytest.CaptureFixture[str]) -> None:
    stored = {"uid": "org_1", "name": "Org", "limits": {"max_rate_per_second": 5.0, "max_concurrency": 2}, "created_at": "t", "updated_at": "t"}
    api.answer(Answer(200, stored), Answer(200, stored))
    assert cli.main(["customers", "put", "org_1", "--name", "Org", "--max-rate", "5", "--max-concurrency", "2", "--json"]) == 0
    assert cli.main(["customers", "put", "org_1", "--name", "Org"]) == 0
    with_limits, without = (r.json() for r in api.requests)
    assert with_limits == {"name": "Org", "limits": {"max_rate_per_second": 5.0, "max_concurrency": 2}}
    assert without == {"name": "Org"}
    capsys.readouterr()


def test_listen_forwards_each_webhook_keeps_its_cursor_and_stops_cleanly_on_ctrl_c(api: FakeApi, tmp_path: Path) -> None:
    # Given a polling endpoint with two webhooks, then nothing more, and a local receiver that takes the first and
    # refuses the second
    webhooks = [
        {
            "id": f"evt_{n}",
            "event_type": "order.paid",
            "delivery_id": f"dlv_{n}",
            "headers": {"webhook-id": f"evt_{n}", "webhook-signature": "v1,x"},
            "body": f'{{"n": {n}}}',
        }
        for n in (1, 2)
    ]
    api.answer(Answer(body={"webhooks": webhooks, "cursor": "c2", "done": False}), Answer(body={"webhooks": [], "cursor": "c3", "done": True}))
    cursor = tmp_path / "listen.cursor"
    cursor.write_text("c0\n")  # where an earlier run stopped
    out = io.StringIO()
    with fake_api() as receiver:
        receiver.answer(Answer(status=204), Answer(status=400))
        args = argparse.Namespace(endpoint="ep_1", forward=receiver.url + "/webhook", cursor_file=str(cursor), interval=2.0, limit=20, once=False, out=out)

        def ctrl_c(seconds: float) -> None:
            assert seconds == 2.0  # caught up: it waits its interval, and is interrupted there
            raise KeyboardInterrupt

        # When it runs until Ctrl-C
        with HooklineClient(api.url, KEY) as client:
            listen(client, args, sleep=ctrl_c)
        # Then each webhook went to the local URL with its exact body and headers, one status line each
        assert [(r.method, r.path, r.body, r.headers["webhook-id"]) for r in receiver.requests] == [
            ("POST", "/webhook", b'{"n": 1}', "evt_1"),
            ("POST", "/webhook", b'{"n": 2}', "evt_2"),
        ]
    printed = out.getvalue()
    assert "<-- 204 order.paid evt_1" in printed and "<-- 400 order.paid evt_2" in printed
    assert printed.splitlines()[-1] == f"Stopped; the cursor is kept in {cursor}."
    # And it polled from the stored cursor, then from each page's, and kept the last in its file
    assert [r.query.get("cursor") for r in api.requests] == ["c0", "c2"]
    assert cursor.read_text() == "c3\n"


def test_listen_reports_a_local_url_that_does_not_answer(api: FakeApi, tmp_path: Path) -> None:
    api.answer(
        Answer(body={"webhooks": [{"id": "evt_1", "event_type": "a.b", "delivery_id": None, "headers": {}, "body": "{}"}], "cursor": "c1", "done": True})
    )
    out = io.StringIO()
    args = argparse.Namespace(
        endpoint="ep_1", forward="http://127.0.0.1:9/nothing", cursor_file=str(tmp_path / "c"), interval=1.0, limit=20, once=True, out=out
    )
    with HooklineClient(api.url, KEY) as client:
        listen(client, args)
    assert "--> a.b evt_1: not forwarded (ConnectionError)" in out.getvalue()
    assert (tmp_path / "c").read_text() == "c1\n"
