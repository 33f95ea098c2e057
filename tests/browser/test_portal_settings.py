"""An endpoint's settings tab in the portal, in headless Chromium against one local mode (one module: one local mode
started for all of them).

Content filters: see an endpoint's filter, try it as typed on sample events (POST /v1/filters/test, the rule delivery
applies), save it, and read the API's refusal of a bad one.

Destinations in the customer's AWS account: each endpoint is named by where it delivers (never "null"), its settings
show the destination, its role and external id, and the role's CloudFormation template downloads as a file; a
destination's refusals read as words."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import Page, Route, expect

from local.receiver import WebhookReceiver
from tests.browser.portal import PageLog, card, expect_result_focused, open_endpoint, open_portal
from tests.browser.stack import DELIVERY_ROLE_ARN, Producer, wait_until

if TYPE_CHECKING:
    from collections.abc import Callable

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# -- content filters ---------------------------------------------------------------------------------------------

OVER_100 = {"data": {"amount": [{"numeric": [">=", 100]}]}}
OVER_500 = {"data": {"amount": [{"numeric": [">=", 500]}]}}


def _shown_filter(page: Page) -> Any:
    """The saved filter the panel shows, read back as JSON."""
    return json.loads(page.get_by_test_id("filter-json").text_content() or "")


def _try_event(page: Page, data: str, *, event_type: str | None = None) -> None:
    if event_type is not None:
        page.get_by_label("Event type", exact=True).fill(event_type)
    page.get_by_label("Event data (JSON)").fill(data)
    page.get_by_test_id("run-filter-test").click()


def test_a_filter_is_tried_as_typed_then_saved_and_a_malformed_one_shows_the_apis_message(
    page: Page, page_log: PageLog, producer: Producer, customer: str
) -> None:
    # Given an endpoint for orders of 100 or more
    with WebhookReceiver(port=0) as rx:
        endpoint = producer.endpoint(customer, rx.url, event_types=["order.paid"], filter=OVER_100)
        open_portal(page, producer.session(customer)["url"])
        open_endpoint(page, endpoint["id"])

        # Then its settings show the filter, and the editor holds it
        panel = page.get_by_test_id("content-filter")
        expect(panel.get_by_test_id("filter-json")).to_be_visible()
        assert _shown_filter(page) == OVER_100
        editor = page.get_by_label("Filter (JSON)")
        assert json.loads(editor.input_value()) == OVER_100
        # And the sample event starts as one of its type, addressed to this customer
        expect(page.get_by_label("Event type", exact=True)).to_have_value("order.paid")
        expect(page.get_by_label("Customer", exact=True)).to_have_value(customer)

        # When the customer types a filter for orders of 500 or more (not saved) and tries an order of 750
        editor.fill(json.dumps(OVER_500))
        _try_event(page, '{"amount": 750}')
        # Then it matches
        outcome = page.get_by_test_id("filter-test-outcome")
        expect(outcome).to_have_attribute("data-matches", "true")
        expect(outcome).to_contain_text("Matches: an event like this one is delivered to this endpoint.")

        # When they try an order of 200: it would pass the saved filter, but not the one typed
        _try_event(page, '{"amount": 200}')
        expect(outcome).to_have_attribute("data-matches", "false")
        expect(outcome).to_contain_text("Does not match")
        # And nothing was saved by trying
        assert producer.get_endpoint(endpoint["id"])["filter"] == OVER_100
        # And a type the endpoint does not subscribe to is pointed out
        _try_event(page, '{"amount": 750}', event_type="invoice.paid")
        expect(outcome).to_have_attribute("data-matches", "true")
        expect(page.get_by_test_id("filter-test-unsubscribed")).to_contain_text("does not subscribe to invoice.paid")

        # When they save it
        page.get_by_test_id("save-filter").click()
        # Then it is the endpoint's filter, shown as saved (focus on that message), and deliveries follow it: 750 goes out, 200 is filtered out
        expect(expect_result_focused(page, "filter-saved")).to_have_text("Filter saved.")
        assert producer.get_endpoint(endpoint["id"])["filter"] == OVER_500
        assert _shown_filter(page) == OVER_500
        assert producer.event(customer, "order.paid", {"amount": 750})["deliveries"] == 1
        assert producer.event(customer, "order.paid", {"amount": 200})["deliveries"] == 0

        # When they type a malformed filter (a bare value where EventBridge wants an array) and try it
        editor.fill('{"data": {"amount": 500}}')
        _try_event(page, '{"amount": 750}', event_type="order.paid")
        # Then the API's message names the bad part, and the editor is marked invalid
        message = "'filter.data.amount': must be an array of match values"
        expect(page.get_by_test_id("filter-test-error")).to_contain_text(f"The filter is not valid: {message}")
        expect(editor).to_have_attribute("aria-invalid", "true")
        # And saving it is refused with the same message, the saved filter kept
        page.get_by_test_id("save-filter").click()
        expect(page.get_by_test_id("filter-error")).to_contain_text(f"The filter was not saved: {message}")
        assert producer.get_endpoint(endpoint["id"])["filter"] == OVER_500
        assert _shown_filter(page) == OVER_500

        # When the editor holds text that is not JSON, the page says so without asking the API
        asked = sum("/v1/endpoints/" in url for url in page_log.requests)
        editor.fill('{"data": ')
        page.get_by_test_id("save-filter").click()
        expect(page.get_by_test_id("filter-error")).to_contain_text("The filter is not valid JSON")
        assert sum("/v1/endpoints/" in url for url in page_log.requests) == asked

        # When they empty the editor and save: the filter is removed, every event of its types delivered
        editor.fill("")
        page.get_by_test_id("save-filter").click()
        expect(page.get_by_test_id("filter-saved")).to_contain_text("Filter removed.")
        expect(page.get_by_test_id("filter-none")).to_be_visible()
        assert producer.get_endpoint(endpoint["id"])["filter"] is None
        _try_event(page, '{"amount": 1}')
        expect(outcome).to_have_attribute("data-matches", "true")
        expect(outcome).to_contain_text("No filter")


def test_a_read_only_session_sees_the_filter_and_tries_the_saved_one(page: Page, producer: Producer, customer: str) -> None:
    # Given an endpoint with a filter on the customer, and a read-only session
    eu_only = {"customer": [{"prefix": "eu-"}]}
    endpoint = producer.endpoint(customer, "https://hooks.example.com/filtered", filter=eu_only)
    open_portal(page, producer.session(customer, read_only=True)["url"])
    open_endpoint(page, endpoint["id"])

    # Then the filter shows, with no editor and no save button
    assert _shown_filter(page) == eu_only
    expect(page.get_by_label("Filter (JSON)")).to_have_count(0)
    expect(page.get_by_test_id("save-filter")).to_have_count(0)

    # When they try the saved filter on an event addressed to them (their uid has no eu- prefix), then to an eu- customer
    page.get_by_label("Event type", exact=True).fill("terms.updated")
    _try_event(page, '{"region": "eu"}')
    outcome = page.get_by_test_id("filter-test-outcome")
    expect(outcome).to_have_attribute("data-matches", "false")
    page.get_by_label("Customer", exact=True).fill("eu-4711")
    _try_event(page, '{"region": "eu"}')
    # Then the API answers for a read-only session too: trying a filter changes nothing
    expect(outcome).to_have_attribute("data-matches", "true")


# -- destinations ------------------------------------------------------------------------------------------------

QUEUE_URL = "https://sqs.us-east-1.amazonaws.com/111122223333/orders"
ROLE_ARN = "arn:aws:iam::111122223333:role/hookline-delivery-orders"
SQS = {"type": "sqs", "queue_url": QUEUE_URL, "role_arn": ROLE_ARN}


def test_an_sqs_endpoint_shows_where_it_delivers_its_role_and_downloads_the_roles_template(
    page: Page, page_log: PageLog, producer: Producer, customer: str
) -> None:
    # Given a customer with an SQS-destination endpoint and an HTTP one
    queue = producer.destination_endpoint(customer, SQS, description="Orders queue")
    http = producer.endpoint(customer, "https://hooks.example.com/orders")
    external_id = queue["destination"]["external_id"]
    assert queue["url"] is None and external_id.startswith("hookline-")

    # When the customer opens the portal
    open_portal(page, producer.session(customer)["url"])

    # Then each endpoint is named by where it delivers: the queue by its type and URL, the HTTP one by its URL
    expect(card(page, queue["id"]).get_by_test_id("endpoint-link")).to_have_text(f"SQS queue {QUEUE_URL}")
    expect(card(page, http["id"]).get_by_test_id("endpoint-link")).to_have_text("https://hooks.example.com/orders")
    expect(page.get_by_test_id("endpoint-list")).not_to_contain_text("null")

    # When they open the queue's settings
    open_endpoint(page, queue["id"])

    # Then the header names the queue, and its destination panel shows the type, address, role and external id
    expect(page.get_by_test_id("endpoint-title")).to_have_text(f"SQS queue {QUEUE_URL}")
    panel = page.get_by_test_id("destination")
    expect(panel.get_by_test_id("destination-type")).to_have_text("SQS queue")
    expect(panel.get_by_test_id("destination-address")).to_have_text(QUEUE_URL)
    expect(panel.get_by_test_id("destination-role")).to_have_text(ROLE_ARN)
    expect(panel.get_by_test_id("destination-external-id")).to_have_text(external_id)
    # And how to deploy the role's template, with its output as the destination's role_arn
    expect(panel.get_by_test_id("deploy-command")).to_have_text(
        "aws cloudformation deploy --template-file role.json --stack-name hookline-role --capabilities CAPABILITY_NAMED_IAM"
    )
    expect(panel).to_contain_text("output RoleArn is this destination's role_arn")
    # And the configuration names the destination, with no URL field to overwrite it
    expect(page.get_by_test_id("config-where")).to_contain_text(f"SQS queue {QUEUE_URL}")
    expect(page.locator("#edit-url")).to_have_count(0)
    expect(page.locator("body")).not_to_contain_text("null")

    # When they download the role's template
    with page.expect_download() as download_info:
        panel.get_by_test_id("download-role-template").click()
    download = download_info.value

    # Then it is role.json, fetched with the session from the API: the role trusts the delivery role only with the
    # endpoint's external id, under the name the destination's role_arn gives
    assert download.suggested_filename == "role.json"
    template = json.loads(download.path().read_text(encoding="utf-8"))
    role = template["Resources"]["HooklineDeliveryRole"]
    (trust,) = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Condition"] == {"StringEquals": {"sts:ExternalId": external_id}}
    assert trust["Principal"] == {"AWS": [DELIVERY_ROLE_ARN]}
    assert role["Properties"]["RoleName"] == "hookline-delivery-orders"
    assert "RoleArn" in template["Outputs"]
    expect(panel.get_by_test_id("role-template-saved")).to_have_text("Saved as role.json.")
    assert any(url.endswith(f"/v1/endpoints/{queue['id']}/role-template") for url in page_log.requests)

    # When they change only the description and save: the destination is kept as it was
    page.get_by_label("Description").fill("Orders, into SQS")
    page.get_by_test_id("save-settings").click()
    expect(page.get_by_test_id("settings-saved")).to_have_text("Saved.")
    saved = producer.get_endpoint(queue["id"])
    assert saved["description"] == "Orders, into SQS"
    assert saved["destination"] == queue["destination"] and saved["url"] is None


def test_an_earlier_releases_destination_without_a_role_and_a_read_only_session_still_get_the_template(page: Page, producer: Producer, customer: str) -> None:
    # Given an S3-destination endpoint with a key prefix, which the API answers as an earlier release stored it (no
    # role: the API refuses one without today), and a read-only session
    bucket = producer.destination_endpoint(customer, {"type": "s3", "bucket": "acme-archive", "prefix": "webhooks/orders", "role_arn": ROLE_ARN})
    handler = _shown_as(bucket["id"], lambda ep: {**ep, "destination": {**ep["destination"], "role_arn": None}})
    page.route(f"**/v1/endpoints/{bucket['id']}", handler)
    page.route("**/v1/endpoints?*", handler)
    open_portal(page, producer.session(customer, read_only=True)["url"])

    # Then it is named as the bucket with its prefix
    expect(card(page, bucket["id"]).get_by_test_id("endpoint-link")).to_have_text("S3 bucket acme-archive/webhooks/orders")

    # And its settings say nothing is delivered until a role is set, and still offer the role's template
    open_endpoint(page, bucket["id"])
    expect(page.get_by_test_id("config-where")).to_have_text("S3 bucket acme-archive/webhooks/orders")
    panel = page.get_by_test_id("destination")
    expect(panel.get_by_test_id("destination-role")).to_have_text("none: nothing is delivered until a role is set")
    with page.expect_download() as download_info:
        panel.get_by_test_id("download-role-template").click()
    template = json.loads(download_info.value.path().read_text(encoding="utf-8"))
    statement = template["Resources"]["HooklineDeliveryRole"]["Properties"]["Policies"][0]["PolicyDocument"]["Statement"][0]
    assert statement["Resource"] == "arn:aws:s3:::acme-archive/webhooks/orders/*"


def _shown_as(endpoint_id: str, change: Callable[[dict[str, Any]], dict[str, Any]]) -> Callable[[Route], None]:
    """A route handler that answers the API's endpoint, alone or in the list, changed by `change`."""

    def changed(endpoint: dict[str, Any]) -> dict[str, Any]:
        return change(endpoint) if endpoint.get("id") == endpoint_id else endpoint

    def handle(route: Route) -> None:
        if route.request.method != "GET":
            route.continue_()
            return
        answer = route.fetch()
        body: dict[str, Any] = answer.json()
        shown = {**body, "items": [changed(item) for item in body["items"]]} if "items" in body else changed(body)
        route.fulfill(response=answer, json=shown)

    return handle


