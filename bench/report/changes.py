"""Why figures moved between regenerations, newest first: a figure that moves for any other reason is news."""

from __future__ import annotations

# Why figures moved between regenerations, newest first: a figure that moves for any other reason is news.
CHANGES = (
    (
        "2026-12-07",
        "Two runs of code that changed on measured paths without a cost lever: one HTTP/1.1 reader for the webhook "
        "client and the table's transport (`adapters/http1.py`), every wait on a webhook's socket bounded by the "
        "request's deadline (a line is read one wait at a time: about 10 us more CPU an answer, measured apart), and a "
        "give-back that fails counted (`LeasesNotGivenBack`). 1 KB, 98.5 %, batched: $4.93 and $4.87 per million (the "
        "last session's runs $4.61 and $4.67), fan-out 5 $4.22 and $4.15, 16 KB $10.29 and $10.27, provisioned $2.90 and "
        "$2.86. What rose is the lost conditional writes ($0.31 -> $0.54 and $0.48 at 1 KB) and the CPU (3.09 -> 4.25 and "
        "3.81 ms), and the machine, not the code, moved them: the profile's lines rose alike, its last line (the "
        "handler's own Python, unchanged) 1.50 -> 1.91 and 1.82 ms, and the cost paths of the last session's commit and "
        "of this one, run in turn on the same minutes, lost 0.59 and 0.73 against 0.58 and 0.69 writes per 1 KB attempt "
        "(the limiter's races lengthen with every call). AWS calls in a row 3.1 and 3 (goal 3): a figure read off wall "
        "time over the stand-ins, whose path this change leaves as it was. Every cost total of the two runs within 1.5 % "
        "of the other. After these runs, a repeated event request's copies of its unattempted deliveries wait "
        "HOOKLINE_REPEAT_REQUEUE_DELAY_SECONDS in the queue: ingest sends the same SendMessageBatch, each entry's "
        "DelaySeconds 0 for a new event's tasks as before, no call or byte more.",
    ),
    (
        "2026-12-06 (last)",
        "Two more runs of the code after one fix no bench path reaches: adaptive concurrency no longer divides by a "
        "short latency of 0 (durations are whole milliseconds, so a receiver answering within one read 0, and a new "
        "endpoint's first give-back raised; local mode's loopback receivers, not the bench's, whose first answers to a "
        "new endpoint take a millisecond or more: every measured path gives back each batch's leases). 1 KB, 98.5 %, "
        "batched: $4.61 and $4.67 per million (the night's two runs $4.56 and $4.58), fan-out 5 $3.90 and $3.96, 16 KB "
        "$10.06 and $10.29, provisioned $2.74 and $2.77; lost conditional writes 0.38 and 0.47 per 1 KB attempt (0.29 "
        "and 0.36), reads 2.61 and 2.69 RRU. Handler CPU 3.27 and 3.09 ms. New: the goal table is followed by what "
        "each cost row carries above its least, line by line (`bench.models.goals.above_least`). Every cost total of the two "
        "runs within 2.3 % of the other.",
    ),
    (
        "2026-12-06 (night)",
        "Fewer reads (an efficiency goal), and what a lost conditional write costs. A breaker or limiter save that loses "
        "the race asks for the item that beat it (`ReturnValuesOnConditionCheckFailure=ALL_OLD`: no read units, the same "
        "write units as any refused write), and the compare-and-swap proposes again from that item (`core/conflicts.py`, "
        "`services/cas.py`) instead of a consistent GetItem of it; a refusal that carries no item is read as before, and "
        "no read follows the last try. Per successful 1 KB attempt, over two runs of this code: 3.25 -> 2.59 and 2.52 RRU "
        "(the goal's 2 is not met: five items of 0.5 RRU each, the endpoint, breaker and limiter per endpoint and batch "
        "and the body and delivery per task, plus the give-back's read beside another holder), 3.69 -> 3.32 and 3.39 WRU; "
        "lost conditional writes 0.65 -> 0.29 and 0.36 per attempt (no rule about them changed: they move with the "
        "timing of the two batches on one endpoint). 1 KB, 98.5 %, batched: $4.89 -> $4.56 and $4.58 per million on "
        "demand, $2.88 -> $2.73 and $2.73 provisioned; fan-out 5 $4.17 -> $3.85 and $3.87; 16 KB $10.26 -> $10.19 and "
        "$10.50 (its lost writes 0.62 and 1.10 per attempt over the two runs). Handler CPU per delivery 4.26 -> 3.55 and "
        "3.16 ms, mostly this machine's speed: every line of the profile took about a fifth less CPU per call (a PutItem "
        "0.52 -> 0.42 ms, a POST 0.38 -> 0.31 ms) with its code unchanged, and GetItems per task 0.14 -> 0.10. New: a test "
        "of DynamoDB's transport over TLS (a verified certificate, one kept connection; an untrusted one refused by "
        "hookline's try and botocore's alike). Every cost total of the two runs within 3.0 % of the other.",
    ),
    (
        "2026-12-06 (late evening)",
        "The CPU goal (the goal table's CPU row), met in both runs of this code: 4.07 and 4.26 ms per delivery (5.65 and 5.83 "
        "before). Three changes. DynamoDB's data-plane calls on hookline's Table are made from what botocore built for "
        "the first call of each operation and table (`adapters/dynamo/calls.py`: the same events in the same order, the "
        "body as JSON, botocore's own send when no handler answers), not through its endpoint rules, model-driven "
        "serializer and User-Agent on every call: a bare write through the handler's Table 0.45 to 0.52 -> 0.34 to 0.40 "
        "ms. The webhook client speaks its own HTTP/1.1 on `socket` and `ssl` (`adapters/http.py`: the same SSRF pin, "
        "pools, idle and LRU bounds, resend rule, body limit and deadline), not requests and urllib3: a bare kept-alive "
        "POST 0.73 to 0.79 -> 0.14 to 0.15 ms. A delivery batch's records run side by side on the task pool directly "
        "(`entrypoints/delivery.side_by_side`), not through Powertools' asyncio batch processor: the invocation's own "
        "thread 0.95 to 1.02 -> 0.55 to 0.62 ms a task (measured beside it). The profile: 5.6 -> 4.7 ms a task (the "
        "first run's 5.5 charged every DynamoDB call to the handler's own Python, `bench/measurement/profile.py` timing only "
        "botocore's method; fixed before the second). The stand-ins' one invocation now runs in a process of its own, "
        "as a Lambda instance runs the handler: inside `make bench`'s process, after the sections before it, the same "
        "handler took 1.9 ms of CPU a delivery against 1.0 to 1.3 ms on its own, and the ratio read 0.752 and 3.1 calls "
        "in a row in a run of this code that way; in its own process 0.812 and 0.811, 3 and 3 calls (the design's 3: "
        "the read, the grant, the record). The meter leaves a fresh default boto3 session behind it, not its handlers on "
        "every later section's calls. The webhook requests' bytes are now counted as the client writes them (was: a "
        "160-byte allowance for requests' own headers). Every cost total of the two runs within 2.4 % of the other.",
    ),
    (
        "2026-12-06 (evening)",
        "The CPU goal (the goal table's CPU row). DynamoDB's data plane goes out on hookline's own kept connections "
        "(`adapters/dynamo/transport.py`): botocore still checks and builds each request, then hookline signs it (SigV4, "
        "the same bytes as botocore's signer), sends it and reads the answer as botocore's parser does; a throttle, a 5xx, "
        "a failed connection or a bad checksum is handed to botocore's own send. boto3's resource layer is compiled per "
        "operation (`adapters/dynamo/codec.py`: the same conversions, no deep copy, no walk of the whole model). A bare "
        "DynamoDB write through the handler's Table: 0.45 to 0.52 ms of CPU over two runs of this code, against 1.16 to "
        "1.41 ms through botocore's own send beside it. The benchmark's receiver now answers in one write with Nagle's "
        "algorithm off, as real servers do: its headers and body went out in two writes, so every POST waited 40 ms for "
        "the client's delayed ACK and woke on a cold core (the floor's bare POST 1.31 -> 0.73 and 0.79 ms of CPU); the "
        "stated duration model never used that wait. Handler CPU per delivery 6.99 -> 5.65 and 5.83 ms, the floor of the "
        "kept features 4.36 -> 2.19 and 2.28 ms; this machine ran slower than in the last runs (a bare write through "
        "botocore's own send 1.0 -> 1.2 to 1.4 ms), and on the same minutes the old and new code measured 8.9 to 9.4 and "
        "5.3 to 6.4 ms side by side. The profile: 8.5 -> 5.7 and 5.6 ms a task. The stand-ins' one invocation at batch "
        "10: 0.792 and 0.801 of the ideal (goal 0.8; 0.802 and 0.811 in the last two runs): that run uses no DynamoDB, "
        "receiver or code this change touched; its calls in a row 3 in both. Every cost total of the two runs within "
        "2.2 % of the other, and within 2 % of the last run.",
    ),
    (
        "2026-12-06 (later)",
        "The CPU goal and the retry storm's drain. A lease is a slot, not a request: a batch's tasks the limiter deferred wait for its leases "
        "and go under one, with a send time of their own, when a request under it ends with a 2xx (only at the endpoint's "
        "concurrency ceiling; `core.planning.under_lease`). The simulator now takes a batch's leases where the worker does, "
        "after the batch is handed over and its states read, not through the invocation's 50 ms start. The retry storm's "
        "drain: 1.49 -> 1.31 (the simulator's timing) -> 1.165 of the ideal (the hand-on), the same with three other random seeds of the simulator (2, 3 and 5); the "
        "pace binds now. Its side effects in the other scenarios: the slow subscriber's latency p50 262 s -> 319 s and its "
        "backlog at the end 0 -> 1.35 % of what it was sent (goal 5 %), the capacity-limited receiver's peak 20 -> 21 in "
        "flight (its capacity 16, not met before either), healthy latencies about 10 ms lower (the simulator's timing). "
        "The benchmark's AWS now keeps its connections between calls, as AWS does for a warm Lambda (`bench/measurement/awsserver.py`: "
        "moto's own server closed each one, so every call the measured handler made opened a TCP connection): a bare "
        "DynamoDB write 1.0 to 1.1 ms of CPU through the low-level client (was 1.3), the CPU floor 4.73 and 4.36 ms over two "
        "runs of this code, under the goal, so the CPU row (8.8 and 7.0 ms, the machine's speed moving both) is now within "
        "reach and not met, no longer at the floor. New: the handler's profile before the efficiency work and in each run "
        "(13.4 -> 9.1 and 8.5 ms a task in the profile, 6.2 -> 3.2 AWS calls). Every cost total of the two runs within 1.8 %.",
    ),
    (
        "2026-12-06",
        "Kept-alive connections, token leases, fewer reads and the retry storm's drain. Kept connections live up to `HOOKLINE_KEEPALIVE_SECONDS` (now 30 s), bounded by the "
        "receiver's own keep-alive: the handshake bench's receiver now closes a connection unused for 5 s, as Node's does, and a "
        "send that meets a kept connection closed under it is sent once more on a new one: 0.087 handshakes per webhook at 1/s "
        "over two instances (was 0.131). An endpoint's give-back goes out beside the record of its last task to have its answer: "
        "three AWS calls in a row at batch 10 (was 4.1), 0.814 of ideal over the stand-ins (was 0.768). A batch's endpoints, "
        "breakers and limiters are read in one BatchGetItem (3.2 AWS calls per delivery, was 4.1), and the bodies and fresh "
        "tasks' deliveries eventually consistent. Per successful 1 KB attempt, over two runs of this code: 2.97 and 3.18 RRU "
        "(was 4.45), 3.35 and 3.55 WRU (was 3.52; the lost conditional writes move with the timing, 0.32 and 0.52), handler CPU "
        "7.6 and 8.7 ms at full speed (was 9.8; the machine's speed moved the bare calls' floor as much, 4.5 and 5.3 ms). 1 KB, "
        "98.5 %, batched: $5.10 -> $4.75 and $4.93 per million on demand, $3.07 -> $2.88 and $2.98 provisioned. The kept "
        "features' floor now counts the limiter's give-back, "
        "as the CPU floor does: every cost goal lies below it, and the goal table shows the arithmetic.",
    ),
    (
        "2026-12-03 (last)",
        "Kept-alive connections: the webhook client keeps its connections to a receiver's address for "
        "`HOOKLINE_KEEPALIVE_SECONDS`, and the meter now counts the handshakes, each endpoint taken as a host of its own (the "
        "benchmark's endpoints got URLs of their own, since one receiver would flatter the figure): 0.16 per webhook on the "
        "1 KB paths, was 1. Data transfer out $0.18 -> $0.13 per million (the TLS handshake's bytes); the Lambda line now "
        "charges the handshake's 40 ms only to an invocation that opens a connection, and moved with the handlers' measured "
        "CPU as before. New: both billing modes of the table from the same units (provisioned capacity): 1 KB, 98.5 %, "
        "batched, $6.23 on demand and $3.90 provisioned at steady load in this run. The side-by-side section keeps the "
        "delivery log's pair as measured.",
    ),
    (
        "2026-12-03 (later)",
        "The delivery log without an index: a delivery item is kept in its endpoint's delivery log (its key "
        "names the endpoint and sorts by the delivery's creation), so the write a first success makes anyway is its log "
        "entry and the `endpoint-log` index is no longer written (read only, for the previous release's deliveries). The "
        "cost section ran on the code before the delivery log (97d8a81) and on this code, one after the other on this "
        "machine: see 'This change against the code before it'. 1 KB, 98.5 %, batched: $6.34 there, $6.16 here; the "
        "DynamoDB lines moved +$0.045 per million (4.15 -> 4.20 WRU per successful attempt, stored bytes 890 -> 874), the "
        "rest is the Lambda line's measured CPU, which moves by that much between runs. On the failure path a pending "
        "delivery that waits for a retry is in the sparse index now (the endpoint's pending count): 7.5 -> 8.1 WRU per "
        "failed attempt, 1.5 % of attempts. Against the run before (with the index): $8.29 -> $6.16, the index's write, "
        "its stored bytes and that run's timing.",
    ),
    (
        "2026-12-03",
        "The delivery log: every delivery item now carries the keys of the keys-only `endpoint-log` index from "
        "its first write, so each delivery writes that index once (1 WRU) and stores about 400 bytes more (the index "
        "entry, and the keys on the item, which tip some first-success items over 1 KB); a pending delivery that waits for "
        "a retry is in the sparse index too. Only the cost and destination sections were measured again (the full run "
        "died in its throughput step under load). Per successful attempt, DynamoDB writes 4.11 -> 4.59 "
        "WRU on an idle machine (5.20 in a run beside the browser tests), stored bytes 889 -> 1,281. The Lambda line moved "
        "with the handlers' measured CPU on every path, the ones this change does not touch included (a deferral 8.6 -> "
        "17.4 ms, the earlier run on Python 3.11.7): the machine, not the code; and in this run some first-lane tasks "
        "were deferred and sent again (0.2 -> 1.05 SQS requests per success), a matter of timing. 1 KB, 98.5 %, batched: "
        "$5.76 -> $8.29 per million in this run (DynamoDB reads and writes $3.86 -> $4.42, storage and PITR $0.80 -> "
        "$0.99). That is above the delivery log's limit of $0.10: an index that holds every delivery costs at least its write, "
        "$0.625 per million; keying the delivery item itself by endpoint and time is the design that meets it.",
    ),
    (
        "2026-12-01",
        "Payload versions and the event-type catalog: every accepted request reads the tenant's versions and "
        "its event types (one BatchGetItem of two small items, eventually consistent); each delivery batch adds its "
        "deliveries per payload version and day (one UpdateItem per version); an endpoint write also writes the keys-only "
        "endpoint-versions index. Local mode under a backlog: moto's ReceiveMessage, Query and request routing "
        "no longer grow with the data, full garbage collections run a tenth as often, and an endpoint's reads run side by "
        "side: `GET /v1/endpoints/{id}` 418 -> about 105 ms median, a batch 1.9 -> 0.8 s. Bulk work as jobs: "
        "re-enabling, customer deletion and broadcasts run as paged jobs (a GetItem and a conditional UpdateItem per page); "
        "the sweeper's notes are written only by a request that fails, so the happy path pays nothing for them (a note "
        "before every store measured +2 WRU per single event, $7.86 -> $9.07, and was dropped); the catalog read is kept "
        "by each process for 5 s (ingest_single 2.0 -> 1.0 RRU). 1 KB, 98.5 %: batched $5.49 -> $5.63, single $7.53 -> "
        "$7.73 per million over this day's runs.",
    ),
    (
        "2026-12-01",
        "Isolation, recovery and throughput against the ideal: a slow or timing-out endpoint is served from the "
        "retry lane only; five timeouts in a row open the breaker; a failed probe reopens it for a fifth of the outage "
        "(was: the cooldown doubled); adaptive concurrency per endpoint, with `max_concurrency` and `rate_limit_per_second` "
        "now ceilings (default 50 and 50/s, start at 5 in flight); the retry function reserves 20 (was 10) and takes batches "
        "of 20, the delivery function reserves 30 (was 20); one batch takes at most half of a limit of 8 or more; a probe "
        "counts in the pace; a first-lane batch reads its bodies beside its plan; a batch's "
        "endpoints are planned and released all at once (was 16 at a time). The simulator splits its workers 30:20 and "
        "gives each lane its batch size. New: the 'Against the ideal' table, a capacity-limited receiver scenario, the slow "
        "subscriber's others alone as a reference, and the throughput of the design over stand-ins at 5 ms a call. Cost, "
        "1 KB, 98.5 %, batched: $5.35 -> $5.49 to $5.61 per million over the last two runs. A first-lane deferral now reads "
        "its body too (1.5 -> 3.5 RRU, $1.20 -> $1.47 per million deferrals); one batch's tasks to one endpoint got cheaper "
        "($4.95 -> $4.38 to $4.52: the ceiling of 50 defers fewer of them); the lost conditional writes of separate "
        "endpoints move with the timing (0.04 to 0.17 per attempt, was 0.08). The scenarios moved as the 'Against the ideal' table shows: healthy p99 during the outage 1.54x "
        "-> 1.02x of before, the retry storm's drain 882 s -> 768 s, the slow subscriber's backlog at the end 34,858 -> 0.",
    ),
    (
        "2026-12-01",
        "Cost levers, each measured by this benchmark: the breaker writes only the success that ends a failure "
        "streak (1 success in 66 at 98.5 %, was 3 in 4); a fresh task (a new event's, a scheduled retry) checks its delivery "
        "as read with the batch's bodies instead of claiming it; a delivery's first success is one write on its own item "
        "(no attempt item, no second update); a new event's pending delivery is only planned on the event item until its "
        "first record (ingest writes 1 item, not 2); the delivery function logs failures and one line per batch, not every "
        "success; the handlers' CPU is the fastest of five runs, not their median (the samples are bimodal on this "
        "machine, and the median flipped between the modes: a 6 % move). 1 KB, 98.5 %, batched: $8.38 -> $5.35 to $5.55 per million over this day's runs (DynamoDB $6.09 -> $3.60 to "
        "$3.79, as many conditional writes as the timing makes lose; logs $0.37 -> $0.08; storage and PITR $0.85 -> $0.77). The scenarios are unchanged. The floor section below says what is left. Local mode under load is a new section.",
    ),
    (
        "2026-12-01",
        "Cost, made honest; the scenarios and throughput are unchanged. Endpoints keep the default limits "
        "(10/s, 5 in flight) instead of 500/s and 100; batches are consumed two at a time, so limiter and breaker writes "
        "conflict and the lost conditional writes are billed (`conditional_conflicts` counts them); the receiver answers "
        "200 B on success and 1 KB on failure (was 17 B), and hookline stores it on every attempt; a success while the "
        "breaker remembers a failure is a measured path (`attempt_ok_after_failure`: one more write), taken by the share "
        "of successes `core.breaker.record` says writes the breaker (77 % at 98.5 %); Lambda time comes from a stated model "
        "(receiver latency, a new TLS connection per request, AWS round trips, measured limiter sleeps and the handlers' "
        "CPU measured out of process, median of five runs) instead of wall time under in-process moto; DynamoDB storage "
        "and PITR for the 30-day retention and data transfer out are lines of their own, and EventBridge gets its data "
        "transfer too. A fan-out row (5 endpoints per event) is new. The per-path tables before and after are below.",
    ),
    (
        "2026-11-30",
        "The simulator stopped re-enacting the rules by hand and calls the delivery worker's own core "
        "(`core.planning.plan_group`, `core.health`). Fixed drift: the half-open wait for the tasks behind a probe was "
        "1 + U(0, 5) s in the simulator but 5 + U(0, 5) s in the worker; the disable-and-park branch was missing. Two rules "
        "changed in both: tasks that find another task's probe in flight come back in 5 + U(0, 5) s instead of waiting out "
        "the probe's 26 s lease, and a Retry-After pause is spread by one 3 s jitter instead of two. Only "
        "outage isolation moved: healthy p99 during the outage 0.301 s -> 0.328 s (1.42x -> 1.55x of before), worst "
        "healthy latency 1.77 s -> 1.30 s, requests to failing endpoints 16,256 -> 16,329. The other scenarios are unchanged "
        "to the figure shown but for the retry storm's drain (885 s -> 882 s).",
    ),
    (
        "2026-11-30",
        "Cost: DynamoDB, SQS and API Gateway units are unchanged (the refactor added no call on any path). CloudWatch Logs "
        "grew 24 % (876 -> 1,090 MB per million, +$0.11): every log line now carries Powertools' Lambda context (function "
        "name, ARN, memory, request id, cold start). The Lambda line and the throughput figures moved with the machine, not "
        "the code: the commit before and this one, run back to back here (`python -m bench --scale 0.05 --count 10 --runs 3`), "
        "measured 15.2 vs 17.3 deliveries/s (batch 10) and 49,573 vs 52,343 GB-s per million; both are wall time under an "
        "in-process emulator and vary by run.",
    ),
)


def changes_section() -> list[str]:
    out = ["## What moved, and why", ""]
    for day, text in CHANGES:
        out.append(f"- **{day}.** {text}")
    return [*out, ""]
