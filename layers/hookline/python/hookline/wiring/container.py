"""The composition root: builds services from settings, lazily and once per process.

Handlers and the local runner ask for services here; tests build services
directly with fakes or moto. Nothing connects to AWS at import time, and nothing imports a service before it is
built: each function's cold start imports only the services its entry builds (the delivery function, no API
models; the jobs function, no delivery worker), on its first invocation (docs/benchmarks.md, cold starts).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from hookline.adapters import aws, metrics, system
from hookline.adapters.destinations import AwsDestinations, DestinationSender
from hookline.adapters.dlq import SqsDeadLetterQueue, SqsReceivedMessages
from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.catalog import CatalogRepository, VersionUsageRepository
from hookline.adapters.dynamo.customers import CustomerRepository
from hookline.adapters.dynamo.endpoints import EndpointRepository
from hookline.adapters.dynamo.events import EventRepository
from hookline.adapters.dynamo.jobs import JobRepository
from hookline.adapters.dynamo.lines import LineHeadRepository
from hookline.adapters.dynamo.mailbox import Mailbox
from hookline.adapters.dynamo.poll_tokens import PollTokenRepository
from hookline.adapters.dynamo.portal import PortalRepository
from hookline.adapters.dynamo.replays import ReplayRepository
from hookline.adapters.dynamo.state import EndpointStateRepository
from hookline.adapters.dynamo.stats import StatsRepository
from hookline.adapters.dynamo.tokens import TokenRepository
from hookline.adapters.dynamo.unqueued import UnqueuedNoteRepository
from hookline.adapters.dynamo.waits import RetryWaitRepository
from hookline.adapters.endpoint_auth import AuthenticatedPoster, SslCertificates
from hookline.adapters.http import WebhookClient
from hookline.adapters.notifications import Notifier
from hookline.adapters.queues import MessageHolds, OrderedScheduler, TaskQueue, TaskScheduler
from hookline.adapters.sealing import KmsSealer
from hookline.adapters.system import utcnow
from hookline.core.config import endpoint_rules, hand_on_seconds
from hookline.core.jobs import BROADCAST_JOB, DELETE_CUSTOMER_ENDPOINTS, DRAIN_DLQ, REPLAY_WINDOW, REQUEUE_PAUSED
from hookline.core.settings import Settings
from hookline.services.ports import JobKind
from hookline.wiring import authorizer, topology
from hookline.wiring.settings import get_settings

if TYPE_CHECKING:
    from hookline.services.access import AccessGuard
    from hookline.services.broadcast import BroadcastService
    from hookline.services.catalog import CatalogService
    from hookline.services.compat import PreviousReleaseMessages
    from hookline.services.customers import CustomerService
    from hookline.services.delivery.ordered import OrderedLane
    from hookline.services.delivery.worker import DeliveryWorker
    from hookline.services.drain import DrainControl
    from hookline.services.endpoints import EndpointService
    from hookline.services.events import EventService
    from hookline.services.jobs import JobRunner
    from hookline.services.polling import PollService
    from hookline.services.portal import PortalService, SentEventTypes
    from hookline.services.replay import ReplayService
    from hookline.services.sessions import PortalSessionService
    from hookline.services.sweeper import Sweeper

LEASE_SECONDS = topology.CLAIM_LEASE_SECONDS


def _repos(settings: Settings) -> tuple[EventRepository, EndpointRepository]:
    table = aws.dynamodb_table(settings.table_name)
    return EventRepository(table, topology.TABLE.ttl_attribute), EndpointRepository(table)


def _customers(settings: Settings) -> CustomerRepository:
    return authorizer.customer_store(settings)


def _stats(settings: Settings) -> StatsRepository:
    return StatsRepository(aws.dynamodb_table(settings.table_name), topology.TABLE.ttl_attribute, settings.retention_days)


@lru_cache(maxsize=1)
def _catalog(settings: Settings) -> CatalogRepository:
    """One per process, shared by ingest, endpoints and the catalog routes: a change made here applies here at once."""
    return CatalogRepository(aws.dynamodb_table(settings.table_name), settings.catalog_cache_seconds)


def _usage(settings: Settings) -> VersionUsageRepository:
    return VersionUsageRepository(aws.dynamodb_table(settings.table_name), topology.TABLE.ttl_attribute, settings.retention_days)


@lru_cache(maxsize=1)
def catalog_service() -> CatalogService:
    from hookline.services.catalog import CatalogService

    settings = get_settings()
    _, endpoints = _repos(settings)
    return CatalogService(_catalog(settings), endpoints, _usage(settings), event_types(), utcnow)


def log_successes() -> bool:
    """Whether the delivery function logs a line for every successful attempt (HOOKLINE_LOG_SUCCESSES)."""
    return get_settings().log_successes


DeliveryLane = Literal["first", "retry"]  # the delivery function's and the retry function's (topology.DELIVERY, topology.RETRY)
Lane = Literal[DeliveryLane, "ordered", "jobs"]
# The queue each consuming lane's records come from: the delivery queue (first attempts), the retry queue, the
# ordered lane's FIFO queue, the job queue.
_CONSUMED: dict[Lane, topology.QueueSpec] = {
    "first": topology.DELIVERY_QUEUE,
    "retry": topology.RETRY_QUEUE,
    "ordered": topology.ORDERED_QUEUE,
    "jobs": topology.JOBS_QUEUE,
}


def max_receive_count(lane: Lane) -> int:
    """How many receives the redrive policy of the lane's queue allows: a record that fails on that receive goes to
    the dead-letter queue (an InternalFailure, hookline.core.internal_failures)."""
    return _CONSUMED[lane].max_receive_count


def _sender(settings: Settings) -> DestinationSender:
    """HTTP endpoints through the SSRF-guarded client; queues, topics, buses, streams and buckets through their AWS adapter;
    polling endpoints into their mailbox."""
    http = WebhookClient(
        connect_timeout=settings.connect_timeout_seconds,
        request_timeout=settings.request_timeout_seconds,
        body_limit=settings.response_body_limit_bytes,
        policy=settings.url_policy,
        keepalive_seconds=settings.keepalive_seconds,
    )
    sealer = _sealer(settings)
    authenticated = AuthenticatedPoster(http, sealer, TokenRepository(aws.dynamodb_table(settings.table_name))) if sealer is not None else None
    return DestinationSender(http, AwsDestinations(aws.region(), settings.own_account_id), mailbox=_mailbox(settings), authenticated=authenticated)


def _mailbox(settings: Settings) -> Mailbox:
    return Mailbox(aws.dynamodb_table(settings.table_name), utcnow, settings.retention_days, topology.TABLE.ttl_attribute)


@lru_cache(maxsize=1)
def poll_service() -> PollService:
    from hookline.services.polling import PollService

    settings = get_settings()
    return PollService(_repos(settings)[1], _mailbox(settings), PollTokenRepository(aws.dynamodb_table(settings.table_name)), utcnow, _stats(settings))


@lru_cache(maxsize=1)
def _sealer(settings: Settings) -> KmsSealer | None:
    """Endpoints' `auth` secrets sealed with the stack's key (HOOKLINE_SECRETS_KEY_ARN); one per process, so an opened
    data key serves every delivery for a while. None: a stack without the key (endpoints with `auth` are refused)."""
    return KmsSealer(aws.kms_client, settings.secrets_key_arn) if settings.secrets_key_arn else None


def _notifier(settings: Settings) -> Notifier:
    return Notifier(aws.sns_client(), settings.notifications_topic_arn)


@lru_cache(maxsize=1)
def endpoint_service() -> EndpointService:
    from hookline.services.endpoints import EndpointDeps, EndpointService

    settings = get_settings()
    events, endpoints = _repos(settings)
    deps = EndpointDeps(
        states=EndpointStateRepository(aws.dynamodb_table(settings.table_name)),
        events=events,
        sender=_sender(settings),
        jobs=job_runner(),
        notify=_notifier(settings),
        lines=_line_heads(settings),
    )
    return EndpointService(
        endpoints,
        _customers(settings),
        settings,
        utcnow,
        deps,
        _catalog(settings),
        endpoint_rules(settings, LEASE_SECONDS),
        _stats(settings),
        sealer=_sealer(settings),
        certificates=SslCertificates(),
    )


@lru_cache(maxsize=1)
def event_service() -> EventService:
    from hookline.services.events import EventService

    settings = get_settings()
    events, endpoints = _repos(settings)
    return EventService(
        events,
        endpoints,
        _customers(settings),
        _tasks(settings, settings.delivery_queue_url),
        settings,
        utcnow,
        catalog=_catalog(settings),
        retry_queue=_tasks(settings, settings.retry_queue_url),
        types=event_types(),
        unqueued=UnqueuedNoteRepository(aws.dynamodb_table(settings.table_name), topology.TABLE.ttl_attribute),
    )


@lru_cache(maxsize=1)
def delivery_worker() -> DeliveryWorker:
    """The delivery and retry functions' worker: a task that waits goes to the retry queue (or a wait in Step Functions)."""
    settings = get_settings()
    return _worker(
        settings,
        TaskScheduler(
            sqs=aws.sqs_client(),
            sfn=aws.stepfunctions_client(),
            retry_queue_url=settings.retry_queue_url,
            dead_letter_queue_url=settings.delivery_dlq_url,
            state_machine_arn=settings.retry_state_machine_arn,
            sqs_max_delay_seconds=settings.sqs_max_delay_seconds,
            waits=RetryWaitRepository(aws.dynamodb_table(settings.table_name), topology.TABLE.ttl_attribute),
            hops_up_to_seconds=settings.sqs_hops_up_to_seconds,
        ),
    )


