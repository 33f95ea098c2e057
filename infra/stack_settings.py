"""A stack's settings, committed with the app: `stacks/<stack>.json` is the one place a deploy's settings live.

    make synth STACK=hl-prod      # reads stacks/hl-prod.json; the stack is named hl-prod
    make deploy STACK=hl-prod     # the same file, read again by the preflight and by `cdk deploy`

A stack file is a JSON object of `HOOKLINE_*` settings (the README's settings table) and their values, e.g.
`{"HOOKLINE_SIZE": "large", "HOOKLINE_ALARM_EMAIL": "oncall@example.com"}`; what it leaves out takes its default
(or its HOOKLINE_SIZE profile's value). The file's name is the stack's name. It may name only the settings a deploy
reads (STACK_FILE_SETTINGS): not the resources the stack fills in itself, not local mode's, not HOOKLINE_STACK_NAME
(the file's name is the stack's name), and not those the cloud forces (the SSRF guard's exemptions).

The deploying shell cannot change a deploy behind the file's back: a `HOOKLINE_*` setting in the environment that
disagrees with the value the file gives (named or by default) stops the command and names both values; one that
agrees is ignored. Without that, a later deploy from another shell silently returned to the default size, dropped
the alarm subscription or the SES grant, or deployed a second stack.

The synthesized template carries the settings it was made from (TEMPLATE_METADATA in the template's Metadata), so
`make preflight` can read back what is deployed (CloudFormation GetTemplate) and show what a deploy changes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from hookline.core.settings import MAX_STACK_NAME, RETIRED, STACK_NAME, Settings, SettingsError, parse_setting, renamed
from infra import REPO_ROOT

STACKS_DIR = REPO_ROOT / "stacks"
DEFAULT_STACK = "hookline"
# The environment variable (and make variable) that names the stack, and with it its file.
STACK_VARIABLE = "STACK"
# The template's Metadata key under which the synthesized template records its stack and settings.
TEMPLATE_METADATA = "hookline"
STACK_NAME_SETTING = "HOOKLINE_STACK_NAME"
# Filled in by the stack from the topology (tables, queue URLs, ARNs), local mode's own, or forced by the cloud.
# HOOKLINE_SWEEP_RUNS_JOBS follows the size (infra.sizing.sweep_runs_jobs): the job queue has its event source or the sweep.
_NOT_IN_FILE = frozenset({"stack_name", "api_keys", "port", "aws_port", "allow_private_networks", "own_account_id", "delivery_role_arns", "sweep_runs_jobs"})


class StackSettingsError(SettingsError):
    """A stack file that cannot be read or used, or a shell setting that disagrees with it."""


def is_resource_setting(name: str) -> bool:
    """Physical names, URLs and ARNs: each function gets these from the topology, per its grants (the delivery roles'
    ARNs, from the stack). Not HOOKLINE_NOTIFICATION_IDENTITY_ARN, which the operator names: use `_resource`."""
    return name == "table_name" or name.endswith(("_url", "_arn", "_arns"))


def _resource(name: str) -> bool:
    """What a stack file cannot name because the stack fills it in: the resource settings less the SES identity's ARN."""
    return is_resource_setting(name) and name != "notification_identity_arn"


def _env_names() -> dict[str, str]:
    """Settings field name -> its HOOKLINE_* variable."""
    return {f.name: str(f.metadata["env"]) for f in fields(Settings)}


# The HOOKLINE_* settings a stack file may name, in the settings table's order.
STACK_FILE_SETTINGS: tuple[str, ...] = tuple(env for name, env in _env_names().items() if name not in _NOT_IN_FILE and not _resource(name))


def stack_file(stack: str, stacks_dir: Path = STACKS_DIR) -> Path:
    return stacks_dir / f"{stack}.json"


def stack_name(env: Mapping[str, str]) -> str:
    """The stack a command works on: STACK, else `hookline`."""
    return (env.get(STACK_VARIABLE) or "").strip() or DEFAULT_STACK


def read_file(path: Path) -> dict[str, str]:
    """The file's settings as the strings Settings.from_env reads; a missing, malformed or unknown entry is refused."""
    try:
        raw = json.loads(path.read_text())
    except FileNotFoundError:
        raise StackSettingsError(
            f"{path.relative_to(REPO_ROOT) if path.is_relative_to(REPO_ROOT) else path}: no such stack file. "
            f"Copy {stack_file(DEFAULT_STACK).relative_to(REPO_ROOT)} to it, set the stack's settings there and commit it"
        ) from None
    except (OSError, ValueError) as exc:
        raise StackSettingsError(f"{path}: not a JSON object of settings ({exc})") from None
    if not isinstance(raw, dict):
        raise StackSettingsError(f"{path}: not a JSON object of settings")
    return file_values(raw, str(path))


