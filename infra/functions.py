"""Lambda functions, one per `topology.FUNCTIONS` entry, made by a single factory."""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any

from aws_cdk import Aws, CfnResource, Duration, Fn, RemovalPolicy, Stack, Tags
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as event_sources
from aws_cdk import aws_logs as logs
from constructs import Construct

from hookline.core import tracing
from hookline.core.mailbox import parse_mailbox
from hookline.core.settings import Settings
from hookline.wiring.topology import (
    FUNCTIONS,
    JOBS,
    CustomerDestinationsSpec,
    EmailIdentitySpec,
    FunctionSpec,
    Grant,
    KeySpec,
    QueueSpec,
    StateMachineSpec,
    TableSpec,
    TopicSpec,
)
from infra import BUILD_DIR, DEPS_LAYER_DIR, FUNCTIONS_DIR, HOOKLINE_LAYER_DIR, construct_name, sizing
from infra.constants import KEEP, LOG_RETENTION
from infra.deploy_names import FUNCTION_TAG, LIVE_ALIAS, STACK_TAG
from infra.layers import compiled_layer
from infra.queues import Queues, TopologyError, check_consumer
from infra.stack_settings import is_resource_setting
from infra.storage import Storage

if TYPE_CHECKING:
    from infra.statemachines import StateMachines
    from infra.topics import Topics

RUNTIME = lambda_.Runtime.PYTHON_3_13
ARCHITECTURE = lambda_.Architecture.ARM_64
SERVICE_NAME = "hookline"
# CloudWatch namespace of the functions' EMF metrics (Powertools Metrics); infra/monitoring.py graphs and alarms on it.
METRICS_NAMESPACE = "hookline"
# Functions with a fixed physical name, `<prefix>-<name>`: operators invoke the jobs function by name
# (`aws lambda invoke`, the DLQ drain). The others keep generated names, so replacing one never collides.
NAMED_FUNCTIONS = frozenset({JOBS.name})
# What hookline's code calls on the table (adapters/dynamo), and the key actions CDK's table grants pair with them.
TABLE_READ_ACTIONS = ("dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query")
TABLE_WRITE_ACTIONS = ("dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem")
KEY_READ_ACTIONS = ("kms:Decrypt", "kms:DescribeKey")
KEY_WRITE_ACTIONS = ("kms:Encrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*")
# Bytecode caches appear once tests import the functions' folders; keep them out of those assets' hashes. The layers
# ship bytecode of their own, compiled without mtimes (infra/layers.py, `make deps-layer`), and exclude nothing.
ASSET_EXCLUDES = ["**/__pycache__", "**/*.pyc"]

# Settings the stack consumes itself rather than passing on (reserved concurrency and batch
# size are named by the topology's *_setting fields; the cache TTL configures the authorizer;
# the oldest-message age is an alarm threshold, see infra/monitoring.py; the deploy strategy
# says how new versions go live, see infra/deploys.py, and must not change the functions,
# or switching it would publish a new version of each; tracing sets each function's tracing mode and
# POWERTOOLS_TRACE_DISABLED, see `Functions.traced`).
STACK_SETTINGS = frozenset(
    {
        "authorizer_cache_seconds",
        "oldest_message_alarm_seconds",
        "deploy_strategy",
        "stack_name",
        "size",
        "account_concurrency_quota",
        "table_deletion_protection",
        "api_throttle_rate",
        "api_throttle_burst",
        "alarm_email",
        "alarm_https_endpoint",
        "notification_identity_arn",
        "tracing",
    }
)
# Local mode only: the local runner's ports and seeded API keys mean nothing in the cloud.
LOCAL_ONLY_SETTINGS = frozenset({"api_keys", "port", "aws_port"})
# The SSRF guard is never relaxed in the cloud, whatever the synth machine's environment says.
# No destination may be in the stack's own account: the functions are told which that is.
CLOUD_FORCED_SETTINGS: dict[str, str] = {"allow_private_networks": "", "own_account_id": Aws.ACCOUNT_ID}