@lru_cache(maxsize=1)
def ordered_worker() -> DeliveryWorker:
    """The ordered function's worker: a task that waits holds its own message (hookline.entrypoints.delivery)."""
    settings = get_settings()
    return _worker(settings, OrderedScheduler(aws.sqs_client(), settings.ordered_dlq_url))


@lru_cache(maxsize=1)
def ordered_lane() -> OrderedLane:
    """The ordered function's lane: its worker, its queue's messages, the endpoints' line heads."""
    from hookline.services.delivery.ordered import OrderedLane

    settings = get_settings()
    return OrderedLane(
        worker=ordered_worker(),
        holds=MessageHolds(aws.sqs_client(), settings.ordered_queue_url),
        heads=_line_heads(settings),
        clock=utcnow,
        fault_hold_seconds=topology.ORDERED_FAULT_HOLD_SECONDS,
        retention_days=settings.retention_days,
    )


def _line_heads(settings: Settings) -> LineHeadRepository:
    return LineHeadRepository(aws.dynamodb_table(settings.table_name), topology.TABLE.ttl_attribute)


def _tasks(settings: Settings, queue_url: str) -> TaskQueue:
    """Tasks onto `queue_url`; an ordered endpoint's onto the ordered lane."""
    return TaskQueue(aws.sqs_client(), queue_url, settings.ordered_queue_url)


