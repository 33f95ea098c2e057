"""AWS CDK infrastructure for hookline, built from `hookline.wiring.topology`.

Importing this package puts the hookline layer (layers/hookline/python) on
sys.path, so the stack reads the same topology and settings as the functions.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
FUNCTIONS_DIR = REPO_ROOT / "functions"
HOOKLINE_LAYER_DIR = REPO_ROOT / "layers" / "hookline"
HOOKLINE_LAYER_PYTHON = HOOKLINE_LAYER_DIR / "python"
BUILD_DIR = REPO_ROOT / "build"
DEPS_LAYER_DIR = BUILD_DIR / "deps"  # filled by `make deps-layer`


def construct_name(name: str) -> str:
    """`delivery-dlq` -> `DeliveryDlq`: a stable, readable construct id from a topology name."""
    return "".join(part.capitalize() for part in name.replace("_", "-").split("-"))


if str(HOOKLINE_LAYER_PYTHON) not in sys.path:
    sys.path.insert(0, str(HOOKLINE_LAYER_PYTHON))
