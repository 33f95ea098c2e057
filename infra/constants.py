"""Values several constructs share, in a module of their own so the constructs import it rather than each other."""

from __future__ import annotations

from aws_cdk import RemovalPolicy
from aws_cdk import aws_logs as logs

# Every log group the stack makes (functions, state machines, API access logs) keeps events this long.
LOG_RETENTION = logs.RetentionDays.ONE_MONTH

# What outlives the stack: the table, its KMS key and the log groups. Kept when the stack is deleted or an update
# replaces them (`cdk destroy` never takes the data), and deleted with a failed first create, which has nothing
# to keep: a quota refusal on the first deploy leaves no retained table behind to make the next one fail with
# "already exists" (CloudFormation's RetainExceptOnCreate).
KEEP = RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE
