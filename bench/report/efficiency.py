"""The first sections: the efficiency goals, the delivery handler's profile, the handshakes, and the figures against their ideal."""

from __future__ import annotations

from typing import Any

from bench.models import goals
from bench.models.goals import LAMBDA_FULL_VCPU_MB
from bench.report.floor import floor_rows
from bench.report.results import Results
from bench.report.tables import markdown_table

DELIVERY_MEMORY_MB = 512


def _recovery_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    """The recovery scenario's figures the first success after a 6-hour outage, and the probes while down."""
    first, worst, probes = r["first_success_after_recovery_s"], r["first_success_worst_phase_s"], r["probes_per_hour_while_down"]
    return [
        {"what": "recovery after a 6-hour outage: first success after the receiver is back (s)", "figure": first, "goal": "<= 300", "met": first <= 300},
        {
            "what": "recovery: the same, back just after a failed probe (s; 300 + the task's return + the request)",
            "figure": worst,
            "goal": "(beside it)",
            "met": None,
        },
        {"what": "recovery: most probes in any hour while down", "figure": probes, "goal": "<= 12", "met": probes <= 12},
    ]


def ideal_rows(results: Results | dict[str, Any]) -> list[dict[str, Any]]:
    """The isolation, recovery and throughput figures against their ideal or baseline, each as a ratio with its goal: the first table of the document."""
    o, s, w, c, r = (results[k]["hookline"] for k in ("outage_isolation", "retry_storm", "slow_subscriber", "capacity_limited", "recovery"))
    rows: list[dict[str, Any]] = [
        {
            "what": "outage isolation: healthy p99 during the outage / before it",
            "figure": o["healthy_p99_during_vs_before"],
            "goal": "<= 1.2",
            "met": o["healthy_p99_during_vs_before"] <= 1.2,
        },
        {
            "what": "outage isolation: failed requests to the failing endpoints (hookline / naive baseline)",
            "figure": round(o["failed_requests_failing"] / max(1, results["outage_isolation"]["baseline"]["failed_requests_failing"]), 4),
            "goal": "as few as the probes need",
            "met": None,
        },
        {
            "what": "retry storm: drain time after recovery / ideal (backlog / limit)",
            "figure": s["drain_vs_ideal"],
            "goal": "<= 1.2",
            "met": s["drain_vs_ideal"] <= 1.2,
        },
        {"what": "retry storm: peak requests in a second / limit", "figure": s["peak_vs_limit"], "goal": "<= 1.1", "met": s["peak_vs_limit"] <= 1.1},
        {"what": "retry storm: attempts per event", "figure": s["attempts_per_event"], "goal": "<= 1.1", "met": s["attempts_per_event"] <= 1.1},
        {"what": "retry storm: requests to the endpoint during its outage", "figure": s["requests_during_outage"], "goal": "(beside it)", "met": None},
        {
            "what": "slow subscriber: its backlog at the end / what it was sent",
            "figure": w["slow_backlog_end_share"],
            "goal": "<= 0.05",
            "met": w["slow_backlog_end_share"] <= 0.05,
        },
        {
            "what": "slow subscriber: the 49 others' p99 / theirs with no slow subscriber",
            "figure": w["others_p99_vs_alone"],
            "goal": "<= 1.2",
            "met": w["others_p99_vs_alone"] <= 1.2,
        },
        {
            "what": "capacity-limited receiver: most requests in flight / its capacity",
            "figure": round(c["peak_in_flight"] / c["capacity_in_flight"], 4),
            "goal": "<= 1.0",
            "met": c["peak_in_flight"] <= c["capacity_in_flight"],
        },
        *_recovery_rows(r),
    ]
    tp = results.get("throughput", {})
    stand_in = tp.get("stand_in", {}).get("batches", {})
    for batch, r in stand_in.items():
        rows.append(
            {
                "what": f"one invocation, batch {batch}, AWS at 5 ms a call: deliveries/s / ideal",
                "figure": r["ratio_to_ideal"],
                "goal": ">= 0.8",
                "met": r["ratio_to_ideal"] >= 0.8,
            }
        )
    for batch, r in stand_in.items():
        rows.append(
            {
                "what": f"one invocation, batch {batch}: AWS calls in a row on a task's critical path",
                "figure": r["sequential_calls"],
                "goal": "<= 3",
                "met": r["sequential_calls"] <= 3,
            }
        )
    for batch, r in tp.get("batches", {}).items():
        rows.append(
            {
                "what": f"one invocation, batch {batch}: handler CPU per delivery on a {DELIVERY_MEMORY_MB} MB Lambda (ms)",
                "figure": round(r["handler_cpu_ms_per_delivery"] * LAMBDA_FULL_VCPU_MB / DELIVERY_MEMORY_MB, 1),
                "goal": "(stated)",
                "met": None,
            }
        )
    return rows


