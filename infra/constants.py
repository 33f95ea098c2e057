"""Values several constructs share, in a module of their own so the constructs import it rather than each other."""

from __future__ import annotations

from aws_cdk import aws_logs as logs

# Every log group the stack makes (functions, state machines, API access logs) keeps events this long.
LOG_RETENTION = logs.RetentionDays.ONE_MONTH
