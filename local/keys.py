"""Create or revoke an API key: `python -m local.keys --tenant T | --revoke KEY [--table NAME] [--endpoint-url URL]`.

Works against a deployed stack with the usual AWS credentials (`make api-key
TENANT=acme`), or against local mode with
`--endpoint-url http://127.0.0.1:4566`. Only the key's SHA-256 is stored, so
the key is printed once, on stdout (messages go to stderr, so
`KEY=$(python -m local.keys --tenant acme)` works).
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import UTC, datetime

import boto3
from botocore.exceptions import BotoCoreError, ClientError

from hookline.adapters.dynamo.apikeys import ApiKeyRepository
from hookline.core.apikeys import generate_api_key
from hookline.core.settings import Settings
from hookline.wiring import topology


def create_api_key(tenant: str, table_name: str, *, endpoint_url: str | None = None) -> str:
    """Generate a key, store its hash for `tenant` in `table_name`, and return the key."""
    tenant = tenant.strip()
    if not tenant:
        raise ValueError("tenant must not be empty")
    table = boto3.resource("dynamodb", endpoint_url=endpoint_url).Table(table_name)
    key = generate_api_key()
    ApiKeyRepository(table).add(tenant, key, datetime.now(UTC).isoformat())
    return key


def build_parser() -> argparse.ArgumentParser:
    # The deployed stack's table: HOOKLINE_STACK_NAME names the stack, and every physical name starts with it.
    default_table = topology.TABLE.physical_name(Settings.from_env(os.environ).stack_name)
    parser = argparse.ArgumentParser(prog="python -m local.keys", description="Create an API key for a tenant.")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--tenant", help="create a key for this tenant")
    action.add_argument("--revoke", metavar="KEY", help="revoke this key (it fails within the authorizer's cache TTL)")
    parser.add_argument("--table", default=default_table, help=f"DynamoDB table (default {default_table}, the stack's table)")
    parser.add_argument("--endpoint-url", help="AWS endpoint, e.g. http://127.0.0.1:4566 for local mode")
    return parser


def revoke_api_key(key: str, table_name: str, *, endpoint_url: str | None = None) -> bool:
    return ApiKeyRepository(boto3.resource("dynamodb", endpoint_url=endpoint_url).Table(table_name)).revoke(key)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.revoke:
        try:
            found = revoke_api_key(args.revoke, args.table, endpoint_url=args.endpoint_url)
        except (ClientError, BotoCoreError) as exc:
            print(f"error: could not revoke the key in table {args.table!r}: {exc}", file=sys.stderr)
            return 1
        print("revoked" if found else "no such key", file=sys.stderr)
        return 0 if found else 1
    try:
        key = create_api_key(args.tenant, args.table, endpoint_url=args.endpoint_url)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (ClientError, BotoCoreError) as exc:
        print(f"error: could not store the key in table {args.table!r}: {exc}", file=sys.stderr)
        return 1
    print(f"API key for tenant {args.tenant.strip()!r} in {args.table} (shown once, store it now):", file=sys.stderr)
    print(key)
    return 0


if __name__ == "__main__":
    sys.exit(main())
