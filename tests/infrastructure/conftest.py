"""Synthesize the hookline stack once per session; the infrastructure tests read that one template."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

import pytest
from aws_cdk import App, CfnElement, assertions
from constructs import IConstruct

from hookline.core.settings import Settings
from hookline.wiring.topology import FunctionSpec, QueueSpec, StateMachineSpec, TopicSpec
from infra import DEPS_LAYER_DIR
from infra.stack import HooklineStack
from infra.synth import build_app

# The defaults, independent of whatever HOOKLINE_* variables the test machine exports.
BASE_SETTINGS = Settings.from_env({})
# How long a tool these tests run in a subprocess (cfn-lint, make synth, a release's synth) may take before the test
# gives up on it as hung. A guard against a hang, not a time assertion: on 2 cores at a load of 15, one cfn-lint run of
# the template took over 120 s (the limit it had), while it takes about 15 s on a quiet machine.
HANG_SECONDS = 900


@dataclass
class Synth:
    """One synthesized app: the stack object, its template and the cloud assembly on disk."""

    app: App
    stack: HooklineStack
    template: assertions.Template
    outdir: Path

    @property
    def template_path(self) -> Path:
        return self.outdir / f"{self.stack.artifact_id}.template.json"

    @property
    def resources(self) -> dict[str, Any]:
        resources: dict[str, Any] = self.template.to_json()["Resources"]
        return resources

    def logical_id(self, construct: IConstruct) -> str:
        """Logical id of an L2 construct's CloudFormation resource."""
        default_child = construct.node.default_child
        assert default_child is not None, construct.node.path
        return self.stack.get_logical_id(cast(CfnElement, default_child))

    def function_id(self, spec: FunctionSpec) -> str:
        return self.logical_id(self.stack.functions.function(spec))

    def alias_id(self, spec: FunctionSpec) -> str:
        """The function's `live` alias: its Ref is the alias ARN, what every invoker names."""
        return self.logical_id(self.stack.functions.alias(spec))

    def role_id(self, spec: FunctionSpec) -> str:
        return self.logical_id(self.stack.functions.roles[spec.name])

    def queue_id(self, spec: QueueSpec) -> str:
        return self.logical_id(self.stack.queues.queue(spec))

    def state_machine_id(self, spec: StateMachineSpec) -> str:
        return self.logical_id(self.stack.state_machines.state_machine(spec))

    def topic_id(self, spec: TopicSpec) -> str:
        return self.logical_id(self.stack.topics.topic(spec))

    def state_machine_role_id(self, spec: StateMachineSpec) -> str:
        return self.logical_id(self.stack.state_machines.roles[spec.key])

    def definition(self, spec: StateMachineSpec, refs: dict[str, str]) -> dict[str, Any]:
        """The state machine's ASL as CloudFormation would create it, each `Ref` replaced from `refs`.

        DefinitionString may be a plain string or an Fn::Join; DefinitionSubstitutions are applied after.
        """
        props = self.resources[self.state_machine_id(spec)]["Properties"]
        text = resolve(props["DefinitionString"], refs)
        for name, value in props.get("DefinitionSubstitutions", {}).items():
            text = text.replace("${" + name + "}", resolve(value, refs))
        assert "${" not in text, text
        definition: dict[str, Any] = json.loads(text)
        return definition

    def policy_statements(self, role_logical_id: str) -> list[dict[str, Any]]:
        """Every statement of every AWS::IAM::Policy attached to the role."""
        statements: list[dict[str, Any]] = []
        for resource in self.resources.values():
            if resource["Type"] == "AWS::IAM::Policy" and {"Ref": role_logical_id} in resource["Properties"]["Roles"]:
                statements.extend(resource["Properties"]["PolicyDocument"]["Statement"])
        return statements

    def asset_dir(self, s3_location: dict[str, Any]) -> Path:
        """The staged asset folder behind a Code/Content property ({"S3Bucket": ..., "S3Key": "<hash>.zip"})."""
        manifest = json.loads((self.outdir / f"{self.stack.artifact_id}.assets.json").read_text())
        asset_hash = str(s3_location["S3Key"]).removesuffix(".zip")
        return self.outdir / str(manifest["files"][asset_hash]["source"]["path"])


