"""docs/openapi.yaml is generated from the API's routes and models (`make openapi`), never edited by hand."""

from __future__ import annotations

from pathlib import Path

import yaml

from hookline.core.contract.common import Error
from hookline.entrypoints.api.document import as_yaml, document

COMMITTED = Path(__file__).resolve().parents[2] / "docs" / "openapi.yaml"


def test_the_committed_document_is_the_generated_one() -> None:
    # Given the document the routes and models generate
    generated = as_yaml(document())
    # Then the committed file is exactly that (run `make openapi` after changing a route or a model)
    assert COMMITTED.read_text(encoding="utf-8") == generated, "docs/openapi.yaml is stale: run `make openapi`"


def test_the_document_reads_back_as_it_was_generated() -> None:
    # Given the generated document, written as YAML
    doc = document()
    # Then reading the YAML gives the same document (block text, unicode and numbers survive)
    assert yaml.safe_load(as_yaml(doc)) == doc


def test_error_answers_use_the_envelope_model() -> None:
    # Given the document's shared refusals
    doc = document()
    # Then the envelope's schema is the Error model's, and every refusal's body is it or API Gateway's own
    assert doc["components"]["schemas"]["Error"]["properties"]["error"] == {"$ref": "#/components/schemas/ErrorDetail"}
    assert set(Error.model_fields) == {"error"}
    for name, refusal in doc["components"]["responses"].items():
        schema = refusal["content"]["application/json"]["schema"]
        refs = [schema.get("$ref")] + [s.get("$ref") for s in schema.get("anyOf", [])]
        assert set(refs) & {"#/components/schemas/Error", "#/components/schemas/GatewayError"}, name


def test_every_v1_operation_answers_429_and_500_and_public_ones_need_no_key() -> None:
    doc = document()
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            if path.startswith("/v1"):
                assert {"429", "500"} <= set(operation["responses"]), f"{method} {path}"
            else:
                assert operation["security"] == [], f"{method} {path}"
