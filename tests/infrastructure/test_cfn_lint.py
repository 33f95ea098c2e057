"""cfn-lint accepts the synthesized template, with no global ignores."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.infrastructure.conftest import HANG_SECONDS, Synth

CFN_LINT = Path(sys.executable).parent / "cfn-lint"

# The one justified suppression, scoped to the resources that cause it rather than passed as
# `--ignore-checks` (so `make synth`, which lints cdk.out, agrees with this test):
# W3005 (redundant DependsOn) on each Lambda function and state machine. lambda.Function and
# sfn.StateMachine depend on their whole role construct so that they wait for the role's
# DefaultPolicy; the DependsOn entry for the Role itself repeats the RoleArn GetAtt. Harmless, and
# CDK has no switch to drop it alone. See infra/functions.py and infra/statemachines.py.
ALLOWED_SUPPRESSIONS = {"AWS::Lambda::Function": ["W3005"], "AWS::StepFunctions::StateMachine": ["W3005"]}


def test_cfn_lint_passes(synth: Synth) -> None:
    # Given the template synthesized into the cloud assembly
    assert synth.template_path.is_file()
    # When cfn-lint checks it
    result = subprocess.run([str(CFN_LINT), "--", str(synth.template_path)], capture_output=True, text=True, timeout=HANG_SECONDS, check=False)
    # Then it reports no error and no warning
    assert result.returncode == 0, result.stdout + result.stderr


def test_cfn_lint_suppressions_are_only_the_justified_ones(synth: Synth) -> None:
    # Given the synthesized template
    template = synth.template.to_json()
    # When its cfn-lint configuration is collected, template-wide and per resource
    suppressions = {
        (resource["Type"], tuple(resource["Metadata"]["cfn-lint"]["config"]["ignore_checks"]))
        for resource in template["Resources"].values()
        if "cfn-lint" in resource.get("Metadata", {})
    }
    # Then nothing is ignored template-wide, and resources ignore only what is listed above
    assert "cfn-lint" not in template.get("Metadata", {})
    assert suppressions == {(cfn_type, tuple(checks)) for cfn_type, checks in ALLOWED_SUPPRESSIONS.items()}
