"""A stack's settings come from `stacks/<stack>.json` (infra/stack_settings.py), and the deploying shell cannot change
them behind the file's back; the template records what it was made from."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from hookline.core.profiles import SIZES
from hookline.core.settings import Settings
from infra import REPO_ROOT, stack_settings
from infra.stack_settings import StackSettingsError
from tests.infrastructure.conftest import HANG_SECONDS, Synth, synthesize

LARGE = {"HOOKLINE_SIZE": "large", "HOOKLINE_ALARM_EMAIL": "oncall@example.com"}


def test_the_file_gives_the_settings_and_its_name_the_stack() -> None:
    # Given a stack file naming a size and an alarm address, and a shell with no HOOKLINE_* variable
    settings = stack_settings.resolve("hl-c", LARGE, {})
    # Then the stack is named after the file, and what the file leaves out takes its size's value
    assert (settings.stack_name, settings.size, settings.alarm_emails) == ("hl-c", "large", ("oncall@example.com",))
    assert settings.delivery_concurrency == 300
    assert settings.retention_days == Settings().retention_days


def test_a_shell_setting_that_disagrees_stops_and_names_both_values() -> None:
    with pytest.raises(StackSettingsError) as raised:
        stack_settings.resolve("hl-c", LARGE, {"HOOKLINE_SIZE": "small", "HOOKLINE_ALARM_EMAIL": "other@example.com"})
    # Every disagreement at once, each with the shell's value and the file's
    message = str(raised.value)
    assert "HOOKLINE_SIZE=small in the environment" in message and "gives large" in message
    assert "HOOKLINE_ALARM_EMAIL=other@example.com in the environment" in message and "gives oncall@example.com" in message


def test_a_shell_setting_the_file_leaves_out_is_held_to_the_default() -> None:
    with pytest.raises(StackSettingsError, match=r"HOOKLINE_RETENTION_DAYS=7 in the environment, but .* gives 30 \(it names none: the default\)"):
        stack_settings.resolve("hl-c", LARGE, {"HOOKLINE_RETENTION_DAYS": "7"})


def test_a_shell_setting_that_agrees_is_accepted() -> None:
    # The same size written again, a profile's own value, and variables that are no stack setting (local mode's)
    env = {"HOOKLINE_SIZE": "large", "HOOKLINE_DELIVERY_CONCURRENCY": "300", "HOOKLINE_PORT": "9999", "HOOKLINE_TABLE_NAME": "x", "HOOKLINE_DEMO": "0"}
    assert stack_settings.resolve("hl-c", LARGE, env).size == "large"


def test_the_stack_name_comes_from_the_file_alone() -> None:
    with pytest.raises(StackSettingsError, match=r"HOOKLINE_STACK_NAME=hookline in the environment, but STACK=hl-c names the stack"):
        stack_settings.resolve("hl-c", LARGE, {"HOOKLINE_STACK_NAME": "hookline"})
    with pytest.raises(StackSettingsError, match="the file's name is the stack's name"):
        stack_settings.file_values({"HOOKLINE_STACK_NAME": "other"}, "stacks/hl-c.json")


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ({"HOOKLINE_SIZ": "large"}, "HOOKLINE_SIZ is not a setting a stack file can hold"),
        ({"HOOKLINE_TABLE_NAME": "t"}, "HOOKLINE_TABLE_NAME is not a setting a stack file can hold"),
        ({"HOOKLINE_PORT": 1}, "HOOKLINE_PORT is not a setting"),
        ({"HOOKLINE_ALLOW_PRIVATE_NETWORKS": "10.0.0.0/8"}, "HOOKLINE_ALLOW_PRIVATE_NETWORKS is not a setting"),
        ({"HOOKLINE_SWEEP_RUNS_JOBS": True}, "HOOKLINE_SWEEP_RUNS_JOBS is not a setting"),
        ({"HOOKLINE_REPLAY_CONCURRENCY": 4}, "HOOKLINE_REPLAY_CONCURRENCY was renamed HOOKLINE_JOBS_CONCURRENCY in this release"),
        ({"HOOKLINE_BREAKER_MAX_COOLDOWN_SECONDS": 1800}, "HOOKLINE_BREAKER_MAX_COOLDOWN_SECONDS is no longer read: this release replaced it"),
        ({"HOOKLINE_ALARM_EMAIL": ["a@example.com"]}, "must be a string, a number or true/false"),
    ],
)
def test_a_file_entry_a_deploy_cannot_use_is_refused(raw: dict[str, Any], reason: str) -> None:
    with pytest.raises(StackSettingsError, match=reason):
        stack_settings.file_values(raw, "stacks/hl-c.json")


def test_a_value_a_setting_refuses_names_the_file() -> None:
    with pytest.raises(StackSettingsError, match=r"stacks/hl-c\.json: HOOKLINE_SIZE='huge': must be one of"):
        stack_settings.resolve("hl-c", {"HOOKLINE_SIZE": "huge"}, {})


def test_values_are_read_as_the_variables_are(tmp_path: Path) -> None:
    path = tmp_path / "hl-c.json"
    path.write_text(json.dumps({"HOOKLINE_LOG_SUCCESSES": True, "HOOKLINE_RETRY_BASE_SECONDS": 12.5, "HOOKLINE_MAX_ATTEMPTS": 5}))
    settings = stack_settings.load({"STACK": "hl-c"}, stacks_dir=tmp_path)
    assert (settings.log_successes, settings.retry_base_seconds, settings.max_attempts) == (True, 12.5, 5)


@pytest.mark.parametrize("stack", ["../hookline", "hl c", "", "-x"])
def test_a_stack_name_that_names_no_file_is_refused(tmp_path: Path, stack: str) -> None:
    if not stack:  # empty: the default stack, whose file is committed
        assert stack_settings.load({"STACK": stack}).stack_name == "hookline"
        return
    with pytest.raises(StackSettingsError, match="a stack's name is a letter"):
        stack_settings.load({"STACK": stack}, stacks_dir=tmp_path)


def test_a_missing_or_malformed_file_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(StackSettingsError, match=r"no such stack file\. Copy stacks/hookline\.json"):
        stack_settings.load({"STACK": "hl-none"}, stacks_dir=tmp_path)
    (tmp_path / "hl-bad.json").write_text("{")
    with pytest.raises(StackSettingsError, match="not a JSON object of settings"):
        stack_settings.load({"STACK": "hl-bad"}, stacks_dir=tmp_path)


def test_the_committed_default_stack_holds_the_defaults() -> None:
    assert stack_settings.load({}) == Settings()


@pytest.mark.parametrize("size", SIZES)
def test_what_the_template_records_reads_back_as_the_same_settings(size: str) -> None:
    settings = stack_settings.resolve("hl-c", {**LARGE, "HOOKLINE_SIZE": size, "HOOKLINE_NOTIFICATION_SENDER": "a@example.com"}, {})
    recorded = stack_settings.recorded(settings)
    back = Settings.from_env(recorded)
    stackable = {f.name for f in fields(Settings) if f.metadata["env"] in (*stack_settings.STACK_FILE_SETTINGS, "HOOKLINE_STACK_NAME")}
    assert {name: getattr(back, name) for name in stackable} == {name: getattr(settings, name) for name in stackable}


def test_the_template_carries_the_settings_it_was_made_from(tmp_path: Path, deps_layer: Path) -> None:
    synth: Synth = synthesize(tmp_path, stack_settings.resolve("hl-c", LARGE, {}))
    template = synth.template.to_json()
    recorded = stack_settings.from_template(template)
    assert recorded is not None
    assert (recorded["HOOKLINE_STACK_NAME"], recorded["HOOKLINE_SIZE"], recorded["HOOKLINE_ALARM_EMAIL"]) == ("hl-c", "large", "oncall@example.com")
    assert template["Metadata"]["hookline"]["stackFile"] == "stacks/hl-c.json"
    assert stack_settings.from_template({"Resources": {}}) is None  # a template from before


@pytest.fixture
def hl_c_file() -> Iterator[Path]:
    """stacks/hl-c.json in the repository, as an operator commits it, for the length of the test."""
    path = stack_settings.stack_file("hl-c")
    assert not path.exists(), "stacks/hl-c.json is the test's own"
    path.write_text(json.dumps(LARGE))
    try:
        yield path
    finally:
        path.unlink()


def _make_synth(outdir: Path, **shell: str) -> subprocess.CompletedProcess[str]:
    """`make synth STACK=hl-c` in a shell with no HOOKLINE_* variable (and no STACK) but `shell`'s."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKLINE_") and k not in {"STACK", "MAKEFLAGS", "MAKELEVEL", "MFLAGS"}}
    env |= {"CDK_OUTDIR": str(outdir), **shell}
    return subprocess.run(["make", "synth", "STACK=hl-c"], cwd=REPO_ROOT, env=env, capture_output=True, text=True, check=False, timeout=HANG_SECONDS)