def _worker(settings: Settings, scheduler: TaskScheduler | OrderedScheduler) -> DeliveryWorker:
    from hookline.services.delivery.assemble import assemble
    from hookline.wiring.emails import customer_emails

    events, endpoints = _repos(settings)
    return assemble(
        events=events,
        endpoints=endpoints,
        states=EndpointStateRepository(aws.dynamodb_table(settings.table_name)),
        sender=_sender(settings),
        scheduler=scheduler,
        notify=_notifier(settings),
        settings=settings,
        clock=utcnow,
        sleep=system.sleep,
        rng=system.SYSTEM_RANDOM,
        lease_seconds=LEASE_SECONDS,
        replays=ReplayRepository(aws.dynamodb_table(settings.table_name), topology.TABLE.ttl_attribute),
        stats=_stats(settings),
        emails=customer_emails(settings),
        usage=_usage(settings),
        hand_on_seconds=hand_on_seconds(settings, topology.DELIVERY_TIMEOUT_SECONDS),
        count_give_back_failure=metrics.leases_not_given_back,
    )


@lru_cache(maxsize=1)
def replay_service() -> ReplayService:
    from hookline.services.replay import ReplayService

    settings = get_settings()
    _, endpoints = _repos(settings)
    return ReplayService(
        replays=ReplayRepository(aws.dynamodb_table(settings.table_name), topology.TABLE.ttl_attribute),
        endpoints=endpoints,
        jobs=job_runner(),
        settings=settings,
        clock=utcnow,
    )