PSEUDO = {"AWS::Partition": "aws", "AWS::URLSuffix": "amazonaws.com"}  # pseudo parameters, as in the commercial partition


def resolve(value: Any, refs: dict[str, str]) -> str:
    """A template value as a string: `{"Ref": id}` from `refs`, Fn::Join joined; anything else is an error."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and set(value) == {"Ref"}:
        return PSEUDO.get(value["Ref"]) or refs[value["Ref"]]
    if isinstance(value, dict) and set(value) == {"Fn::Join"}:
        separator, parts = value["Fn::Join"]
        return str(separator).join(resolve(part, refs) for part in parts)
    raise AssertionError(f"cannot resolve {value!r}")


def references(value: Any) -> set[str]:
    """The logical ids a template value names, through Ref and Fn::GetAtt, however deeply nested (Fn::Join, Fn::Select, ...).

    Pseudo parameters (`AWS::Region`, ...) are not resources and are left out.
    """
    if isinstance(value, list):
        return {ref for item in value for ref in references(item)}
    if not isinstance(value, dict):
        return set()
    if set(value) == {"Ref"}:
        return set() if str(value["Ref"]).startswith("AWS::") else {value["Ref"]}
    if set(value) == {"Fn::GetAtt"}:
        return {value["Fn::GetAtt"][0]}
    return {ref for item in value.values() for ref in references(item)}


def synthesize(outdir: Path, settings: Settings, *, checks: bool = False) -> Synth:
    app, stack = build_app(settings, outdir=str(outdir), checks=checks)
    app.synth()
    return Synth(app=app, stack=stack, template=assertions.Template.from_stack(stack), outdir=outdir)


@pytest.fixture(scope="session")
def deps_layer() -> Iterator[Path]:
    """The layer's content does not matter to template tests; an empty folder lets synth stage it."""
    python_dir = DEPS_LAYER_DIR / "python"
    python_dir.mkdir(parents=True, exist_ok=True)
    yield python_dir


@pytest.fixture(scope="session")
def synth(tmp_path_factory: pytest.TempPathFactory, deps_layer: Path) -> Synth:
    return synthesize(tmp_path_factory.mktemp("cdk.out"), BASE_SETTINGS)


# The variants' options at once: each changes resources of its own (the deploy strategy the aliases' deployment groups,
# a sender the SES grants, provisioned billing the table's capacity and its auto scaling, tracing the functions' X-Ray
# mode, environment and grants), so one synth with cdk-nag's checks covers them all.
SENDER = "alerts@hookline.example.com"
CHECKED_VARIANT = replace(
    BASE_SETTINGS,
    deploy_strategy="all_at_once",
    notification_sender=SENDER,
    table_billing="provisioned",
    table_min_read_capacity=10,
    table_max_read_capacity=900,
    table_min_write_capacity=20,
    table_max_write_capacity=1200,
    tracing=True,
)


@pytest.fixture(scope="session")
def checked_variant(tmp_path_factory: pytest.TempPathFactory, deps_layer: Path) -> tuple[Synth, list[Any]]:
    """The app synthesized with CHECKED_VARIANT and cdk-nag's checks (an unacknowledged finding makes synth raise
    first), with the findings its report lists: one synth, and one cfn-lint run on its template, cover both variants."""
    outdir = tmp_path_factory.mktemp("cdk.out.checked-variant")
    synthesized = synthesize(outdir, CHECKED_VARIANT, checks=True)
    report = json.loads((outdir / "validation-report.json").read_text())
    return synthesized, [v for plugin in report["pluginReports"] for v in plugin["violations"]]
