"""`hookline`: the hookline API from a shell, for producers and operators.

The API's URL and key come from `--url` / `--key`, else `HOOKLINE_URL` / `HOOKLINE_KEY` (what
`make run` prints). Answers print as readable tables, or as the API's JSON with `--json`. Exit
status: 0 done, 1 the API refused or failed the call, 2 a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime, timedelta, timezone
from itertools import islice
from typing import Any, TextIO

from ._version import __version__
from .client import KEY_ENV, URL_ENV, HooklineClient
from .errors import HooklineError
from .listen import DEFAULT_INTERVAL_SECONDS, listen
from .models import Customer

Handler = Callable[[HooklineClient, argparse.Namespace], Any]

EPILOG = "Environment: HOOKLINE_URL (the API's base URL) and HOOKLINE_KEY (an API key); --url and --key override them."


class UsageError(Exception):
    """A command line the API cannot be asked with (exit status 2)."""


class PartlyFailed(Exception):
    """The API answered, and part of what was asked failed (exit status 1): a batch's failed events."""


# -- values from the command line -------------------------------------------------------------

_RELATIVE = re.compile(r"^(\d+(?:\.\d+)?)\s*([smhdw])$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def moment(text: str, now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> str:
    """`now`, a duration ago (`90s`, `30m`, `2h`, `7d`, `1w`), or an ISO 8601 time with a zone (`2026-03-14T00:00:00Z`)."""
    value = text.strip()
    if value == "now":
        when = now()
    elif found := _RELATIVE.match(value):
        when = now() - timedelta(**{_UNITS[found.group(2)]: float(found.group(1))})
    else:
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a time: use an ISO 8601 time with a zone, 'now', or a duration ago like 30m, 2h, 7d") from None
        if parsed.tzinfo is None:
            raise argparse.ArgumentTypeError(f"{text!r} has no time zone (add Z or +00:00)")
        when = parsed
    return when.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def json_object(text: str, what: str) -> dict[str, Any]:
    """A JSON object from the text itself, `@file`, or `-` (standard input)."""
    if text == "-":
        text = sys.stdin.read()
    elif text.startswith("@"):
        try:
            with open(text[1:], encoding="utf-8") as f:
                text = f.read()
        except OSError as exc:
            raise UsageError(f"{what}: cannot read {text[1:]}: {exc.strerror}") from None
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{what} is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise UsageError(f"{what} must be a JSON object, not {type(value).__name__}")
    return value


def header(text: str) -> tuple[str, str]:
    name, sep, value = text.partition(":")
    if not sep:
        name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not a header: use 'Name: value' or Name=value")
    return name.strip(), value.strip()


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


# -- output -----------------------------------------------------------------------------------


def table(rows: Iterable[Sequence[Any]], columns: Sequence[str], out: TextIO) -> int:
    """Aligned columns under a header (the last one is not padded); nothing when there are no rows. Returns how many it printed."""
    cells = [[_cell(v) for v in row] for row in rows]
    if not cells:
        return 0
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    for row in [list(columns), *cells]:
        out.write("  ".join(v.ljust(w) if i < len(row) - 1 else v for i, (v, w) in enumerate(zip(row, widths, strict=True))).rstrip() + "\n")
    return len(cells)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value) or "-"
    return str(value)


def _last_attempt(delivery: dict[str, Any]) -> str:
    attempts = delivery.get("attempts") or []
    if not attempts:
        return "-"
    last = attempts[-1]
    return str(last.get("status_code") or last.get("error") or "-")


def _last_reason(delivery: dict[str, Any]) -> str:
    attempts = delivery.get("attempts") or []
    return str(attempts[-1].get("reason") or "-") if attempts else "-"


def _dump(value: Any, out: TextIO) -> None:
    out.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


# -- commands ---------------------------------------------------------------------------------


def events_send(client: HooklineClient, args: argparse.Namespace) -> Any:
    data = json_object(args.data, "the event's data")
    versions = json_object(args.versions, "--versions") if args.versions else None
    accepted = client.events.send(args.type, data, id=args.id, customer=args.customer, versions=versions)
    if args.json:
        return accepted
    count = accepted["deliveries"]
    args.out.write(f"accepted {accepted['id']}: {count} deliver{'y' if count == 1 else 'ies'}\n")
    return None


