"""The portal's `destination_kinds.js`, generated from hookline.core.destinations.KINDS (`make portal-kinds` writes
it; tests/unit/test_destination_kinds.py fails when the committed file differs): how people name each non-HTTP
destination type, and the field of `destination` that holds its address. The page has no other list of them."""

from __future__ import annotations

import json
from pathlib import Path

from hookline.core.destinations import HTTP, KINDS

PATH = Path(__file__).parent / "portal_static" / "destination_kinds.js"


def script() -> str:
    """The module's text: one `DESTINATION_KINDS` entry per type but http, in KINDS' order."""
    entries = "".join(f"  {kind}: {json.dumps({'label': k.label, 'field': k.address_field})},\n" for kind, k in KINDS.items() if kind != HTTP)
    return (
        "// Generated from hookline.core.destinations.KINDS by `make portal-kinds` (hookline.entrypoints.portal_kinds): do not edit.\n"
        "// The non-HTTP destinations: how each is named for people, and the field of `destination` holding its address.\n"
        f"export const DESTINATION_KINDS = {{\n{entries}}};\n"
    )


def main() -> None:
    PATH.write_text(script(), encoding="utf-8")


if __name__ == "__main__":
    main()
