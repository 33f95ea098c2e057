"""HOOKLINE_SIZE and the account's concurrency quota: what each function reserves, and what synth refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookline.core.settings import Settings, SettingsError
from hookline.wiring.topology import API, AUTHORIZER, DELIVERY, FUNCTIONS, ORDERED, REPLAY, RETRY
from infra import sizing
from infra.synth import build_app
from tests.infrastructure.conftest import BASE_SETTINGS, Synth, synthesize

SMALL = Settings.from_env({"HOOKLINE_SIZE": "small"})


def test_the_default_size_reserves_the_concurrency_settings() -> None:
    # Given the default settings
    # Then the queue consumers reserve their settings, the api and authorizer nothing, nor the ordered lane (its
    # event source is capped at HOOKLINE_ORDERED_CONCURRENCY instead)
    reserved = {spec.name: sizing.concurrency(spec, BASE_SETTINGS).reserved for spec in FUNCTIONS}
    assert reserved == {API.name: None, AUTHORIZER.name: None, DELIVERY.name: 30, RETRY.name: 20, ORDERED.name: None, REPLAY.name: 4}
    assert sizing.concurrency(ORDERED, BASE_SETTINGS).pollers == BASE_SETTINGS.ordered_concurrency == 10
    assert sizing.reserved_total(BASE_SETTINGS) == 54
    # And the replay function's event source leaves 2 of its 4 to the schedule and the DLQ drain
    assert sizing.concurrency(REPLAY, BASE_SETTINGS).pollers == 2
    assert sizing.concurrency(DELIVERY, BASE_SETTINGS).pollers == 30


def test_a_new_accounts_quota_of_10_holds_no_reservation_and_the_fix_is_named() -> None:
    # Given the default size and a quota of 10 (a new account's)
    (problem,) = sizing.problems(BASE_SETTINGS, 10)
    # Then the problem says how much would be left, AWS's minimum, and the ways out
    assert "reserve 54" in problem and "leaves -44" in problem and "at least 100" in problem
    assert "HOOKLINE_SIZE=small" in problem and "L-B99A9384" in problem and "at least 154" in problem
    # And at 153 it still does not fit, at 154 it does
    assert sizing.problems(BASE_SETTINGS, 153)
    assert not sizing.problems(BASE_SETTINGS, 154)


def test_the_small_size_reserves_nothing_and_caps_each_event_source_at_2() -> None:
    for spec in FUNCTIONS:
        c = sizing.concurrency(spec, SMALL)
        assert c.reserved is None, spec.name
        assert c.pollers == (2 if spec.sqs_source is not None else None), spec.name
    assert sizing.reserved_total(SMALL) == 0
    assert sizing.problems(SMALL, 10) == []


def test_a_directly_invoked_function_needs_headroom_beyond_its_event_source() -> None:
    # Given the replay function reserving 3: its source needs 2 and its direct invocations 2 more
    (problem,) = sizing.problems(Settings.from_env({"HOOKLINE_REPLAY_CONCURRENCY": "3"}), 1000)
    assert "replay function reserves 3, below 4" in problem
    # And a plain consumer needs the source's minimum of 2 only
    (problem,) = sizing.problems(Settings.from_env({"HOOKLINE_RETRY_CONCURRENCY": "1"}), 1000)
    assert "retry function reserves 1, below 2" in problem


def test_synth_refuses_a_reservation_the_declared_quota_cannot_hold() -> None:
    # Given a declared quota of 10 with the default size
    settings = Settings.from_env({"HOOKLINE_ACCOUNT_CONCURRENCY_QUOTA": "10"})
    # Then synth stops before building anything, naming the quota and the fix
    with pytest.raises(sizing.SizingError, match=r"HOOKLINE_SIZE=small.*HOOKLINE_ACCOUNT_CONCURRENCY_QUOTA=10"):
        build_app(settings, checks=False)


def test_an_unknown_size_is_refused() -> None:
    with pytest.raises(SettingsError, match="HOOKLINE_SIZE"):
        Settings.from_env({"HOOKLINE_SIZE": "huge"})


def test_the_small_stack_reserves_nothing_and_its_pollers_stay_low(tmp_path: Path, deps_layer: Path) -> None:
    # Given the stack synthesized for a quota of 10
    small: Synth = synthesize(tmp_path, Settings.from_env({"HOOKLINE_SIZE": "small", "HOOKLINE_ACCOUNT_CONCURRENCY_QUOTA": "10"}))
    # Then no function reserves concurrency, and each SQS event source takes at most 2
    for spec in FUNCTIONS:
        assert "ReservedConcurrentExecutions" not in small.resources[small.function_id(spec)]["Properties"], spec.name
    mappings = [r["Properties"] for r in small.resources.values() if r["Type"] == "AWS::Lambda::EventSourceMapping"]
    assert len(mappings) == len([spec for spec in FUNCTIONS if spec.sqs_source is not None])
    assert all(m["ScalingConfig"] == {"MaximumConcurrency": 2} for m in mappings)
