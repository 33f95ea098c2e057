"""What `functions/<name>/handler.py` calls: parse, make one call, respond."""
