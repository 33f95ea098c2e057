"""`pip install ./clients/python` into a fresh virtual environment gives `hookline_client` and the `hookline` command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "clients" / "python"


def run(*argv: str | Path, timeout: float = 120) -> str:
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, f"{argv}: {done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.mark.slow
def test_pip_install_gives_the_package_and_the_command(tmp_path: Path) -> None:
    # A venv without pip of its own: this venv's pip installs into it (`pip --python`), which saves a few seconds
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv)
    python, command = venv / "bin" / "python", venv / "bin" / "hookline"
    # The package and its two dependencies, from the index pip is configured with
    run(sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--disable-pip-version-check", PACKAGE, timeout=180)
    # It imports, typed, with its version and the license in its metadata
    shown = run(
        python,
        "-c",
        "import hookline_client, importlib.metadata as m, pathlib; "
        "meta = m.metadata('hookline-client'); "
        "print(hookline_client.__version__, meta['Version'], meta['License-Expression'], meta.get_all('License-File'), meta['Requires-Python'], "
        "sorted(m.requires('hookline-client'))); "
        "print((pathlib.Path(hookline_client.__file__).parent / 'py.typed').exists(), hookline_client.__file__)",
    )
    version_line, typed_line = shown.splitlines()
    assert version_line == "0.1.0 0.1.0 Apache-2.0 ['LICENSE'] >=3.10 ['requests<3,>=2.28', 'standardwebhooks<2,>=1.0.1']"
    assert typed_line.startswith("True ") and str(venv) in typed_line  # the installed copy, not the checkout
    # And the command answers --help
    assert run(command, "--help").startswith("usage: hookline ")
    assert "usage: hookline events send" in run(command, "events", "send", "--help")
