"""Observability: the "hookline" CloudWatch dashboard and the alarms, built from `hookline.wiring.topology`.

Queues and functions come from topology.QUEUES and topology.FUNCTIONS, so a queue or a
function added to the topology is graphed and alarmed on without touching this file.
The delivery metrics are the functions' EMF metrics (Powertools Metrics, namespace
`hookline`, with the dimension `service`=POWERTOOLS_SERVICE_NAME that Powertools adds).

Every alarm here notifies the notifications topic when it goes into ALARM and when it is OK again, but
the not-empty alarms of the DLQs customers' exhausted deliveries fill (the delivery and ordered DLQs), which
only graph it on the dashboard and say when the queue is OK again: a receiver out of retries is no page.
The canary alarms, which roll a deploy back, are infra/deploys.py's. That topic is encrypted with the stack's
KMS key and its policy is replaced by the stack's (TLS only), so CloudWatch is allowed,
for this stack's alarms only, to publish to it and to use the key for that.
"""

from __future__ import annotations

from dataclasses import dataclass

from aws_cdk import ArnFormat, Duration, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sns as sns
from constructs import Construct

from hookline.core.settings import MAX_TABLE_CAPACITY, Settings
from hookline.wiring.topology import DELAYED_QUEUES, FUNCTIONS, HELD_QUEUES, QUEUES, STATE_MACHINES, Grant, QueueSpec
from infra import construct_name, sizing
from infra.api import Api
from infra.functions import METRICS_NAMESPACE, SERVICE_NAME, Functions
from infra.queues import Queues
from infra.statemachines import StateMachines

# The EMF metrics the functions emit (see hookline's delivery code).
ATTEMPTS = "Attempts"  # Count, dimensions service + outcome
ATTEMPT_OUTCOMES = ("succeeded", "failed", "retrying")
RESPONSE_TIME = "ResponseTime"  # Milliseconds
BREAKER_OPENED = "BreakerOpened"  # Count
DEAD_LETTERED = "DeadLettered"  # Count
FIRST_ATTEMPT_SUCCESS = "FirstAttemptSuccess"  # Count
# A task about to be dead-lettered because of hookline itself (a poison message, or a record that failed with an
# exception or a dependency failure on its last receive): what rolls a consumer's canary back. A receiver's
# exhausted retries never count.
INTERNAL_FAILURES = "InternalFailures"  # Count
EMAIL_FAILED = "EmailFailed"  # Count: a customer email SES refused
LEASES_NOT_GIVEN_BACK = "LeasesNotGivenBack"  # Count: a batch's leases on an endpoint left to expire (the give-back failed)
OVERDUE_RETRIES_REQUEUED = "OverdueRetriesRequeued"  # Count: the sweeper re-queued a retry whose long wait never queued it
UNQUEUED_FOUND = "UnqueuedFound"  # Count
# The API's access-log metric filter: requests answered 429 (the stage's throttle).
API_THROTTLED = "ApiThrottled"  # Count
RESPONSE_TIME_PERCENTILES = ("p50", "p95", "p99")

PERIOD = Duration.minutes(5)
# BreakerOpened sum over one PERIOD at or above this: many endpoints failing at once, likely on our side.
BREAKER_SPIKE_THRESHOLD = 5
# The API's 5xx alarm: more than this share of its requests in a PERIOD, once at least API_5XX_LEAST of them
# failed (one 503 in a quiet period is a blip, not an incident).
API_5XX_PERCENT = 1
API_5XX_LEAST = 5

CLOUDWATCH = iam.ServicePrincipal("cloudwatch.amazonaws.com")


def dead_letter_queues() -> tuple[QueueSpec, ...]:
    """Every queue that is some queue's dead-letter queue, in topology order."""
    targets = {q.dead_letter.key for q in QUEUES if q.dead_letter is not None}
    return tuple(q for q in QUEUES if q.key in targets)


