"""Delivering tasks: planning, sending, recording and endpoint health, each a small collaborator."""
