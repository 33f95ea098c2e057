"""provision() builds local mode's AWS from the topology: tables with their indexes, queues, state machines, topics, keys.

In-process moto (the `aws` fixture), which is faster than a server; local mode points the same calls at its server.
"""

from __future__ import annotations

import boto3
import pytest

from hookline.wiring import topology
from local.resources import provision, table_definition

PREFIX = "res"


@pytest.fixture
def env(aws: None) -> dict[str, str]:
    return provision(PREFIX)


def test_provision_returns_every_resource_env_var(env: dict[str, str]) -> None:
    # Given the topology's resources
    specs = (*topology.TABLES, *topology.QUEUES, *topology.STATE_MACHINES, *topology.TOPICS, *topology.KEYS)
    # When provision() has run
    # Then it names each one under its spec's env var, and nothing else
    assert set(env) == {spec.env for spec in specs}
    assert env["HOOKLINE_NOTIFICATIONS_TOPIC_ARN"] == env[topology.NOTIFICATIONS.env]


def test_provision_makes_the_secrets_key_once_and_finds_it_again(env: dict[str, str]) -> None:
    # Given the key provision() made under its alias
    kms = boto3.client("kms")
    made = kms.describe_key(KeyId=topology.SECRETS_KEY.alias(PREFIX))["KeyMetadata"]
    assert (made["Arn"], made["KeyUsage"], made["KeySpec"]) == (env[topology.SECRETS_KEY.env], "ENCRYPT_DECRYPT", "SYMMETRIC_DEFAULT")
    # When provision() runs again, Then it names the same key, and makes no other
    assert provision(PREFIX)[topology.SECRETS_KEY.env] == made["Arn"]
    assert len(kms.list_keys()["Keys"]) == 1


def test_provision_creates_the_tables_global_secondary_indexes(env: dict[str, str]) -> None:
    # Given the data table spec with the endpoint-deliveries, customer-endpoints, endpoint-versions and endpoint-log indexes
    assert topology.TABLE.indexes == (
        topology.ENDPOINT_DELIVERIES_INDEX,
        topology.CUSTOMER_ENDPOINTS_INDEX,
        topology.ENDPOINT_VERSIONS_INDEX,
        topology.ENDPOINT_LOG_INDEX,
    )
    # When the provisioned table is described
    table = boto3.client("dynamodb").describe_table(TableName=env[topology.TABLE.env])["Table"]
    # Then it has those indexes, keyed on gsi1pk / gsi1sk to gsi4pk / gsi4sk (strings), the first two
    # projecting every attribute, the versions' index (it counts and lists endpoints) and the log's only the keys
    gsis = {gsi["IndexName"]: gsi for gsi in table["GlobalSecondaryIndexes"]}
    assert set(gsis) == {"endpoint-deliveries", "customer-endpoints", "endpoint-versions", "endpoint-log"}
    for name, keys, projection in (
        ("endpoint-deliveries", "gsi1", "ALL"),
        ("customer-endpoints", "gsi2", "ALL"),
        ("endpoint-versions", "gsi3", "KEYS_ONLY"),
        ("endpoint-log", "gsi4", "KEYS_ONLY"),
    ):
        assert gsis[name]["KeySchema"] == [{"AttributeName": f"{keys}pk", "KeyType": "HASH"}, {"AttributeName": f"{keys}sk", "KeyType": "RANGE"}]
        assert gsis[name]["Projection"] == {"ProjectionType": projection}
    attributes = {a["AttributeName"]: a["AttributeType"] for a in table["AttributeDefinitions"]}
    assert attributes == {"pk": "S", "sk": "S"} | {f"gsi{n}{k}": "S" for n in (1, 2, 3, 4) for k in ("pk", "sk")}
    # And the table keeps its own pk / sk key schema
    assert table["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]


def test_the_index_is_sparse_and_queryable(env: dict[str, str]) -> None:
    # Given one item with the index keys and one without (a delivery that succeeded never writes them)
    table = boto3.resource("dynamodb").Table(env[topology.TABLE.env])
    index = topology.ENDPOINT_DELIVERIES_INDEX
    table.put_item(Item={"pk": "a", "sk": "1", index.partition_key: "ep_1", index.sort_key: "failed#2026-01-01", "n": 1})
    table.put_item(Item={"pk": "b", "sk": "2", "n": 2})
    # When the index is queried by its partition key
    items = table.query(IndexName=index.name, KeyConditionExpression="gsi1pk = :p", ExpressionAttributeValues={":p": "ep_1"})["Items"]
    # Then only the item with the index keys is found, with all its attributes
    assert [(i["pk"], i["n"]) for i in items] == [("a", 1)]


def test_provision_creates_the_notifications_topic(env: dict[str, str]) -> None:
    # Given the NOTIFICATIONS topic spec
    arn = env[topology.NOTIFICATIONS.env]
    # When moto's topics are listed
    sns = boto3.client("sns")
    topics = [t["TopicArn"] for t in sns.list_topics()["Topics"]]
    # Then the topic exists under its physical name, and its ARN is what provision() returned
    assert arn in topics
    assert arn.endswith(":" + topology.NOTIFICATIONS.physical_name(PREFIX))
    assert sns.get_topic_attributes(TopicArn=arn)["Attributes"]["TopicArn"] == arn
    # And a function can publish to it
    assert sns.publish(TopicArn=arn, Message='{"type": "endpoint.circuit_opened"}')["MessageId"]


def test_provision_is_idempotent(env: dict[str, str]) -> None:
    # Given a provisioned topology
    # When provision() runs again with the same prefix
    again = provision(PREFIX)
    # Then it reuses every resource: the same names, URLs and ARNs, one topic and one table
    assert again == env
    assert len(boto3.client("sns").list_topics()["Topics"]) == len(topology.TOPICS)
    assert boto3.client("dynamodb").list_tables()["TableNames"] == [t.physical_name(PREFIX) for t in topology.TABLES]


def test_a_table_without_indexes_gets_no_index_definitions() -> None:
    # Given a table spec with no index
    spec = topology.TableSpec(key="plain", env="X")
    # When its CreateTable arguments are built
    definition = table_definition(spec, "p-plain")
    # Then it defines only its own key attributes, and no GlobalSecondaryIndexes
    assert "GlobalSecondaryIndexes" not in definition
    assert [a["AttributeName"] for a in definition["AttributeDefinitions"]] == ["pk", "sk"]
