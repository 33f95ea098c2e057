"""moto's AWS served over kept-alive HTTP/1.1 connections, as AWS's own endpoints serve a warm Lambda.

`python -m moto.server` runs on werkzeug's development server, which closes the connection after every response
(werkzeug.serving: "Always close the connection"), so every boto3 call made to it opens a TCP connection of its
own: a cost a warm Lambda does not pay (botocore keeps its HTTPS connections to DynamoDB, SQS and Step Functions
across invocations), and one that landed on the handler's measured CPU (bench.models.duration). This server hands each
request to the same moto application (moto.server's `DomainDispatcherApplication`) and keeps the connection open
for the next one, as DynamoDB and SQS do.

    python -m bench.measurement.awsserver --port 5000
"""

from __future__ import annotations

import argparse
import io
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote_to_bytes

# what the handler frames itself: the application's own values for these are replaced or dropped
_HOP_BY_HOP = frozenset({"connection", "content-length", "keep-alive", "transfer-encoding"})
IDLE_SECONDS = 60.0  # a kept connection nobody uses is closed after this long (AWS's own endpoints keep theirs longer)


def _read_chunked(stream: Any) -> bytes:
    """A request body sent with Transfer-Encoding: chunked (RFC 9112 section 7.1), trailers skipped."""
    body = bytearray()
    while True:
        size = int(stream.readline().split(b";", 1)[0].strip() or b"0", 16)
        if size == 0:
            while stream.readline() not in (b"\r\n", b"\n", b""):
                pass
            return bytes(body)
        body += stream.read(size)
        stream.readline()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = IDLE_SECONDS
    disable_nagle_algorithm = True  # an answer leaves whole, as soon as it is written
    wbufsize = -1  # buffered: the status line, headers and body go out in one write, at the flush
    app: Any = None

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a benchmark's AWS serves thousands of requests."""

    def _environ(self, body: bytes) -> dict[str, Any]:
        path, _, query = self.path.partition("?")
        address: Any = self.server.server_address
        host, port = address[0], address[1]
        environ: dict[str, Any] = {
            "REQUEST_METHOD": self.command,
            "SCRIPT_NAME": "",
            "PATH_INFO": unquote_to_bytes(path).decode("latin-1"),  # PEP 3333: percent-decoded bytes as latin-1
            "QUERY_STRING": query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "SERVER_NAME": str(host),
            "SERVER_PORT": str(port),
            "SERVER_PROTOCOL": self.request_version,
            "REMOTE_ADDR": self.client_address[0],
            "REQUEST_URI": self.path,
            "RAW_URI": self.path,
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(body),
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
        }
        for name, value in self.headers.items():
            key = "HTTP_" + name.upper().replace("-", "_")
            if key not in ("HTTP_CONTENT_TYPE", "HTTP_CONTENT_LENGTH", "HTTP_TRANSFER_ENCODING"):  # the body is read whole: CONTENT_LENGTH
                environ[key] = f"{environ[key]},{value}" if key in environ else value
        return environ

    def _serve(self) -> None:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = _read_chunked(self.rfile)
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        started: list[Any] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            started[:] = [status, headers]
            return lambda _data: None

        answer = self.app(self._environ(body), start_response)
        try:
            data = b"".join(answer)
        finally:
            if hasattr(answer, "close"):
                answer.close()
        status, headers = started
        code, _, reason = status.partition(" ")
        self.send_response_only(int(code), reason)
        for name, value in headers:
            if name.lower() not in _HOP_BY_HOP:
                self.send_header(name, value)
        given = next((v for n, v in headers if n.lower() == "content-length"), None)
        head = self.command == "HEAD"
        self.send_header("Content-Length", given if head and given is not None else str(len(data)))
        self.end_headers()
        if not head and data:
            self.wfile.write(data)
        self.wfile.flush()

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def do_PUT(self) -> None:
        self._serve()

    def do_DELETE(self) -> None:
        self._serve()

    def do_HEAD(self) -> None:
        self._serve()


def serve(host: str, port: int) -> None:
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

    _Handler.app = DomainDispatcherApplication(create_backend_app)
    server = ThreadingHTTPServer((host, port), _Handler)
    server.daemon_threads = True
    server.serve_forever()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, required=True)
    args = parser.parse_args(argv)
    serve(args.host, args.port)


if __name__ == "__main__":
    main()