def efficiency_section(results: Results) -> list[str]:
    found = goals.rows(results, {r["configuration"]: r["floor"] for r in floor_rows(results["cost"])})
    return [
        "## Efficiency per delivery",
        "",
        "Each of the efficiency goals beside this run's figure. A goal that lies below what the kept features allow says so",
        "with its arithmetic (`bench.models.goals.least_cost`: the floor's writes, one read, the 30-day retention's storage and",
        "PITR, the requests that leave AWS and Lambda's requests; no Lambda second, no log, nothing else). The",
        "[floor](#the-floor-under-the-goals), [provisioned capacity](#on-demand-and-provisioned-capacity) and",
        "[handshakes](#handshakes-per-webhook-at-one-endpoint) sections say how each figure is made.",
        "",
        markdown_table(goals.HEADER, goals.table_rows(found)),
        "",
        "What each cost row's figure carries above that least, per million webhooks (`bench.models.goals.above_least`: the same",
        "measured units, priced in the row's mode). The lost writes are the limiter's and breaker's conditional writes",
        "that another batch's beat (each is billed; its refusal returns the item, so no read follows); the reads beyond",
        "one are the endpoint, breaker and limiter per endpoint and batch, the delivery per task beside its body, and the",
        "give-back's read beside another holder; Lambda's seconds are mostly the wait on the batch's slowest answer.",
        "",
        markdown_table(goals.ABOVE_HEADER, goals.above_rows(results)),
        "",
    ]


def _profile_rows(found: dict[str, Any]) -> list[list[Any]]:
    def shown(value: float | None, form: str) -> str:
        return "" if value is None else format(value, form)

    return [
        [line["what"], shown(line["calls_per_task"], ".2f"), shown(line["ms_per_call"], ".2f"), f"{line['ms_per_task']:.2f}", f"{line['share']:.0%}"]
        for line in found["lines"]
    ]


def profile_section(found: dict[str, Any] | None) -> list[str]:
    """The delivery handler's profile (bench.measurement.profile) before the efficiency work and in this run."""
    if not found:
        return []
    before, after = found["before"], found["after"]
    header = ["", "calls per task", "ms per call", "ms per task", "share"]
    return [
        "### Where the delivery handler's CPU goes, before and after",
        "",
        f"`bench/measurement/profile.py`: the real delivery handler over {after['tasks']} first attempts in batches of 10, each task to an endpoint",
        "of its own (the CPU goal's case), DynamoDB and SQS in a moto server and the receiver in processes of their own. Each AWS",
        "call and webhook POST is timed on its own thread's CPU clock as it runs (a sampling or single-thread profiler",
        "misplaces the CPU of a batch's threads); the last line is what no timed call took: the SQS event, planning, the",
        "threads, logs and metrics. The AWS lines include all the work around each call: the values' conversion",
        "(`adapters/dynamo/codec.py`), the request made from what botocore built for the operation's first call "
        "(`adapters/dynamo/calls.py`), the signature and the send (`adapters/dynamo/transport.py`).",
        "Of two runs, the one with the least CPU. The totals here include the timing's own cost and are a little above the",
        "CPU row's.",
        "",
        f"Before: commit {before['commit']}, the last before the efficiency work, measured {before['measured_at']} ({before['how']}):"
        f" {before['cpu_ms_per_task']:.2f} ms per task.",
        "",
        markdown_table(header, _profile_rows(before)),
        "",
        f"After: this run, {after['cpu_ms_per_task']:.2f} ms per task.",
        "",
        markdown_table(header, _profile_rows(after)),
        "",
    ]


