"""Text that people read (names, descriptions, labels): no control characters. Pure.

A control character is C0 (U+0000 to U+001F), DEL (U+007F) or C1 (U+0080 to U+009F): invisible in the portal, and
in a terminal or a log they move the cursor, end a line or start an escape sequence. One-line fields (a customer's
name, the producer's name, metadata) refuse them all; a description may run over several lines and keeps TAB and LF
(CR is refused: a line ends with LF alone).

Where it applies: a customer's `name` and `metadata` (keys and values), an endpoint's `description`, an event type's
`description`, the portal settings' `producer_name`. An event's `data` is the producer's payload, not hookline's
text: any string JSON can carry is delivered as it came, NUL included (JSON escapes it as `\\u0000`, Standard
Webhooks signs the bytes, DynamoDB stores it in the body's text).
"""

from __future__ import annotations

import re

from hookline.core.errors import ValidationFailed

CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
CONTROL_BUT_TAB_LF = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# The document's pattern for each: text without them.
ONE_LINE_PATTERN = r"^[^\x00-\x1F\x7F-\x9F]*$"
LINES_PATTERN = r"^[^\x00-\x08\x0B-\x1F\x7F-\x9F]*$"


def readable(value: str, name: str, lines: bool = False) -> str:
    """`value`, or the 422 that names the field and the first control character in it (`lines`: TAB and LF pass)."""
    found = (CONTROL_BUT_TAB_LF if lines else CONTROL).search(value)
    if found:
        allowed = " other than tab and line feed" if lines else ""
        raise ValidationFailed(f"'{name}' must not contain control characters{allowed} (found U+{ord(found.group()):04X})")
    return value
