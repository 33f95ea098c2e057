"""Local mode of hookline: the whole service on a laptop, no AWS account needed.

`python -m local.run` (what `make run` calls) embeds a moto server, builds the
tables and queues described by `hookline.wiring.topology`, and runs the real Lambda
handlers behind a tiny API Gateway look-alike and SQS event-source pollers.

Importing this package puts the shared layer (`layers/hookline/python`) on
`sys.path`, exactly where Lambda finds it under `/opt/python`.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
LAYER_PATH = REPO_ROOT / "layers" / "hookline" / "python"

if str(LAYER_PATH) not in sys.path:
    sys.path.insert(0, str(LAYER_PATH))
