"""Scenarios: the discrete-event simulator (sim) over hookline's own decision core, and the named scenarios it runs (catalog)."""
