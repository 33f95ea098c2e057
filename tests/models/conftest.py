"""The benchmark's models run as simulations (the scale model's hot endpoint, the hot keys, the scenarios): each test
runs one at the least size that shows its property, seconds of CPU apiece, so they run beside the moto tests in
`make test` rather than in the unit tier (`make unit`, 30 s). Like the unit tests, they reach no network."""

from tests.unit.conftest import no_network  # noqa: F401  (the unit tier's autouse fixture, here too)
