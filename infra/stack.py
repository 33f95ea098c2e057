"""The hookline stack: every resource comes from `hookline.topology`, configured by `Settings`."""

from __future__ import annotations

from typing import Any

from aws_cdk import CfnOutput, Stack
from constructs import Construct

from hookline.settings import Settings
from hookline.topology import API, AUTHORIZER, DELIVERY_DLQ, DELIVERY_QUEUE, RETRY_QUEUE, RETRY_WAIT, TABLE, TOPICS
from infra import construct_name, nag
from infra.api import Api
from infra.functions import Functions
from infra.queues import Queues
from infra.statemachines import StateMachines
from infra.storage import Storage
from infra.topics import Topics


class HooklineStack(Stack):
    def __init__(self, scope: Construct, construct_id: str, *, settings: Settings, **kwargs: Any) -> None:
        super().__init__(scope, construct_id, description="hookline: outbound webhooks", **kwargs)
        # Physical names (tables, queues, state machines, topics) carry the stack name, as the local runner's do.
        prefix = self.stack_name
        self.settings = settings
        self.storage = Storage(self, "Storage", prefix=prefix)
        self.queues = Queues(self, "Queues", prefix=prefix)
        self.state_machines = StateMachines(self, "StateMachines", prefix=prefix, queues=self.queues)
        self.topics = Topics(self, "Topics", prefix=prefix, key=self.storage.key)
        self.functions = Functions(
            self,
            "Functions",
            settings=settings,
            storage=self.storage,
            queues=self.queues,
            state_machines=self.state_machines,
            topics=self.topics,
        )
        self.api = Api(
            self,
            "Api",
            settings=settings,
            handler=self.functions.function(API),
            authorizer_handler=self.functions.function(AUTHORIZER),
        )
        nag.acknowledge(self)

        CfnOutput(self, "ApiUrl", value=self.api.stage.url, description="Base URL of the HTTP API")
        CfnOutput(self, "TableName", value=self.storage.table(TABLE).table_name)
        CfnOutput(self, "DeliveryQueueUrl", value=self.queues.queue(DELIVERY_QUEUE).queue_url)
        CfnOutput(self, "DeliveryDlqUrl", value=self.queues.queue(DELIVERY_DLQ).queue_url)
        CfnOutput(self, "RetryQueueUrl", value=self.queues.queue(RETRY_QUEUE).queue_url)
        CfnOutput(self, "RetryStateMachineArn", value=self.state_machines.state_machine(RETRY_WAIT).state_machine_arn)
        for topic in TOPICS:
            CfnOutput(self, f"{construct_name(topic.key)}TopicArn", value=self.topics.topic(topic).topic_arn)
