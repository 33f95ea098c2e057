"""Polling endpoints (destination type `poll`): their webhooks wait in a mailbox until the receiver asks for them.

Pure: where a webhook goes in its endpoint's mailbox, what a poll may read, its cursor, and the poll tokens.

A delivery to a polling endpoint is one put into the endpoint's mailbox (hookline.adapters.dynamo.mailbox): the
exact body and headers a push would send, signed as the endpoint signs. A poll reads the mailbox in order of its
positions, after the cursor it is given, with one DynamoDB query.

**Positions.** A webhook's position is its event's acceptance time (then its delivery id), so a mailbox reads in
order of acceptance. Deliveries are put by many workers at once, a little after acceptance; a poll reads only what
was accepted at least SETTLE_SECONDS ago (its `watermark`), so a put still in flight is not passed by a cursor. A
put later than LATE_SECONDS after acceptance (a retried put, a replay, a queue that backed up) takes the put's own
time as its position instead: past every cursor already given out, never behind one. So every webhook is read once
by a receiver that keeps its cursor, in order of acceptance except for those late ones, which come when they came.
The bound this rests on: a put lands within SETTLE_SECONDS - LATE_SECONDS (3 s) of taking its position; one that
takes longer (a throttled write the SDK retries past that) may land behind a cursor a poll gave out meanwhile.

**Cursors** name a position in one endpoint's mailbox; they hold while the mailbox holds its webhooks (the retention,
HOOKLINE_RETENTION_DAYS), so a receiver that stores its cursor resumes where it stopped after any restart.

**Poll tokens** (`hlpt_<id>_<secret>`) let a receiver poll one endpoint and nothing else: made and revoked by the
producer, shown once, stored as the SHA-256 of the secret under the token's id (the authorizer finds it from the token
alone).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from hookline.core.clock import iso, parse_iso
from hookline.core.errors import InvalidCursor

SETTLE_SECONDS = 5.0  # a poll reads what was accepted at least this long ago: the puts in flight have landed
LATE_SECONDS = 2.0  # a put this long after acceptance is late: positioned at its own time (below SETTLE_SECONDS)
DEFAULT_LIMIT = 20  # webhooks per poll when the receiver names no limit
MAX_LIMIT = 100  # the most a poll answers
NOT_POLLING = "not_a_polling_endpoint"  # 409: a poll, or a poll token, of an endpoint that is pushed to

TOKEN_PREFIX = "hlpt_"  # noqa: S105 - what a poll token starts with, not a secret
TOKEN_ID_PREFIX = "pt_"  # noqa: S105 - a token id's prefix, not a secret
_TOKEN = re.compile(r"^hlpt_([0-9a-hjkmnp-tv-z]{26})_([A-Za-z0-9_-]{43})$")


def position(accepted_at: str, delivery_id: str, now: datetime) -> str:
    """A webhook's place in its mailbox: `<acceptance time>#<delivery id>`, or `<now>#<delivery id>` for a late put."""
    accepted = parse_iso(accepted_at)
    at = accepted if now - accepted < timedelta(seconds=LATE_SECONDS) else now
    return f"{iso(at)}#{delivery_id}"


def watermark(now: datetime) -> str:
    """The position a poll at `now` reads up to (excluded): acceptance SETTLE_SECONDS ago."""
    return iso(now - timedelta(seconds=SETTLE_SECONDS))


@dataclass(frozen=True)
class Cursor:
    """Where a receiver is in its endpoint's mailbox: past `after`, having been given the `count` webhooks after `start`
    (the page that ended at `after`). The next poll acknowledges that page (its receiver has it) and reads on."""

    after: str
    start: str = ""  # "": the mailbox's start
    count: int = 0


def encode_cursor(endpoint_id: str, cursor: Cursor) -> str:
    """A cursor of the endpoint's mailbox (opaque to the receiver)."""
    held = {"ep": endpoint_id, "after": cursor.after, "start": cursor.start, "n": cursor.count}
    return base64.urlsafe_b64encode(json.dumps(held, sort_keys=True, separators=(",", ":")).encode()).decode().rstrip("=")


