"""SQS queues, one per `topology.QUEUES` entry, with their redrive policies."""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from hookline.wiring.topology import QUEUES, FunctionSpec, QueueSpec
from infra import construct_name

# AWS's rule for an SQS event source (Lambda Developer Guide, "Using Lambda with Amazon SQS"): the queue's visibility
# timeout at least 6x the function's timeout, plus the source's MaximumBatchingWindowInSeconds.
VISIBILITY_TIMEOUT_FACTOR = 6


class TopologyError(ValueError):
    """The topology asks for wiring that would misbehave in AWS; raised at synth time."""


def check_consumer(queue: QueueSpec, consumer: FunctionSpec, window_seconds: int = 0, window_setting: str | None = None) -> None:
    """Refuse to synthesize a consumer whose timeout, with the batching window its event source gathers a batch for
    (`window_seconds`, from the setting `window_setting`), the queue's visibility timeout does not cover."""
    needed = VISIBILITY_TIMEOUT_FACTOR * consumer.timeout_seconds + window_seconds
    if queue.visibility_timeout_seconds < needed:
        window = f"{window_seconds}s" + (f", {window_setting}" if window_setting else "")
        raise TopologyError(
            f"queue {queue.key!r}: visibility timeout {queue.visibility_timeout_seconds}s is below {VISIBILITY_TIMEOUT_FACTOR}x the "
            f"timeout of its consumer {consumer.name!r} ({VISIBILITY_TIMEOUT_FACTOR * consumer.timeout_seconds}s) plus its event "
            f"source's batching window ({window}): {needed}s. A message would come back while a batch with it still runs; "
            f"lower the window or raise the queue's visibility timeout"
        )


def check_dead_letter(queue: QueueSpec) -> None:
    """A standard queue's retention counts from the first enqueue, so the DLQ must keep messages longer. (A FIFO
    queue's message starts its retention again when it moves to the dead-letter queue.)"""
    dlq = queue.dead_letter
    if dlq is not None and not queue.fifo and dlq.retention_seconds <= queue.retention_seconds:
        raise TopologyError(
            f"queue {queue.key!r}: dead-letter queue {dlq.key!r} retention {dlq.retention_seconds}s must exceed the source retention {queue.retention_seconds}s"
        )


class Queues(Construct):
    """Every queue is SSE-encrypted (SQS-managed keys) and refuses non-TLS requests."""

    def __init__(self, scope: Construct, construct_id: str, *, prefix: str) -> None:
        super().__init__(scope, construct_id)
        self._prefix = prefix
        self.queues: dict[str, sqs.Queue] = {}
        for spec in QUEUES:
            self._queue(spec)

    def queue(self, spec: QueueSpec) -> sqs.Queue:
        return self.queues[spec.key]

    def _queue(self, spec: QueueSpec) -> sqs.Queue:
        if spec.key in self.queues:
            return self.queues[spec.key]
        check_dead_letter(spec)
        dead_letter = None
        if spec.dead_letter is not None:
            dead_letter = sqs.DeadLetterQueue(queue=self._queue(spec.dead_letter), max_receive_count=spec.max_receive_count)
        queue = sqs.Queue(
            self,
            f"{construct_name(spec.key)}Queue",
            queue_name=spec.physical_name(self._prefix),
            retention_period=Duration.seconds(spec.retention_seconds),
            visibility_timeout=Duration.seconds(spec.visibility_timeout_seconds),
            dead_letter_queue=dead_letter,
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            # FIFO (the ordered lane): high throughput, where SQS's quotas apply per message group (per endpoint)
            # rather than to the queue as a whole; deduplication by the id each send gives.
            fifo=spec.fifo or None,
            content_based_deduplication=False if spec.fifo else None,
            deduplication_scope=sqs.DeduplicationScope.MESSAGE_GROUP if spec.fifo else None,
            fifo_throughput_limit=sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID if spec.fifo else None,
        )
        self.queues[spec.key] = queue
        return queue