def _stack_settings() -> frozenset[str]:
    named = (
        {spec.reserved_concurrency_setting for spec in FUNCTIONS}
        | {spec.memory_setting for spec in FUNCTIONS}
        | {
            name
            for spec in FUNCTIONS
            if spec.sqs_source
            for name in (spec.sqs_source.batch_size_setting, spec.sqs_source.max_pollers_setting, spec.sqs_source.batching_window_setting)
        }
    )
    return STACK_SETTINGS | {name for name in named if name}


def behaviour_settings() -> tuple[str, ...]:
    """Every setting that shapes what the functions do: all of them but resources, stack and local-only ones.

    A setting added to `Settings` reaches the functions unless it is put in one of those groups.
    """
    excluded = _stack_settings() | LOCAL_ONLY_SETTINGS
    return tuple(f.name for f in fields(Settings) if f.name not in excluded and not is_resource_setting(f.name))


def settings_env(settings: Settings) -> dict[str, str]:
    """The behaviour settings as the environment variables `Settings.from_env()` reads back."""
    env_names = {f.name: str(f.metadata["env"]) for f in fields(Settings)}
    # Whether the sweep runs the job queue follows from the size (infra.sizing): set otherwise, jobs would run twice over
    # or, at `small`, never.
    forced = {**CLOUD_FORCED_SETTINGS, "sweep_runs_jobs": sizing.sweep_runs_jobs(settings)}
    env: dict[str, str] = {}
    for name in behaviour_settings():
        value = forced.get(name, getattr(settings, name))
        env[env_names[name]] = _env_value(value)
    return env


def _env_name(setting: str | None) -> str | None:
    """The environment variable of a Settings field, as an operator sets it."""
    return None if setting is None else next(str(f.metadata["env"]) for f in fields(Settings) if f.name == setting)


def _env_value(value: Any) -> str:
    if isinstance(value, tuple):
        return ",".join(str(item) for item in value)
    return str(value)


