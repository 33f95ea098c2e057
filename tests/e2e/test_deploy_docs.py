"""The README's "Deploying" section is a true sequence: set-up, bootstrap, preflight, deploy, first event, teardown.

Nothing here touches AWS or synthesizes: every `make` target the section names is a target of the Makefile (and
every make variable it passes is one the Makefile reads), every HOOKLINE_* variable is a setting, the numbers it
states are infra.sizing's, the routes its first event calls are the API's (docs/openapi.yaml), and each documented
`make preflight` / `make deploy` line, expanded by `make -n` as make would run it, runs the preflight against moto's
account (Stubber where moto lacks the call) with the settings the line sets, and passes.
"""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hookline.core.settings import Settings
from hookline.wiring import topology
from infra import preflight, sizing, stack_settings
from tests.infrastructure.test_preflight import Runner, bootstrap_account, make_clients, verify_identity
from tests.support import walkthrough

REPO = walkthrough.REPO
README = (REPO / "README.md").read_text()
MAKEFILE = (REPO / "Makefile").read_text()
HEADING = "## Deploying"
# The steps, in order, each with what its commands must include.
STEPS = [
    ("Set-up", "make setup"),
    ("Bootstrap", "BOOTSTRAP=1"),
    ("Preflight", "make preflight"),
    ("Deploy", "make deploy"),
    ("The first event", "v1/events"),
    ("Teardown", "cdk destroy"),
]
MAKE_RUN = re.compile(r"\bmake((?:\s+-[a-z]+)*)\s+([a-z][\w-]*)((?:\s+[A-Z][A-Z0-9_]*=\S*)*)")
SETTING = re.compile(r"\bHOOKLINE_[A-Z0-9_]*[A-Z0-9]\b")


def section(text: str = README, heading: str = HEADING) -> str:
    """The section's text, up to the next heading of its level or above (outside code blocks)."""
    lines = text[text.index(heading) :].splitlines(keepends=True)
    body, fenced = [lines[0]], False
    for line in lines[1:]:
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"^#{1,2} ", line):
            break
        body.append(line)
    return "".join(body)


def steps(text: str) -> list[tuple[str, str]]:
    """(title without its number, body) of each `### N. Title` subsection."""
    parts = re.split(r"^### (?:\d+\.\s*)?(.+)$", text, flags=re.M)
    return [(title.strip(), body) for title, body in zip(parts[1::2], parts[2::2], strict=True)]


def commands(text: str) -> list[str]:
    """The shell commands of the text's ```sh blocks (comments and `# ->` answers left out)."""
    return [command for block in walkthrough.FENCE.findall(text) for command in walkthrough.commands(block)]


