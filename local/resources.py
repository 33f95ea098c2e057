"""Create hookline's tables, queues, state machines, topics and keys from `hookline.wiring.topology` (no hard-coded names).

Used by the local runner against the embedded moto server, and by tests. Every
call goes through boto3, so it works against anything boto3 points at
(`AWS_ENDPOINT_URL`, or an explicit session/endpoint).
"""

from __future__ import annotations

import json
from typing import Any

import boto3
import requests
from botocore.exceptions import ClientError

from hookline.adapters.dynamo.apikeys import ApiKeyRepository
from hookline.wiring import topology


def _clients(session: boto3.Session | None, endpoint_url: str | None) -> tuple[Any, Any]:
    s = session or boto3.Session()
    return s.client("dynamodb", endpoint_url=endpoint_url), s.client("sqs", endpoint_url=endpoint_url)


def _key_schema(partition_key: str, sort_key: str) -> list[dict[str, str]]:
    return [{"AttributeName": partition_key, "KeyType": "HASH"}, {"AttributeName": sort_key, "KeyType": "RANGE"}]


def table_definition(spec: topology.TableSpec, name: str) -> dict[str, Any]:
    """The CreateTable arguments a TableSpec stands for: string keys, on-demand, its GSIs projecting all attributes."""
    attributes: dict[str, None] = dict.fromkeys([spec.partition_key, spec.sort_key])
    for index in spec.indexes:
        attributes.update(dict.fromkeys([index.partition_key, index.sort_key]))
    definition: dict[str, Any] = {
        "TableName": name,
        "AttributeDefinitions": [{"AttributeName": attribute, "AttributeType": "S"} for attribute in attributes],
        "KeySchema": _key_schema(spec.partition_key, spec.sort_key),
        "BillingMode": "PAY_PER_REQUEST",
    }
    if spec.indexes:
        definition["GlobalSecondaryIndexes"] = [
            {"IndexName": index.name, "KeySchema": _key_schema(index.partition_key, index.sort_key), "Projection": {"ProjectionType": index.projection}}
            for index in spec.indexes
        ]
    return definition


def create_table(dynamodb: Any, spec: topology.TableSpec, prefix: str) -> str:
    """Create one table (string pk/sk, on-demand, its GSIs, TTL on), tolerating an existing one."""
    name = spec.physical_name(prefix)
    try:
        dynamodb.create_table(**table_definition(spec, name))
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") != "ResourceInUseException":
            raise
    dynamodb.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 30})
    dynamodb.update_time_to_live(
        TableName=name,
        TimeToLiveSpecification={"Enabled": True, "AttributeName": spec.ttl_attribute},
    )
    return name


def create_key(kms: Any, spec: topology.KeySpec, prefix: str) -> str:
    """A symmetric key under the spec's alias (an existing one, found by its alias, is reused): its ARN."""
    try:
        return str(kms.describe_key(KeyId=spec.alias(prefix))["KeyMetadata"]["Arn"])
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") != "NotFoundException":
            raise
    made = kms.create_key(Description=f"hookline {prefix} {spec.key}", KeyUsage="ENCRYPT_DECRYPT", KeySpec="SYMMETRIC_DEFAULT")["KeyMetadata"]
    kms.create_alias(AliasName=spec.alias(prefix), TargetKeyId=made["KeyId"])
    return str(made["Arn"])


def create_topic(sns: Any, spec: topology.TopicSpec, prefix: str) -> str:
    """Create one SNS topic (CreateTopic returns the existing topic's ARN); return its ARN.

    In AWS the stack encrypts the topic with its KMS key and denies non-TLS publishing; moto checks neither.
    """
    return str(sns.create_topic(Name=spec.physical_name(prefix))["TopicArn"])


def queue_attributes(spec: topology.QueueSpec, dead_letter_arn: str | None) -> dict[str, str]:
    """The SQS attributes a QueueSpec stands for (all values are strings, as SQS wants)."""
    attributes = {
        "VisibilityTimeout": str(spec.visibility_timeout_seconds),
        "MessageRetentionPeriod": str(spec.retention_seconds),
    }
    if spec.fifo:
        # As the stack makes it (infra/queues.py): high throughput, quotas per message group.
        attributes |= {
            "FifoQueue": "true",
            "ContentBasedDeduplication": "false",
            "DeduplicationScope": "messageGroup",
            "FifoThroughputLimit": "perMessageGroupId",
        }
    if spec.dead_letter is not None:
        if dead_letter_arn is None:
            raise ValueError(f"queue {spec.key!r}: its dead-letter queue {spec.dead_letter.key!r} must be created first")
        attributes["RedrivePolicy"] = json.dumps({"deadLetterTargetArn": dead_letter_arn, "maxReceiveCount": spec.max_receive_count})
    return attributes


def queue_arn(sqs: Any, queue_url: str) -> str:
    attrs = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]
    return str(attrs["QueueArn"])


