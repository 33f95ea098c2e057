"""`make contract-fuzz` runs every operation: those with a content filter without schemathesis's coverage phase, in a
pass of their own (tests/contract_fuzz.py), every other with every phase; a run that names its own selection runs as
given."""

from __future__ import annotations

from tests.contract_fuzz import DEEP_GRAMMAR, SHALLOW_PHASES, passes


def test_every_operation_is_in_one_pass_and_only_the_deep_grammars_skip_the_coverage_phase() -> None:
    every, deep = passes(["--seed", "7"])
    assert every[:2] == deep[:2] == ["--seed", "7"]
    assert [every[i + 1] for i, arg in enumerate(every) if arg == "--exclude-operation-id"] == list(DEEP_GRAMMAR)
    assert "--phases" not in every
    assert [deep[i + 1] for i, arg in enumerate(deep) if arg == "--include-operation-id"] == list(DEEP_GRAMMAR)
    assert deep[-2:] == ["--phases", SHALLOW_PHASES] and "coverage" not in SHALLOW_PHASES


def test_a_run_that_names_its_own_operations_or_phases_runs_as_given() -> None:
    assert passes(["--include-path", "/v1/customers"]) == [["--include-path", "/v1/customers"]]
    assert passes(["--phases", "coverage"]) == [["--phases", "coverage"]]


def test_an_mtls_pair_no_handshake_could_present_is_the_only_auth_refusal_accepted() -> None:
    from tests.support.contract_fuzz_hooks import accepted_refusal

    unreadable = "'auth': the certificate or the private key cannot be read (PEM; the key unencrypted)"
    assert accepted_refusal("POST /v1/endpoints", 422, {"code": "invalid_auth", "message": unreadable}, case=None)
    assert accepted_refusal(
        "PATCH /v1/endpoints/{endpoint_id}", 422, {"code": "invalid_auth", "message": "'auth': the private key is not the certificate's"}, case=None
    )
    assert not accepted_refusal("POST /v1/endpoints", 422, {"code": "invalid_auth", "message": "'auth.token' is required"}, case=None)
    assert not accepted_refusal("PUT /v1/customers/{uid}", 422, {"code": "invalid_auth", "message": unreadable}, case=None)
