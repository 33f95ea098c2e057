"""One delivery invocation's throughput: over moto server, and over the stand-ins at AWS's latency."""

from __future__ import annotations

from bench.report.results import Throughput
from bench.report.tables import markdown_table


def throughput_section(tp: Throughput, plots: dict[str, str], rel: str, made: str) -> list[str]:
    rows = [
        [
            b,
            r["elapsed_s"],
            r["deliveries_per_second"],
            r["ideal_per_second"],
            r["ratio_to_ideal"],
            r["overhead_ms_per_delivery"],
            r["handler_cpu_ms_per_delivery"],
            r["aws_calls_per_delivery"],
            r["moto_ms_per_call"],
            r.get("runs_discarded", "(not counted)"),
        ]
        for b, r in tp["batches"].items()
    ]
    return [
        "## Delivery throughput of one invocation",
        "",
        f"The real delivery handler takes one batch (median of {tp['runs']} runs) from moto server (in a process of its own)",
        f"and posts to a local receiver that answers in {tp['receiver_latency_ms']:.0f} ms; each task goes to its own endpoint,",
        "so the ideal is every request in flight at once (batch size / receiver latency). A batch of 100 needs",
        "`HOOKLINE_DELIVERY_BATCH_SIZE=100` (and a batching window, which the SQS event source allows above 10).",
        "A run that does not send its whole batch (on a busy machine an endpoint's adaptive limit can take moto's",
        "slowness for the receiver's and defer a task) measures no whole batch: it is discarded, its leftovers purged,",
        "and another runs (the last column counts them).",
        "",
        markdown_table(
            [
                "batch",
                "elapsed (s)",
                "deliveries/s",
                "ideal/s",
                "ratio to ideal",
                "overhead per delivery (ms)",
                "handler CPU per delivery (ms)",
                "AWS calls per delivery",
                "moto ms per call",
                "runs discarded",
            ],
            rows,
        ),
        "",
        "The handler's requests do run side by side; what it waits on is its AWS calls, and moto server answers",
        "them one at a time in Python: its per-call latency grows with the batch's concurrency (last column). That is",
        "the emulator's figure. The CPU column counts this process's threads (boto3, plain HTTP, logging, and the local",
        "receiver's own server threads, so it is an upper bound) at full speed; a 512 MB Lambda has 512/1,769 of a vCPU.",
        "",
        *stand_in_section(tp, plots, rel, made),
    ]


def stand_in_section(tp: Throughput, plots: dict[str, str], rel: str, made: str) -> list[str]:
    """The design's figure: the same handler over the stand-ins, each AWS call waiting as a round trip does."""
    stand_in = tp.get("stand_in", {})
    return [
        "### The design's figure: AWS at 5 ms a call, answered side by side",
        "",
        "`bench/measurement/standin.py`: the same handler (`hookline.entrypoints.delivery.handle_batch`) over the in-memory fakes of",
        "every AWS port (held to the DynamoDB adapters' contract by `tests/fakes/contracts.py`), each call first waiting",
        f"{stand_in.get('latency_ms', 5):g} ms without holding a lock, as a DynamoDB round trip does; the receiver answers in"
        f" {stand_in.get('receiver_latency_ms', 100):g} ms (median of {stand_in.get('runs', 0)} runs). The calls in a row on a task's critical path are measured, not",
        "counted by hand: how much longer a batch takes per millisecond of call latency (0 ms against 20 ms). Left out:",
        "boto3's and the HTTP client's own work (the CPU column above has it).",
        "",
        markdown_table(
            ["batch", "elapsed (s)", "deliveries/s", "ideal/s", "ratio to ideal", "calls in a row", "AWS calls per delivery", "services CPU per delivery (ms)"],
            [
                [
                    b,
                    r["elapsed_s"],
                    r["deliveries_per_second"],
                    r["ideal_per_second"],
                    r["ratio_to_ideal"],
                    r["sequential_calls"],
                    r["aws_calls_per_delivery"],
                    r["services_cpu_ms_per_delivery"],
                ]
                for b, r in stand_in.get("batches", {}).items()
            ],
        ),
        "",
        "At batch 10 the calls in a row are: read the batch's endpoints, breakers and limiters in one request (on the",
        "first lane the bodies are read beside it), write each endpoint's grant, then record the attempt, with the",
        "endpoint's give-back (its statistics on it) written beside the record of its last task to have its answer",
        "(hookline.services.delivery.plans.EndpointBatch). At batch 100 a hundred threads take turns at Python's",
        "interpreter lock, which adds waits of its own: see 'What stops the goals not met' at the top.",
        "",
        f"![Throughput of one invocation]({rel}/{plots['throughput']})",
        "",
        made,
    ]
