"""The hookline stack: every resource comes from `hookline.wiring.topology`, configured by `Settings`."""

from __future__ import annotations

from typing import Any

from aws_cdk import CfnOutput, Stack
from constructs import Construct

from hookline.core.settings import Settings
from hookline.wiring.topology import API, AUTHORIZER, JOBS, NOTIFICATIONS, QUEUES, RETRY_WAIT, TABLE, TOPICS, QueueSpec
from infra import construct_name, nag, stack_settings
from infra.api import Api
from infra.deploys import Deploys
from infra.functions import Functions
from infra.monitoring import Monitoring, dead_letter_queues
from infra.queues import Queues
from infra.schedules import Schedules
from infra.statemachines import StateMachines
from infra.storage import Storage
from infra.topics import Topics


class HooklineStack(Stack):
    """The whole of hookline; with `data_only`, only what outlives the stack (the KMS key and the table), for
    `cdk import` to adopt the ones a destroyed stack retained (docs/operations.md, "Re-attaching the data")."""

    def __init__(self, scope: Construct, construct_id: str, *, settings: Settings, data_only: bool = False, **kwargs: Any) -> None:
        # A resource import must consist of imported resources alone: no CDKMetadata resource beside them.
        super().__init__(scope, construct_id, description="hookline: outbound webhooks", analytics_reporting=False if data_only else None, **kwargs)
        # Physical names (tables, queues, state machines, topics) carry the stack name, as the local runner's do.
        prefix = self.stack_name
        self.settings = settings
        self.storage = Storage(self, "Storage", prefix=prefix, settings=settings)
        if data_only:
            return
        # What the stack was made from, so `make preflight` can read back what is deployed (GetTemplate).
        self.template_options.metadata = {stack_settings.TEMPLATE_METADATA: stack_settings.template_metadata(settings)}
        self.queues = Queues(self, "Queues", prefix=prefix)
        self.state_machines = StateMachines(self, "StateMachines", prefix=prefix, queues=self.queues, key=self.storage.key)
        self.topics = Topics(self, "Topics", prefix=prefix, key=self.storage.key, settings=settings)
        self.functions = Functions(
            self,
            "Functions",
            prefix=prefix,
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
            # The live aliases, not the functions: the API serves what the deploy strategy has put live.
            handler=self.functions.alias(API),
            authorizer_handler=self.functions.alias(AUTHORIZER),
            key=self.storage.key,
        )
        # Dashboard and alarms; the alarms notify the operational notifications topic.
        self.monitoring = Monitoring(
            self,
            "Monitoring",
            prefix=prefix,
            settings=settings,
            queues=self.queues,
            functions=self.functions,
            state_machines=self.state_machines,
            api=self.api,
            table=self.storage.table(TABLE),
            topic=self.topics.topic(NOTIFICATIONS),
            key=self.storage.key,
        )
        # The sweeper's schedule (and any other scheduled invocation of topology.SCHEDULES).
        self.schedules = Schedules(self, "Schedules", prefix=prefix, settings=settings, functions=self.functions, key=self.storage.key)
        # How a new version of each function goes live: a CodeDeploy canary that rolls back on the new version's alarms, or all at once.
        self.deploys = Deploys(self, "Deploys", prefix=prefix, settings=settings, functions=self.functions)
        nag.acknowledge(functions=self.functions, storage=self.storage, state_machines=self.state_machines, api=self.api, deploys=self.deploys)

        CfnOutput(self, "ApiUrl", value=self.api.stage.url, description="Base URL of the HTTP API")
        CfnOutput(self, "TableName", value=self.storage.table(TABLE).table_name)
        for queue in QUEUES:
            CfnOutput(self, queue_output_id(queue), value=self.queues.queue(queue).queue_url)
        CfnOutput(self, "RetryStateMachineArn", value=self.state_machines.state_machine(RETRY_WAIT).state_machine_arn)
        for topic in TOPICS:
            CfnOutput(self, f"{construct_name(topic.key)}TopicArn", value=self.topics.topic(topic).topic_arn)
        CfnOutput(
            self,
            "JobsFunctionName",
            value=self.functions.function(JOBS).function_name,
            description="The jobs function: the operators' DLQ drain is `aws lambda invoke` on it",
        )
        CfnOutput(self, "DashboardName", value=self.monitoring.dashboard.dashboard_name, description="CloudWatch dashboard")


def queue_output_id(queue: QueueSpec) -> str:
    """`DeliveryQueueUrl`, `RetryQueueUrl`, ...; a dead-letter queue's key already says what it is: `DeliveryDlqUrl`."""
    dead_letters = {q.key for q in dead_letter_queues()}
    return f"{construct_name(queue.key)}{'' if queue.key in dead_letters else 'Queue'}Url"
