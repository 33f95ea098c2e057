"""An HTTP/1.1 answer as hookline's two clients read it off their own connections: the webhook client
(hookline.adapters.http) and DynamoDB's transport (hookline.adapters.dynamo.transport).

The head: a status line (HTTP/1.x), header lines (a repeated header's values joined by ", ", a line without a colon
ignored, as http.client does), a blank line; an informational (1xx) answer before it skipped; MOST_HEAD_BYTES at
most. The body: none for 204 and 304, else by Transfer-Encoding: chunked (trailers skipped), by Content-Length, or
to the connection's end (which then cannot carry another request). The connection may carry another request when
the answer is HTTP/1.1 without `Connection: close` and its body was read whole.

An answer that breaks these rules is AnswerUnreadable, a body cut short AnswerCutShort (a request that reached the
server: never sent again as if it had not); a connection that ends before any answer is ClosedUnanswered, which a
client may send again on a new connection when the connection was a kept one (the server closed it while it idled).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Protocol

MOST_HEAD_BYTES = 65536  # an answer's status line and headers together
READ_BYTES = 16384  # what one read of an answer's body asks for at most


class ClosedUnanswered(ConnectionError):
    """The connection ended before any answer: the server closed it, or it was closed while kept."""


class AnswerUnreadable(ValueError):
    """An answer that is not HTTP/1.x as hookline reads it."""


class AnswerCutShort(AnswerUnreadable):
    """The connection ended inside an answer's body."""


class Reading(Protocol):
    """Reads of one connection's answer: `read` gives at most `size` bytes (b"" at its end), `line` one line."""

    def read(self, size: int) -> bytes: ...

    def line(self) -> bytes: ...


@dataclass
class Head:
    status: int
    headers: dict[str, str]  # as the server named them; a repeated header's values joined by ", "
    keep: bool  # the connection may carry another request once the body is read whole


def read_head(readline: Callable[[int], bytes]) -> Head:
    """The answer's status and headers, past any informational (1xx) answer; `readline(most)` reads one line."""
    while True:
        line = readline(MOST_HEAD_BYTES)
        if not line:
            raise ClosedUnanswered("the connection ended before an answer")
        version, _, rest = line.partition(b" ")
        if not version.startswith(b"HTTP/1.") or not rest[:3].isdigit():
            raise AnswerUnreadable(f"not an HTTP/1.x status line: {line[:60]!r}")
        status = int(rest[:3])
        headers: dict[str, str] = {}
        size = len(line)
        while True:
            line = readline(MOST_HEAD_BYTES)
            size += len(line)
            if size >= MOST_HEAD_BYTES or not line.endswith(b"\n"):
                raise AnswerUnreadable("an answer's head too long or cut short")
            if line in (b"\r\n", b"\n"):
                break
            name, colon, value = line.decode("latin-1").partition(":")
            if not colon:
                continue
            name, value = name.strip(), value.strip()
            same = next((k for k in headers if k.lower() == name.lower()), name)
            headers[same] = f"{headers[same]}, {value}" if same in headers else value
        if 100 <= status < 200 and status != 101:
            continue
        keep = version == b"HTTP/1.1" and "close" not in header(headers, "connection").lower() and status != 101
        return Head(status, headers, keep)


def header(headers: Mapping[str, str], name: str) -> str:
    """The value of the header `name` (lower case), whatever case the server named it in; "" without it."""
    return next((v for k, v in headers.items() if k.lower() == name), "")


def body(reading: Reading, head: Head) -> Iterator[tuple[bytes, bool]]:
    """The answer's body in pieces, each with whether it is the last; a body that ends with the connection sets
    `head.keep` False."""
    if head.status in (204, 304):
        return iter(())
    if "chunked" in header(head.headers, "transfer-encoding").lower():
        return _chunked(reading)
    length = header(head.headers, "content-length")
    if length:
        try:
            return _sized(reading, int(length.split(",")[0]))
        except ValueError as exc:
            raise AnswerUnreadable(f"a bad Content-Length: {length[:20]!r}") from exc
    head.keep = False
    return _to_close(reading)


def _sized(reading: Reading, size: int) -> Iterator[tuple[bytes, bool]]:
    if size == 0:
        yield b"", True
    while size > 0:
        piece = reading.read(min(size, READ_BYTES))
        if not piece:
            raise AnswerCutShort("the connection ended inside the body")
        size -= len(piece)
        yield piece, size == 0


def _chunked(reading: Reading) -> Iterator[tuple[bytes, bool]]:
    while True:
        size_line = reading.line()
        try:
            size = int(size_line.split(b";", 1)[0].strip() or b"x", 16)
        except ValueError as exc:
            raise AnswerUnreadable(f"a bad chunk size: {size_line[:20]!r}") from exc
        if size == 0:
            while reading.line() not in (b"\r\n", b"\n", b""):
                pass  # trailers
            yield b"", True
            return
        for piece, _ in _sized(reading, size):
            yield piece, False
        if reading.line() not in (b"\r\n", b"\n"):
            raise AnswerUnreadable("a chunk without its line end")


def _to_close(reading: Reading) -> Iterator[tuple[bytes, bool]]:
    while piece := reading.read(READ_BYTES):
        yield piece, False
    yield b"", True
