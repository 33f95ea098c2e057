"""Readable log lines in local mode.

The handlers log with aws-lambda-powertools' Logger: one JSON object per line
on stdout, which is right for CloudWatch and hard to read in a terminal. The
runner leaves the Logger (and its formatter, so append_keys etc. keep working)
untouched, and only points each Powertools handler's stream at a
`ReadableLogStream`, which re-renders every JSON line it receives:

    12:00:01 attempt 1 evt_2b… -> ep_9f… 200 succeeded 12ms
    12:00:02 WARNING  hookline-delivery: something happened key=value

Lines that are not JSON pass through unchanged. `python -m local.run --json-logs`
keeps the raw JSON.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from typing import Any, TextIO

DELIVERY_ATTEMPT_MESSAGE = "delivery attempt"

# Keys Powertools adds to every line; not worth repeating in a terminal.
_STANDARD_KEYS = frozenset(
    {
        "level",
        "location",
        "message",
        "timestamp",
        "service",
        "cold_start",
        "function_name",
        "function_memory_size",
        "function_arn",
        "function_request_id",
        "xray_trace_id",
        "sampling_rate",
        "exception",
        "exception_name",
        "stack_trace",
    }
)


def _clock() -> str:
    return time.strftime("%H:%M:%S")


def _value(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v, default=str)


def render_delivery_attempt(entry: dict[str, Any], clock: str) -> str:
    status = entry.get("status_code")
    duration = entry.get("duration_ms")
    parts = [
        clock,
        f"attempt {entry.get('attempt', '?')}",
        str(entry.get("event_id", "?")),
        "->",
        str(entry.get("endpoint_id", "?")),
        str(status) if status not in (None, "") else "---",
        str(entry.get("outcome", "?")),
        f"{duration}ms" if duration not in (None, "") else "-ms",
    ]
    line = " ".join(parts)
    error = entry.get("error")
    if error:
        line += f" error={_value(error)}"
    return line


def render(entry: dict[str, Any], clock: str | None = None) -> str:
    """One readable line (plus an exception's lines, if any) for one Powertools JSON entry."""
    clock = clock or _clock()
    if entry.get("message") == DELIVERY_ATTEMPT_MESSAGE:
        return render_delivery_attempt(entry, clock)
    source = entry.get("function_name") or entry.get("service") or "-"
    line = f"{clock} {entry.get('level', 'INFO')!s:<8} {source}: {_value(entry.get('message', ''))}"
    extras = [f"{k}={_value(v)}" for k, v in entry.items() if k not in _STANDARD_KEYS]
    if extras:
        line += " " + " ".join(extras)
    exception = entry.get("exception")
    if exception:
        line += "\n" + str(exception)
    return line


class ReadableLogStream:
    """A write-only text stream that turns Powertools JSON lines into readable ones."""

    def __init__(self, target: TextIO):
        self.target = target
        self._buffer = ""
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        with self._lock:
            self._buffer += text
            while "\n" in self._buffer:
                line, self._buffer = self._buffer.split("\n", 1)
                self.target.write(self._convert(line) + "\n")
        return len(text)

    def flush(self) -> None:
        self.target.flush()

    @staticmethod
    def _convert(line: str) -> str:
        stripped = line.strip()
        if not stripped.startswith("{"):
            return line
        try:
            entry = json.loads(stripped)
        except ValueError:
            return line
        if not isinstance(entry, dict):
            return line
        return render(entry)


class LogRewriter:
    """Points every Powertools logger's stream handler at a ReadableLogStream; `restore()` undoes it."""

    def __init__(self) -> None:
        self._original: dict[int, tuple[logging.StreamHandler[TextIO], TextIO]] = {}
        self._lock = threading.Lock()

    def install(self) -> None:
        """Idempotent; call again after new Powertools loggers may have appeared."""
        with self._lock:
            for logger in list(logging.Logger.manager.loggerDict.values()):
                if not isinstance(logger, logging.Logger):
                    continue
                handler = getattr(logger, "powertools_handler", None)
                if not isinstance(handler, logging.StreamHandler) or id(handler) in self._original:
                    continue
                stream = handler.stream
                if isinstance(stream, ReadableLogStream):
                    continue
                handler.setStream(ReadableLogStream(stream))
                self._original[id(handler)] = (handler, stream)

    def restore(self) -> None:
        with self._lock:
            for handler, stream in self._original.values():
                handler.setStream(stream)
            self._original.clear()
