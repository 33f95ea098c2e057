"""Customer emails from the settings: SES (v2) for the send, the table for the transition markers and each
email's outcome (on the endpoint item), the EmailFailed metric for a failed one."""

from __future__ import annotations

from hookline.adapters import aws, metrics
from hookline.adapters.dynamo.customers import CustomerRepository
from hookline.adapters.dynamo.email_marks import EmailMarkRepository
from hookline.adapters.dynamo.endpoints import EndpointRepository
from hookline.adapters.dynamo.sessions import SessionRepository
from hookline.adapters.ses import SesMailer
from hookline.adapters.system import utcnow
from hookline.core.emails import Links
from hookline.core.settings import Settings
from hookline.services.delivery.emails import CustomerEmails
from hookline.services.sessions import PortalSessionService
from hookline.wiring import topology


def customer_emails(settings: Settings) -> CustomerEmails | None:
    """None without HOOKLINE_NOTIFICATION_SENDER: no email, and no SES client is made.

    The emails go from the sender's parsed address, with the display name written before it (hookline.core.mailbox's
    From: header: `Name <address>`, the name RFC 2047 encoded when not ASCII).
    """
    mailbox = settings.notification_mailbox
    if mailbox is None:
        return None
    table = aws.dynamodb_table(settings.table_name)
    # A marker outlives any retry of its transition by far; it then expires like the events do.
    marks = EmailMarkRepository(table, topology.TABLE.ttl_attribute, settings.retention_days)
    customers = CustomerRepository(table)
    sessions = PortalSessionService(SessionRepository(table, topology.TABLE.ttl_attribute), customers, utcnow)
    return CustomerEmails(
        customers,
        SesMailer(aws.sesv2_client()),
        marks,
        marks,
        mailbox.header,
        Links(settings.portal_base),
        sessions,
        settings.email_portal_session_seconds,
        outcomes=EndpointRepository(table),
        clock=utcnow,
        count_failure=metrics.email_failed,
    )