def _disabled_as(endpoint_id: str, reason: str) -> Callable[[Route], None]:
    """The API's endpoint answered as disabled for `reason`: only a delivery the destination refuses sets such a reason,
    and local mode's AWS grants every access."""
    return _shown_as(endpoint_id, lambda endpoint: {**endpoint, "status": "disabled", "disabled_reason": reason})


def test_a_destinations_refusal_reads_as_words(page: Page, producer: Producer, customer: str) -> None:
    # Given an SQS endpoint whose queue does not exist, so its first delivery disables it (destination_missing)
    missing = producer.destination_endpoint(
        customer, {"type": "sqs", "queue_url": "https://sqs.us-east-1.amazonaws.com/111122223333/no-such-queue", "role_arn": ROLE_ARN}
    )
    producer.event(customer, "order.created", {"n": 1})
    wait_until(lambda: producer.get_endpoint(missing["id"])["status"] == "disabled", "the missing queue's endpoint to be disabled", timeout=30)
    assert producer.get_endpoint(missing["id"])["disabled_reason"] == "destination_missing"
    # And one the API answers as refused access (the page reads the reason as the API gives it)
    denied = producer.destination_endpoint(customer, SQS)
    handler = _disabled_as(denied["id"], "access_denied")
    page.route(f"**/v1/endpoints/{denied['id']}", handler)
    page.route("**/v1/endpoints?*", handler)

    # When the customer opens the portal
    open_portal(page, producer.session(customer)["url"])

    # Then each card says in words why it is disabled
    expect(card(page, missing["id"]).get_by_test_id("disabled-reason")).to_have_text(
        "Disabled because its AWS destination (or the role assumed for it) does not exist."
    )
    expect(card(page, denied["id"]).get_by_test_id("disabled-reason")).to_have_text(
        "Disabled because its AWS destination (or the role assumed for it) refused access."
    )
    expect(card(page, denied["id"]).get_by_test_id("attention-flag")).to_be_visible()
    # And the settings of the one refused access say so, pointing to the destination's access
    open_endpoint(page, denied["id"])
    reason = page.get_by_test_id("disabled-panel").get_by_test_id("disabled-reason")
    expect(reason).to_have_text(
        "It was disabled because its AWS destination (or the role assumed for it) refused access. Events for it are kept as paused deliveries."
    )
    expect(page.get_by_test_id("disabled-panel")).to_contain_text("Fix its access first (see Destination below).")
    expect(page.get_by_test_id("disabled-panel")).to_contain_text("If the destination accepts it, it becomes active again")