class Functions(Construct):
    """All functions share two layers; each has its own role, log group and least-privilege grants.

    Each function is published as a version behind its `live` alias (infra.deploy_names.LIVE_ALIAS), and
    everything that invokes it (its SQS event source here, the API and the authorizer in infra/api.py)
    invokes the alias, never $LATEST: a deploy goes live when the alias moves (infra/deploys.py).
    Versions are retained when replaced, so `make rollback` can point the alias back at the one before.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        prefix: str,
        settings: Settings,
        storage: Storage,
        queues: Queues,
        state_machines: StateMachines,
        topics: Topics,
    ) -> None:
        super().__init__(scope, construct_id)
        self._prefix = prefix
        self._settings = settings
        self._storage = storage
        self._queues = queues
        self._state_machines = state_machines
        self._topics = topics
        self.hookline_layer = lambda_.LayerVersion(
            self,
            "HooklineLayer",
            code=lambda_.Code.from_asset(str(compiled_layer(HOOKLINE_LAYER_DIR, BUILD_DIR / "layers", RUNTIME.name))),
            compatible_runtimes=[RUNTIME],
            compatible_architectures=[ARCHITECTURE],
            description="hookline shared package (layers/hookline)",
        )
        self.deps_layer = lambda_.LayerVersion(
            self,
            "DepsLayer",
            code=lambda_.Code.from_asset(str(DEPS_LAYER_DIR)),
            compatible_runtimes=[RUNTIME],
            compatible_architectures=[ARCHITECTURE],
            description="Third-party dependencies: aws-lambda-powertools, requests, jsonschema (make deps-layer)",
        )
        self.functions: dict[str, lambda_.Function] = {}
        self.aliases: dict[str, lambda_.Alias] = {}
        self.roles: dict[str, iam.Role] = {}
        self.log_groups: dict[str, logs.LogGroup] = {}
        for spec in FUNCTIONS:
            self.functions[spec.name] = self._function(spec)
        # The roles that deliver into customers' destinations: what the role template the API serves trusts.
        senders = [spec for spec in FUNCTIONS if any(g.access == "deliver" for g in spec.grants)]
        delivery_roles = Fn.join(",", [self.roles[spec.name].role_arn for spec in senders])
        for spec in senders:
            self.functions[spec.name].add_environment("HOOKLINE_DELIVERY_ROLE_ARNS", delivery_roles)

    @property
    def traced(self) -> bool:
        """HOOKLINE_TRACING: on, every function has active X-Ray tracing (CDK grants its role xray:PutTraceSegments and
        PutTelemetryRecords on '*') and Powertools traces; off, Tracing.DISABLED (no TracingConfig: Lambda's default,
        PassThrough, which traces only a request an upstream service sampled, and none of the functions' invokers
        samples) and no X-Ray grant, and POWERTOOLS_TRACE_DISABLED=true, so no Tracer is made nor X-Ray imported
        (hookline.core.tracing)."""
        return bool(self._settings.tracing)

    def function(self, spec: FunctionSpec) -> lambda_.Function:
        return self.functions[spec.name]

    def alias(self, spec: FunctionSpec) -> lambda_.Alias:
        """The function's `live` alias: what its invokers call."""
        return self.aliases[spec.name]

    def physical_name(self, spec: FunctionSpec) -> str | None:
        """`<prefix>-<name>` for the functions operators call by name; None lets CloudFormation name the others."""
        return f"{self._prefix}-{spec.name}" if spec.name in NAMED_FUNCTIONS else None

    def _function(self, spec: FunctionSpec) -> lambda_.Function:
        name = construct_name(spec.name)
        log_group = logs.LogGroup(self, f"{name}Logs", retention=LOG_RETENTION, encryption_key=self._storage.key, removal_policy=KEEP)
        role = iam.Role(
            self,
            f"{name}Role",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"hookline {spec.name} function",
        )
        # Instead of AWSLambdaBasicExecutionRole: write to this function's log group only.
        log_group.grant_write(role)
        sized = sizing.concurrency(spec, self._settings)
        fn = lambda_.Function(
            self,
            f"{name}Function",
            function_name=self.physical_name(spec),
            description=f"hookline {spec.name}",
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            # source_dir, not name: the retry function deploys the delivery code a second time.
            code=lambda_.Code.from_asset(str(FUNCTIONS_DIR / spec.source_dir), exclude=ASSET_EXCLUDES),
            handler=spec.handler,
            timeout=Duration.seconds(spec.timeout_seconds),
            memory_size=spec.memory(self._settings),
            role=role,
            log_group=log_group,
            layers=[self.hookline_layer, self.deps_layer],
            tracing=lambda_.Tracing.ACTIVE if self.traced else lambda_.Tracing.DISABLED,
            reserved_concurrent_executions=sized.reserved,
            environment=self._environment(spec),
            # A deploy that changes the function publishes a new version; the one before stays (CloudFormation
            # would otherwise delete it once the update is done), so `make rollback` can put it back in service.
            current_version_options=lambda_.VersionOptions(removal_policy=RemovalPolicy.RETAIN),
        )
        # cfn-lint W3005 (redundant DependsOn): lambda.Function makes its resource depend on the whole
        # role construct, so that it waits for the role's DefaultPolicy; the DependsOn entry for the Role
        # itself repeats the Role GetAtt. Harmless, and CDK has no switch to drop it, so this resource
        # alone ignores W3005.
        cfn_function = fn.node.default_child
        if isinstance(cfn_function, CfnResource):
            cfn_function.add_metadata("cfn-lint", {"config": {"ignore_checks": ["W3005"]}})
        for grant in spec.grants:
            self._grant(fn, spec, grant)
        # `make rollback` finds the stack's functions by these (their generated names say neither).
        Tags.of(fn).add(STACK_TAG, self._prefix, include_resource_types=["AWS::Lambda::Function"])
        Tags.of(fn).add(FUNCTION_TAG, spec.name, include_resource_types=["AWS::Lambda::Function"])
        # current_version: a new version whenever the code, a layer or the configuration changes.
        alias = lambda_.Alias(
            self,
            f"{name}LiveAlias",
            alias_name=LIVE_ALIAS,
            version=fn.current_version,
            description=f"hookline {spec.name}: the version in service",
        )
        self.aliases[spec.name] = alias
        if spec.sqs_source is not None and sized.source:
            source = spec.sqs_source
            window = source.batching_window(self._settings)
            check_consumer(source.queue, spec, window, _env_name(source.batching_window_setting))
            alias.add_event_source(
                event_sources.SqsEventSource(
                    self._queues.queue(source.queue),
                    batch_size=int(getattr(self._settings, source.batch_size_setting)),
                    max_batching_window=Duration.seconds(window) if window else None,
                    max_concurrency=sized.pollers,
                    report_batch_item_failures=True,
                )
            )
        self.roles[spec.name] = role
        self.log_groups[spec.name] = log_group
        return fn

    def _environment(self, spec: FunctionSpec) -> dict[str, str]:
        env = {
            "POWERTOOLS_SERVICE_NAME": SERVICE_NAME,
            "POWERTOOLS_METRICS_NAMESPACE": METRICS_NAMESPACE,
            **tracing.function_env(self.traced),
            **settings_env(self._settings),
        }
        for resource in spec.env_resources:
            if isinstance(resource, TableSpec):
                env[resource.env] = self._storage.table(resource).table_name
            elif isinstance(resource, StateMachineSpec):
                env[resource.env] = self._state_machines.state_machine(resource).state_machine_arn
            elif isinstance(resource, TopicSpec):
                env[resource.env] = self._topics.topic(resource).topic_arn
            elif isinstance(resource, KeySpec):
                env[resource.env] = self._storage.key.key_arn
            elif isinstance(resource, QueueSpec):
                env[resource.env] = self._queues.queue(resource).queue_url
        env.update(spec.extra_env)
        return env

    def _grant(self, fn: lambda_.Function, spec: FunctionSpec, grant: Grant) -> None:
        resource, access = grant.resource, grant.access
        if isinstance(resource, TableSpec) and access in ("read", "read_write"):
            self._grant_table(fn, resource, writes=access == "read_write")
        elif isinstance(resource, QueueSpec) and access == "send":
            self._queues.queue(resource).grant_send_messages(fn)
        elif isinstance(resource, QueueSpec) and access in ("receive", "consume"):
            self._grant_receive(fn, spec, resource, by_hand=access == "receive")
        elif isinstance(resource, StateMachineSpec) and access == "start":
            # states:StartExecution on this state machine only.
            self._state_machines.state_machine(resource).grant_start_execution(fn)
        elif isinstance(resource, TopicSpec) and access == "publish":
            # sns:Publish on this topic only, plus kms:GenerateDataKey*/kms:Decrypt on its key (SSE).
            self._topics.topic(resource).grant_publish(fn)
        elif isinstance(resource, KeySpec) and access == "seal":
            fn.add_to_role_policy(seal_statement(self._storage.key.key_arn))
        elif isinstance(resource, CustomerDestinationsSpec) and access == "deliver":
            for statement in destination_statements(resource, Stack.of(self)):
                fn.add_to_role_policy(statement)
        elif isinstance(resource, EmailIdentitySpec) and access == "send_email":
            # ses:SendEmail (what SES v2's SendEmail checks) on the sender's identities; no sender set, no SES permission at all.
            arns = email_identity_arns(self._settings, resource, Stack.of(self))
            if arns:
                fn.add_to_role_policy(iam.PolicyStatement(actions=["ses:SendEmail"], resources=arns))
        else:
            raise TopologyError(f"function {spec.name!r}: unsupported grant {access!r} on {resource.key!r}")

    def _grant_receive(self, fn: lambda_.Function, spec: FunctionSpec, queue: QueueSpec, *, by_hand: bool) -> None:
        """`receive`: messages taken off the queue by hand (the DLQ drain): sqs:ReceiveMessage, DeleteMessage,
        ChangeMessageVisibility, GetQueueAttributes and GetQueueUrl on this queue only. No event source: the function is
        invoked directly and receives at its own pace. (SQS-managed SSE needs no KMS grant.)
        `consume`: the SqsEventSource grants those permissions on exactly this queue; at a size that gives the function
        no source (the jobs function at `small`: its sweep runs the jobs), it receives them by hand as well."""
        if not by_hand and (spec.sqs_source is None or spec.sqs_source.queue != queue):
            raise TopologyError(f"function {spec.name!r} consumes {queue.key!r} without an sqs_source for it")
        if by_hand or not sizing.concurrency(spec, self._settings).source:
            self._queues.queue(queue).grant_consume_messages(fn)

    def _grant_table(self, fn: lambda_.Function, spec: TableSpec, *, writes: bool) -> None:
        """The item operations hookline's code calls, on the table and its indexes, and the key's use for them.

        Not Table.grant_read_data / grant_read_write_data: those add Scan, the stream actions, ConditionCheckItem
        and DescribeTable, which no code path calls (reads are GetItem, BatchGetItem and Query; writes PutItem,
        UpdateItem, DeleteItem and BatchWriteItem). A TransactWriteItems (an endpoint's create or delete with its
        owner's count, a customer's delete) is authorized action by action as those, and holds no ConditionCheck,
        the one kind that would need ConditionCheckItem.
        """
        table = self._storage.table(spec)
        table.grant(fn, *(TABLE_READ_ACTIONS + (TABLE_WRITE_ACTIONS if writes else ())))
        # The table is encrypted with the stack's key: reads decrypt with it, writes encrypt (the actions CDK's own
        # table grants give the key).
        self._storage.key.grant(fn, *(KEY_READ_ACTIONS + (KEY_WRITE_ACTIONS if writes else ())))


