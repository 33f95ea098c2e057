"""How much Lambda concurrency each function reserves, and what its SQS event source may take: by `HOOKLINE_SIZE`.

Pure (no CDK, no boto3): the stack (infra/functions.py) builds from it, synth checks it against the quota the
settings declare, and `make preflight` (infra/preflight.py) checks it against the account's real quota.

AWS keeps at least UNRESERVED_MINIMUM of an account's concurrency unreserved: CloudFormation refuses a function
whose reservation would leave less ("decreases account's UnreservedConcurrentExecution below its minimum value").
A new account's quota is often 10, so any reservation at all fails there: the `small` size reserves nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from hookline.core.settings import Settings
from hookline.wiring.topology import FUNCTIONS, JOBS, SCHEDULES, FunctionSpec

UNRESERVED_MINIMUM = 100
# The SQS event source's own bounds on maximum concurrency.
MIN_POLLERS = 2
MAX_POLLERS = 1000
# `small`: no reservation; each event source is capped at SQS's least, and the jobs function has no job-queue source
# (its scheduled sweep runs the jobs: hookline.entrypoints.jobs), so the queues' consumers leave the api and authorizer
# at least SMALL_FREE of a quota of SMALL_QUOTA: 3 sources x 2 = 6 while every lane drains a backlog at once (the
# ordered lane is idle unless an endpoint is ordered), and the sweep's one invocation a minute makes 7.
SMALL_POLLERS = 2
SMALL_QUOTA = 10
SMALL_FREE = 4
# Concurrency a directly invoked function keeps beyond its event source: the sweeper's schedule and the operators'
# `make dlq-drain` invoke the jobs function while its job-queue source may run at its maximum; without the
# headroom their invocations are throttled, and the source's own throttled batches move towards the DLQ.
DIRECT_HEADROOM = 2


class SizingError(ValueError):
    """Settings that ask for concurrency the account cannot give; raised at synth time."""


@dataclass(frozen=True)
class Concurrency:
    reserved: int | None  # reserved concurrent executions; None: none reserved
    pollers: int | None  # the SQS event source's maximum concurrency; None: no source, or uncapped
    source: bool = True  # False: the function's sqs_source gets no event source at this size (its queue is drained otherwise)


def invoked_directly(spec: FunctionSpec) -> bool:
    """Functions invoked besides their event source: by a schedule, or by operators by name (the DLQ drain)."""
    return spec.name == JOBS.name or any(schedule.function == spec.name for schedule in SCHEDULES)


def concurrency(spec: FunctionSpec, settings: Settings) -> Concurrency:
    """The function's reservation and its event source's cap at the configured size."""
    if settings.size == "small":
        if spec.sqs_source is None:
            return Concurrency(reserved=None, pollers=None)
        if spec.name == JOBS.name:
            # A fourth source would take 2 more of a quota of 10: the jobs function's scheduled sweep runs the jobs.
            return Concurrency(reserved=None, pollers=None, source=False)
        return Concurrency(reserved=None, pollers=SMALL_POLLERS)
    reserved = None if spec.reserved_concurrency_setting is None else int(getattr(settings, spec.reserved_concurrency_setting))
    if spec.sqs_source is not None and reserved is None and spec.sqs_source.max_pollers_setting is not None:
        # Nothing reserved, its source capped (the ordered lane): within SQS's bounds on a source's maximum concurrency.
        return Concurrency(reserved=None, pollers=min(max(int(getattr(settings, spec.sqs_source.max_pollers_setting)), MIN_POLLERS), MAX_POLLERS))
    if spec.sqs_source is None or reserved is None:
        return Concurrency(reserved=reserved, pollers=None)
    # Capped at the reservation: pollers beyond it are throttled, and a throttled batch returns to the queue
    # with its receive count raised, so enough of them reach the DLQ undelivered.
    pollers = reserved - DIRECT_HEADROOM if invoked_directly(spec) else reserved
    return Concurrency(reserved=reserved, pollers=min(pollers, MAX_POLLERS))


def sweep_runs_jobs(settings: Settings) -> bool:
    """Whether the jobs function's scheduled sweep drains the job queue: it has no event source at this size."""
    return not concurrency(JOBS, settings).source


def sources_total(settings: Settings) -> int:
    """The most concurrency the stack's event sources take at once (each at its cap, or its function's reservation);
    none is uncapped and unreserved at `small`."""
    total = 0
    for spec in FUNCTIONS:
        c = concurrency(spec, settings)
        if spec.sqs_source is not None and c.source:
            total += c.pollers if c.pollers is not None else (c.reserved or 0)
    return total


def reserved_total(settings: Settings) -> int:
    """Concurrency the stack reserves across its functions."""
    return sum(c.reserved or 0 for c in (concurrency(spec, settings) for spec in FUNCTIONS))


def problems(settings: Settings, quota: int) -> list[str]:
    """What the account (with its concurrency quota) cannot deploy at these settings; empty when it can."""
    found: list[str] = []
    total = reserved_total(settings)
    if total and quota - total < UNRESERVED_MINIMUM:
        found.append(
            f"the functions reserve {total} concurrent executions, which leaves {quota - total} of the account's quota of {quota} "
            f"unreserved; AWS keeps at least {UNRESERVED_MINIMUM} (CloudFormation would refuse the functions). Deploy with "
            f"HOOKLINE_SIZE=small (nothing reserved), lower HOOKLINE_DELIVERY_CONCURRENCY, HOOKLINE_RETRY_CONCURRENCY and "
            f"HOOKLINE_JOBS_CONCURRENCY, or raise the quota (Service Quotas: Lambda, 'Concurrent executions', L-B99A9384) "
            f"to at least {total + UNRESERVED_MINIMUM}"
        )
    for spec in FUNCTIONS:
        c = concurrency(spec, settings)
        if spec.sqs_source is None or c.reserved is None:
            continue
        least = MIN_POLLERS + (DIRECT_HEADROOM if invoked_directly(spec) else 0)
        if c.reserved < least:
            found.append(
                f"the {spec.name} function reserves {c.reserved}, below {least}: its SQS event source needs at least {MIN_POLLERS}"
                + (f", and {DIRECT_HEADROOM} more stay for its direct invocations (the sweeper's schedule, make dlq-drain)" if invoked_directly(spec) else "")
            )
    return found


def check(settings: Settings) -> None:
    """Refuse to synthesize what the declared quota (HOOKLINE_ACCOUNT_CONCURRENCY_QUOTA) cannot hold."""
    found = problems(settings, settings.account_concurrency_quota)
    if found:
        raise SizingError("; ".join(found) + f" (HOOKLINE_SIZE={settings.size}, HOOKLINE_ACCOUNT_CONCURRENCY_QUOTA={settings.account_concurrency_quota})")