@lru_cache(maxsize=1)
def broadcast_service() -> BroadcastService:
    from hookline.services.broadcast import BroadcastService

    settings = get_settings()
    events, endpoints = _repos(settings)
    return BroadcastService(events=events, jobs=job_runner(), settings=settings, clock=utcnow, catalog=_catalog(settings), pins=endpoints, types=event_types())


@lru_cache(maxsize=1)
def customer_service() -> CustomerService:
    from hookline.services.customers import CustomerService

    settings = get_settings()
    _, endpoints = _repos(settings)
    return CustomerService(_customers(settings), endpoints, _stats(settings), job_runner(), utcnow)


@lru_cache(maxsize=1)
def session_service() -> PortalSessionService:
    from hookline.services.sessions import PortalSessionService

    settings = get_settings()
    return PortalSessionService(authorizer.session_store(settings), _customers(settings), utcnow)


def _portal_store(settings: Settings) -> PortalRepository:
    return PortalRepository(aws.dynamodb_table(settings.table_name))


@lru_cache(maxsize=1)
def portal_service() -> PortalService:
    from hookline.services.portal import PortalService

    settings = get_settings()
    return PortalService(_portal_store(settings), _customers(settings), utcnow)


@lru_cache(maxsize=1)
def event_types() -> SentEventTypes:
    """One per process: it remembers which types it has noted already."""
    from hookline.services.portal import SentEventTypes

    return SentEventTypes(_portal_store(get_settings()))


@lru_cache(maxsize=1)
def access_guard() -> AccessGuard:
    from hookline.services.access import AccessGuard

    settings = get_settings()
    events, endpoints = _repos(settings)
    table = aws.dynamodb_table(settings.table_name)
    return AccessGuard(
        endpoints, events, ReplayRepository(table, topology.TABLE.ttl_attribute), JobRepository(table, topology.TABLE.ttl_attribute), event_types()
    )


@lru_cache(maxsize=1)
def sweeper() -> Sweeper:
    from hookline.services.sweeper import OverdueRetries, Sweeper

    settings = get_settings()
    table = aws.dynamodb_table(settings.table_name)
    unqueued = UnqueuedNoteRepository(table, topology.TABLE.ttl_attribute)
    waits = OverdueRetries(
        notes=RetryWaitRepository(table, topology.TABLE.ttl_attribute),
        deliveries=EventRepository(table, topology.TABLE.ttl_attribute),
        retry_queue=_tasks(settings, settings.retry_queue_url),
        clock=utcnow,
        margin_seconds=settings.sweep_wait_margin_seconds,
        shards=keys.WAIT_SHARDS,
    )
    return Sweeper(unqueued, event_service(), utcnow, settings.sweep_grace_seconds, keys.UNQUEUED_SHARDS, job_runner(), waits)


