"""The API's contract: a pydantic model for every request and response body of /v1, one module per resource.

The routes (hookline.entrypoints.api) validate requests against these models
and answer them; the services take and return them; the OpenAPI document is
generated from them. A field's rule is declared once, as a type of
hookline.core.contract.fields (its constraints are the check and the schema,
its refusal hookline's code and message) or, where no type has it yet, one of
hookline.core.validation's rules, which raises hookline's own error; what
pydantic finds by the schema alone (a missing field, a wrong type, an unknown
field) becomes the same codes (hookline.entrypoints.api.routing.contract_error).
"""