def file_values(raw: Mapping[str, Any], where: str) -> dict[str, str]:
    """A stack file's object as environment strings: each key one of STACK_FILE_SETTINGS, each value a string, a
    number or a boolean (a list of addresses is written comma-separated, as the variable takes it)."""
    values: dict[str, str] = {}
    for key, value in raw.items():
        if key == STACK_NAME_SETTING:
            raise StackSettingsError(f"{where}: {key} cannot be set in a stack file: the file's name is the stack's name")
        if key in RETIRED:
            raise StackSettingsError(f"{where}: {renamed(key)}")
        if key not in STACK_FILE_SETTINGS:
            raise StackSettingsError(f"{where}: {key} is not a setting a stack file can hold (the README's settings table lists them)")
        if isinstance(value, bool):
            values[key] = "true" if value else "false"
        elif isinstance(value, int | float | str):
            values[key] = str(value)
        else:
            raise StackSettingsError(f"{where}: {key} must be a string, a number or true/false, not {json.dumps(value)}")
    return values


def resolve(stack: str, values: Mapping[str, str], env: Mapping[str, str], *, where: str = "") -> Settings:
    """The stack's Settings from its file's `values`; a HOOKLINE_* setting in `env` that disagrees stops it.

    Pure: the caller reads the file and passes the environment. Each disagreement is named with both values, all
    of them in one error.
    """
    where = where or str(stack_file(stack).relative_to(REPO_ROOT))
    try:
        settings = Settings.from_env({**values, STACK_NAME_SETTING: stack})
    except StackSettingsError:
        raise
    except SettingsError as exc:
        raise StackSettingsError(f"{where}: {exc}") from None
    names = _env_names()
    conflicts: list[str] = []
    for name, variable in names.items():
        shell = (env.get(variable) or "").strip()
        if not shell or (name in _NOT_IN_FILE and name != "stack_name") or _resource(name):
            continue
        wanted = getattr(settings, name)
        try:
            given = parse_setting(variable, wanted, shell)
        except SettingsError as exc:
            conflicts.append(str(exc))
            continue
        if given == wanted:
            continue
        if name == "stack_name":
            conflicts.append(f"{variable}={shell} in the environment, but {STACK_VARIABLE}={stack} names the stack (and its file, {where})")
        else:
            shown = values.get(variable, f"{shown_value(wanted)} (it names none: the default)")
            conflicts.append(f"{variable}={shell} in the environment, but {where} gives {shown}")
    if conflicts:
        raise StackSettingsError(
            f"stack {stack}: " + "; ".join(conflicts) + f". The stack file is the one place a deploy's settings live: change {where} "
            "(and commit it), or unset the variable"
        )
    return settings


def load(env: Mapping[str, str], *, stacks_dir: Path = STACKS_DIR) -> Settings:
    """The settings of the stack `env` names (STACK), from its file, checked against `env`'s HOOKLINE_* settings."""
    stack = stack_name(env)
    if not STACK_NAME.fullmatch(stack):
        raise StackSettingsError(f"{STACK_VARIABLE}={stack!r}: a stack's name is a letter, then up to {MAX_STACK_NAME - 1} letters, digits or hyphens")
    path = stack_file(stack, stacks_dir)
    return resolve(stack, read_file(path), env, where=str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path))


def shown_value(value: Any) -> str:
    """A setting's value as its variable is written."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(str(item) for item in value)
    return str(value)


def recorded(settings: Settings) -> dict[str, str]:
    """What the template records: every setting a stack file can hold, with the value the stack was made with, as
    its variable is written (Settings.from_env reads it back); plus the stack's name."""
    names = {env: name for name, env in _env_names().items()}
    return {STACK_NAME_SETTING: settings.stack_name} | {env: shown_value(getattr(settings, names[env])) for env in STACK_FILE_SETTINGS}


def from_template(template: Mapping[str, Any]) -> dict[str, str] | None:
    """The settings a synthesized (or deployed) template records; None for a template made before they were."""
    metadata = (template.get("Metadata") or {}).get(TEMPLATE_METADATA)
    if not isinstance(metadata, dict) or not isinstance(metadata.get("settings"), dict):
        return None
    return {str(key): str(value) for key, value in metadata["settings"].items()}


def template_metadata(settings: Settings) -> dict[str, Any]:
    """The template's Metadata entry: the stack file's name and the settings (`recorded`)."""
    return {"stackFile": f"stacks/{settings.stack_name}.json", "settings": recorded(settings)}
