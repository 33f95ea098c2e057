"""SNS topics, one per `topology.TOPICS` entry: encrypted with the stack's key, TLS only."""

from __future__ import annotations

from aws_cdk import aws_kms as kms
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from constructs import Construct

from hookline.core.settings import Settings
from hookline.wiring.topology import NOTIFICATIONS, TOPICS, TopicSpec
from infra import construct_name


class Topics(Construct):
    """Standard topics, KMS-encrypted with the customer-managed key from `Storage`, refusing non-TLS requests.

    The stack's key rather than alias/aws/sns: `grant_publish` gives each publisher's role
    kms:GenerateDataKey* and kms:Decrypt on it (roles that already hold them for the table), and an
    AWS-managed key's policy cannot be edited, so AWS services (CloudWatch alarms, EventBridge) could
    never be allowed to publish to a topic encrypted with it.
    """

    def __init__(self, scope: Construct, construct_id: str, *, prefix: str, key: kms.IKey, settings: Settings) -> None:
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
        self.subscriptions = self._subscribe_operators(self.topic(NOTIFICATIONS), settings)

    def _subscribe_operators(self, topic: sns.Topic, settings: Settings) -> list[subscriptions.EmailSubscription | subscriptions.UrlSubscription]:
        """Whoever HOOKLINE_ALARM_EMAIL and HOOKLINE_ALARM_HTTPS_ENDPOINT name: every alarm notifies this topic, which
        without a subscription reaches nobody (`make preflight` warns of that). An email subscription waits for its
        owner to confirm it."""
        added: list[subscriptions.EmailSubscription | subscriptions.UrlSubscription] = []
        for address in settings.alarm_emails:
            added.append(subscriptions.EmailSubscription(address))
        if settings.alarm_https_endpoint:
            added.append(subscriptions.UrlSubscription(settings.alarm_https_endpoint, protocol=sns.SubscriptionProtocol.HTTPS))
        for subscription in added:
            topic.add_subscription(subscription)
        return added

    def topic(self, spec: TopicSpec) -> sns.Topic:
        return self.topics[spec.key]
