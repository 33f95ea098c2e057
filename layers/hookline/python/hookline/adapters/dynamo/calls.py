"""A DynamoDB data-plane call made as botocore makes it, without redoing what does not change from call to call.

After `FastSend` (hookline.adapters.dynamo.transport) took over signing and sending, most of what was left of a
DynamoDB call's CPU came before the request was sent, in botocore's `_make_api_call`: resolving the endpoint
through its rules (about a fifth of the call), walking the operation's input shape member by member to serialize
the body, building the User-Agent header. For one operation on one table those give the same answer every time.

`DataPlaneCalls` takes the place of `_make_api_call` on hookline's Table's client for DATA_PLANE's operations:

* The first call of each operation on each set of tables (`RequestKey`) goes through botocore's own
  `_make_api_call`; `learn`, the first of the client's `before-call.dynamodb` handlers, keeps what botocore built
  for it (`RequestTemplate`: the URL its endpoint rules resolved, the headers, the request context) before any
  other handler adds to them (botocore's recursion-detection header, a test's own).
* Every later call emits the same events botocore emits, in the same order and with the same arguments:
  `provide-client-params` and `before-parameter-build` (the resource layer's conversions, hookline's
  AttributeCodec), `before-call` (a test's injected fault, a stubber, then FastSend, which signs and sends),
  `after-call` (the items converted back); the body is the converted parameters as JSON (`body`: what botocore's
  JSON serializer makes of them, binary values in base64). When no `before-call` handler answers, botocore's own
  send (`_make_request`, its retries included) sends the request, as in `_make_api_call`. An answer of 300 and over
  raises the client's modeled error, as botocore raises it.

Other operations (creating a table, describing one) go to botocore's `_make_api_call` unchanged.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from botocore.compress import maybe_compress_request
from botocore.hooks import first_non_none_response
from botocore.httpchecksum import apply_request_checksum

from hookline.adapters.dynamo.transport import DATA_PLANE

RequestKey = tuple[str, tuple[str, ...]]  # an operation, and the tables its request names (the endpoint rules read them)
_TRANSACT_KINDS = ("ConditionCheck", "Put", "Delete", "Update", "Get")
FROM_TEMPLATE = "hookline_from_template"  # in the request context of a call made from a template: nothing to learn


@dataclass(frozen=True)
class RequestTemplate:
    """What botocore built for an operation's request on its tables, before any `before-call` handler ran."""

    model: Any  # botocore's OperationModel
    url: str
    headers: dict[str, str]
    context: dict[str, Any]


def request_key(operation: str, params: dict[str, Any]) -> RequestKey:
    """`operation` and the tables its parameters name: TableName, RequestItems' keys, or TransactItems' tables."""
    if "TableName" in params:
        return operation, (str(params["TableName"]),)
    if "RequestItems" in params:
        return operation, tuple(sorted(str(name) for name in params["RequestItems"]))
    tables = {str(part["TableName"]) for item in params.get("TransactItems", ()) for kind, part in item.items() if kind in _TRANSACT_KINDS}
    return operation, tuple(sorted(tables))


def _blob(value: Any) -> str:
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode("ascii")
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def body(params: dict[str, Any]) -> bytes:
    """The request's body as botocore's JSON serializer writes it: the parameters, binary values in base64."""
    return json.dumps(params, default=_blob).encode("utf-8")


class DataPlaneCalls:
    """A client's `_make_api_call` for DATA_PLANE's operations (the module's text); install with `install`."""

    def __init__(self, client: Any):
        self._client = client
        self._botocore: Callable[[str, dict[str, Any]], Any] = client._make_api_call
        self._templates: dict[RequestKey, RequestTemplate] = {}
        self._service_id = client.meta.service_model.service_id.hyphenize()

    def install(self) -> None:
        self._client.meta.events.register_first(f"before-call.{self._service_id}", self.learn, unique_id="hookline-learn-request")
        self._client._make_api_call = self

    @property
    def learned(self) -> frozenset[RequestKey]:
        return frozenset(self._templates)

    def learn(self, model: Any, params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        """`before-call`, first: keep what botocore built for a data-plane request it has no template for yet."""
        if (
            context.get(FROM_TEMPLATE)
            or model.name not in DATA_PLANE
            or params.get("method") != "POST"
            or params.get("url_path") != "/"
            or params.get("query_string")
        ):
            return
        try:
            key = request_key(model.name, json.loads(params["body"]))
        except (ValueError, TypeError, KeyError, AttributeError):
            return
        if key not in self._templates:
            self._templates[key] = RequestTemplate(model, params["url"], dict(params["headers"]), dict(context))

    def __call__(self, operation_name: str, api_params: dict[str, Any]) -> Any:
        template = self._templates.get(request_key(operation_name, api_params)) if operation_name in DATA_PLANE else None
        if template is None:
            return self._botocore(operation_name, api_params)
        client, events, model = self._client, self._client.meta.events, template.model
        context = {**template.context, FROM_TEMPLATE: True}
        suffix = f"{self._service_id}.{operation_name}"
        responses = events.emit(f"provide-client-params.{suffix}", params=api_params, model=model, context=context)
        api_params = first_non_none_response(responses, default=api_params)
        events.emit(f"before-parameter-build.{suffix}", params=api_params, model=model, context=context)
        request = {
            "url_path": "/",
            "query_string": "",
            "method": "POST",
            "headers": dict(template.headers),
            "body": body(api_params),
            "url": template.url,
            "context": context,
        }
        _, answer = events.emit_until_response(f"before-call.{suffix}", model=model, params=request, request_signer=client._request_signer, context=context)
        if answer is not None:
            http, parsed = answer
        else:
            maybe_compress_request(client.meta.config, request, model)
            apply_request_checksum(request)
            http, parsed = client._make_request(model, request, context)
        events.emit(f"after-call.{suffix}", http_response=http, parsed=parsed, model=model, context=context)
        if http.status_code >= 300:
            code = context.get("error_code_override") or parsed.get("Error", {}).get("Code")
            raise client.exceptions.from_code(code)(parsed, operation_name)
        return parsed