def connections_section(conn: dict[str, Any] | None) -> list[str]:
    """Handshakes per webhook for one endpoint at a steady rate over K warm instances (bench.measurement.connections)."""
    if not conn:
        return []
    shown = [
        [f"{r['rate_per_second']:g}/s", r["instances"], r["webhooks"], r["handshakes"], r.get("resent", 0), f"{r['per_webhook']:.3f}", f"{r['model']:.3f}"]
        for r in conn["rows"]
    ]
    return [
        "### Handshakes per webhook at one endpoint",
        "",
        f"`bench/measurement/connections.py`: webhooks to one endpoint arrive as a Poisson process for {conn['simulated_seconds']:g} simulated seconds, each",
        "sent by one of K warm instances chosen at random (SQS hands a batch to whichever is free), each with its own",
        f"connection pools (`hookline.adapters.http.ConnectionPools`, the real webhook client) kept for {conn['keepalive_seconds']:g} s idle",
        "(`HOOKLINE_KEEPALIVE_SECONDS`), over real sockets to a receiver that keeps connections alive, closes one unused for "
        f"{conn.get('receiver_idle_seconds', 0):g} s (the keep-alive timeout of Node's, uvicorn's and Apache's servers, the shortest common one) and",
        "counts the ones it accepts. Only the pools' and the receiver's idle time run on the simulated clock, so the count does not",
        "depend on how busy the machine is. The model: an instance sees the endpoint at rate/K a second, and a connection lives",
        "for the shorter of the two idle times, so a send finds none with probability exp(-min(keep-alive, receiver's) x rate / K).",
        "'resent': sends that met a connection the receiver closed under them, sent once more on a new one.",
        "",
        markdown_table(["rate", "instances", "webhooks", "handshakes", "resent", "per webhook", "model"], shown),
        "",
    ]


def ideal_section(results: Results) -> list[str]:
    rows = ideal_rows(results)
    table = markdown_table(
        ["", "figure", "goal", "met"], [[r["what"], r["figure"], r["goal"], "" if r["met"] is None else ("yes" if r["met"] else "no")] for r in rows]
    )
    return [
        "## Against the ideal",
        "",
        "Each figure beside its ideal or baseline, from this run; the sections below say how each is made and what",
        "moves it, and [What stops the goals not met](#what-stops-the-goals-not-met) says why those are not.",
        "",
        table,
        "",
        *_ideal_mechanisms(results["retry_storm"]["hookline"]),
    ]


def _storm_drain(storm: dict[str, Any]) -> list[str]:
    """How a lease carries the retry storm's backlog after recovery, from this run's figures (bench.scenarios.sim.LeaseHolds)."""
    hold = storm.get("lease_hold_ms") or {}
    per = hold.get("requests_per_lease", 1.0) or 1.0
    held = hold.get("held", 0.0)
    return [
        "- **A lease is a slot, not a request** (`core.planning.under_lease`, `services.delivery.plans.EndpointBatch`): a",
        "  batch's tasks the limiter deferred wait, each on its own thread, for one of the batch's leases; when a request",
        "  under a lease ends with a 2xx, the first of them takes a send time of its own (one conditional write: the",
        "  endpoint's rate holds across instances) and goes under that lease. A failed answer hands nothing on, and the",
        "  tasks still waiting when the batch's last lease ends are deferred as planned. In the retry storm (this run,",
        f"  `bench.scenarios.sim.LeaseHolds`), a lease carried {per:.1f} requests and was held {held:.0f} ms: the grant's write, and on the",
        f"  retry lane the bodies' read and the claim, before its first request ({hold.get('grant', 0):.0f} ms), the wait for that",
        f"  request's paced send time ({hold.get('pacing', 0):.0f} ms), the requests ({hold.get('request', 0):.0f} ms), the waits between one",
        f"  request's end and the next one's send ({hold.get('hand_on', 0):.0f} ms: the next send time's write and claim, and the",
        f"  pace), the wait for the batch's slowest answer ({hold.get('batch', 0):.0f} ms) and the give-back's write"
        f" ({hold.get('give_back', 0):.0f} ms). The pace is what binds now: requests leave 1.1/rate apart (so network jitter cannot",
        "  squeeze 101 into a second), 500 s / 0.91 = 550 s for the backlog, and the probe comes",
        f"  {storm.get('first_success_after_recovery_s', 0):g} s after the recovery. Before this release a lease carried one request and went",
        "  back with its batch's, and the simulator also held it through the invocation's start: 1.49 of the ideal.",
        "  The worker holds a waiting task at most `core.config.hand_on_seconds` after its plan, so the last request and",
        "  its record end within the function's timeout.",
    ]