def internal_dead_letter_queues() -> tuple[QueueSpec, ...]:
    """Dead-letter queues only hookline's own failures fill: no function sends to them, only a redrive policy moves
    messages there (after 5 failed receives). The delivery DLQ is not one: the worker sends a customer's exhausted
    deliveries there by design, and the retry-wait state machine a task it could not queue."""
    sent_to = {g.resource.key for spec in FUNCTIONS for g in spec.grants if g.access == "send" and isinstance(g.resource, QueueSpec)}
    sent_to |= {machine.dead_letter.key for machine in STATE_MACHINES}
    return tuple(q for q in dead_letter_queues() if q.key not in sent_to)


def customer_dead_letter_queues() -> tuple[QueueSpec, ...]:
    """Dead-letter queues that hold customers' deliveries given up on (a receiver out of retries, by design): their
    not-empty alarms page no one. hookline's own failures among those letters have alarms of their own that do
    (internal-failures, retry-wait-failed)."""
    internal = {q.key for q in internal_dead_letter_queues()}
    return tuple(q for q in dead_letter_queues() if q.key not in internal)


def source_queues() -> tuple[QueueSpec, ...]:
    """Every queue that is not a dead-letter queue: work waits on these, so their oldest message must stay young."""
    dead = {q.key for q in dead_letter_queues()}
    return tuple(q for q in QUEUES if q.key not in dead)


@dataclass(frozen=True)
class AlarmSet:
    """The alarms by what they watch, for tests and for the dashboard's status widget."""

    dead_letters: dict[str, cloudwatch.Alarm]  # queue key -> ApproximateNumberOfMessagesVisible > 0 (a customers' DLQ's pages no one)
    oldest_message: dict[str, cloudwatch.Alarm]  # queue key -> ApproximateAgeOfOldestMessage > setting
    errors: dict[str, cloudwatch.Alarm]  # function name -> Errors > 0
    throttles: dict[str, cloudwatch.Alarm]  # function name -> Throttles > 0
    breaker_spike: cloudwatch.Alarm
    unqueued_found: cloudwatch.Alarm  # the sweeper queued events that were stored and never queued
    internal_failures: cloudwatch.Alarm  # a task dead-lettered through hookline's own fault, any function, any version
    email_failed: cloudwatch.Alarm  # SES refused a customer email
    leases_not_given_back: cloudwatch.Alarm  # a batch's give-back failed: its leases hold the endpoint's slots until they expire
    overdue_retries: cloudwatch.Alarm  # the sweeper re-queued retries whose long wait never queued them
    api_server_errors: cloudwatch.Alarm  # the API answered 5xx to more than API_5XX_PERCENT of its requests
    api_throttled: cloudwatch.Alarm  # the API's stage throttle answered 429
    table_throttled: cloudwatch.Alarm  # DynamoDB throttled reads or writes of the data table (docs/scaling.md)
    long_waits: dict[str, cloudwatch.Alarm]  # "<state machine>-<failed|timed-out|throttled|aborted>" -> executions > 0

    def all(self) -> list[cloudwatch.Alarm]:
        return [
            *self.dead_letters.values(),
            *self.oldest_message.values(),
            *self.errors.values(),
            *self.throttles.values(),
            self.breaker_spike,
            self.unqueued_found,
            self.internal_failures,
            self.email_failed,
            self.leases_not_given_back,
            self.overdue_retries,
            self.api_server_errors,
            self.api_throttled,
            self.table_throttled,
            *self.long_waits.values(),
        ]


def emf_metric(name: str, *, statistic: str = "Sum", label: str | None = None, **dimensions: str) -> cloudwatch.Metric:
    """One of the functions' EMF metrics, with the `service` dimension Powertools adds to every metric."""
    return cloudwatch.Metric(
        namespace=METRICS_NAMESPACE,
        metric_name=name,
        dimensions_map={"service": SERVICE_NAME, **dimensions},
        statistic=statistic,
        period=PERIOD,
        label=label,
    )


