"""Operational notifications (kinds in `hookline.core.notifications`), published to the
stack's SNS topic and always logged (local mode reads them in the log). Never carries a secret.
"""

from __future__ import annotations

import json
from typing import Any

from hookline.adapters.observability import get_logger


class Notifier:
    def __init__(self, sns: Any, topic_arn: str):
        self._sns = sns
        self._topic = topic_arn

    def __call__(self, kind: str, **details: Any) -> None:
        message = {"type": kind, **details}
        get_logger().info("notification", extra={"notification": kind, **details})
        if not self._topic:
            return
        try:
            self._sns.publish(
                TopicArn=self._topic,
                Subject=kind,
                Message=json.dumps(message, default=str),
                MessageAttributes={"type": {"DataType": "String", "StringValue": kind}},
            )
        except Exception:  # a lost notification must never fail a delivery
            get_logger().exception("notification not published", extra={"notification": kind})
