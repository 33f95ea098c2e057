"""SNS topics, one per `topology.TOPICS` entry: encrypted with the stack's key, TLS only."""

from __future__ import annotations

from aws_cdk import aws_kms as kms
from aws_cdk import aws_sns as sns
from constructs import Construct

from hookline.wiring.topology import TOPICS, TopicSpec
from infra import construct_name


class Topics(Construct):
    """Standard topics, KMS-encrypted with the customer-managed key from `Storage`, refusing non-TLS requests.

    The stack's key rather than alias/aws/sns: `grant_publish` gives each publisher's role
    kms:GenerateDataKey* and kms:Decrypt on it (roles that already hold them for the table), and an
    AWS-managed key's policy cannot be edited, so AWS services (CloudWatch alarms, EventBridge) could
    never be allowed to publish to a topic encrypted with it.
    """

    def __init__(self, scope: Construct, construct_id: str, *, prefix: str, key: kms.IKey) -> None:
        super().__init__(scope, construct_id)
        self.topics: dict[str, sns.Topic] = {
            spec.key: sns.Topic(
                self,
                f"{construct_name(spec.key)}Topic",
                topic_name=spec.physical_name(prefix),
                display_name=f"{prefix} {spec.key}",
                master_key=key,
                enforce_ssl=True,
            )
            for spec in TOPICS
        }

    def topic(self, spec: TopicSpec) -> sns.Topic:
        return self.topics[spec.key]
