"""The hookline layer ships bytecode for the functions' runtime, and the same sources make the same bytes
(infra/layers.py): an unchanged layer keeps its asset hash, so a deploy publishes no new version for it."""

from __future__ import annotations

import hashlib
import marshal
from pathlib import Path

import pytest

from infra.functions import RUNTIME
from infra.layers import LAMBDA_LAYER_PYTHON, compiled_layer

# Set constants are marshalled in the order hash randomisation gives them: the compile's fixed seed keeps it.
MODULE = 'NAMES = {"alpha", "beta", "gamma", "delta"}\n\n\ndef known(name):\n    return name in {"x", "y", "z", "w"}\n'
UNCHECKED_HASH = 0b01  # PEP 552's flags: hash-based, source not checked


def _layer(root: Path, text: str = MODULE) -> Path:
    layer = root / "hookline"
    (layer / "python" / "pkg").mkdir(parents=True)
    (layer / "python" / "pkg" / "__init__.py").write_text(text)
    (layer / "python" / "pkg" / "page.html").write_text("<p>not code</p>")
    (layer / "requirements.txt").write_text("# kept as it is\n")
    stray = layer / "python" / "pkg" / "__pycache__"
    stray.mkdir()
    (stray / "__init__.cpython-313.pyc").write_bytes(b"a test run's own, with an mtime")
    return layer


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_same_sources_make_the_same_bytes(tmp_path: Path) -> None:
    # Given one layer's sources in two checkouts
    first, second = _layer(tmp_path / "a"), _layer(tmp_path / "b")
    # When each is built
    built = [compiled_layer(layer, layer.parent / "build", RUNTIME.name) for layer in (first, second)]
    # Then both hold the same files, byte for byte: the sources, and bytecode in the standard place, not the stray one
    assert _tree(built[0]) == _tree(built[1])
    assert sorted(_tree(built[0])) == ["python/pkg/__init__.py", "python/pkg/__pycache__/__init__.cpython-313.pyc", "python/pkg/page.html", "requirements.txt"]


def test_the_bytecode_is_unchecked_and_names_the_files_where_lambda_mounts_them(tmp_path: Path) -> None:
    built = compiled_layer(_layer(tmp_path), tmp_path / "build", RUNTIME.name)
    pyc = (built / "python" / "pkg" / "__pycache__" / "__init__.cpython-313.pyc").read_bytes()
    assert int.from_bytes(pyc[4:8], "little") == UNCHECKED_HASH
    assert marshal.loads(pyc[16:]).co_filename == f"{LAMBDA_LAYER_PYTHON}/pkg/__init__.py"


def test_the_bytecode_lands_in_the_layer_when_the_shell_sends_bytecode_elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given the Makefile's PYTHONPYCACHEPREFIX (the tests' own bytecode, under build/pycache)
    monkeypatch.setenv("PYTHONPYCACHEPREFIX", str(tmp_path / "elsewhere"))
    # When the layer is built
    built = compiled_layer(_layer(tmp_path), tmp_path / "build", RUNTIME.name)
    # Then its bytecode is in the layer, and none went to the prefix
    assert (built / "python" / "pkg" / "__pycache__" / "__init__.cpython-313.pyc").is_file()
    assert not (tmp_path / "elsewhere").exists()


def test_a_changed_source_makes_a_new_layer_in_place_of_the_old(tmp_path: Path) -> None:
    layer = _layer(tmp_path)
    before = compiled_layer(layer, tmp_path / "build", RUNTIME.name)
    assert compiled_layer(layer, tmp_path / "build", RUNTIME.name) == before  # made once per set of sources
    (layer / "python" / "pkg" / "__init__.py").write_text(MODULE + "MORE = 1\n")
    after = compiled_layer(layer, tmp_path / "build", RUNTIME.name)
    assert after != before and not before.exists()
    assert "MORE" in marshal.loads((after / "python" / "pkg" / "__pycache__" / "__init__.cpython-313.pyc").read_bytes()[16:]).co_names


def test_bytecode_for_another_python_than_the_runtime_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match=r"python3\.12"):
        compiled_layer(_layer(tmp_path), tmp_path / "build", "python3.12")
