"""One delivery worker from its ports and the settings: what the container and the fake-backed tests both call."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from hookline.core.backoff import RandomSource
from hookline.core.config import endpoint_rules, retry_policy
from hookline.core.notifications import Notify
from hookline.core.settings import Settings
from hookline.services.delivery.emails import CustomerEmails
from hookline.services.delivery.endpoint_pool import EndpointPool
from hookline.services.delivery.health import HealthTracker
from hookline.services.delivery.planner import Planner
from hookline.services.delivery.ports import DeliveryLog, EndpointControl, EndpointStates, ReplayProgress, Scheduler, Sender, StatsSink, VersionUsageSink
from hookline.services.delivery.recorder import Recorder, RecordingConfig
from hookline.services.delivery.sender import WebhookSender
from hookline.services.delivery.stats_buffer import StatsBuffer
from hookline.services.delivery.token_leases import TokenLeaseBook
from hookline.services.delivery.worker import DeliveryWorker


def assemble(
    *,
    events: DeliveryLog,
    endpoints: EndpointControl,
    states: EndpointStates,
    sender: Sender,
    scheduler: Scheduler,
    notify: Notify,
    settings: Settings,
    clock: Callable[[], datetime],
    sleep: Callable[[float], None],
    rng: RandomSource,
    lease_seconds: int,
    replays: ReplayProgress | None = None,
    stats: StatsSink | None = None,
    emails: CustomerEmails | None = None,
    usage: VersionUsageSink | None = None,
    hand_on_seconds: float = 0.0,
    count_give_back_failure: Callable[[], None] | None = None,
) -> DeliveryWorker:
    pool = EndpointPool()
    leases = TokenLeaseBook()  # one per process: a warm instance spends its leases over its batches
    rules = endpoint_rules(settings, lease_seconds)
    health = HealthTracker(states, endpoints, notify, rules, clock, emails, stats, count_give_back_failure)
    recording = RecordingConfig(
        retry_policy(settings),
        lease_seconds,
        rules.busy_retry_seconds,
        settings.retention_days,
        settings.response_body_limit_bytes,
        settings.success_body_limit_bytes,
    )
    return DeliveryWorker(
        planner=Planner(events, states, health, rules, clock, rng, pool, leases),
        sender=WebhookSender(events, sender, settings.secret_overlap_seconds, clock),
        recorder=Recorder(events, scheduler, notify, recording, rng, StatsBuffer(stats, usage), replays),
        health=health,
        clock=clock,
        sleep=sleep,
        pool=pool,
        leases=leases,
        hand_on_seconds=hand_on_seconds,
    )
