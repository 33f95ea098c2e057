"""HOOKLINE_SIZE and the account's concurrency quota: what each function reserves, and what synth refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookline.core import profiles
from hookline.core.settings import Settings, SettingsError
from hookline.wiring.topology import API, AUTHORIZER, DELIVERY, DELIVERY_DLQ, FUNCTIONS, JOBS, JOBS_QUEUE, ORDERED, PREVIOUS_JOB_QUEUE, RETRY
from infra import sizing
from infra.synth import build_app
from tests.infrastructure.conftest import BASE_SETTINGS, Synth, synthesize

SMALL = Settings.from_env({"HOOKLINE_SIZE": "small"})


def test_the_default_size_reserves_the_concurrency_settings() -> None:
    # Given the default settings
    # Then the queue consumers reserve their settings, the api and authorizer nothing, nor the ordered lane (its
    # event source is capped at HOOKLINE_ORDERED_CONCURRENCY instead)
    reserved = {spec.name: sizing.concurrency(spec, BASE_SETTINGS).reserved for spec in FUNCTIONS}
    assert reserved == {API.name: None, AUTHORIZER.name: None, DELIVERY.name: 90, RETRY.name: 60, ORDERED.name: None, JOBS.name: 4}
    assert sizing.concurrency(ORDERED, BASE_SETTINGS).pollers == BASE_SETTINGS.ordered_concurrency == 10
    assert sizing.reserved_total(BASE_SETTINGS) == 154
    # And the jobs function's event source leaves 2 of its 4 to the schedule and the DLQ drain
    assert sizing.concurrency(JOBS, BASE_SETTINGS).pollers == 2
    assert sizing.concurrency(DELIVERY, BASE_SETTINGS).pollers == 90


def test_a_new_accounts_quota_of_10_holds_no_reservation_and_the_fix_is_named() -> None:
    # Given the default size and a quota of 10 (a new account's)
    (problem,) = sizing.problems(BASE_SETTINGS, 10)
    # Then the problem says how much would be left, AWS's minimum, and the ways out
    assert "reserve 154" in problem and "leaves -144" in problem and "at least 100" in problem
    assert "HOOKLINE_SIZE=small" in problem and "L-B99A9384" in problem and "at least 254" in problem
    # And at 253 it still does not fit, at 254 it does
    assert sizing.problems(BASE_SETTINGS, 253)
    assert not sizing.problems(BASE_SETTINGS, 254)


def test_the_small_size_reserves_nothing_and_caps_each_event_source_at_2() -> None:
    for spec in FUNCTIONS:
        c = sizing.concurrency(spec, SMALL)
        assert c.reserved is None, spec.name
        assert c.pollers == (2 if spec.sqs_source is not None and spec is not JOBS else None), spec.name
    assert sizing.reserved_total(SMALL) == 0
    assert sizing.problems(SMALL, 10) == []


def test_the_small_size_leaves_the_api_and_authorizer_at_least_4_of_a_quota_of_10() -> None:
    # Given the small size, in an account whose quota is the one it declares (10)
    assert SMALL.account_concurrency_quota == sizing.SMALL_QUOTA == 10
    # Then the jobs function has no job-queue event source: its scheduled sweep runs the jobs
    assert not sizing.concurrency(JOBS, SMALL).source and sizing.sweep_runs_jobs(SMALL)
    assert not sizing.sweep_runs_jobs(BASE_SETTINGS)
    # And the three sources left, each at its cap, take 6 while every lane drains a backlog at once; with the sweep's
    # one invocation a minute that is 7, so at least 3 of 10 stay for the api and authorizer even then, 4 without it
    assert [spec.name for spec in FUNCTIONS if sizing.concurrency(spec, SMALL).pollers] == [DELIVERY.name, RETRY.name, ORDERED.name]
    assert sizing.sources_total(SMALL) == 6
    assert SMALL.account_concurrency_quota - sizing.sources_total(SMALL) >= sizing.SMALL_FREE == 4


def test_a_directly_invoked_function_needs_headroom_beyond_its_event_source() -> None:
    # Given the jobs function reserving 3: its source needs 2 and its direct invocations 2 more
    (problem,) = sizing.problems(Settings.from_env({"HOOKLINE_JOBS_CONCURRENCY": "3"}), 1000)
    assert "jobs function reserves 3, below 4" in problem
    # And a plain consumer needs the source's minimum of 2 only
    (problem,) = sizing.problems(Settings.from_env({"HOOKLINE_RETRY_CONCURRENCY": "1"}), 1000)
    assert "retry function reserves 1, below 2" in problem


def test_synth_refuses_a_reservation_the_declared_quota_cannot_hold() -> None:
    # Given a declared quota of 10 with the default size
    settings = Settings.from_env({"HOOKLINE_ACCOUNT_CONCURRENCY_QUOTA": "10"})
    # Then synth stops before building anything, naming the quota and the fix
    with pytest.raises(sizing.SizingError, match=r"HOOKLINE_SIZE=small.*HOOKLINE_ACCOUNT_CONCURRENCY_QUOTA=10"):
        build_app(settings, checks=False)


@pytest.mark.parametrize("size", profiles.SIZES)
def test_each_profile_fits_the_quota_it_declares_and_sets_its_settings(size: str) -> None:
    # Given a profile, nothing else set
    settings = Settings.from_env({"HOOKLINE_SIZE": size})
    # Then every sized setting has the profile's value, and synth's check passes at the quota it declares
    assert {name: getattr(settings, name) for name in profiles.PROFILES[size].values} == dict(profiles.PROFILES[size].values)
    assert sizing.problems(settings, settings.account_concurrency_quota) == []
    sizing.check(settings)


def test_the_default_profile_is_the_settings_own_defaults() -> None:
    assert {name: getattr(Settings(), name) for name in profiles.PROFILES["default"].values} == dict(profiles.PROFILES["default"].values)


def test_a_setting_in_the_environment_wins_over_its_profile() -> None:
    settings = Settings.from_env({"HOOKLINE_SIZE": "xlarge", "HOOKLINE_DELIVERY_CONCURRENCY": "400", "HOOKLINE_DELIVERY_MEMORY_MB": "2048"})
    assert (settings.delivery_concurrency, settings.delivery_memory_mb, settings.retry_memory_mb) == (400, 2048, 1769)


@pytest.mark.parametrize("size", [s for s in profiles.SIZES if s != "small"])
def test_synth_refuses_a_profile_whose_declared_quota_cannot_hold_it(size: str) -> None:
    # Given a profile that reserves concurrency, declared on an account with less than it needs
    needs = sizing.reserved_total(Settings.from_env({"HOOKLINE_SIZE": size})) + sizing.UNRESERVED_MINIMUM
    settings = Settings.from_env({"HOOKLINE_SIZE": size, "HOOKLINE_ACCOUNT_CONCURRENCY_QUOTA": str(needs - 1)})
    # Then synth refuses it before building anything, naming the profile, the quota and what it needs
    with pytest.raises(sizing.SizingError, match=rf"at least {needs}.*HOOKLINE_SIZE={size}, HOOKLINE_ACCOUNT_CONCURRENCY_QUOTA={needs - 1}"):
        build_app(settings, checks=False)
    # And at the quota it needs, it passes
    sizing.check(Settings.from_env({"HOOKLINE_SIZE": size, "HOOKLINE_ACCOUNT_CONCURRENCY_QUOTA": str(needs)}))


def test_the_xlarge_stack_gives_its_delivery_functions_a_vcpu_and_their_windows(tmp_path: Path, deps_layer: Path) -> None:
    big: Synth = synthesize(tmp_path, Settings.from_env({"HOOKLINE_SIZE": "xlarge"}))
    for spec in (DELIVERY, RETRY):
        props = big.resources[big.function_id(spec)]["Properties"]
        assert (props["MemorySize"], props["ReservedConcurrentExecutions"]) == (1769, {DELIVERY.name: 450, RETRY.name: 300}[spec.name]), spec.name
    windows = {
        r["Properties"]["BatchSize"]: r["Properties"].get("MaximumBatchingWindowInSeconds")
        for r in big.resources.values()
        if r["Type"] == "AWS::Lambda::EventSourceMapping" and r["Properties"].get("ScalingConfig", {}).get("MaximumConcurrency") in (450, 300)
    }
    assert windows == {10: None, 20: 1}


def test_a_batch_above_10_needs_a_window() -> None:
    with pytest.raises(SettingsError, match="HOOKLINE_DELIVERY_BATCH_WINDOW_SECONDS=0"):
        Settings.from_env({"HOOKLINE_DELIVERY_BATCH_SIZE": "25"})
    assert Settings.from_env({"HOOKLINE_DELIVERY_BATCH_SIZE": "25", "HOOKLINE_DELIVERY_BATCH_WINDOW_SECONDS": "1"}).delivery_batch_size == 25


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
    assert len(mappings) == len([spec for spec in FUNCTIONS if spec.sqs_source is not None and spec is not JOBS])
    assert all(m["ScalingConfig"] == {"MaximumConcurrency": 2} for m in mappings)
    # And the jobs function has no event source on the job queue: it is told its sweep runs the jobs, and may
    # receive, delete and hide the job queue's messages itself (and no other queue's but the delivery DLQ, its drain's,
    # and the previous release's job queue, which its sweep moves to the jobs queue)
    jobs_queue = {"Fn::GetAtt": [small.queue_id(JOBS_QUEUE), "Arn"]}
    assert all(m["EventSourceArn"] != jobs_queue for m in mappings)
    env = small.resources[small.function_id(JOBS)]["Properties"]["Environment"]["Variables"]
    assert env["HOOKLINE_SWEEP_RUNS_JOBS"] == "True"
    receives = [
        resource
        for statement in small.policy_statements(small.role_id(JOBS))
        if {"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility"} <= set(statement["Action"])
        for resource in (statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]])
    ]
    assert sorted(map(str, receives)) == sorted(
        map(
            str,
            [
                jobs_queue,
                {"Fn::GetAtt": [small.queue_id(DELIVERY_DLQ), "Arn"]},
                {"Fn::GetAtt": [small.queue_id(PREVIOUS_JOB_QUEUE), "Arn"]},
            ],
        )
    )


def test_at_every_other_size_the_jobs_function_drains_the_jobs_queue_by_its_event_source(synth: Synth) -> None:
    # Given the default size
    env = synth.resources[synth.function_id(JOBS)]["Properties"]["Environment"]["Variables"]
    # Then the sweep is told not to run the jobs, whatever the synth machine's environment said
    assert env["HOOKLINE_SWEEP_RUNS_JOBS"] == "False"
    sources = [r["Properties"] for r in synth.resources.values() if r["Type"] == "AWS::Lambda::EventSourceMapping"]
    assert {"Fn::GetAtt": [synth.queue_id(JOBS_QUEUE), "Arn"]} in [m["EventSourceArn"] for m in sources]