def create_state_machine(sfn: Any, spec: topology.StateMachineSpec, prefix: str, target_queue_url: str, dead_letter_queue_url: str, account_id: str) -> str:
    """Create (or update) one Standard state machine from its spec's definition; return its ARN."""
    name = spec.physical_name(prefix)
    definition = json.dumps(spec.definition(target_queue_url, dead_letter_queue_url))
    # moto does not check the role; in AWS the stack gives the machine a role that may send to the target and the DLQ.
    role_arn = f"arn:aws:iam::{account_id}:role/{name}-local"
    try:
        return str(sfn.create_state_machine(name=name, definition=definition, roleArn=role_arn, type="STANDARD")["stateMachineArn"])
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") != "StateMachineAlreadyExists":
            raise
    for page in sfn.get_paginator("list_state_machines").paginate():
        for machine in page["stateMachines"]:
            if machine["name"] == name:
                sfn.update_state_machine(stateMachineArn=machine["stateMachineArn"], definition=definition, roleArn=role_arn)
                return str(machine["stateMachineArn"])
    raise RuntimeError(f"state machine {name} exists but is not listed")


def verify_email_identity(identity: str, *, session: boto3.Session | None = None, endpoint_url: str | None = None) -> None:
    """Verify a sender with SES (v2), which refuses to send from an unverified identity; moto verifies on request."""
    ses = (session or boto3.Session()).client("sesv2", endpoint_url=endpoint_url)
    try:
        ses.create_email_identity(EmailIdentity=identity)
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") != "AlreadyExistsException":
            raise


def provision(
    prefix: str = topology.DEFAULT_PREFIX,
    *,
    session: boto3.Session | None = None,
    endpoint_url: str | None = None,
) -> dict[str, str]:
    """Create every table, queue, state machine, topic and key of the topology; return {env var: name / URL / ARN}.

    Queues are created in `topology.QUEUES` order, which lists dead-letter
    queues first, so each redrive policy can name its target's ARN. State
    machines come after: their definitions name their target queue's URL.
    Idempotent: existing tables, queues (same attributes), state machines and
    topics are reused; an existing table is left as it is.
    """
    if session is None:  # boto3's default session, as boto3.client() would use (made now, with the credentials of now)
        if boto3.DEFAULT_SESSION is None:
            boto3.setup_default_session()
        session = boto3.DEFAULT_SESSION
    assert session is not None
    dynamodb, sqs = _clients(session, endpoint_url)
    env: dict[str, str] = {}
    for table in topology.TABLES:
        env[table.env] = create_table(dynamodb, table, prefix)
    arns: dict[str, str] = {}
    for queue in topology.QUEUES:
        dlq_arn = arns.get(queue.dead_letter.key) if queue.dead_letter is not None else None
        url = str(sqs.create_queue(QueueName=queue.physical_name(prefix), Attributes=queue_attributes(queue, dlq_arn))["QueueUrl"])
        arns[queue.key] = queue_arn(sqs, url)
        env[queue.env] = url
    if topology.STATE_MACHINES:
        sfn = session.client("stepfunctions", endpoint_url=endpoint_url)
        account_id = arns[topology.QUEUES[0].key].split(":")[4]
        for machine in topology.STATE_MACHINES:
            env[machine.env] = create_state_machine(sfn, machine, prefix, env[machine.target.env], env[machine.dead_letter.env], account_id)
    if topology.TOPICS:
        sns = session.client("sns", endpoint_url=endpoint_url)
        for topic in topology.TOPICS:
            env[topic.env] = create_topic(sns, topic, prefix)
    if topology.KEYS:
        kms = session.client("kms", endpoint_url=endpoint_url)
        for key in topology.KEYS:
            env[key.env] = create_key(kms, key, prefix)
    return env


def seed_api_keys(
    table_name: str,
    keys: list[tuple[str, str]],
    now_iso: str,
    *,
    session: boto3.Session | None = None,
    endpoint_url: str | None = None,
) -> None:
    """Store (tenant, key) pairs through the same repository the authorizer reads."""
    table = (session or boto3.Session()).resource("dynamodb", endpoint_url=endpoint_url).Table(table_name)
    repo = ApiKeyRepository(table)
    for tenant, key in keys:
        repo.add(tenant, key, now_iso)


def enable_state_machine_execution(moto_endpoint: str) -> dict[str, Any]:
    """Make the moto server really run state machines (Wait, then the SQS task); return its previous setting.

    Call it before creating state machines: moto keeps the machines of its executing
    engine apart from the others. moto's config is process-wide; pass the returned
    value to `restore_moto_config`.
    In server mode moto's Step Functions engine reaches SQS at localhost:$MOTO_PORT,
    so the caller must also set MOTO_PORT to the server's port.
    """
    previous = requests.get(f"{moto_endpoint}/moto-api/config", timeout=10).json().get("stepfunctions") or {}
    requests.post(f"{moto_endpoint}/moto-api/config", json={"stepfunctions": {"execute_state_machine": True}}, timeout=10).raise_for_status()
    return dict(previous)


def restore_moto_config(moto_endpoint: str, stepfunctions: dict[str, Any]) -> None:
    requests.post(f"{moto_endpoint}/moto-api/config", json={"stepfunctions": stepfunctions}, timeout=10).raise_for_status()
