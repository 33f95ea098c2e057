"""`make run`'s portal demo: a customer with a healthy and a failing endpoint, and a link that opens its portal."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import requests

from local import portal_demo
from local.run import LocalHookline


def test_the_demo_link_opens_a_portal_with_one_healthy_and_one_failing_endpoint(local_hookline: LocalHookline) -> None:
    # Given the demo seeded as `make run` does, its failing receiver recovering in a minute
    demo = portal_demo.seed(local_hookline.base_url, local_hookline.api_key, events=4, recover_after_seconds=60)
    try:
        # Then the printed link is the local portal page, the tenant in its query and a session token in its fragment
        link = urlsplit(demo.link)
        assert f"{link.scheme}://{link.netloc}" == local_hookline.base_url and link.path == "/portal"
        assert parse_qs(link.query)["t"] == [local_hookline.keys[0][0]] and link.fragment.startswith("token=hps_")
        page = requests.get(f"{local_hookline.base_url}/portal?{link.query}", timeout=10)
        assert page.status_code == 200 and 'data-producer="hookline demo"' in page.text
        # And the token works as the demo customer's session, which sees both endpoints
        auth = {"Authorization": f"Bearer {link.fragment.removeprefix('token=')}"}
        me = requests.get(f"{local_hookline.base_url}/v1/session", headers=auth, timeout=10).json()
        assert me["customer"]["uid"] == portal_demo.DEMO_CUSTOMER and me["read_only"] is False
        listed = requests.get(f"{local_hookline.base_url}/v1/endpoints", headers=auth, timeout=10).json()["items"]
        assert {e["id"] for e in listed} == set(demo.endpoints.values())
        # And the failing one has failed deliveries to show, the healthy one none
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            failing = requests.get(f"{local_hookline.base_url}/v1/endpoints/{demo.endpoints['failing']}", headers=auth, timeout=10).json()
            if failing["backlog"]["failed"] == 4:
                break
            time.sleep(0.2)
        assert failing["backlog"]["failed"] == 4
        healthy = requests.get(f"{local_hookline.base_url}/v1/endpoints/{demo.endpoints['healthy']}", headers=auth, timeout=10).json()
        assert healthy["backlog"]["failed"] == 0 and len(demo.healthy.received) == 4
    finally:
        demo.stop()
