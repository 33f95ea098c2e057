"""In-memory fakes of the services' ports, with a fake clock, sleep and random source.

Each fake keeps the contract of the adapter it stands for (the DynamoDB, SQS
and HTTP adapters): conditional writes answer False or None where the adapter
does, creates are idempotent where the adapter's are, pages end as DynamoDB's
do, and a dependency that fails raises DependencyFailed. `tests/fakes/contracts.py`
states those contracts as checks, run against the fakes in tests/unit and
against the real adapters over moto in tests/integration, so the two cannot drift.

One module per part of the outside world (import from it directly):
clock, randomness, endpoints, state, events, replays, queues, outside (the
receiver, notifications, statistics); delivery assembles a DeliveryWorker on them.
"""
