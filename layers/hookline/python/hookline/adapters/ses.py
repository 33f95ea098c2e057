"""Amazon SES (the v2 API) behind the services' Mailer port.

sesv2 rather than v1: it is the maintained API and sends a text-and-HTML message in one
`SendEmail` call with `Content.Simple`; the IAM action is still `ses:SendEmail`, scoped to
the sender identity's ARN. The sender is the From: value hookline.core.mailbox makes (`Name <address>`,
the name RFC 2047 encoded when not ASCII, as SES requires); SES authorizes its address. A refused send
(MessageRejected for an unverified sender or a sandboxed account's unverified recipient,
AccessDeniedException for a missing grant) raises DependencyFailed named by SES's error code, which
the customer-email service keeps on the endpoint's health.
"""

from __future__ import annotations

from typing import Any

from hookline.adapters.failures import translate_failures
from hookline.adapters.observability import get_logger
from hookline.core.emails import Email


@translate_failures
class SesMailer:
    def __init__(self, sesv2: Any):
        self._ses = sesv2

    def send(self, sender: str, to: str, email: Email) -> str:
        response = self._ses.send_email(
            FromEmailAddress=sender,
            Destination={"ToAddresses": [to]},
            Content={
                "Simple": {
                    "Subject": {"Data": email.subject, "Charset": "UTF-8"},
                    "Body": {"Text": {"Data": email.text, "Charset": "UTF-8"}, "Html": {"Data": email.html, "Charset": "UTF-8"}},
                }
            },
        )
        message_id = str(response.get("MessageId", ""))
        # The recipient, the subject (it may name the url) and the body stay out of the logs.
        get_logger().info("email sent", extra={"message_id": message_id})
        return message_id
