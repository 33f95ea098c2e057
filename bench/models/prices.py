"""AWS us-east-1 list prices (USD), the one table every cost figure is priced from.

Checked against ../shared/platform-notes.md and the AWS pricing pages (2026).
"""

from __future__ import annotations

from dataclasses import dataclass

from hookline.core.settings import TABLE_CAPACITY_TARGET_PERCENT

MILLION = 1_000_000
HOUR = 3600


def provisioned(total: float, breakdown: dict[str, float], units: dict[str, float], p: Prices | None = None) -> dict[str, float]:
    """A configuration priced on demand (its `total`, `breakdown` and measured `units`, per million) as it costs on a
    provisioned table at steady load (HOOKLINE_TABLE_BILLING=provisioned): its read and write units as capacity at
    TABLE_CAPACITY_TARGET_PERCENT use, every other line as on demand."""
    dynamodb = provisioned_dynamodb(units["dynamodb_write_units"], units["dynamodb_read_units"], TABLE_CAPACITY_TARGET_PERCENT / 100, p)
    return {"dynamodb": round(dynamodb, 4), "total": round(total - breakdown["dynamodb"] + dynamodb, 4)}


def provisioned_dynamodb(write_units: float, read_units: float, target: float, p: Prices | None = None) -> float:
    """What `write_units` and `read_units` (request units, as on-demand counts them) cost on a provisioned table at
    steady load, auto scaling keeping `target` (0..1) of the capacity used: each unit a second needs 1/target of a
    capacity unit for that second. The minimum capacity's floor and scaling's lag are left out: at steady volume the
    floor is a fixed few dollars a month, and the lag is what the headroom of 1/target absorbs."""
    p = p or US_EAST_1
    return (write_units * p.dynamodb_wcu_hour + read_units * p.dynamodb_rcu_hour) / HOUR / target


@dataclass(frozen=True)
class Prices:
    lambda_request: float = 0.20 / MILLION
    lambda_gb_second_arm64: float = 0.0000133334
    sqs_request: float = 0.40 / MILLION  # standard queue; each 64 KB chunk of a request is one request
    dynamodb_write_unit: float = 0.625 / MILLION  # on-demand; 1 KB per unit, failed conditional writes included
    dynamodb_read_unit: float = 0.125 / MILLION  # on-demand; 4 KB per unit, half a unit when eventually consistent
    # https://aws.amazon.com/dynamodb/pricing/provisioned/ : a write capacity unit (one 1 KB write a second) and a read
    # capacity unit (one 4 KB strongly consistent read a second, or two eventually consistent) per hour, Standard class.
    dynamodb_wcu_hour: float = 0.00065
    dynamodb_rcu_hour: float = 0.00013
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
    # Destinations in a customer's account (bench.measurement.destinations): the put is billed to the resource's owner, not to
    # hookline. us-east-1 list prices.
    # https://aws.amazon.com/sqs/pricing/ : a standard queue's request is `sqs_request` above ($0.40 per million, each
    # 64 KB chunk a request); a FIFO queue's is $0.50 per million.
    sqs_fifo_request: float = 0.50 / MILLION
    # https://aws.amazon.com/sns/pricing/ : a publish is `sns_publish` above ($0.50 per million, 64 KB chunks); the
    # topic's deliveries to SQS queues are free.
    sns_to_sqs_delivery: float = 0.0
    # https://aws.amazon.com/eventbridge/pricing/ : a custom event on a bus is `eventbridge_put_event` above ($1.00 per
    # million, 64 KB chunks).
    # https://aws.amazon.com/kinesis/data-streams/pricing/ : provisioned mode, $0.014 per million PUT payload units (a
    # record's 25 KB chunks), and $0.015 per shard-hour, the stream owner's fixed cost whatever it carries.
    kinesis_put_payload_unit: float = 0.014 / MILLION
    kinesis_shard_hour: float = 0.015
    # https://aws.amazon.com/s3/pricing/ : S3 Standard, PUT $0.005 per 1,000 requests; storage $0.023 per GB-month (first 50 TB).
    s3_put_request: float = 0.005 / 1000
    s3_standard_gb_month: float = 0.023
    # https://aws.amazon.com/iam/pricing/ : IAM and STS (AssumeRole included) are offered at no additional charge.
    sts_assume_role: float = 0.0


US_EAST_1 = Prices()
