"""The version hookline reports (the webhook user-agent)."""

__version__ = "0.1.0"