def _ideal_mechanisms(storm: dict[str, Any]) -> list[str]:
    return [
        "### The mechanisms",
        "",
        "- **Lanes** (`core.planning`): first attempts arrive on the delivery queue and everything else on the retry",
        "  queue, each drained by its own function (reserved concurrency 30 and 20). An endpoint whose answers hold a",
        "  worker for long (its latest failure a timeout, its breaker not closed, or a latency baseline of 500 ms or",
        "  more) is served from the retry lane only: on the first lane its tasks are deferred to the retry queue at",
        "  once, using no attempt. A timing-out endpoint costs the first lane one request instead of one per event",
        "  until its breaker opens, and a slow receiver's requests never share an invocation with first attempts. The",
        "  retry function takes batches of 20 (gathered for at most a second), because what it serves mostly waits.",
        "- **Timeouts trip sooner** (`core.breaker`): five timeouts in a row open the breaker (ten failures of other kinds).",
        "- **Probing every 5 minutes** (`core.breaker.reopen_until`): a failed probe reopens the breaker until 300 s after",
        "  it was taken, however long the outage (the first probe comes 60 s after opening). A receiver that stays down",
        "  gets at most 12 probes an hour, and a recovered one is probed within 300 s of the last failed probe (a cooldown",
        "  growing with the outage, a fifth of it up to an hour, put the first success up to an hour after a long",
        "  outage; scenario 3c). A probe counts in the pace: the next grant comes one interval after it.",
        "- **Adaptive concurrency** (`core.adaptive`, table-tested in `tests/unit/test_adaptive.py`): the gradient rule",
        "  of Netflix's concurrency-limits. An endpoint starts at 5 requests in flight; while its latency stays within",
        "  1.15x of its baseline (a baseline under 50 ms counts as 50 ms: below that, latency moves with jitter, not",
        "  load) and it is kept busy (half the limit in flight, two answers or more in the batch, one at a limit of 1), the limit rises by",
        "  about a fifth of its square root per round trip, up to `max_concurrency` (now a ceiling, default 50, with",
        "  `rate_limit_per_second` a ceiling of 50/s); at the first sign of queueing (past 1.15x) it stops growing, past",
        "  1.5x it is lowered in proportion, and a timeout, 429, 502, 503 or 504 halves it, at most once per round",
        "  trip. The state is in the limiter item and is learned when a batch gives its leases back, so it costs no",
        "  write of its own; `GET /v1/endpoints/{id}` shows it under `health.concurrency`.",
        "- **Overlapping batches** (`core.ratelimit.batch_share`): a batch holds its leases until its last request ends,",
        "  paced ones included, so with a limit of 8 or more one batch takes at most half of it and two batches overlap",
        "  instead of taking turns each holding every slot (the retry storm's pace after recovery: 48/s -> about 70/s at a limit of 10);",
        "  at the endpoint's ceiling, with some of it taken, a batch takes half of what is free, at least one: its leases",
        "  then carry its tasks one after another (below), and the batches after it find some too.",
        *_storm_drain(storm),
        "",
        "### What stops the goals not met",
        "",
        "- **The retry storm's drain after its 10-minute outage.** The drain counts from the receiver's recovery, and",
        "  the backlog moves only once a probe has found it back: the breaker opened about a second into the outage",
        "  and probes a minute later, then every 5 minutes (61, 361, 661 s), so about a minute of the drain is the wait",
        "  for the probe at 661 s (the first success after recovery, above). Probing sooner than every 5 minutes would",
        "  put more than 12 probes in an hour of a receiver that stays down (scenario 3c and `core.breaker` have the",
        "  arithmetic); a cooldown growing with the outage probed this one at 622 s, and a 6-hour one an hour late.",
        "- **One invocation's throughput at batch 100.** A task waits on three AWS calls in a row (the state read, with",
        "  the bodies beside it; the grant; the record, with its endpoint's give-back beside the record of its last task),",
        "  so at batch 10 an invocation reaches the goal over the stand-ins. At batch 100 a hundred threads share Python's",
        "  interpreter lock: the services' own CPU (the stand-ins' column) runs one thread at a time, and it is what",
        "  holds the ratio down. The real handler adds boto3's request building and the HTTP client (the CPU row of",
        "  the goal table), and a 512 MB Lambda has 512/1,769 of a vCPU, so ten deliveries' CPU alone takes a good",
        "  part of the receiver's 100 ms.",
        "",
    ]
