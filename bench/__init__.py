"""Benchmarks: a discrete-event simulator driving hookline's pure decision core."""

from __future__ import annotations

import sys
from pathlib import Path

_LAYER = Path(__file__).resolve().parent.parent / "layers" / "hookline" / "python"
if str(_LAYER) not in sys.path:
    sys.path.insert(0, str(_LAYER))  # as Lambda's /opt/python: `import hookline` works from a plain `python -c`
