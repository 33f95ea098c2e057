"""Sizing profiles (HOOKLINE_SIZE): one setting that sizes the whole deployment.

A profile gives the settings that decide how much hookline delivers a second: the delivery lanes' memory,
reserved concurrency and batches, the API stage's throttle, the table's billing, and the Lambda concurrency quota
the profile declares the account has (synth refuses a profile that does not fit it: infra/sizing.py). A setting
given in the environment wins over its profile's value. `default`'s values are the settings' own defaults.

What each profile delivers, which limit binds it and the quotas to raise are `make bench`'s scale model
(bench/models/scale.py), on the figures that run measures; docs/scaling.md prints it.
Pure data: no AWS, no environment.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class Profile:
    name: str
    summary: str
    values: Mapping[str, object]  # Settings field name -> its value under this profile


_SIZED = MappingProxyType(
    {
        "delivery_memory_mb": 512,
        "retry_memory_mb": 512,
        # The lanes keep the split the benchmark's scenarios simulate (bench/scenarios/sim.py): delivery : retry = 3 : 2.
        "delivery_concurrency": 90,
        "retry_concurrency": 60,
        "jobs_concurrency": 4,
        "ordered_concurrency": 10,
        "delivery_batch_size": 10,
        "delivery_batch_window_seconds": 0,
        "retry_batch_size": 20,
        "retry_batch_window_seconds": 1,
        "api_throttle_rate": 100,
        "api_throttle_burst": 200,
        "table_billing": "on_demand",
        "account_concurrency_quota": 1000,
    }
)


def _profile(name: str, summary: str, **changes: object) -> Profile:
    unknown = set(changes) - set(_SIZED)
    if unknown:
        raise ValueError(f"profile {name}: {sorted(unknown)} are not sized settings")
    return Profile(name, summary, MappingProxyType({**_SIZED, **changes}))


PROFILES: Mapping[str, Profile] = MappingProxyType(
    {
        p.name: p
        for p in (
            _profile(
                "small",
                "A new account (Lambda quota 10): nothing reserved, each SQS event source capped at 2.",
                account_concurrency_quota=10,
            ),
            _profile("default", "An account at Lambda's default quota of 1,000: at least 1,000 deliveries a second at 512 MB."),
            _profile(
                "large",
                "Several thousand deliveries a second within the default quotas: 1,024 MB delivery functions, 300 reserved.",
                delivery_memory_mb=1024,
                retry_memory_mb=1024,
                delivery_concurrency=300,
                retry_concurrency=200,
                api_throttle_rate=1000,
                api_throttle_burst=2000,
            ),
            _profile(
                "xlarge",
                "10,000 deliveries a second and more: a full vCPU per delivery function (1,769 MB), 450 reserved; "
                "needs DynamoDB's table-level throughput quotas raised.",
                delivery_memory_mb=1769,
                retry_memory_mb=1769,
                delivery_concurrency=450,
                retry_concurrency=300,
                ordered_concurrency=20,
                api_throttle_rate=5000,
                api_throttle_burst=5000,
            ),
        )
    }
)
SIZES = tuple(PROFILES)
DEFAULT_SIZE = "default"
