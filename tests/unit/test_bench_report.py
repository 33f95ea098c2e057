"""The report reads typed results (bench.report.results): the committed results.json has every section each report
needs, with the keys its TypedDict names, and results without one are refused naming it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.report import results as typed

RESULTS = json.loads((Path(__file__).resolve().parents[2] / "bench" / "results.json").read_text())


def test_the_committed_results_read_as_typed_results() -> None:
    assert typed.read(RESULTS) is RESULTS


@pytest.mark.parametrize("section", typed.REQUIRED)
def test_results_without_a_section_every_report_needs_are_refused_naming_it(section: str) -> None:
    # Given the committed results less one section every report needs
    found: dict[str, Any] = {k: v for k, v in RESULTS.items() if k != section}
    # Then reading them names it
    with pytest.raises(KeyError, match=repr(section)):
        typed.read(found)


@pytest.mark.parametrize(
    ("section", "shape"),
    [("meta", typed.Meta), ("cost", typed.Cost), ("throughput", typed.Throughput), *((name, typed.Scenario) for name in typed.SCENARIOS)],
)
def test_each_typed_section_of_the_committed_results_has_the_keys_its_type_requires(section: str, shape: Any) -> None:
    assert set(shape.__required_keys__) <= set(RESULTS[section])


def test_a_headline_row_is_keyed_by_its_configuration() -> None:
    rows = typed.headline(RESULTS["cost"])
    assert list(rows) == ["/".join(k) for k in typed.HEADLINE if "/".join(k) in rows]
    assert rows["1KB/98.5%/batch"] is RESULTS["cost"]["per_million_usd"]["1KB"]["98.5%"]["batch"]
