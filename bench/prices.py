"""AWS us-east-1 list prices (USD), the one table every cost figure is priced from.

Checked against ../shared/platform-notes.md and the AWS pricing pages (2026).
"""

from __future__ import annotations

from dataclasses import dataclass

MILLION = 1_000_000


@dataclass(frozen=True)
class Prices:
    lambda_request: float = 0.20 / MILLION
    lambda_gb_second_arm64: float = 0.0000133334
    sqs_request: float = 0.40 / MILLION  # standard queue; each 64 KB chunk of a request is one request
    dynamodb_write_unit: float = 0.625 / MILLION  # on-demand; 1 KB per unit, failed conditional writes included
    dynamodb_read_unit: float = 0.125 / MILLION  # on-demand; 4 KB per unit, half a unit when eventually consistent
    sfn_transition: float = 25.0 / MILLION  # Standard workflows
    http_api_request: float = 1.00 / MILLION  # per 512 KB of request
    sns_publish: float = 0.50 / MILLION  # per 64 KB
    logs_ingested_gb: float = 0.50  # CloudWatch Logs, standard class
    dynamodb_storage_gb_month: float = 0.25  # us-east-1 list price: DynamoDB Standard table class storage, per GB-month (first 25 GB free, not counted)
    dynamodb_pitr_gb_month: float = 0.20  # us-east-1 list price: point-in-time recovery (continuous backups), per GB-month of table size
    data_transfer_out_gb: float = 0.09  # us-east-1 list price: data transfer out to the internet, first 10 TB/month (first 100 GB free, not counted)
    # The comparison: EventBridge API destinations.
    eventbridge_put_event: float = 1.00 / MILLION  # per 64 KB chunk
    eventbridge_api_destination_invocation: float = 0.20 / MILLION


US_EAST_1 = Prices()
