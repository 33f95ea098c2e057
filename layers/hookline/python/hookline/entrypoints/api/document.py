"""The OpenAPI 3.1 document, generated from the routes and their models (`make openapi` writes docs/openapi.yaml).

Powertools generates the paths and the models' schemas from the routes; this
module adds what no route carries (hookline.entrypoints.api.front), turns
the routes' shared refusals into references, and drops Powertools' own
validation-error schemas, since hookline answers its own envelope.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml
from pydantic import TypeAdapter

from hookline.core.contract.common import Error, GatewayError
from hookline.entrypoints.api import app, front, served
from hookline.entrypoints.api.answers import REF_KEY

OPENAPI_VERSION = "3.1.0"
# What every route behind the authorizer may answer, whatever it does: no key, a key or session refused, throttled, an internal error.
_EVERY_V1_ROUTE = {"401": "Unauthorized", "403": "Forbidden", "429": "TooManyRequests", "500": "InternalError"}
_POWERTOOLS_ONLY = ("HTTPValidationError", "ValidationError", "ResponseValidationError")
# Bounds Powertools writes as floats (`1.0`) that are whole numbers in the models.
_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")


def _schema_of(model: Any) -> dict[str, Any]:
    return TypeAdapter(model).json_schema(ref_template="#/components/schemas/{model}", mode="serialization")


def document() -> dict[str, Any]:
    routes = served()  # every router module, included
    generated = json.loads(app.get_openapi_json_schema(title=front.INFO["title"], version=front.INFO["version"], openapi_version=OPENAPI_VERSION))
    doc: dict[str, Any] = {"openapi": OPENAPI_VERSION, "info": front.INFO, "servers": front.SERVERS, "security": front.SECURITY, "tags": front.TAGS}
    # Paths with parameters first (as Powertools lists them), each kind in the routers' own order (`served`), whichever
    # order requests had the routers included in.
    order = {path: i for i, path in enumerate(dict.fromkeys(re.sub(r"<(\w+)>", r"{\1}", r.path) for r in routes))}
    paths = dict(sorted(generated.get("paths", {}).items(), key=lambda item: ("{" not in item[0], order[item[0]])))
    # A route without `@allow` is public: the stack serves it without the authorizer (infra/api.py), so no security.
    public = {(r.method.lower(), re.sub(r"<(\w+)>", r"{\1}", r.path)) for r in routes if r.declared is None}
    for path, item in paths.items():
        for method, operation in item.items():
            responses = operation.get("responses", {})
            if "422" in responses and "HTTPValidationError" in json.dumps(responses["422"]):
                del responses["422"]
            for status, answer in list(responses.items()):
                if REF_KEY in answer:
                    responses[status] = {REF_KEY: answer[REF_KEY]}
                elif status == "204":  # no body: Powertools gives every answer the route's return schema
                    answer.pop("content", None)
                elif "ResponseValidationError" in json.dumps(answer):
                    del responses[status]
            operation["tags"] = sorted(operation.get("tags", []))  # Powertools keeps them in a set
            if (method, path) in public:
                operation["security"] = []
            else:
                for status, name in _EVERY_V1_ROUTE.items():
                    responses.setdefault(status, {REF_KEY: f"#/components/responses/{name}"})
            operation["responses"] = dict(sorted(responses.items()))
    doc["paths"] = paths
    schemas = {k: v for k, v in generated.get("components", {}).get("schemas", {}).items() if k not in _POWERTOOLS_ONLY}
    for model in (Error, GatewayError):
        found = _schema_of(model)
        schemas.update(found.pop("$defs", {}))
        schemas[model.__name__] = found
    doc["components"] = {"securitySchemes": front.SECURITY_SCHEMES, "responses": front.REFUSALS, "schemas": dict(sorted(schemas.items()))}
    _whole_bounds(doc)
    return doc


class _Dumper(yaml.SafeDumper):
    """Multi-line text as a block (`|`), as people write it."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_Dumper.add_representer(str, _text)


def _whole_bounds(node: Any) -> None:
    """Write whole-number bounds as integers, as the models declare them."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in _BOUNDS and isinstance(value, float) and value.is_integer():
                node[key] = int(value)
            else:
                _whole_bounds(value)
    elif isinstance(node, list):
        for item in node:
            _whole_bounds(item)


def as_yaml(doc: dict[str, Any]) -> str:
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120)


def main() -> None:
    import sys

    sys.stdout.write(as_yaml(document()))


if __name__ == "__main__":
    main()