# The encryption context every sealed secret carries (hookline.core.auth.seal_context): an endpoint id.
SEAL_CONTEXT_CONDITION = {"StringLike": {"kms:EncryptionContext:endpoint": "ep_*"}}


def seal_statement(key_arn: str) -> iam.PolicyStatement:
    """Sealing and opening an endpoint's `auth` secrets (and its OAuth2 token) with the stack's key: a data key made
    (kms:GenerateDataKey) and one opened (kms:Decrypt), each only under an endpoint's encryption context."""
    return iam.PolicyStatement(
        sid="SealEndpointSecrets",
        actions=["kms:GenerateDataKey", "kms:Decrypt"],
        resources=[key_arn],
        conditions=SEAL_CONTEXT_CONDITION,
    )


def destination_statements(spec: CustomerDestinationsSpec, stack: Stack) -> list[iam.PolicyStatement]:
    """A customer's destination is in the customer's account, named only at run time. The one way in is to assume the
    customer's role (named with the prefix, trusting this role only with the endpoint's external id), outside the
    stack's own account (`aws:ResourceAccount`). This role may put into no destination itself: a destination whose
    resource policy granted it could be named by any tenant or customer of the stack (hookline.core.destinations)."""
    return [
        iam.PolicyStatement(
            sid="AssumeCustomerDestinationRoles",
            actions=["sts:AssumeRole"],
            resources=[f"arn:{stack.partition}:iam::*:role/{spec.role_name_prefix}*"],
            conditions={"StringNotEquals": {"aws:ResourceAccount": stack.account}},
        ),
    ]


def email_identity_arns(settings: Settings, spec: EmailIdentitySpec, stack: Stack) -> list[str]:
    """The SES identities a send from the configured sender is authorized against.

    SES checks the identity that verified the sender: the address itself, or (the usual production set-up) its
    domain. Both are granted, the address as parsed from the setting (`Name <address>` names `address`), or the one
    ARN HOOKLINE_NOTIFICATION_IDENTITY_ARN names. Empty: no sender, no grant. The settings refused a sender that does
    not parse (hookline.core.mailbox), so synth stops there.
    """
    sender = str(getattr(settings, spec.setting)).strip()
    if not sender:
        return []
    if settings.notification_identity_arn:
        return [settings.notification_identity_arn]
    mailbox = parse_mailbox(sender)
    return [stack.format_arn(service="ses", resource="identity", resource_name=identity) for identity in (mailbox.address, mailbox.domain)]
