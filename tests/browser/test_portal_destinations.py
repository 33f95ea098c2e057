"""Endpoints that deliver into the customer's AWS account, in the portal (headless Chromium against local mode): each is
named by where it delivers (never "null"), its settings show the destination, its role and external id, and the
role's CloudFormation template downloads as a file; a destination's refusals read as words."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import Page, Route, expect

from tests.browser.portal import PageLog, card, open_endpoint, open_portal
from tests.browser.stack import DELIVERY_ROLE_ARN, Producer, wait_until

if TYPE_CHECKING:
    from collections.abc import Callable

pytestmark = [pytest.mark.browser, pytest.mark.slow]

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


def test_a_destination_without_a_role_and_a_read_only_session_still_get_the_template(page: Page, producer: Producer, customer: str) -> None:
    # Given an S3-destination endpoint with a key prefix and no role, and a read-only session
    bucket = producer.destination_endpoint(customer, {"type": "s3", "bucket": "acme-archive", "prefix": "webhooks/orders"})
    open_portal(page, producer.session(customer, read_only=True)["url"])

    # Then it is named as the bucket with its prefix
    expect(card(page, bucket["id"]).get_by_test_id("endpoint-link")).to_have_text("S3 bucket acme-archive/webhooks/orders")

    # And its settings say the bucket's own policy must grant access, and still offer the role's template
    open_endpoint(page, bucket["id"])
    expect(page.get_by_test_id("config-where")).to_have_text("S3 bucket acme-archive/webhooks/orders")
    panel = page.get_by_test_id("destination")
    expect(panel.get_by_test_id("destination-role")).to_have_text("none: the destination's resource policy must grant hookline")
    with page.expect_download() as download_info:
        panel.get_by_test_id("download-role-template").click()
    template = json.loads(download_info.value.path().read_text(encoding="utf-8"))
    statement = template["Resources"]["HooklineDeliveryRole"]["Properties"]["Policies"][0]["PolicyDocument"]["Statement"][0]
    assert statement["Resource"] == "arn:aws:s3:::acme-archive/webhooks/orders/*"


def _disabled_as(endpoint_id: str, reason: str) -> Callable[[Route], None]:
    """A route handler that answers the API's endpoint, alone or in the list, as disabled for `reason`: only a delivery the
    destination refuses sets such a reason, and local mode's AWS grants every access."""

    def disabled(endpoint: dict[str, Any]) -> dict[str, Any]:
        return {**endpoint, "status": "disabled", "disabled_reason": reason} if endpoint.get("id") == endpoint_id else endpoint

    def handle(route: Route) -> None:
        if route.request.method != "GET":
            route.continue_()
            return
        answer = route.fetch()
        body: dict[str, Any] = answer.json()
        shown = {**body, "items": [disabled(item) for item in body["items"]]} if "items" in body else disabled(body)
        route.fulfill(response=answer, json=shown)

    return handle


def test_a_destinations_refusal_reads_as_words(page: Page, producer: Producer, customer: str) -> None:
    # Given an SQS endpoint whose queue does not exist, so its first delivery disables it (destination_missing)
    missing = producer.destination_endpoint(customer, {"type": "sqs", "queue_url": "https://sqs.us-east-1.amazonaws.com/111122223333/no-such-queue"})
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
