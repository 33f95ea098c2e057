"""Polling endpoints' pure rules (hookline.core.polling): positions, the watermark, cursors and poll tokens."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta

import pytest

from hookline.core import polling
from hookline.core.errors import InvalidCursor
from hookline.core.polling import Cursor, Polled, PollToken

NOW = datetime(2026, 12, 8, 12, 0, 0, tzinfo=UTC)
EP = "ep_01kkntq2cnt8b8hz3pj95wjvcc"


@pytest.mark.parametrize(
    ("accepted_ago", "position"),
    [
        (0.0, "2026-12-08T12:00:00.000Z#dlv_x"),
        (1.5, "2026-12-08T11:59:58.500Z#dlv_x"),  # on time: where it was accepted
        (polling.LATE_SECONDS, "2026-12-08T12:00:00.000Z#dlv_x"),  # late: at its own time, past every cursor given out
        (3600.0, "2026-12-08T12:00:00.000Z#dlv_x"),  # a replay, a retried put
    ],
)
def test_a_webhook_is_placed_at_its_acceptance_unless_it_is_late(accepted_ago: float, position: str) -> None:
    accepted = (NOW - timedelta(seconds=accepted_ago)).isoformat().replace("+00:00", "Z")
    assert polling.position(accepted, "dlv_x", NOW) == position


def test_a_poll_reads_only_what_settled_and_an_on_time_put_never_lands_behind_it() -> None:
    # Given a poll at NOW: it reads what was accepted SETTLE_SECONDS ago and before
    assert polling.watermark(NOW) == "2026-12-08T11:59:55.000Z"
    # Then a put at NOW or later is positioned past it, whether on time or late (the put taking less than the margin)
    for accepted_ago in (0.0, polling.LATE_SECONDS - 0.001, polling.LATE_SECONDS, 60.0):
        accepted = (NOW - timedelta(seconds=accepted_ago)).isoformat().replace("+00:00", "Z")
        assert polling.position(accepted, "dlv_x", NOW) > polling.watermark(NOW)
    assert polling.LATE_SECONDS < polling.SETTLE_SECONDS


def _webhook(position: str) -> Polled:
    return Polled(position, "evt_" + position, "a.b", "dlv_" + position, "{}", {})


def test_a_page_is_acknowledged_by_the_poll_past_it() -> None:
    mailbox = [_webhook(p) for p in ("a", "b", "c", "d", "e")]
    # Given a first poll of 2: it reads from the start, acknowledges nothing
    assert polling.read_from(None) == (None, 0)
    acknowledged, page, more = polling.split(mailbox[:3], None, 2)
    assert ([w.position for w in acknowledged], [w.position for w in page], more) == ([], ["a", "b"], True)
    first = polling.next_cursor(None, page)
    assert first == Cursor("b", "", 2)
    # When the next poll comes with that cursor, its one query reads the page again first (from the mailbox's start)
    assert polling.read_from(first) == (None, 2)
    acknowledged, page, more = polling.split(mailbox[: 2 + 2 + 1], first, 2)
    # Then it acknowledges a and b, and answers c and d
    assert ([w.position for w in acknowledged], [w.position for w in page], more) == (["a", "b"], ["c", "d"], True)
    second = polling.next_cursor(first, page)
    assert second == Cursor("d", "b", 2) and polling.read_from(second) == ("b", 2)
    # And a poll that finds nothing new acknowledges the last page once, then reads on from its end
    acknowledged, page, more = polling.split(mailbox[2:4], second, 2)
    assert ([w.position for w in acknowledged], page, more) == (["c", "d"], [], False)
    caught_up = polling.next_cursor(second, page)
    assert caught_up == Cursor("d") and polling.read_from(caught_up) == ("d", 0)


@pytest.mark.parametrize("cursor", [Cursor("b"), Cursor("d", "b", 2), Cursor("2026-12-08T12:00:00.000Z#dlv_x", "", polling.MAX_LIMIT)])
def test_a_cursor_comes_back_as_it_was_for_its_endpoint_only(cursor: Cursor) -> None:
    text = polling.encode_cursor(EP, cursor)
    assert polling.decode_cursor(text, EP) == cursor
    with pytest.raises(InvalidCursor):
        polling.decode_cursor(text, "ep_another")


def _raw(held: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(held).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "text",
    [
        "not base64 !",
        _raw(["a"]),
        _raw({"ep": EP, "after": "b"}),  # a field missing
        _raw({"ep": EP, "after": "", "start": "", "n": 0}),
        _raw({"ep": EP, "after": "b", "start": "c", "n": 1}),  # a page ending before it starts
        _raw({"ep": EP, "after": "b", "start": "", "n": polling.MAX_LIMIT + 1}),  # more to read again than any page
        _raw({"ep": EP, "after": "b", "start": "", "n": -1}),
        _raw({"ep": EP, "after": "b", "start": "", "n": True}),
        _raw({"ep": EP, "after": 5, "start": "", "n": 0}),
    ],
)
def test_a_malformed_cursor_is_refused(text: str) -> None:
    with pytest.raises(InvalidCursor):
        polling.decode_cursor(text, EP)


def test_a_poll_token_is_found_by_its_id_and_holds_only_its_own_secret() -> None:
    # Given a new token
    token, secret_hash = polling.new_token("01kkntq2cnt8b8hz3pj95wjvcc")
    parts = polling.token_parts(token)
    assert polling.is_poll_token(token) and parts is not None and parts[0] == "pt_01kkntq2cnt8b8hz3pj95wjvcc"
    stored = PollToken(parts[0], "acme", EP, secret_hash, "2026-12-08T12:00:00.000Z")
    # Then its secret is stored only as a hash, and only that secret is accepted, while it is not revoked
    assert parts[1] not in secret_hash and polling.accepts(stored, parts[1])
    assert not polling.accepts(stored, parts[1][:-1] + ("A" if parts[1][-1] != "A" else "B"))
    assert not polling.accepts(None, parts[1])
    assert not polling.accepts(PollToken(**{**stored.__dict__, "revoked": True}), parts[1])
    # And anything not shaped like one is no token
    for text in ("hlpt_", "hlpt_short_x", token + "x", token.replace("hlpt_", "hk_"), "hlpt_" + "i" * 26 + "_" + "a" * 43):
        assert polling.token_parts(text) is None, text
