"""Benchmark scenarios from the seeds, each run for hookline and the naive baseline.

Every scenario takes `scale` (1.0 = the seed's numbers; tests use ~0.02) and a
seed, and returns {"hookline": {...}, "baseline": {...}, "ratio": {...}} with
plain numbers, plus a small time series (`series`) for plotting later.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable
from typing import Any

from bench.scenarios.sim import Delivery, Endpoint, Hookline, Receiver, Sim, count_arrivals, make, percentile, poisson_arrivals, sample_every

MODES = ("hookline", "baseline")
Result = dict[str, Any]


def _ratio(results: dict[str, Result], keys: list[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for k in keys:
        h, b = results["hookline"].get(k), results["baseline"].get(k)
        if isinstance(h, int | float) and isinstance(b, int | float) and b:
            out[k] = round(h / b, 4)
    return out


def _both(run: Callable[[str], Result], keys: list[str]) -> Result:
    results = {mode: run(mode) for mode in MODES}
    return {**results, "ratio": _ratio(results, keys)}


def _latencies(sim: Sim, group: str, start: float, end: float, horizon: float, unfinished: list[float]) -> list[float]:
    """Delivery latencies of `group` events created in [start, end); unfinished ones count as (horizon - created)."""
    out = [f - c for c, f, _, g, ok in sim.metrics.done if g == group and ok and start <= c < end]
    out += [horizon - c for c in unfinished if start <= c < end]
    return out


def _stats(prefix: str, values: list[float]) -> dict[str, float]:
    return {
        f"{prefix}_p50_s": round(percentile(values, 50), 4),
        f"{prefix}_p99_s": round(percentile(values, 99), 4),
        f"{prefix}_max_s": round(max(values, default=0.0), 4),
    }


def _unfinished(system: Delivery, group: str) -> list[float]:
    return [t.created for t in system.inflight() if t.endpoint.group == group]


# --- 1. outage isolation -------------------------------------------------------------------


def outage_isolation(scale: float = 1.0, seed: int = 1) -> Result:
    """3,200 endpoints, 50 workers; 200 endpoints time out for 40 minutes.

    Traffic: 50 events/s spread uniformly over the endpoints (scaled with the
    endpoint and worker counts, so the per-endpoint rate stays the same).
    """
    n = max(32, round(3200 * scale))
    failing = max(2, n // 16)
    workers = max(3, round(50 * scale))
    rate = 50.0 * n / 3200
    before, outage, after = 600.0, 2400.0, 1200.0
    t0, t1, t_end = before, before + outage, before + outage + after
    horizon = t_end + 1800.0

    def run(mode: str) -> Result:
        sim = Sim(seed)
        endpoints = [Endpoint(i, "failing" if i < failing else "healthy", Receiver(median_s=0.08)) for i in range(n)]
        for ep in endpoints[:failing]:
            ep.receiver.windows.append((t0, t1, "timeout"))
        system = make(mode, sim, workers)
        poisson_arrivals(sim, system, endpoints, rate, 0.0, t_end)
        sample_every(sim, 60.0, t_end, lambda: {"backlog_healthy": system.backlog("healthy"), "backlog_failing": system.backlog("failing")})
        sim.run(until=horizon)
        unfinished = _unfinished(system, "healthy")
        res: Result = {
            **_stats("healthy_before", _latencies(sim, "healthy", 0.0, t0, horizon, unfinished)),
            **_stats("healthy_during", _latencies(sim, "healthy", t0, t1, horizon, unfinished)),
            **_stats("healthy_after", _latencies(sim, "healthy", t1, t_end, horizon, unfinished)),
            "worker_seconds_failing": round(sim.metrics.busy["failing"], 1),
            "requests_failing": sim.metrics.requests["failing"],
            "failed_requests_failing": sim.metrics.failed_requests["failing"],  # the requests the outage itself cost
            "healthy_undelivered": len(unfinished),
        }
        per_minute: dict[int, list[float]] = {}
        for c, f, _, g, ok in sim.metrics.done:
            if g == "healthy" and ok:
                per_minute.setdefault(int(c // 60), []).append(f - c)
        res["series"] = [
            {"minute": m, "healthy_p99_s": round(percentile(v, 99), 3), "backlog_healthy": s["backlog_healthy"]}
            for (m, v), s in zip(sorted(per_minute.items()), sim.metrics.samples, strict=False)
        ]
        return res

    result = _both(run, ["healthy_during_p50_s", "healthy_during_p99_s", "healthy_during_max_s", "worker_seconds_failing", "requests_failing"])
    for mode in MODES:
        r = result[mode]
        r["healthy_p99_during_vs_before"] = round(r["healthy_during_p99_s"] / r["healthy_before_p99_s"], 4) if r["healthy_before_p99_s"] else 0.0
    return result


# --- 2. retry storm ------------------------------------------------------------------------


def retry_storm(scale: float = 1.0, seed: int = 2) -> Result:
    """One endpoint returns 503 for 10 minutes while 50,000 events queue for it.

    Its configured limit is 100 requests/s (scaled), its true capacity 1.5x that
    (beyond it, 429). Measured: the most requests it sees in any one second of
    the first minute after recovery, attempts per event, time to drain.
    """
    events = max(200, round(50_000 * scale))
    limit = max(2.0, 100.0 * scale)
    workers = max(3, round(50 * scale))
    down = 600.0
    horizon = down + 6 * 3600.0

    def run(mode: str) -> Result:
        sim = Sim(seed)
        ep = Endpoint(0, "storm", Receiver(median_s=0.05, windows=[(0.0, down, "503")], capacity_rps=1.5 * limit), rate=limit, max_concurrency=10)
        system = make(mode, sim, workers)
        count_arrivals(sim, system, [ep], events, 0.0, down)
        sim.run(until=horizon)
        per_second = ep.receiver.per_second
        first_minute = [per_second.get(s, 0) for s in range(int(down), int(down) + 60)]
        finished = [f for _, f, _, _, _ in sim.metrics.done]
        delivered = sum(1 for d in sim.metrics.done if d[4])
        n = max(1, len(sim.metrics.done))
        return {
            "events": events,
            "limit_rps": limit,
            "peak_rps_first_minute": max(first_minute, default=0),
            "peak_rps_overall_after": max((v for s, v in per_second.items() if s >= down), default=0),
            "attempts_per_event": round(sum(d[2] for d in sim.metrics.done) / n, 3),
            "requests_429": sum(max(0, v - ep.receiver.capacity_rps) for v in per_second.values()) if ep.receiver.capacity_rps else 0,
            "delivered_fraction": round(delivered / events, 4),
            "drain_seconds": round(max(finished, default=down) - down, 1),
            "ideal_drain_seconds": round(events / limit, 1),  # the backlog at the endpoint's limit, from the moment it is back
            "drain_vs_ideal": round((max(finished, default=down) - down) / (events / limit), 4),
            "requests_during_outage": sum(v for sec, v in per_second.items() if sec < down),
            "peak_vs_limit": round(max((v for s, v in per_second.items() if s >= down), default=0) / limit, 4),
            "first_success_after_recovery_s": round(min((f for _, f, _, _, ok in sim.metrics.done if ok), default=down) - down, 1),
            # hookline's leases at the endpoint, per request: how long each was held and why (bench.scenarios.sim.LeaseHolds)
            "lease_hold_ms": system.holds["storm"].mean_ms() if isinstance(system, Hookline) else None,
            "series": [{"t": s, "rps": sum(per_second.get(x, 0) for x in range(s, s + 10)) / 10} for s in range(int(down) - 60, int(down) + 600, 10)],
        }

    return _both(run, ["peak_rps_first_minute", "attempts_per_event", "drain_seconds", "delivered_fraction"])


# --- 3. slow subscriber ----------------------------------------------------------------------


def slow_subscriber(scale: float = 1.0, seed: int = 4) -> Result:
    """50 endpoints; one answers in 900 ms and gets 4,000 events/min, 49 answer in 15 ms.

    The 49 others share another 4,000 events/min. 10 workers (scaled). Arrivals
    last 10 minutes; the run stops 10 minutes later.
    """
    slow_rate = 4000.0 / 60 * scale
    others_rate = 4000.0 / 60 * scale
    workers = max(2, round(10 * scale))
    window = 600.0
    horizon = window + 600.0

    def run(mode: str, with_slow: bool = True) -> Result:
        sim = Sim(seed)
        slow = Endpoint(0, "slow", Receiver(median_s=0.9, sigma=0.1))
        others = [Endpoint(i, "other", Receiver(median_s=0.015, sigma=0.2)) for i in range(1, 50)]
        system = make(mode, sim, workers)
        if with_slow:
            poisson_arrivals(sim, system, [slow], slow_rate, 0.0, window)
        poisson_arrivals(sim, system, others, others_rate, 0.0, window)
        sample_every(sim, 30.0, horizon, lambda: {"slow_backlog": system.backlog("slow"), "others_backlog": system.backlog("other")})
        sim.run(until=horizon)
        others_lat = _latencies(sim, "other", 0.0, window, horizon, _unfinished(system, "other"))
        slow_lat = _latencies(sim, "slow", 0.0, window, horizon, [])
        sent = sum(1 for _ in slow_lat) + system.backlog("slow")
        return {
            **_stats("others", others_lat),
            "slow_p50_s": round(percentile(slow_lat, 50), 3),
            "slow_delivered": len(slow_lat),
            "slow_sent": sent,
            "slow_backlog_end": system.backlog("slow"),
            "slow_backlog_end_share": round(system.backlog("slow") / sent, 4) if sent else 0.0,
            "slow_backlog_peak": max((s["slow_backlog"] for s in sim.metrics.samples), default=0),
            "series": [{"t": s["t"], "slow_backlog": s["slow_backlog"], "others_backlog": s["others_backlog"]} for s in sim.metrics.samples],
        }

    result = _both(run, ["others_p50_s", "others_p99_s", "others_max_s", "slow_backlog_end"])
    # The reference for isolation: the same 49 others with no slow subscriber at all.
    alone = run("hookline", with_slow=False)
    result["hookline"]["others_alone_p99_s"] = alone["others_p99_s"]
    result["hookline"]["others_p99_vs_alone"] = round(result["hookline"]["others_p99_s"] / alone["others_p99_s"], 4) if alone["others_p99_s"] else 0.0
    return result


# --- 3b. a capacity-limited receiver -------------------------------------------------------


def capacity_limited(scale: float = 1.0, seed: int = 5) -> Result:
    """One receiver that serves 8 requests at a time and queues the rest: its latency climbs with the requests
    in flight (100 ms up to 8, then in proportion), and past 16 in flight its queue overflows (503).

    It is sent 150 events/s for 5 minutes, more than it can take (16 / 0.2 s = 80/s at most), under the highest
    ceilings an endpoint may have (500/s, 100 in flight), so only adaptive concurrency stands between it and overload. Measured: the most requests it ever had in flight against its capacity, how
    many arrived over capacity, and its throughput against what it can serve.
    """
    window = max(20.0, 300.0 * scale)  # the rate stays 150/s at any scale: only the run is shorter
    events = round(150 * window)
    workers = 50
    capacity, knee = 16, 8

    def run(mode: str) -> Result:
        sim = Sim(seed)
        receiver = Receiver(median_s=0.1, sigma=0.1, knee=knee, capacity=capacity)
        ep = Endpoint(0, "limited", receiver, rate=500.0, max_concurrency=100)  # the producer set the highest ceilings
        system = make(mode, sim, workers)
        count_arrivals(sim, system, [ep], events, 0.0, window)
        sim.run(until=window + 3 * 3600.0)
        done = [d for d in sim.metrics.done if d[4]]
        last = max((d[1] for d in done), default=window)
        return {
            "capacity_in_flight": capacity,
            "peak_in_flight": receiver.peak_in_flight,
            "requests_over_capacity": receiver.over_capacity,
            "delivered_fraction": round(len(done) / events, 4),
            "throughput_rps": round(len(done) / last, 1) if last else 0.0,
            "attempts_per_event": round(sum(d[2] for d in sim.metrics.done) / max(1, len(sim.metrics.done)), 3),
        }

    return _both(run, ["peak_in_flight", "requests_over_capacity", "throughput_rps"])


# --- 3c. recovery after a long outage ----------------------------------------------------


def _most_in_an_hour(times: list[float]) -> int:
    """The most of `times` in any hour [t, t + 3600)."""
    ordered = sorted(times)
    return max((bisect.bisect_left(ordered, t + 3600.0) - i for i, t in enumerate(ordered)), default=0)


def recovery(scale: float = 1.0, seed: int = 6) -> Result:
    """One endpoint down (every request times out) for 6 hours, then up: the seeds' long outage (a 6-hour ceiling on
    the backoff, 004). Its producer keeps sending an event every 20 s throughout (scaled).

    Measured: how long after the receiver is back its first delivery succeeds (`first_success_after_recovery_s`),
    and the most probes it got in any hour while down (`probes_per_hour_while_down`: requests the breaker let through
    to see whether it was back; the baseline has no breaker, so every request it sends while down is one). The 6-hour
    figure depends on where the recovery falls between two probes, so the run is made again with the receiver back
    the moment after the last failed probe reached it (the worst phase: `first_success_worst_phase_s`), the same
    run until then.
    """
    down = 6 * 3600.0
    rate = 0.05 * max(scale, 0.02)

    def once(mode: str, up: float) -> Result:  # the receiver down until `up`
        sim = Sim(seed)
        ep = Endpoint(0, "down", Receiver(median_s=0.1, windows=[(0.0, up, "timeout")]))
        system = make(mode, sim, 10)
        poisson_arrivals(sim, system, [ep], rate, 0.0, up + 3600.0)
        sim.run(until=up + 2 * 3600.0)
        first = min((f for _, f, _, _, ok in sim.metrics.done if ok and f >= up), default=math.inf)
        while_down = (
            [t for t, g in sim.metrics.probes if t < up]
            if mode == "hookline"
            else [float(s) for s, n in ep.receiver.per_second.items() if s < up for _ in range(n)]
        )
        return {
            "last_probe_before_recovery_s": max(while_down, default=0.0),
            "first_success_after_recovery_s": round(first - up, 1),
            "probes_per_hour_while_down": _most_in_an_hour(while_down),
            "probes_while_down": len(while_down),
            "requests_while_down": sum(n for s, n in ep.receiver.per_second.items() if s < up),
            "delivered_fraction": round(sum(1 for d in sim.metrics.done if d[4]) / max(1, len(sim.metrics.done) + len(system.inflight())), 4),
        }

    def run(mode: str) -> Result:
        result = once(mode, down)
        worst = once(mode, result.pop("last_probe_before_recovery_s") + 0.001)
        return {"down_seconds": down, **result, "first_success_worst_phase_s": worst["first_success_after_recovery_s"]}

    return _both(run, ["first_success_after_recovery_s", "probes_per_hour_while_down", "requests_while_down"])


# --- 4. flaky receivers ----------------------------------------------------------------------


def flaky_receivers(scale: float = 1.0, seed: int = 3, max_attempts: int = 12) -> Result:
    """50,000 webhooks over 10 minutes to 100 endpoints, each attempt failing (500) with probability 0.3."""
    events = max(200, round(50_000 * scale))
    workers = max(3, round(50 * scale))
    window = 600.0

    def run(mode: str) -> Result:
        sim = Sim(seed)
        endpoints = [Endpoint(i, "flaky", Receiver(median_s=0.1, fail_prob=0.3)) for i in range(100)]
        system = make(mode, sim, workers)
        count_arrivals(sim, system, endpoints, events, 0.0, window)
        sim.run()
        done = sim.metrics.done
        total = max(1, len(done))
        by_attempt = [round(sum(1 for d in done if d[4] and d[2] <= k) / total, 6) for k in range(1, max_attempts + 1)]
        lat = [f - c for c, f, _, _, ok in done if ok]
        return {
            "events": len(done),
            "success_final": by_attempt[-1],
            "cumulative_success_by_attempt": by_attempt,
            "attempts_per_event": round(sum(d[2] for d in done) / total, 3),
            "delivery_p50_s": round(percentile(lat, 50), 2),
            "delivery_p99_s": round(percentile(lat, 99), 2),
            "last_delivery_s": round(max((d[1] for d in done), default=0.0), 1),
        }

    return _both(run, ["success_final", "attempts_per_event", "delivery_p99_s"])


ALL: dict[str, Callable[..., Result]] = {
    "outage_isolation": outage_isolation,
    "retry_storm": retry_storm,
    "slow_subscriber": slow_subscriber,
    "capacity_limited": capacity_limited,
    "recovery": recovery,
    "flaky_receivers": flaky_receivers,
}
