"""The cold-start model: a function's import CPU at the memory each sizing profile gives it, stretched to Lambda's
CPU share there (bench.measurement.coldstart, bench.models.duration.cpu_at_memory_ms)."""

from __future__ import annotations

import pytest

from bench.measurement.coldstart import lambda_environment, modelled_wall_ms
from bench.models.duration import cpu_at_memory_ms
from hookline.core.tracing import tracing_enabled
from hookline.wiring.topology import AUTHORIZER, DELIVERY


@pytest.mark.parametrize(
    ("cpu_ms", "memory_mb", "wall_ms"),
    [(100.0, 1769, 100.0), (100.0, 3538, 100.0), (100.0, 512, 100.0 * 1769 / 512), (300.0, 256, 300.0 * 1769 / 256)],
)
def test_cpu_is_stretched_below_a_full_vcpu_only(cpu_ms: float, memory_mb: int, wall_ms: float) -> None:
    assert cpu_at_memory_ms(cpu_ms, memory_mb) == pytest.approx(wall_ms)


def test_each_profile_models_the_memory_it_gives_the_function() -> None:
    delivery = modelled_wall_ms(DELIVERY, 100.0)
    assert {size: m["memory_mb"] for size, m in delivery.items()} == {"small": 512, "default": 512, "large": 1024, "xlarge": 1769}
    assert delivery["xlarge"]["wall_ms"] == 100.0 and delivery["default"]["wall_ms"] == pytest.approx(345.5, abs=0.1)
    assert {m["memory_mb"] for m in modelled_wall_ms(AUTHORIZER, 100.0).values()} == {AUTHORIZER.memory_mb}


@pytest.mark.parametrize("traced", [False, True])
def test_the_import_is_measured_in_lambdas_environment_with_the_tracing_asked_for(traced: bool) -> None:
    # The default (HOOKLINE_TRACING off) is what the stack deploys: no Tracer; on, Powertools' Tracer is made
    assert tracing_enabled(lambda_environment(traced)) is traced
