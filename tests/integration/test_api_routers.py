"""A cold start of the API imports the router modules of the paths it is asked for, and no other
(hookline.entrypoints.api.ROUTERS): each case in a fresh interpreter, its answers those of the API with every router."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from hookline.entrypoints import api
from infra import HOOKLINE_LAYER_PYTHON, REPO_ROOT

_FRESH = """
import json, sys
from hookline.entrypoints import api
from tests.support.events import http_event
before = {m for m in sys.modules if m.startswith(("hookline.entrypoints.api.", "hookline.core.contract."))}
answers = [api.handle(http_event(method, path), None) for method, path in json.loads(sys.argv[1])]
after = {m for m in sys.modules if m.startswith(("hookline.entrypoints.api.", "hookline.core.contract."))}
print(json.dumps({"answers": [[a["statusCode"], a["headers"].get("Allow")] for a in answers], "loaded": sorted(after - before)}))
"""


@pytest.mark.parametrize(
    ("requests", "answers", "loaded"),
    [
        # A 405 on a fresh start names every method served at the path, though three routers serve /v1/endpoints/…
        ([("PUT", "/v1/endpoints/ep_1/deliveries")], [[405, "GET"]], {"endpoints", "events", "jobs"}),
        ([("PUT", "/v1/events/broadcast")], [[405, "POST"]], {"events"}),
        ([("GET", "/nothing"), ("GET", "/health")], [[404, None], [200, None]], {"portal"}),
    ],
)
def test_a_fresh_start_loads_the_routers_of_the_paths_it_is_asked_for_and_no_other(
    requests: list[tuple[str, str]], answers: list[Any], loaded: set[str]
) -> None:
    # Given a fresh interpreter that imported the API
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(HOOKLINE_LAYER_PYTHON), str(REPO_ROOT)])}
    done = subprocess.run([sys.executable, "-c", _FRESH, json.dumps(requests)], capture_output=True, text=True, check=True, timeout=120, env=env)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    # Then each request was answered as with every router loaded, and only its own routers were imported
    assert found["answers"] == answers
    routers = {m.rsplit(".", 1)[1] for m in found["loaded"] if m.rsplit(".", 1)[1] in api.MODULES and ".api." in m}
    assert routers == loaded


def test_the_document_is_the_same_whichever_routers_requests_loaded_first() -> None:
    # Given a fresh interpreter whose first requests loaded the jobs and events routers, before any other
    script = (
        "from hookline.entrypoints import api\n"
        "api.include(('jobs', 'events'))\n"
        "from hookline.entrypoints.api import document\n"
        "print(document.as_yaml(document.document()), end='')\n"
    )
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(HOOKLINE_LAYER_PYTHON), str(REPO_ROOT)])}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120, env=env)
    # Then the document it generates is the committed one, path for path in the same order
    assert done.stdout == (REPO_ROOT / "docs" / "openapi.yaml").read_text()
