"""The functional core: pure decisions and value types. No I/O library, no clock or randomness except injected."""