# -- endpoint authentication ---------------------------------------------------------------------------------------

AUTH_PASSWORD = "pw-Rt5u-never-in-the-page"
AUTH_TOKEN = "tk-Yw2k-never-in-the-page"


def test_an_endpoints_auth_is_shown_without_its_secret_and_replaced_from_the_portal(page: Page, page_log: PageLog, producer: Producer, customer: str) -> None:
    # Given an endpoint with HTTP Basic auth
    with WebhookReceiver(port=0) as rx:
        endpoint = producer.endpoint(customer, rx.url, auth={"type": "basic", "username": "hookline", "password": AUTH_PASSWORD})
        seen: list[str] = []
        page.on("response", lambda r: seen.append(r.text()) if "/v1/" in r.url and r.request.method in ("GET", "PATCH") else None)
        open_portal(page, producer.session(customer)["url"])
        open_endpoint(page, endpoint["id"])

        # Then its settings show the type and username, and never the password
        panel = page.get_by_test_id("authentication")
        expect(panel.get_by_test_id("auth-type")).to_have_text("HTTP Basic")
        expect(panel.get_by_test_id("auth-username")).to_have_text("hookline")
        assert AUTH_PASSWORD not in page.content()

        # When the customer replaces it with a bearer token
        panel.get_by_label("Type", exact=True).select_option("bearer")
        panel.get_by_label("Token", exact=True).fill(AUTH_TOKEN)
        panel.get_by_test_id("save-auth").click()
        # Then the panel says so and shows the new type, without the token, and the endpoint sends it
        expect(expect_result_focused(page, "auth-saved")).to_have_text("Authentication saved.")
        expect(page.get_by_test_id("authentication").get_by_test_id("auth-type")).to_have_text("Bearer token")
        assert producer.get_endpoint(endpoint["id"])["auth"] == {"type": "bearer"}
        assert AUTH_TOKEN not in page.content() and AUTH_PASSWORD not in page.content()
        assert seen and not [text for text in seen if AUTH_PASSWORD in text or AUTH_TOKEN in text]

        # When it is removed, Then the endpoint has none
        page.get_by_test_id("remove-auth").click()
        expect(expect_result_focused(page, "auth-saved")).to_have_text("Authentication removed.")
        expect(page.get_by_test_id("auth-type")).to_have_text("None: the signature alone")
        assert producer.get_endpoint(endpoint["id"])["auth"] is None