def events_batch(client: HooklineClient, args: argparse.Namespace) -> Any:
    text = sys.stdin.read() if args.file == "-" else _read(args.file)
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{args.file} is not JSON: {exc}") from None
    events = value.get("events") if isinstance(value, dict) else value
    if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        raise UsageError('the batch must be a JSON list of events, or {"events": [...]}')
    result = client.events.send_batch(events)
    if args.json:
        _dump(result, args.out)
    else:
        args.out.write(f"accepted {result['accepted']}, failed {result['failed']}\n")
        rows = [
            (r["index"], r["status"], r.get("id"), r.get("key"), r.get("deliveries"), r["error"]["code"] if "error" in r else None) for r in result["results"]
        ]
        table(rows, ("INDEX", "STATUS", "EVENT", "KEY", "DELIVERIES", "ERROR"), args.out)
    if result["failed"]:
        raise PartlyFailed(f"{result['failed']} of the batch's events failed: send those again with their KEY as `id`")
    return None


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None


def events_get(client: HooklineClient, args: argparse.Namespace) -> Any:
    event = client.events.get(args.id)
    if args.json:
        return event
    out = args.out
    out.write(f"{event['id']}  {event['type']}  customer {event.get('customer') or '-'}  version {event.get('version') or '-'}  {event['created_at']}\n")
    out.write(f"data: {json.dumps(event.get('data'), ensure_ascii=False)}\n")
    deliveries = event.get("deliveries") or []
    rows = [(d["id"], d["endpoint_id"], d["status"], len(d.get("attempts") or []), _last_attempt(dict(d)), d.get("updated_at")) for d in deliveries]
    if rows:
        table(rows, ("DELIVERY", "ENDPOINT", "STATUS", "ATTEMPTS", "LAST", "UPDATED"), out)
    else:
        out.write("no deliveries\n")
    return None


def endpoints_list(client: HooklineClient, args: argparse.Namespace) -> Any:
    items: Iterator[Any] = iter(client.endpoints.list(customer=args.customer))
    if args.limit:
        items = islice(items, args.limit)
    if args.json:
        return list(items)
    rows = ((e["id"], e["status"], e.get("customer"), e.get("version"), e.get("event_types") or "*", e["url"]) for e in items)
    if not table(rows, ("ID", "STATUS", "CUSTOMER", "VERSION", "EVENT TYPES", "URL"), args.out):
        args.out.write("no endpoints\n")
    return None


def endpoints_create(client: HooklineClient, args: argparse.Namespace) -> Any:
    created = client.endpoints.create(
        args.endpoint_url,
        event_types=args.event_types,
        description=args.description,
        rate_limit_per_second=args.rate_limit,
        max_concurrency=args.max_concurrency,
        headers=dict(args.headers) if args.headers else None,
        customer=args.customer,
        version=args.version,
    )
    if args.json:
        return created
    out = args.out
    out.write(f"created {created['id']} -> {created['url']}\n")
    out.write(
        f"  customer {created.get('customer') or '-'}, event types {', '.join(created.get('event_types') or []) or 'all'}, version {created.get('version')}\n"
    )
    out.write(f"  secret {created['secret']}  (verify every webhook with it)\n")
    return None


def endpoints_get(client: HooklineClient, args: argparse.Namespace) -> Any:
    endpoint = client.endpoints.get(args.id)
    if args.json:
        return endpoint
    health = endpoint.get("health") or {}
    circuit = health.get("circuit") or {}
    backlog = endpoint.get("backlog") or {}
    lines = [
        ("id", endpoint["id"]),
        ("url", endpoint["url"]),
        ("status", endpoint["status"] + (f" ({endpoint['disabled_reason']})" if endpoint.get("disabled_reason") else "")),
        ("customer", endpoint.get("customer")),
        ("event types", endpoint.get("event_types") or "all"),
        ("version", endpoint.get("version")),
        ("circuit", circuit.get("state")),
        ("success rate (24 h)", health.get("success_rate")),
        ("last error", health.get("last_error")),
        ("failed / paused", f"{backlog.get('failed', '-')} / {backlog.get('paused', '-')}"),
    ]
    for name, value in lines:
        args.out.write(f"{name + ':':<21}{_cell(value)}\n")
    return None


