"""The portal's pure rules: settings validation, the page's policy, which tenant a link names; the event-type
catalog notes each type once per process (and per customer it was sent to); hourly counters as a series."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from hookline.core.contract.portal import PutPortalSettings
from hookline.core.errors import DependencyFailed, ValidationFailed
from hookline.core.portal import PortalSettings, content_security_policy, tenant_param
from hookline.core.stats import add_up, hour_counts
from hookline.entrypoints.api.routing import contract_error
from hookline.services.portal import SentEventTypes


def portal_settings_put(body: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
    """The producer's name and the origins a PUT of portal settings sets, or the error the API answers for it."""
    try:
        settings = PutPortalSettings.model_validate(body).settings("acme", "")
    except pydantic.ValidationError as exc:
        raise contract_error([dict(error) for error in exc.errors()]) from None
    return settings.producer_name, settings.allowed_origins


def test_settings_keep_the_name_and_each_origin_once() -> None:
    body = {"producer_name": " Acme Inc ", "allowed_origins": ["https://app.acme.example", "https://app.acme.example:8443", "https://app.acme.example"]}
    assert portal_settings_put(body) == ("Acme Inc", ("https://app.acme.example", "https://app.acme.example:8443"))
    assert portal_settings_put({}) == ("", ())
    assert portal_settings_put({"allowed_origins": ["http://localhost:3000", "http://127.0.0.1"]})[1] == ("http://localhost:3000", "http://127.0.0.1")


@pytest.mark.parametrize(
    "origin",
    ["https://app.example.com/", "https://app.example.com/x", "http://app.example.com", "https://*.example.com", "https://a b.com", "javascript:alert(1)",
     "https://example", "'self'", "https://app.example.com; script-src *", "", "https://a.b:\u0661"],
)  # fmt: skip
def test_an_origin_that_is_not_a_bare_https_origin_is_refused(origin: str) -> None:
    with pytest.raises(ValidationFailed, match=r"allowed_origins\[0\]"):
        portal_settings_put({"allowed_origins": [origin]})


def test_the_policy_runs_only_the_pages_own_code_and_frames_as_allowed() -> None:
    policy = content_security_policy(("https://app.acme.example",))
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == directives["script-src"] == directives["style-src"] == directives["connect-src"] == "'self'"
    assert directives["frame-ancestors"] == "'self' https://app.acme.example" and directives["object-src"] == "'none'"
    assert "unsafe" not in policy
    assert content_security_policy(()).endswith("frame-ancestors 'self'")


@pytest.mark.parametrize(("value", "tenant"), [("acme", "acme"), ("tenant:42", "tenant:42"), ("", None), (None, None), ("a b", None), ("x" * 129, None)])
def test_a_link_names_a_tenant_only_in_printable_text(value: str | None, tenant: str | None) -> None:
    assert tenant_param(value) == tenant


class Store:
    def __init__(self) -> None:
        self.calls: list[tuple[str, set[str]]] = []
        self.fail = False

    def remember_types(self, tenant: str, types: set[str]) -> None:
        if self.fail:
            raise DependencyFailed("throttled", "ProvisionedThroughputExceededException")
        self.calls.append((tenant, set(types)))

    def types(self, tenant: str) -> list[str]:
        return sorted({t for who, ts in self.calls if who == tenant for t in ts})

    def remember_customer_types(self, tenant: str, customer: str, types: set[str]) -> None:
        self.remember_types(f"{tenant}/{customer}", types)

    def remember_broadcast_types(self, tenant: str, types: set[str]) -> None:
        self.remember_types(f"{tenant}/*", types)

    def types_sent_to(self, tenant: str, customer: str) -> list[str]:
        return sorted({*self.types(f"{tenant}/{customer}"), *self.types(f"{tenant}/*")})

    def settings(self, tenant: str) -> PortalSettings | None:
        return None

    def save_settings(self, settings: PortalSettings) -> None: ...


def test_the_catalog_writes_a_type_once_per_process_and_never_fails_an_event() -> None:
    store = Store()
    catalog = SentEventTypes(store)
    catalog.note("acme", ["a.b", "a.b", "c.d"])
    catalog.note("acme", ["a.b"])
    catalog.note("other", ["a.b"])
    assert store.calls == [("acme", {"a.b", "c.d"}), ("other", {"a.b"})]
    # A failed write is swallowed and tried again on the next event of that type
    store.fail = True
    catalog.note("acme", ["e.f"])
    store.fail = False
    catalog.note("acme", ["e.f"])
    assert store.calls[-1] == ("acme", {"e.f"}) and catalog.list("acme") == {"items": ["a.b", "c.d", "e.f"]}


def test_a_type_is_written_once_per_customer_it_is_sent_to_and_once_when_broadcast() -> None:
    store = Store()
    catalog = SentEventTypes(store)
    catalog.note("acme", ["a.b"], "cus-a")
    catalog.note("acme", ["a.b"], "cus-a")  # known to this process: nothing written
    catalog.note("acme", ["a.b", "c.d"], "cus-b")  # the tenant's set learns c.d; b's set both
    catalog.note_broadcast("acme", ["news"])
    catalog.note_broadcast("acme", ["news"])
    assert store.calls == [
        ("acme", {"a.b"}), ("acme/cus-a", {"a.b"}), ("acme", {"c.d"}), ("acme/cus-b", {"a.b", "c.d"}), ("acme", {"news"}), ("acme/*", {"news"}),
    ]  # fmt: skip
    # And a customer is listed what was sent to it and what was broadcast, never another customer's
    assert catalog.sent_to("acme", "cus-a") == ["a.b", "news"] and catalog.sent_to("acme", "cus-b") == ["a.b", "c.d", "news"]
    assert catalog.sent_to("acme", "cus-c") == ["news"]


def test_hours_add_up_and_show_as_a_series() -> None:
    hours: list[dict[str, Any]] = [{"attempts": 3, "failed": 1, "ended_failed": 1, "l03": 3}, {"attempts": 2, "succeeded": 2, "l01": 2}]
    assert add_up(hours) == {"attempts": 5, "failed": 1, "ended_failed": 1, "succeeded": 2, "l03": 3, "l01": 2}
    assert hour_counts("2026-08-04T14", hours[0]) == {
        "hour": "2026-08-04T14:00:00Z", "attempts": 3, "succeeded": 0, "failed": 1, "ended_succeeded": 0, "ended_failed": 1,
    }  # fmt: skip
