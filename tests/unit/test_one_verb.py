"""One verb per meaning on the delivery path: `send` is the wire (the webhook's HTTP request, the put to a customer's
destination, the email to SES). Queueing is `enqueue`, scheduling `schedule`, recording `record`. Checked on the
parsed ports, which the fakes and the adapters implement (tests/unit/services/test_fakes_keep_the_contracts.py)."""

from __future__ import annotations

import ast

from tests.unit.test_architecture import HOOKLINE

PORTS = (HOOKLINE / "services" / "ports.py", HOOKLINE / "services" / "delivery" / "ports.py")
# The ports that speak to the outside world: a delivery to the endpoint's destination, an email through SES
WIRE_PORTS = frozenset({"Sender", "Mailer"})


def _sending_methods(source: str) -> list[tuple[str, str]]:
    """(port, method) for every method of a class whose name says it sends."""
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef):
            found += [(node.name, f.name) for f in node.body if isinstance(f, ast.FunctionDef) and "send" in f.name and f.name != "read_for_sending"]
    return found


def test_only_the_ports_of_the_wire_have_a_method_that_sends() -> None:
    found = [found for path in PORTS for found in _sending_methods(path.read_text())]
    assert sorted(found) == sorted((port, "send") for port in WIRE_PORTS)


def test_a_queue_port_that_sends_is_found() -> None:
    planted = "class TaskQueue:\n    def send(self, tasks): ...\nclass JobQueue:\n    def send_bodies(self, bodies): ...\n"
    assert _sending_methods(planted) == [("TaskQueue", "send"), ("JobQueue", "send_bodies")]