def _deliveries_table(pages: Any, args: argparse.Namespace, empty: str) -> Any:
    """A paged list of deliveries as the command prints it: `--limit` of them, as JSON or as a table."""
    items: Iterator[Any] = iter(pages)
    if args.limit:
        items = islice(items, args.limit)
    if args.json:
        return list(items)
    rows = ((d["id"], d["event_id"], d["status"], _last_attempt(d), _last_reason(d), d["created_at"]) for d in items)
    if not table(rows, ("DELIVERY", "EVENT", "STATUS", "LAST", "REASON", "CREATED"), args.out):
        args.out.write(empty)
    return None


def deliveries_failed(client: HooklineClient, args: argparse.Namespace) -> Any:
    pages = client.deliveries.failed(args.endpoint, status=args.status, since=args.since, until=args.until, newest_first=args.newest_first)
    return _deliveries_table(pages, args, f"no {args.status or 'failed'} deliveries\n")


def deliveries_list(client: HooklineClient, args: argparse.Namespace) -> Any:
    pages = client.deliveries.list(args.endpoint, status=args.status, event=args.event, since=args.since, until=args.until, newest_first=not args.oldest_first)
    return _deliveries_table(pages, args, "no deliveries\n")


def replay(client: HooklineClient, args: argparse.Namespace) -> Any:
    until = args.until or moment("now")
    started = client.endpoints.replay(args.endpoint, since=args.since, until=until, status=args.status)
    if args.json:
        return started
    args.out.write(
        f"replay {started['id']} {started['status']} (job {started['job']['id']}): {args.status or 'failed'} deliveries of {args.endpoint} from {args.since} to {until}\n"
    )
    return None


def portal_link(client: HooklineClient, args: argparse.Namespace) -> Any:
    session = client.customers.portal_session(args.customer, ttl_seconds=args.ttl, read_only=True if args.read_only else None)
    if args.json:
        return session
    args.out.write(session["url"] + "\n")
    return None


def customers_put(client: HooklineClient, args: argparse.Namespace) -> Any:
    metadata = json_object(args.metadata, "--metadata") if args.metadata else None
    limits: dict[str, Any] = {}
    if args.max_rate is not None:
        limits["max_rate_per_second"] = args.max_rate
    if args.max_concurrency is not None:
        limits["max_concurrency"] = args.max_concurrency
    customer = client.customers.put(args.uid, args.name, email=args.email, metadata=metadata, limits=limits or None)
    if args.json:
        return customer
    _print_customer(customer, args.out)
    return None


def customers_get(client: HooklineClient, args: argparse.Namespace) -> Any:
    customer = client.customers.get(args.uid)
    if args.json:
        return customer
    _print_customer(customer, args.out)
    return None


def _print_customer(customer: Customer, out: TextIO) -> None:
    limits = customer.get("limits") or {}
    out.write(f"{customer['uid']}  {customer['name']}  email {customer.get('email') or '-'}\n")
    out.write(f"  limits: {limits.get('max_rate_per_second')}/s, {limits.get('max_concurrency')} at once\n")


# -- the parser -------------------------------------------------------------------------------


def _connection_options(required_defaults: bool) -> argparse.ArgumentParser:
    """--url, --key, --json: before the command (`hookline --json events get ID`) or after it, as you like."""
    parser = argparse.ArgumentParser(add_help=False)
    group = parser.add_argument_group("connection and output")
    default = None if required_defaults else argparse.SUPPRESS
    group.add_argument("--url", default=default, help="the API's base URL (default: $HOOKLINE_URL)")
    group.add_argument("--key", default=default, help="the API key (default: $HOOKLINE_KEY)")
    group.add_argument("--json", action="store_true", default=False if required_defaults else argparse.SUPPRESS, help="print the API's JSON answer")
    group.add_argument("--timeout", type=float, default=30.0 if required_defaults else argparse.SUPPRESS, help="seconds per HTTP request (30)")
    group.add_argument("--max-retries", type=int, default=3 if required_defaults else argparse.SUPPRESS, help="retries on 429, 5xx and connection errors (3)")
    return parser


