"""hookline: reliable outbound webhooks as a serverless AWS deployment."""

from hookline.core.version import __version__

__all__ = ["__version__"]
