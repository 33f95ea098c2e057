"""Composition: settings from the environment, the container that builds services, the topology of resources."""
