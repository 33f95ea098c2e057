"""hookline: reliable outbound webhooks on AWS serverless parts."""

__version__ = "0.1.0"