def test_make_synth_reads_the_stack_file_and_stops_on_a_shell_setting_that_disagrees(hl_c_file: Path, tmp_path: Path, deps_layer: Path) -> None:
    # One test, so that no other worker writes stacks/hl-c.json meanwhile.
    # Given a shell with HOOKLINE_SIZE=small: make synth stops before synthesizing, naming both values
    refused = _make_synth(tmp_path, HOOKLINE_SIZE="small")
    assert refused.returncode != 0
    assert "HOOKLINE_SIZE=small in the environment, but stacks/hl-c.json gives large" in refused.stderr
    assert not (tmp_path / "hl-c.template.json").exists()
    # Given no HOOKLINE_* variable: the template has large's reservations and the file's alarm subscription
    done = _make_synth(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    template = json.loads((tmp_path / "hl-c.template.json").read_text())
    resources = template["Resources"].values()
    reserved = {r["Properties"].get("ReservedConcurrentExecutions") for r in resources if r["Type"] == "AWS::Lambda::Function"}
    assert {300, 200} <= reserved  # large's delivery and retry reservations
    subscriptions = [r["Properties"] for r in resources if r["Type"] == "AWS::SNS::Subscription"]
    assert [(s["Protocol"], s["Endpoint"]) for s in subscriptions] == [("email", "oncall@example.com")]