def code(text: str) -> list[str]:
    """What the text shows as code: its sh blocks' commands and its inline `spans` (prose saying "make" is no command)."""
    prose = walkthrough.FENCE.sub("", text)
    return commands(text) + [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", prose)]


def makefile_targets() -> set[str]:
    return set(re.findall(r"^([a-z][\w-]*)\s*:(?!=)", MAKEFILE, flags=re.M))


def phony() -> set[str]:
    [line] = re.findall(r"^\.PHONY:(.*)$", MAKEFILE, flags=re.M)
    return set(line.split())


DEPLOYING = section()


def test_the_steps_come_in_order_each_with_its_command() -> None:
    found = steps(DEPLOYING)
    assert [title for title, _ in found] == [title for title, _ in STEPS]
    for (title, body), (_, needed) in zip(found, STEPS, strict=True):
        assert any(needed in command for command in commands(body)), f"step {title!r} shows no command with {needed!r}"


def test_every_make_target_it_names_is_a_makefile_target() -> None:
    named = {match[1] for shown in code(DEPLOYING) for match in MAKE_RUN.findall(shown)}
    assert {"setup", "preflight", "deploy", "api-key"} <= named
    assert named <= makefile_targets(), named - makefile_targets()
    # Commands, not files: each must run whatever files lie about.
    assert named <= phony(), named - phony()


def test_every_make_variable_it_passes_is_one_the_makefile_reads() -> None:
    passed = {assignment.split("=", 1)[0] for shown in code(DEPLOYING) for match in MAKE_RUN.findall(shown) for assignment in match[2].split()}
    assert {"BOOTSTRAP", "TENANT", "TABLE", "STACK"} <= passed
    for name in passed:
        assert f"$({name})" in MAKEFILE, f"the Makefile never reads {name}"


def test_every_setting_it_names_is_a_setting() -> None:
    # (less the API's URL and key the first event exports for curl, as the walk-through and `make run` name them)
    named = set(SETTING.findall(DEPLOYING)) - {"HOOKLINE_URL", "HOOKLINE_KEY"}
    known = {env for env, _, _ in Settings.documented()}
    assert {"HOOKLINE_SIZE", "HOOKLINE_ALARM_EMAIL", "HOOKLINE_NOTIFICATION_SENDER"} <= named
    assert named <= known, named - known


def test_the_concurrency_it_states_is_the_sizing_rule() -> None:
    defaults, small = Settings.from_env({}), Settings.from_env({"HOOKLINE_SIZE": "small"})
    reserved = sizing.reserved_total(defaults)
    assert f"reserve {reserved} concurrent executions" in DEPLOYING
    assert f"keeps {sizing.UNRESERVED_MINIMUM} unreserved" in DEPLOYING
    assert f"must be at least {reserved + sizing.UNRESERVED_MINIMUM}" in DEPLOYING
    assert "quota is 10" in DEPLOYING
    assert sizing.problems(small, 10) == []
    assert sizing.problems(defaults, reserved + sizing.UNRESERVED_MINIMUM) == []
    assert sizing.problems(defaults, reserved + sizing.UNRESERVED_MINIMUM - 1) != []


def _preflight_argv(make_line: str) -> tuple[dict[str, str], list[str], list[str]]:
    """A documented make line as make runs it: the variables it passes (STACK among them), the preflight's arguments,
    and every command `make -n` lists (nothing is run)."""
    words = shlex.split(make_line.split(" #", 1)[0])
    at = words.index("make")
    variables = dict(word.split("=", 1) for word in words[at + 1 :] if "=" in word)
    env = {k: v for k, v in os.environ.items() if k not in {"MAKEFLAGS", "MAKELEVEL", "MFLAGS"}}
    listed = subprocess.run(["make", "-n", *words[at + 1 :]], cwd=REPO, env=env, capture_output=True, text=True, check=True).stdout.splitlines()
    [command] = [line for line in listed if "-m infra.preflight" in line]
    argv = shlex.split(command)
    return variables, argv[argv.index("infra.preflight") + 1 :], listed


def _stack_file(stack: str) -> dict[str, str]:
    """The settings of stacks/<stack>.json: the committed file, or the one the section shows for that name."""
    committed = stack_settings.stack_file(stack)
    if committed.exists():
        return stack_settings.read_file(committed)
    shown = re.search(rf"`stacks/{re.escape(stack)}\.json`[^`]*?```json\s*$(.*?)^```", DEPLOYING, re.S | re.M)
    assert shown, f"the section deploys STACK={stack} but neither commits nor shows stacks/{stack}.json"
    return stack_settings.file_values(json.loads(shown[1]), f"README's stacks/{stack}.json")


def _documented_make_lines(target: str) -> list[str]:
    return [command for command in commands(DEPLOYING) if re.search(rf"(^|\s)make\s+{target}\b", command)]


def test_make_deploy_runs_the_preflight_before_cdk_deploy() -> None:
    _, argv, listed = _preflight_argv("make deploy")
    # The preflight compares the template make synth wrote with the deployed stack's
    outdir = os.environ.get("CDK_OUTDIR") or "cdk.out"
    assert argv == ["--template", f"{outdir}/hookline.template.json"]
    [preflight_at] = [i for i, line in enumerate(listed) if "-m infra.preflight" in line]
    [deploy_at] = [i for i, line in enumerate(listed) if line.startswith("npx cdk deploy")]
    assert preflight_at < deploy_at
    assert _preflight_argv("make deploy BOOTSTRAP=1")[1] == ["--template", f"{outdir}/hookline.template.json", "--bootstrap"]
    assert _preflight_argv("make deploy STACK=hl-b CONFIRM=1 PREFLIGHT=warn")[1] == [
        "--template",
        f"{outdir}/hl-b.template.json",
        "--confirm",
        "--unreadable",
        "warn",
    ]


DOCUMENTED_RUNS = _documented_make_lines("preflight") + _documented_make_lines("deploy")


@pytest.mark.parametrize("make_line", DOCUMENTED_RUNS, ids=[line.split(" #", 1)[0].strip() for line in DOCUMENTED_RUNS])
def test_each_documented_preflight_runs_and_passes(aws: None, make_line: str, tmp_path: Path) -> None:
    variables, argv, _ = _preflight_argv(make_line)
    stack = variables.get("STACK", stack_settings.DEFAULT_STACK)
    settings = _stack_file(stack)
    (tmp_path / f"{stack}.json").write_text(json.dumps(settings))
    bootstrapping = "--bootstrap" in argv
    if not bootstrapping:
        bootstrap_account()
    if settings.get("HOOKLINE_NOTIFICATION_SENDER"):
        verify_identity(settings["HOOKLINE_NOTIFICATION_SENDER"].rstrip(">").split("@", 1)[1])
    # A stack that says it is for an account whose quota is 10 is checked against one.
    quota = 10 if settings.get("HOOKLINE_SIZE") == "small" else 1000
    runner, out = Runner(), io.StringIO()
    status = preflight.main(argv, env={"STACK": stack}, clients=make_clients(quota=quota), run=runner, ask=None, out=out, stacks_dir=tmp_path)
    assert status == 0, out.getvalue()
    assert len(runner.commands) == int(bootstrapping)
    assert not [line for line in out.getvalue().splitlines() if line.startswith("problem")], out.getvalue()


def test_the_preflight_runs_as_a_module() -> None:
    done = subprocess.run([sys.executable, "-m", "infra.preflight", "--help"], cwd=REPO, capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    assert all(flag in done.stdout for flag in ("--bootstrap", "--strict", "--template", "--confirm", "--unreadable"))


def _routes() -> list[tuple[str, re.Pattern[str]]]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's reads the document ten times faster
    paths = yaml.load((REPO / "docs" / "openapi.yaml").read_text(), Loader=loader)["paths"]
    return [(method.upper(), re.compile(re.sub(r"\{[^}]+\}", "[^/]+", path) + "$")) for path, ops in paths.items() for method in ops]


def _calls(text: str) -> list[tuple[str, str, str | None]]:
    """(method, path, body) of each curl to the deployed API ("$HOOKLINE_URL/v1/...", the ApiUrl less its slash)."""
    found = []
    for command in commands(text):
        if not command.startswith("curl "):
            continue
        words = shlex.split(command.replace("$HOOKLINE_URL/", "https://api.test/"))
        url = next(word for word in words if word.startswith("https://api.test/"))
        method = words[words.index("-X") + 1] if "-X" in words else "GET"
        body = words[words.index("-d") + 1] if "-d" in words else None
        found.append((method, "/" + url.removeprefix("https://api.test/"), body))
        assert "authorization: Bearer $HOOKLINE_KEY" in command, command  # the walk-through's header, the key make api-key printed
    return found


def test_the_first_event_calls_the_apis_routes_with_json_bodies() -> None:
    [(_, first_event)] = [(title, body) for title, body in steps(DEPLOYING) if title == "The first event"]
    calls = _calls(first_event)
    assert [(method, path) for method, path, _ in calls] == [("POST", "/v1/endpoints"), ("POST", "/v1/events"), ("GET", "/v1/events/invoice-in_123-paid")]
    routes = _routes()
    for method, path, body in calls:
        assert any(method == m and pattern.match(path) for m, pattern in routes), f"{method} {path} is no route of docs/openapi.yaml"
        if body is not None:
            json.loads(body)
    event = json.loads(calls[1][2] or "")
    assert event["id"] == calls[2][1].rsplit("/", 1)[1]  # read back by the id it was sent with


def test_the_first_event_names_the_stacks_real_output_and_table() -> None:
    assert "OutputKey=='ApiUrl'" in DEPLOYING
    # The walk-through's names (as the `make run` banner exports them), the URL without the stage URL's trailing slash
    assert "export HOOKLINE_URL=$(aws cloudformation describe-stacks" in DEPLOYING and "| sed 's:/*$::')" in DEPLOYING
    assert "export HOOKLINE_KEY=$(make -s api-key" in DEPLOYING
    # infra/stack.py's output ids; reading the source keeps this test free of a synth.
    assert 'CfnOutput(self, "ApiUrl"' in (REPO / "infra" / "stack.py").read_text()
    assert 'TABLE="$STACK-data"' in DEPLOYING
    assert topology.TABLE.physical_name("hookline-staging") == "hookline-staging-data"