class _Commands:
    """Adds the commands: each a subparser with `--help`, the connection options, and its handler."""

    def __init__(self, commands: Any) -> None:
        self.commands = commands
        self.common = _connection_options(required_defaults=False)

    def command(self, group: Any, name: str, handler: Handler, help: str, description: str | None = None) -> argparse.ArgumentParser:
        sub: argparse.ArgumentParser = group.add_parser(name, help=help, description=description or help, epilog=EPILOG, parents=[self.common])
        sub.set_defaults(handler=handler)
        return sub

    def group(self, name: str, help: str) -> Any:
        sub = self.commands.add_parser(name, help=help, description=help, epilog=EPILOG)
        return sub.add_subparsers(dest="action", metavar="ACTION", required=True)

    def events(self) -> None:
        events = self.group("events", "send events and read them back")
        send = self.command(
            events,
            "send",
            events_send,
            "send one event",
            "Send one event (POST /v1/events). Without --id the client makes an idempotency key, so a retry never makes a second event.",
        )
        send.add_argument("type", help="the event type, e.g. invoice.paid")
        send.add_argument("data", nargs="?", default="{}", help="the payload: a JSON object, @file, or - for standard input ({} when left out)")
        send.add_argument("--id", help="your idempotency key (letters, digits and _.:-): the same id and body never make a second event")
        send.add_argument("--customer", help="send it to this customer's endpoints only")
        send.add_argument("--versions", help='your own renderings for other payload versions: {"2026-01-01": {...}}, @file or -')
        batch = self.command(events, "batch", events_batch, "send up to 100 events in one request")
        batch.add_argument("file", help='a JSON list of events (or {"events": [...]}), each {"type", "data", "id"?, "customer"?}; - for standard input')
        get = self.command(events, "get", events_get, "an event with its deliveries and attempts")
        get.add_argument("id", help="the evt_ id, or the id you sent the event with")

    def endpoints(self) -> None:
        endpoints = self.group("endpoints", "list, create and read endpoints")
        listing = self.command(endpoints, "list", endpoints_list, "list endpoints (every page)")
        listing.add_argument("--customer", help="only this customer's endpoints")
        listing.add_argument("--limit", type=positive, help="stop after this many")
        create = self.command(endpoints, "create", endpoints_create, "register an endpoint and print its signing secret")
        create.add_argument("endpoint_url", metavar="URL", help="where webhooks go")
        create.add_argument("--event-type", dest="event_types", action="append", metavar="TYPE", help="subscribe to this type (repeat it; none: every type)")
        create.add_argument("--description")
        create.add_argument("--customer", help="the customer it belongs to, for life")
        create.add_argument("--rate-limit", type=float, help="requests per second at most (50)")
        create.add_argument("--max-concurrency", type=positive, help="requests in flight at most (50)")
        create.add_argument(
            "--header", dest="headers", action="append", type=header, metavar="'NAME: VALUE'", help="a custom header for every delivery (repeat it)"
        )
        create.add_argument("--version", help="the payload version to pin it to (default: the tenant's default)")
        show = self.command(endpoints, "get", endpoints_get, "an endpoint with its health and backlog")
        show.add_argument("id", help="the ep_ id")

    def deliveries(self) -> None:
        deliveries = self.group("deliveries", "an endpoint's deliveries")
        listed = self.command(deliveries, "list", deliveries_list, "an endpoint's delivery log: every delivery, newest first")
        listed.add_argument("endpoint", help="the ep_ id")
        listed.add_argument("--status", choices=("all", "succeeded", "failed", "pending", "paused"), default="all", help="which deliveries (all)")
        listed.add_argument("--event", help="only the delivery of this event: its evt_ id, or the id you sent it with")
        listed.add_argument("--since", type=moment, help="created at or after: ISO 8601, 'now', or a duration ago (30m, 2h, 7d)")
        listed.add_argument("--until", type=moment, help="created at or before (same forms)")
        listed.add_argument("--oldest-first", action="store_true", help="oldest first")
        listed.add_argument("--limit", type=positive, help="stop after this many")
        failed = self.command(deliveries, "failed", deliveries_failed, "an endpoint's failed (or paused) deliveries, oldest first")
        failed.add_argument("endpoint", help="the ep_ id")
        failed.add_argument("--status", choices=("failed", "paused"), help="which deliveries (failed)")
        failed.add_argument("--since", type=moment, help="created at or after: ISO 8601, 'now', or a duration ago (30m, 2h, 7d)")
        failed.add_argument("--until", type=moment, help="created at or before (same forms)")
        failed.add_argument("--newest-first", action="store_true", help="newest first")
        failed.add_argument("--limit", type=positive, help="stop after this many")

    def replay(self) -> None:
        rep = self.command(
            self.commands,
            "replay",
            replay,
            "replay an endpoint's failed deliveries of a time window",
            "Replay an endpoint's failed (or paused) deliveries created in [--since, --until] at its pace, as a job.",
        )
        rep.add_argument("endpoint", help="the ep_ id")
        rep.add_argument("--since", type=moment, required=True, help="the window's start: ISO 8601, or a duration ago (30m, 2h, 7d)")
        rep.add_argument("--until", type=moment, help="the window's end (default: now)")
        rep.add_argument("--status", choices=("failed", "paused"), help="which deliveries (failed)")

    def portal_link(self) -> None:
        link = self.command(self.commands, "portal-link", portal_link, "make a customer portal link (a new session) and print it")
        link.add_argument("customer", help="the customer's uid")
        link.add_argument("--ttl", type=positive, metavar="SECONDS", help="how long the link works (3600, at most 604800)")
        link.add_argument("--read-only", action="store_true", help="the customer can look but not change anything")

    def listen(self) -> None:
        lst = self.command(
            self.commands,
            "listen",
            listen,
            "receive a polling endpoint's webhooks and forward them to a local URL",
            'Poll a polling endpoint (destination {"type": "poll"}) and POST each webhook, with its exact body and signed headers, '
            "to a local URL, printing a status line each. The cursor is kept in a file, so a restart resumes where it stopped; Ctrl-C stops. "
            "--key may be the API key or a poll token of the endpoint.",
        )
        lst.add_argument("endpoint", help="the ep_ id of a polling endpoint")
        lst.add_argument("--forward", required=True, metavar="URL", help="where each webhook is POSTed, e.g. http://localhost:3000/webhook")
        lst.add_argument("--cursor-file", metavar="PATH", help="where the cursor is kept (default: .hookline-listen-<endpoint>.cursor here)")
        lst.add_argument("--interval", type=float, default=DEFAULT_INTERVAL_SECONDS, metavar="SECONDS", help="wait between polls once caught up (2)")
        lst.add_argument("--limit", type=positive, default=20, help="webhooks per poll (20, at most 100)")
        lst.add_argument("--once", action="store_true", help="stop once caught up, instead of waiting for more")

    def customers(self) -> None:
        customers = self.group("customers", "create and read customers")
        put = self.command(
            customers,
            "put",
            customers_put,
            "create or replace a customer: as a whole, so what is left out (email, metadata, limits) takes its default, not what it was",
        )
        put.add_argument("uid", help="the customer's uid, chosen by you (1-64 of A-Za-z0-9._:-)")
        put.add_argument("--name", required=True)
        put.add_argument("--email", help="where notices about its endpoints go")
        put.add_argument("--metadata", help="a JSON object of string pairs, @file or -")
        put.add_argument("--max-rate", type=float, help="the ceiling of its endpoints' rate_limit_per_second (left out: the default)")
        put.add_argument("--max-concurrency", type=int, help="the ceiling of its endpoints' max_concurrency (left out: the default)")
        get = self.command(customers, "get", customers_get, "read a customer")
        get.add_argument("uid")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hookline",
        description="Send events to hookline and look after their deliveries.",
        epilog=EPILOG,
        parents=[_connection_options(required_defaults=True)],
    )
    parser.add_argument("--version", action="version", version=f"hookline-client {__version__}")
    commands = _Commands(parser.add_subparsers(dest="command", metavar="COMMAND", required=True))
    commands.events()
    commands.endpoints()
    commands.deliveries()
    commands.replay()
    commands.portal_link()
    commands.listen()
    commands.customers()
    return parser


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run one command; the exit status is returned (the console script exits with it)."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error argparse already printed
        return int(exc.code) if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    args.out = out
    url = args.url or os.environ.get(URL_ENV)
    key = args.key or os.environ.get(KEY_ENV)
    if not url or not key:
        err.write(f"hookline: error: {'--url or HOOKLINE_URL' if not url else '--key or HOOKLINE_KEY'} is needed (make run prints both)\n")
        return 2
    try:
        with HooklineClient(url, key, timeout=args.timeout, max_retries=args.max_retries) as client:
            result = args.handler(client, args)
    except UsageError as exc:
        err.write(f"hookline: error: {exc}\n")
        return 2
    except PartlyFailed as exc:
        err.write(f"hookline: error: {exc}\n")
        return 1
    except HooklineError as exc:
        err.write(f"hookline: error: {exc}\n")
        if exc.details:
            err.write(json.dumps(exc.details, ensure_ascii=False) + "\n")
        return 1
    except ValueError as exc:  # a value the client refused before sending
        err.write(f"hookline: error: {exc}\n")
        return 2
    if result is not None:
        _dump(result, out)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
