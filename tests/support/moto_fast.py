"""moto's DynamoDB item answers, serialized a hundred times faster: for a test that makes thousands of calls.

moto 5 serializes every answer by walking the service model: for each attribute value of an item, every member an
AttributeValue may have (S, N, B, M, L, ...) is looked for under several aliases. An item with a list of twenty maps
(a hot endpoint's limiter, with its holders' token leases) takes it about 30 ms of CPU to answer, a thousand
times what reading it takes. The answers of DynamoDB's item operations are in its JSON protocol already as moto
builds them (members named as on the wire, attribute values typed), but for binary values, which the model's
serializer encodes in base64: so inside `item_answers_as_json()` they are that JSON, written at once.

`checked` answers of each operation are also serialized moto's own way and compared, so a moto that builds them
differently fails the test that uses this rather than misleading it.
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from moto.core.responses import ActionContext, ActionResult

ITEM_OPERATIONS = frozenset({"GetItem", "BatchGetItem", "PutItem", "UpdateItem", "DeleteItem", "Query"})
_HEADERS = {"Content-Type": "application/x-amz-json-1.0"}


def _binary(value: Any) -> str:
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    raise TypeError(f"{type(value).__name__} is not in a DynamoDB answer")


@contextmanager
def item_answers_as_json(checked: int = 20) -> Iterator[None]:
    serialize = ActionResult.execute_result
    seen: Counter[str] = Counter()

    def execute_result(self: ActionResult, context: ActionContext) -> Any:
        operation = context.operation_model.name
        if context.service_model.service_name != "dynamodb" or operation not in ITEM_OPERATIONS or isinstance(self.result, Exception):
            return serialize(self, context)
        body = json.dumps(self.result, default=_binary)
        seen[operation] += 1
        if seen[operation] <= checked:
            status, headers, expected = serialize(self, context)
            assert (status, dict(headers), json.loads(expected)) == (200, _HEADERS, json.loads(body)), f"moto answers {operation} otherwise"
        return 200, dict(_HEADERS), body

    ActionResult.execute_result = execute_result  # type: ignore[method-assign]
    try:
        yield
    finally:
        ActionResult.execute_result = serialize  # type: ignore[method-assign]
