"""The simulated scenarios' sections (outage isolation, retry storm, slow subscriber, capacity-limited receiver, recovery
after a long outage, flaky receivers): each one's words are data (`ScenarioText`), and one template renders them around the run's figures."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bench.report.plots import FLAKY_TABLE_CUMULATIVE
from bench.report.results import Results, Scenario
from bench.report.tables import compare, markdown_table


@dataclass(frozen=True)
class ScenarioText:
    """What a scenario's section says: its heading, what was run, the figures compared (key, label), what they mean,
    and its plot (the `plots` key and the image's alt text), if it has one."""

    key: str
    heading: str
    brief: tuple[str, ...]
    figures: tuple[tuple[str, str], ...]
    notes: tuple[str, ...] = ()
    plot: tuple[str, str] | None = None
    lead: Callable[[Scenario], list[str]] | None = None  # a table shown before the comparison


def flaky_by_attempt(scenario: Scenario) -> list[str]:
    """Cumulative success by attempt, hookline and the baseline beside the table the scenario was specified with."""
    rows = [
        [
            k + 1,
            f"{scenario['hookline']['cumulative_success_by_attempt'][k]:.2%}",
            f"{scenario['baseline']['cumulative_success_by_attempt'][k]:.2%}",
            f"{FLAKY_TABLE_CUMULATIVE[k]:.2%}" if k < len(FLAKY_TABLE_CUMULATIVE) else "",
        ]
        for k in range(8)
    ]
    return [markdown_table(["attempt", "hookline", "naive baseline", "the scenario's specified table"], rows), ""]


SCENARIOS = (
    ScenarioText(
        key="outage_isolation",
        heading="1. Outage isolation",
        brief=("3,200 endpoints, 50 concurrent workers, 50 events/s; 200 endpoints time out for 40 minutes.",),
        figures=(
            ("healthy_before_p50_s", "healthy latency before the outage, p50 (s)"),
            ("healthy_before_p99_s", "healthy latency before the outage, p99 (s)"),
            ("healthy_during_p50_s", "healthy latency during the outage, p50 (s)"),
            ("healthy_during_p99_s", "healthy latency during the outage, p99 (s)"),
            ("healthy_during_max_s", "healthy latency during the outage, max (s)"),
            ("worker_seconds_failing", "worker-seconds spent on failing endpoints"),
            ("requests_failing", "requests sent to failing endpoints"),
            ("failed_requests_failing", "of them failed (the outage's own cost)"),
            ("healthy_p99_during_vs_before", "healthy p99 during / before"),
            ("healthy_undelivered", "healthy events never delivered"),
        ),
        plot=("outage", "Healthy p99 latency over time"),
    ),
    ScenarioText(
        key="retry_storm",
        heading="2. Retry storm",
        brief=("One endpoint (limit 100 requests/s, true capacity 150/s) answers 503 for 10 minutes while 50,000 events queue for it.",),
        figures=(
            ("limit_rps", "configured limit (requests/s)"),
            ("peak_rps_first_minute", "peak requests in one second, first minute after recovery"),
            ("peak_rps_overall_after", "peak requests in one second, any time after recovery"),
            ("attempts_per_event", "attempts per event"),
            ("requests_429", "requests over the receiver's capacity"),
            ("requests_during_outage", "requests to the endpoint during its outage"),
            ("first_success_after_recovery_s", "first success after recovery (s)"),
            ("drain_seconds", "time to drain the backlog after recovery (s)"),
            ("ideal_drain_seconds", "ideal: the backlog at the limit (s)"),
            ("delivered_fraction", "delivered"),
        ),
        notes=(
            "hookline's breaker opens during the outage and probes a minute later, then every 5 minutes, so its backlog",
            "starts moving at the first probe after recovery, then at the endpoint's limit and adaptive",
            "concurrency; the baseline's fixed 10 s retries hit the recovering receiver as a herd.",
        ),
        plot=("storm", "Requests per second after recovery"),
    ),
    ScenarioText(
        key="slow_subscriber",
        heading="3. Slow subscriber",
        brief=("One subscriber answers in 900 ms and receives 4,000 events/min; 49 others answer in 15 ms and share another 4,000/min.",),
        figures=(
            ("others_p50_s", "the 49 others' latency, p50 (s)"),
            ("others_p99_s", "the 49 others' latency, p99 (s)"),
            ("others_max_s", "the 49 others' latency, max (s)"),
            ("slow_p50_s", "the slow one's latency, p50 (s)"),
            ("slow_delivered", "the slow one's deliveries in the run"),
            ("slow_backlog_peak", "the slow one's peak backlog"),
            ("slow_backlog_end", "the slow one's backlog at the end"),
            ("slow_backlog_end_share", "its backlog at the end / what it was sent"),
            ("others_alone_p99_s", "the 49 others' p99 with no slow subscriber (s)"),
        ),
        notes=(
            "The slow endpoint starts at 5 in flight and earns up to its ceiling of 50 as its latency holds steady;",
            "with a 900 ms baseline it is served from the retry lane only, so its requests never share an invocation",
            "with the others' first attempts.",
        ),
        plot=("slow", "Backlogs over time"),
    ),
    ScenarioText(
        key="capacity_limited",
        heading="3b. A capacity-limited receiver",
        brief=(
            "One receiver serves 8 requests at a time and queues the rest (its latency climbs with the requests in flight: 100 ms",
            "up to 8, then in proportion); past 16 in flight its queue overflows (503). It is sent 150 events/s for 5 minutes,",
            "more than it can take (at most 80/s), under the highest ceilings an endpoint may have (500/s, 100 in flight), so",
            "only adaptive concurrency stands between it and overload.",
        ),
        figures=(
            ("capacity_in_flight", "its capacity (requests in flight)"),
            ("peak_in_flight", "most requests it had in flight"),
            ("requests_over_capacity", "requests that arrived past its capacity (503)"),
            ("throughput_rps", "deliveries per second"),
            ("delivered_fraction", "delivered"),
            ("attempts_per_event", "attempts per event"),
        ),
    ),
    ScenarioText(
        key="recovery",
        heading="3c. Recovery after a long outage",
        brief=(
            "One endpoint times out on every request for 6 hours (the seeds' long outage), then answers again; its producer",
            "sends it an event every 20 s throughout. Run again with the receiver back the moment after the last failed probe",
            "reached it: the worst phase.",
        ),
        figures=(
            ("first_success_after_recovery_s", "first success after the receiver is back (s)"),
            ("first_success_worst_phase_s", "the same, back just after a failed probe (s)"),
            ("probes_per_hour_while_down", "most probes in any hour while down"),
            ("probes_while_down", "probes while down"),
            ("requests_while_down", "requests while down (the probes and those that opened the breaker)"),
            ("delivered_fraction", "delivered"),
        ),
        notes=(
            "hookline's breaker lets one probe through a minute after it opens, then one 5 minutes after the last was taken",
            "(`core.breaker.reopen_until`), however long the outage: at most 3600 / 300 = 12 an hour, one per endpoint",
            "whatever its backlog. A receiver back just after a failed probe waits for the next one: 300 s, plus the time",
            "the endpoint's next task takes to come back once the breaker is due, plus the request itself, so the worst",
            "phase is just over 300 s, never under it. No schedule does better: a gap over 300 s between probes breaks",
            '"probed within 5 minutes" for a recovery inside it, and gaps under 300 s kept up for an hour put 13 in it.',
            "The naive baseline retries every task every 10 s: its first success comes at once, after thousands of",
            "requests to a receiver that is down, and most events run out of attempts.",
        ),
    ),
    ScenarioText(
        key="flaky_receivers",
        heading="4. Flaky receivers",
        brief=("50,000 webhooks to 100 endpoints; each attempt fails (500) with probability 0.3.",),
        lead=flaky_by_attempt,
        figures=(
            ("success_final", "delivered in the end"),
            ("attempts_per_event", "attempts per event"),
            ("delivery_p50_s", "delivery latency p50 (s)"),
            ("delivery_p99_s", "delivery latency p99 (s)"),
        ),
        notes=(
            "The specified table's last row (100 %) counts the DLQ as the end; with independent 30 % failures the success after",
            "six attempts is 1 - 0.3^6 = 99.93 %. hookline keeps trying up to 12 attempts over three days.",
        ),
        plot=("flaky", "Cumulative success by attempt"),
    ),
)


def scenario_section(text: ScenarioText, scenario: Scenario, plots: dict[str, str], rel: str, made: str) -> list[str]:
    """One scenario's section: its words around this run's figures, hookline beside the naive baseline."""
    notes = [*text.notes, ""] if text.notes else []
    plot = [f"![{text.plot[1]}]({rel}/{plots[text.plot[0]]})", ""] if text.plot else []
    lead = text.lead(scenario) if text.lead else []
    return [f"## {text.heading}", "", *text.brief, "", *lead, compare(scenario, list(text.figures)), "", *notes, *plot, made, ""]


def scenario_sections(results: Results, plots: dict[str, str], rel: str, made: str) -> list[str]:
    """The scenarios' sections, in the order the document shows them."""
    found: dict[str, Scenario] = {
        "outage_isolation": results["outage_isolation"],
        "retry_storm": results["retry_storm"],
        "slow_subscriber": results["slow_subscriber"],
        "capacity_limited": results["capacity_limited"],
        "recovery": results["recovery"],
        "flaky_receivers": results["flaky_receivers"],
    }
    return [line for text in SCENARIOS for line in scenario_section(text, found[text.key], plots, rel, made)]
