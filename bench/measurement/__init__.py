"""Measurement: the real handlers under a metered moto (harness, meter), the receivers, local mode, the API, throughput
and the connections they open. What these modules measure goes into results.json; the models price and judge it."""