class Monitoring(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        prefix: str,
        settings: Settings,
        queues: Queues,
        functions: Functions,
        state_machines: StateMachines,
        api: Api,
        table: dynamodb.ITable,
        topic: sns.Topic,
        key: kms.Key,
    ) -> None:
        super().__init__(scope, construct_id)
        self._table = table
        self._prefix = prefix
        self._settings = settings
        self._queues = queues
        self._functions = functions
        self._state_machines = state_machines
        self._api = api
        self._action = actions.SnsAction(topic)
        self._allow_alarms_to_notify(topic, key)
        self.alarms = AlarmSet(
            dead_letters={q.key: self._dead_letter_alarm(q) for q in dead_letter_queues()},
            oldest_message={q.key: self._oldest_message_alarm(q) for q in source_queues() if q not in HELD_QUEUES},
            errors={spec.name: self._function_alarm(spec.name, "errors") for spec in FUNCTIONS},
            throttles={spec.name: self._function_alarm(spec.name, "throttles") for spec in FUNCTIONS},
            breaker_spike=self._breaker_spike_alarm(),
            unqueued_found=self._alarm(
                "UnqueuedFoundAlarm",
                name="unqueued-found",
                description="The sweeper found events that were stored but never queued, and queued them: a request failed after storing "
                "(SQS refused, or the api function died) and its producer did not repeat it. Their deliveries are under way now; "
                "look at the api function's errors around then.",
                metric=emf_metric(UNQUEUED_FOUND),
                threshold=0,
                comparison=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
                missing=cloudwatch.TreatMissingData.NOT_BREACHING,
            ),
            internal_failures=self._count_alarm(
                "InternalFailuresAlarm",
                name="internal-failures",
                metric=INTERNAL_FAILURES,
                description="A task is being dead-lettered because of hookline itself, not a receiver: a poison message, or a task whose "
                "processing failed (an exception, a dependency failure) on its last receive. The delivery, retry, ordered and jobs functions' "
                "ERROR lines say which.",
            ),
            email_failed=self._count_alarm(
                "EmailFailedAlarm",
                name="email-failed",
                metric=EMAIL_FAILED,
                description="SES refused a customer email (an endpoint disabled or recovered): the sender identity is not verified, the "
                "account is in the SES sandbox, or the grant does not cover the identity. The endpoint's health shows the last "
                "email's failure; make preflight checks the identity.",
            ),
            leases_not_given_back=self._count_alarm(
                "LeasesNotGivenBackAlarm",
                name="leases-not-given-back",
                metric=LEASES_NOT_GIVEN_BACK,
                description="A delivery batch could not give its concurrency leases on an endpoint back: the write raised (a DynamoDB "
                "error, or a fault in hookline's limiter rules) or lost the race to other batches on every try. The leases expire on "
                "their own, and until then the endpoint has fewer requests in flight than it may. The delivery and retry functions' "
                "'leases not given back' lines name the endpoint and the cause; many at once after a deploy point at the new version.",
            ),
            overdue_retries=self._count_alarm(
                "OverdueRetriesAlarm",
                name="overdue-retries-requeued",
                metric=OVERDUE_RETRIES_REQUEUED,
                description="The sweeper found retries whose long wait (the retry-wait state machine) never queued them, past due, and "
                "queued them itself: nothing is lost. Look at the state machine's failed, aborted or throttled executions around then.",
            ),
            api_server_errors=self._api_server_errors_alarm(),
            api_throttled=self._api_throttled_alarm(),
            table_throttled=self._table_throttled_alarm(),
            long_waits=self._long_wait_alarms(),
        )
        self.dashboard = self._dashboard()

    # -- names ---------------------------------------------------------------

    def alarm_name(self, what: str) -> str:
        """`<prefix>-<what>`: every alarm name starts with the prefix, which the key and topic policies match on."""
        return f"{self._prefix}-{what}"

    def _alarm_arn_pattern(self) -> str:
        return Stack.of(self).format_arn(service="cloudwatch", resource="alarm", resource_name=self.alarm_name("*"), arn_format=ArnFormat.COLON_RESOURCE_NAME)

    # -- permissions ---------------------------------------------------------

    def _allow_alarms_to_notify(self, topic: sns.Topic, key: kms.Key) -> None:
        """CloudWatch publishes alarm notifications as its service principal, which needs both resource policies.

        The topic's policy is the stack's own (TLS only), which replaces SNS's default policy, so it must allow
        cloudwatch.amazonaws.com to publish; and the topic is encrypted with the stack's key, so the key policy must
        let CloudWatch generate a data key for it. Both are scoped to this account's alarms named `<prefix>-*`.
        """
        conditions = {
            "StringEquals": {"aws:SourceAccount": Stack.of(self).account},
            "ArnLike": {"aws:SourceArn": self._alarm_arn_pattern()},
        }
        topic.add_to_resource_policy(
            iam.PolicyStatement(
                sid="AllowCloudWatchAlarmsToPublish",
                principals=[CLOUDWATCH],
                actions=["sns:Publish"],
                resources=[topic.topic_arn],
                conditions=conditions,
            )
        )
        key.add_to_resource_policy(
            iam.PolicyStatement(
                sid="AllowCloudWatchAlarmsToUseTheKeyForTheEncryptedTopic",
                principals=[CLOUDWATCH],
                actions=["kms:Decrypt", "kms:GenerateDataKey*"],
                resources=["*"],  # in a key policy, "*" is this key
                conditions=conditions,
            )
        )

    # -- alarms --------------------------------------------------------------

    def _alarm(
        self,
        construct_id: str,
        *,
        name: str,
        description: str,
        metric: cloudwatch.IMetric,
        threshold: float,
        comparison: cloudwatch.ComparisonOperator,
        missing: cloudwatch.TreatMissingData,
        page: bool = True,
    ) -> cloudwatch.Alarm:
        """One alarm over one period, notifying the notifications topic when it is OK again, and when it goes into
        ALARM if it pages."""
        alarm = cloudwatch.Alarm(
            self,
            construct_id,
            alarm_name=self.alarm_name(name),
            alarm_description=description,
            metric=metric,
            threshold=threshold,
            comparison_operator=comparison,
            evaluation_periods=1,
            treat_missing_data=missing,
        )
        if page:
            alarm.add_alarm_action(self._action)
        alarm.add_ok_action(self._action)
        return alarm

    def _dead_letter_description(self, spec: QueueSpec) -> str:
        sources = ", ".join(q.physical_name(self._prefix) for q in QUEUES if q.dead_letter == spec)
        text = f"{spec.physical_name(self._prefix)} holds messages that hookline gave up on or could not process (from {sources})."
        drainers = [f for f in FUNCTIONS if Grant(spec, "receive") in f.grants]
        for drainer in drainers:
            name = self._functions.physical_name(drainer) or drainer.name
            text += f" Find the cause, then drain it with the {name} function (aws lambda invoke)."
        return text

    def _dead_letter_alarm(self, spec: QueueSpec) -> cloudwatch.Alarm:
        queue = self._queues.queue(spec)
        return self._alarm(
            f"{construct_name(spec.key)}NotEmptyAlarm",
            name=f"{spec.key}-not-empty",
            description=self._dead_letter_description(spec),
            metric=queue.metric_approximate_number_of_messages_visible(period=PERIOD, statistic="Maximum"),
            threshold=0,
            comparison=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            # SQS stops reporting a queue that has been idle for six hours. Missing data keeps the current
            # state: an idle empty DLQ stays OK, and a DLQ left holding messages does not drift back to OK.
            missing=cloudwatch.TreatMissingData.IGNORE,
            page=spec not in customer_dead_letter_queues(),
        )

    def _oldest_message_alarm(self, spec: QueueSpec) -> cloudwatch.Alarm:
        queue = self._queues.queue(spec)
        seconds = self._settings.oldest_message_alarm_seconds
        if spec in DELAYED_QUEUES:
            # Delayed messages age while they wait; only waiting beyond the delay means trouble.
            seconds += self._settings.sqs_max_delay_seconds
        return self._alarm(
            f"{construct_name(spec.key)}OldestMessageAlarm",
            name=f"{spec.key}-oldest-message",
            description=f"A message has waited on {spec.physical_name(self._prefix)} for more than {seconds} s: its consumer is stuck, throttled or too slow.",
            metric=queue.metric_approximate_age_of_oldest_message(period=PERIOD, statistic="Maximum"),
            threshold=seconds,
            comparison=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            # No data: an idle, empty queue, which has no old message.
            missing=cloudwatch.TreatMissingData.NOT_BREACHING,
        )

    def _function_alarm(self, name: str, what: str) -> cloudwatch.Alarm:
        fn = self._functions.functions[name]
        metric = fn.metric_errors(period=PERIOD, statistic="Sum") if what == "errors" else fn.metric_throttles(period=PERIOD, statistic="Sum")
        return self._alarm(
            f"{construct_name(name)}{what.capitalize()}Alarm",
            name=f"{name}-{what}",
            description=f"The hookline {name} function reported {what} (Lambda {metric.metric_name}).",
            metric=metric,
            threshold=0,
            comparison=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            # No data: no invocation in the period, hence no error and no throttle.
            missing=cloudwatch.TreatMissingData.NOT_BREACHING,
        )

    def _count_alarm(self, construct_id: str, *, name: str, metric: str, description: str) -> cloudwatch.Alarm:
        """Any of one of the functions' EMF counts in a PERIOD; the metric is emitted only when it happens."""
        return self._alarm(
            construct_id,
            name=name,
            description=description,
            metric=emf_metric(metric),
            threshold=0,
            comparison=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            missing=cloudwatch.TreatMissingData.NOT_BREACHING,
        )

    def _api_server_errors_alarm(self) -> cloudwatch.Alarm:
        api = self._api.http_api
        return self._alarm(
            "ApiServerErrorsAlarm",
            name="api-5xx",
            description=f"The API answered 5xx to more than {API_5XX_PERCENT} % of its requests within {PERIOD.to_minutes()} minutes "
            f"(and to {API_5XX_LEAST} or more): the api or authorizer function failing, or a dependency (DynamoDB, SQS) refusing it. "
            "The api function's log names the cause (a 503 names the AWS error code); a canary of the api function rolls back on it.",
            metric=cloudwatch.MathExpression(
                expression=f"IF(failed >= {API_5XX_LEAST}, 100 * failed / requests, 0)",
                using_metrics={
                    "failed": api.metric_server_error(period=PERIOD, statistic="Sum"),
                    "requests": api.metric_count(period=PERIOD, statistic="Sum"),
                },
                period=PERIOD,
                label="5xx (%)",
            ),
            threshold=API_5XX_PERCENT,
            comparison=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            missing=cloudwatch.TreatMissingData.NOT_BREACHING,
        )

    def _api_throttled_alarm(self) -> cloudwatch.Alarm:
        """HTTP APIs publish no throttle metric: a metric filter counts the access-log lines answered 429."""
        logs.MetricFilter(
            self,
            "ApiThrottledFilter",
            log_group=self._api.access_logs,
            metric_namespace=METRICS_NAMESPACE,
            metric_name=API_THROTTLED,
            filter_pattern=logs.FilterPattern.string_value("$.status", "=", "429"),
            metric_value="1",
        )
        return self._alarm(
            "ApiThrottledAlarm",
            name="api-throttled",
            description=f"The API answered 429: its stage throttle (HOOKLINE_API_THROTTLE_RATE={self._settings.api_throttle_rate}/s, "
            f"burst {self._settings.api_throttle_burst}) refused producers' requests. Raise the settings, or the producer is sending "
            "faster than agreed.",
            metric=cloudwatch.Metric(namespace=METRICS_NAMESPACE, metric_name=API_THROTTLED, statistic="Sum", period=PERIOD),
            threshold=0,
            comparison=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            missing=cloudwatch.TreatMissingData.NOT_BREACHING,
        )

    def _throttle_events(self) -> cloudwatch.MathExpression:
        """The data table's throttled reads and writes per PERIOD (a throttled index write counts on the table too)."""
        return cloudwatch.MathExpression(
            expression="FILL(r, 0) + FILL(w, 0)",
            using_metrics={
                "r": self._table.metric("ReadThrottleEvents", period=PERIOD, statistic="Sum"),
                "w": self._table.metric("WriteThrottleEvents", period=PERIOD, statistic="Sum"),
            },
            label="throttled reads and writes",
            period=PERIOD,
        )

    def _table_throttled_alarm(self) -> cloudwatch.Alarm:
        """The table hit a throughput quota or a hot partition: a throttled write fails its attempt for now and the task is
        received again (nothing is lost), but deliveries slow down; docs/scaling.md says which quota to raise."""
        return self._alarm(
            "TableThrottledAlarm",
            name="table-throttled",
            description=(
                "DynamoDB throttled reads or writes of the data table: its table-level throughput quota, a provisioned maximum, "
                "a new on-demand table not yet warm, or one partition past 1,000 writes a second. Deliveries slow down and are "
                "retried; nothing is lost. docs/scaling.md: raising the quotas."
            ),
            metric=self._throttle_events(),
            threshold=0,
            comparison=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            missing=cloudwatch.TreatMissingData.NOT_BREACHING,
        )

    def _long_wait_alarms(self) -> dict[str, cloudwatch.Alarm]:
        """A long retry wait that failed, timed out, was throttled or stopped: its retry was not queued by it (the
        Catch dead-letters a failed send; the sweeper re-queues what is overdue)."""
        alarms: dict[str, cloudwatch.Alarm] = {}
        for spec in STATE_MACHINES:
            machine = self._state_machines.state_machine(spec)
            metrics = {
                "failed": machine.metric_failed(period=PERIOD, statistic="Sum"),
                "timed-out": machine.metric_timed_out(period=PERIOD, statistic="Sum"),
                "throttled": machine.metric_throttled(period=PERIOD, statistic="Sum"),
                "aborted": machine.metric_aborted(period=PERIOD, statistic="Sum"),
            }
            for what, metric in metrics.items():
                key = f"{spec.key}-{what}"
                alarms[key] = self._alarm(
                    f"{construct_name(key)}Alarm",
                    name=key,
                    description=f"Executions of {spec.physical_name(self._prefix)} {what.replace('-', ' ')} (Step Functions "
                    f"{metric.metric_name}): long retry waits that did not queue their task. A failed send is dead-lettered with "
                    "reason retry_wait_failed; the sweeper re-queues any retry left overdue.",
                    metric=metric,
                    threshold=0,
                    comparison=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
                    missing=cloudwatch.TreatMissingData.NOT_BREACHING,
                )
        return alarms

    def _breaker_spike_alarm(self) -> cloudwatch.Alarm:
        return self._alarm(
            "BreakerOpenedSpikeAlarm",
            name="breaker-opened-spike",
            description=(
                f"{BREAKER_SPIKE_THRESHOLD} or more endpoint circuit breakers opened within {PERIOD.to_minutes()} minutes: "
                "many receivers failing at once points at hookline's side (network, DNS, egress) rather than at customers."
            ),
            metric=emf_metric(BREAKER_OPENED),
            threshold=BREAKER_SPIKE_THRESHOLD,
            comparison=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            # The metric is emitted only when a breaker opens: no data means none did.
            missing=cloudwatch.TreatMissingData.NOT_BREACHING,
        )

    # -- dashboard -----------------------------------------------------------

    def _dashboard(self) -> cloudwatch.Dashboard:
        dashboard = cloudwatch.Dashboard(self, "Dashboard", dashboard_name=self._prefix, default_interval=Duration.hours(3))
        dashboard.add_widgets(*self._delivery_widgets())
        dashboard.add_widgets(*self._queue_widgets())
        dashboard.add_widgets(*self._function_widgets())
        dashboard.add_widgets(*self._api_and_wait_widgets())
        dashboard.add_widgets(*self._capacity_widgets())
        dashboard.add_widgets(cloudwatch.AlarmStatusWidget(title="Alarms", alarms=self.alarms.all(), width=24, height=4))
        return dashboard

    def _delivery_widgets(self) -> list[cloudwatch.IWidget]:
        by_outcome = [emf_metric(ATTEMPTS, label=outcome, outcome=outcome) for outcome in ATTEMPT_OUTCOMES]
        ids = {f"a{i}": emf_metric(ATTEMPTS, outcome=outcome) for i, outcome in enumerate(ATTEMPT_OUTCOMES)}
        success_rate = cloudwatch.MathExpression(
            expression=f"100 * a0 / ({' + '.join(ids)})",
            using_metrics=dict(ids),
            label="attempts succeeded (%)",
            period=PERIOD,
        )
        return [
            cloudwatch.GraphWidget(
                title="Delivery attempts by outcome",
                left=by_outcome,
                right=[success_rate],
                right_y_axis=cloudwatch.YAxisProps(min=0, max=100, label="%", show_units=False),
                stacked=False,
                width=8,
            ),
            cloudwatch.GraphWidget(
                title="Receiver response time (ms)",
                left=[emf_metric(RESPONSE_TIME, statistic=p, label=p) for p in RESPONSE_TIME_PERCENTILES],
                width=8,
            ),
            cloudwatch.GraphWidget(
                title="First-attempt successes, dead-lettered deliveries, breakers opened",
                left=[emf_metric(FIRST_ATTEMPT_SUCCESS, label="first-attempt successes"), emf_metric(DEAD_LETTERED, label="dead-lettered")],
                right=[emf_metric(BREAKER_OPENED, label="breakers opened")],
                right_annotations=[cloudwatch.HorizontalAnnotation(value=BREAKER_SPIKE_THRESHOLD, label="breaker spike alarm")],
                width=8,
            ),
        ]

    def _queue_widgets(self) -> list[cloudwatch.IWidget]:
        def depth(spec: QueueSpec) -> cloudwatch.IMetric:
            return self._queues.queue(spec).metric_approximate_number_of_messages_visible(
                period=PERIOD, statistic="Maximum", label=spec.physical_name(self._prefix)
            )

        def age(spec: QueueSpec) -> cloudwatch.IMetric:
            return self._queues.queue(spec).metric_approximate_age_of_oldest_message(period=PERIOD, statistic="Maximum", label=spec.physical_name(self._prefix))

        threshold = self._settings.oldest_message_alarm_seconds
        return [
            cloudwatch.GraphWidget(title="Queue depth (visible messages)", left=[depth(q) for q in QUEUES], width=8),
            cloudwatch.GraphWidget(
                title="Age of oldest message (s)",
                left=[age(q) for q in QUEUES],
                left_annotations=[cloudwatch.HorizontalAnnotation(value=threshold, label="oldest-message alarm")],
                width=8,
            ),
            cloudwatch.SingleValueWidget(title="Dead-letter queue depth", metrics=[depth(q) for q in dead_letter_queues()], width=8, height=6),
            *(
                # What pages no one is graphed: customers' deliveries given up on, against the alarm's threshold.
                cloudwatch.AlarmWidget(
                    title=f"{q.physical_name(self._prefix)}: customers' given-up deliveries", alarm=self.alarms.dead_letters[q.key], width=12
                )
                for q in customer_dead_letter_queues()
            ),
        ]

    def _api_and_wait_widgets(self) -> list[cloudwatch.IWidget]:
        api = self._api.http_api
        waits = [self._state_machines.state_machine(spec) for spec in STATE_MACHINES]
        return [
            cloudwatch.GraphWidget(
                title="API requests, 4xx, 5xx and throttled",
                left=[api.metric_count(period=PERIOD, statistic="Sum", label="requests")],
                right=[
                    api.metric_client_error(period=PERIOD, statistic="Sum", label="4xx"),
                    api.metric_server_error(period=PERIOD, statistic="Sum", label="5xx"),
                    cloudwatch.Metric(namespace=METRICS_NAMESPACE, metric_name=API_THROTTLED, statistic="Sum", period=PERIOD, label="429 (throttled)"),
                ],
                width=12,
            ),
            cloudwatch.GraphWidget(
                title="Long retry waits (Step Functions executions)",
                left=[m.metric_started(period=PERIOD, statistic="Sum", label="started") for m in waits],
                right=[
                    *(m.metric_failed(period=PERIOD, statistic="Sum", label="failed") for m in waits),
                    *(m.metric_aborted(period=PERIOD, statistic="Sum", label="aborted") for m in waits),
                    emf_metric(OVERDUE_RETRIES_REQUEUED, label="overdue, re-queued by the sweeper"),
                    emf_metric(INTERNAL_FAILURES, label="internal failures"),
                ],
                width=12,
            ),
        ]

    def _capacity_widgets(self) -> list[cloudwatch.IWidget]:
        """What runs out first as traffic grows (docs/scaling.md): the lanes' instances against their reservations, and
        the table's units a second against its table-level quota."""
        functions = self._functions.functions
        reserved = [(spec, c.reserved) for spec in FUNCTIONS if (c := sizing.concurrency(spec, self._settings)).reserved is not None]

        def per_second(metric: str, label: str) -> cloudwatch.MathExpression:
            name = metric[:1].lower() + metric[1:]  # an id per metric: a graph's expressions share one namespace of ids
            return cloudwatch.MathExpression(
                expression=f"{name} / {int(PERIOD.to_seconds())}",
                using_metrics={name: self._table.metric(metric, period=PERIOD, statistic="Sum")},
                label=label,
                period=PERIOD,
            )

        return [
            cloudwatch.GraphWidget(
                title="Lambda instances running, against their reserved concurrency",
                left=[
                    functions[spec.name].metric("ConcurrentExecutions", period=PERIOD, statistic="Maximum", label=f"{spec.name} (reserved {n})")
                    for spec, n in reserved
                ],
                width=12,
            ),
            cloudwatch.GraphWidget(
                title="DynamoDB units a second, and throttled requests",
                left=[per_second("ConsumedWriteCapacityUnits", "write units/s"), per_second("ConsumedReadCapacityUnits", "read units/s")],
                left_annotations=[cloudwatch.HorizontalAnnotation(value=MAX_TABLE_CAPACITY, label="table-level quota (default)")],
                right=[self._throttle_events()],
                width=12,
            ),
        ]

    def _function_widgets(self) -> list[cloudwatch.IWidget]:
        functions = self._functions.functions
        return [
            cloudwatch.GraphWidget(
                title="Lambda errors",
                left=[functions[spec.name].metric_errors(period=PERIOD, statistic="Sum", label=spec.name) for spec in FUNCTIONS],
                width=12,
            ),
            cloudwatch.GraphWidget(
                title="Lambda throttles",
                left=[functions[spec.name].metric_throttles(period=PERIOD, statistic="Sum", label=spec.name) for spec in FUNCTIONS],
                width=12,
            ),
        ]