@lru_cache(maxsize=1)
def job_runner() -> JobRunner:
    """Bulk jobs and their kinds (hookline.services.bulk, a broadcast's fan-out, a time-window replay, the DLQ drain); their steps run on the job queue (the jobs function's)."""
    from hookline.services.broadcast import BroadcastFanout
    from hookline.services.bulk import CustomerEndpointsDeletion, PausedRequeue
    from hookline.services.drain import DlqDrain
    from hookline.services.jobs import JobRunner
    from hookline.services.replay import WindowReplay

    settings = get_settings()
    table = aws.dynamodb_table(settings.table_name)
    events, endpoints = _repos(settings)
    kinds: dict[str, JobKind] = {
        REQUEUE_PAUSED: PausedRequeue(endpoints, events, _tasks(settings, settings.retry_queue_url)),
        DELETE_CUSTOMER_ENDPOINTS: CustomerEndpointsDeletion(endpoints),
        BROADCAST_JOB: BroadcastFanout(events, endpoints, _tasks(settings, settings.delivery_queue_url), settings.retention_days),
        DRAIN_DLQ: DlqDrain(SqsDeadLetterQueue(aws.sqs_client(), settings.delivery_dlq_url), _tasks(settings, settings.retry_queue_url)),
        REPLAY_WINDOW: WindowReplay(ReplayRepository(table, topology.TABLE.ttl_attribute), events, endpoints, _tasks(settings, settings.retry_queue_url)),
    }
    return JobRunner(JobRepository(table, topology.TABLE.ttl_attribute), _tasks(settings, settings.jobs_queue_url), kinds, utcnow, settings.retention_days)


def swept_job_messages() -> SqsReceivedMessages | None:
    """The job queue's messages for the sweep to run, where it runs them (HOOKLINE_SWEEP_RUNS_JOBS: the jobs function
    has no event source on the queue); None where the event source runs them."""
    settings = get_settings()
    return SqsReceivedMessages(aws.sqs_client(), settings.jobs_queue_url) if settings.sweep_runs_jobs else None


def previous_job_messages() -> SqsReceivedMessages | None:
    """The previous release's job queue (topology.PREVIOUS_JOB_QUEUE), which the sweep moves to the jobs queue; None
    where it is not configured (a function without the grant)."""
    settings = get_settings()
    return SqsReceivedMessages(aws.sqs_client(), settings.previous_job_queue_url) if settings.previous_job_queue_url else None


def jobs_queue() -> TaskQueue:
    """The jobs queue, where the previous release's job messages are moved to."""
    settings = get_settings()
    return TaskQueue(aws.sqs_client(), settings.jobs_queue_url)


def job_batch_size() -> int:
    return get_settings().jobs_batch_size


@lru_cache(maxsize=1)
def previous_release_messages() -> PreviousReleaseMessages:
    """The previous release's job-queue messages, each starting the job this release runs for it."""
    from hookline.services.compat import PreviousReleaseMessages

    return PreviousReleaseMessages(job_runner(), broadcast_service(), replay_service())


@lru_cache(maxsize=1)
def drain_control() -> DrainControl:
    """The operators' DLQ drain: start one (a job of `job_runner`'s), read a job."""
    from hookline.services.drain import DrainControl

    return DrainControl(job_runner(), get_settings().dlq_drain_rate_per_second, utcnow)


def reset() -> None:
    """Forget every cached service, setting and client (tests, local runner restarts)."""
    for getter in (
        endpoint_service,
        event_service,
        broadcast_service,
        customer_service,
        delivery_worker,
        ordered_worker,
        ordered_lane,
        replay_service,
        session_service,
        access_guard,
        portal_service,
        event_types,
        catalog_service,
        _catalog,
        _sealer,
        job_runner,
        sweeper,
        drain_control,
        previous_release_messages,
        poll_service,
        get_settings,
    ):
        getter.cache_clear()
    authorizer.reset()
    aws.reset_clients()