def decode_cursor(cursor: str | None, endpoint_id: str) -> Cursor | None:
    """The cursor given (None: from the mailbox's start); one of another endpoint, or malformed, is 422."""
    if not cursor:
        return None
    try:
        held = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, UnicodeDecodeError, binascii.Error):
        raise InvalidCursor("cursor is not valid") from None
    if not isinstance(held, dict) or set(held) != {"ep", "after", "start", "n"} or held["ep"] != endpoint_id:
        raise InvalidCursor("cursor is not valid")
    after, start, count = held["after"], held["start"], held["n"]
    if not isinstance(after, str) or not after or not isinstance(start, str) or (start and start >= after):
        raise InvalidCursor("cursor is not valid")
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= MAX_LIMIT:
        raise InvalidCursor("cursor is not valid")
    return Cursor(after, start, count)


def read_from(cursor: Cursor | None) -> tuple[str | None, int]:
    """Where a poll's one query starts (exclusive; None: the mailbox's start) and how many it reads before the new
    page: the page the cursor acknowledges, read again to learn which deliveries it holds."""
    if cursor is None:
        return None, 0
    if cursor.count:
        return cursor.start or None, cursor.count
    return cursor.after, 0


def split(read: list[Polled], cursor: Cursor | None, limit: int) -> tuple[list[Polled], list[Polled], bool]:
    """A poll's query, read from `read_from`: (the webhooks it acknowledges, the new page, whether more are there)."""
    after = cursor.after if cursor is not None else ""
    acknowledged = [w for w in read if w.position <= after]
    later = [w for w in read if w.position > after]
    return acknowledged, later[:limit], len(later) > limit


def next_cursor(cursor: Cursor | None, page: list[Polled]) -> Cursor | None:
    """The cursor past a page: it acknowledges the page on the next poll. An empty page leaves the position as it was,
    with nothing left to acknowledge."""
    if page:
        return Cursor(page[-1].position, cursor.after if cursor is not None else "", len(page))
    return Cursor(cursor.after) if cursor is not None else None


@dataclass(frozen=True)
class Polled:
    """One webhook as a poll answers it: its position (a cursor points past it) and the exact body and headers."""

    position: str
    event_id: str
    event_type: str
    delivery_id: str  # "" for a test event
    body: str
    headers: dict[str, str]

    def to_json(self) -> dict[str, object]:
        return {"id": self.event_id, "event_type": self.event_type, "delivery_id": self.delivery_id or None, "headers": self.headers, "body": self.body}


@dataclass(frozen=True)
class PollToken:
    """A stored poll token: never the token itself, the SHA-256 of its secret."""

    id: str  # pt_…
    tenant: str
    endpoint_id: str
    secret_hash: str
    created_at: str
    revoked: bool = False


def new_token(id_body: str) -> tuple[str, str]:
    """(the token to show once, the hash to store) for the token id `pt_<id_body>` (hookline.core.ids' 26 characters)."""
    secret = secrets.token_urlsafe(32)
    return f"{TOKEN_PREFIX}{id_body}_{secret}", hash_secret(secret)


def hash_secret(secret: str) -> str:
    # 256 random bits: an unsalted SHA-256 cannot be brute-forced, and the authorizer stays cheap (as API keys).
    return hashlib.sha256(secret.encode()).hexdigest()


def is_poll_token(token: str) -> bool:
    return token.startswith(TOKEN_PREFIX)


def token_parts(token: str) -> tuple[str, str] | None:
    """(the token's id `pt_…`, its secret), or None for anything not shaped like a poll token."""
    found = _TOKEN.fullmatch(token)
    return (TOKEN_ID_PREFIX + found[1], found[2]) if found else None


def accepts(stored: PollToken | None, secret: str) -> bool:
    """Whether a stored token (None: unknown) stands for this secret and still holds."""
    return stored is not None and not stored.revoked and hmac.compare_digest(stored.secret_hash, hash_secret(secret))
