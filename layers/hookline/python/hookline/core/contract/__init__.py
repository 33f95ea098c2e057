"""The API's contract: a pydantic model for every request and response body of /v1, one module per resource.

The routes (hookline.entrypoints.api) validate requests against these models
and answer them; the services take and return them; the OpenAPI document is
generated from them. A model's rules are hookline.core.validation's, so a
refusal keeps its code and message: a rule raises hookline's own error,
which pydantic lets through unchanged, and what pydantic finds by the schema
alone (a missing field, a wrong type, an unknown field) becomes the same
codes (hookline.entrypoints.api.routing.contract_error).
"""
