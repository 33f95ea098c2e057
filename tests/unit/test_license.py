"""hookline is Apache-2.0: the LICENSE file is the license's text as the ASF publishes it, and every place that
names the license (the Python project, the CDK CLI's npm package, the OpenAPI document) names that one."""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
LICENSE = REPO / "LICENSE"
SPDX = "Apache-2.0"
# SHA-256 of https://www.apache.org/licenses/LICENSE-2.0.txt, byte for byte (the copy many packages ship)
APACHE_2_0_SHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"


def test_the_license_file_is_the_unmodified_apache_2_0_text() -> None:
    text = LICENSE.read_text(encoding="ascii")
    assert re.match(r"\s*Apache License\s+Version 2\.0, January 2004\s+http://www\.apache\.org/licenses/\s", text)
    # Every section of the terms, then the end of the terms and the appendix, in order
    sections = ["Definitions", "Grant of Copyright License", "Grant of Patent License", "Redistribution", "Submission of Contributions"]
    sections += ["Trademarks", "Disclaimer of Warranty", "Limitation of Liability", "Accepting Warranty or Additional Liability"]
    headings = [f"{n}. {title}." for n, title in enumerate(sections, start=1)]
    markers = [*headings, "END OF TERMS AND CONDITIONS", "APPENDIX: How to apply the Apache License to your work."]
    positions = [text.find(marker) for marker in markers]
    assert -1 not in positions and positions == sorted(positions), dict(zip(markers, positions, strict=True))
    # And nothing added, removed or reworded
    assert hashlib.sha256(LICENSE.read_bytes()).hexdigest() == APACHE_2_0_SHA256


def test_the_python_project_declares_apache_2_0() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["license"] == SPDX  # PEP 639: an SPDX expression
    assert project["license-files"] == [LICENSE.name]


def test_every_python_package_in_the_repo_declares_apache_2_0() -> None:
    skipped = {".venv", "build", "node_modules", "cdk.out", ".git"}
    found = [path for path in REPO.rglob("pyproject.toml") if not skipped & set(path.relative_to(REPO).parts)]
    assert REPO / "pyproject.toml" in found
    for path in found:
        assert tomllib.loads(path.read_text())["project"].get("license") == SPDX, path


def test_the_openapi_document_declares_apache_2_0() -> None:
    info = yaml.safe_load((REPO / "docs" / "openapi.yaml").read_text())["info"]
    assert info["license"]["identifier"] == SPDX
    assert "Proprietary" not in json.dumps(info["license"])


def test_the_npm_package_declares_apache_2_0() -> None:
    assert json.loads((REPO / "package.json").read_text())["license"] == SPDX
    assert json.loads((REPO / "package-lock.json").read_text())["packages"][""]["license"] == SPDX
