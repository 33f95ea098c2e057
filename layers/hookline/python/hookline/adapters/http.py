"""The webhook HTTP client: one POST, SSRF-guarded, pinned to the vetted address.

The hostname is resolved once, every address is checked by the SSRF guard, and
the connection goes to the vetted address, so a DNS answer that changes between
check and connect (rebinding) cannot slip through. TLS still verifies the
certificate against the hostname and sends it as SNI. Redirects are never
followed, proxies from the environment are ignored, and only the first bytes
of the response body are kept.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import SplitResult, urlsplit

import requests
from requests.adapters import HTTPAdapter

from hookline.core import classify, ssrf
from hookline.core.responses import HttpResult

Resolver = Callable[[str, int], list[str]]


def system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass(frozen=True)
class _Refused:
    error: str
    detail: str


class _PinnedAdapter(HTTPAdapter):
    """Connects to one vetted IP while TLS checks the certificate for the hostname."""

    def __init__(self, ip: str, hostname: str):
        self._ip = ip
        self._hostname = hostname
        super().__init__(max_retries=0)

    def build_connection_pool_key_attributes(self, request: Any, verify: Any, cert: Any = None) -> tuple[dict[str, Any], dict[str, Any]]:
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(request, verify, cert)
        host_params["host"] = self._ip
        if host_params.get("scheme") == "https":
            pool_kwargs["server_hostname"] = self._hostname
            pool_kwargs["assert_hostname"] = self._hostname
        return host_params, pool_kwargs


class WebhookClient:
    def __init__(
        self,
        connect_timeout: float,
        request_timeout: float,
        body_limit: int,
        policy: ssrf.UrlPolicy | None = None,
        resolver: Resolver = system_resolver,
    ):
        self._connect_timeout = connect_timeout
        self._request_timeout = request_timeout
        self._body_limit = body_limit
        self._policy = policy or ssrf.UrlPolicy()
        self._resolve = resolver

    def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> HttpResult:
        started = time.monotonic()
        target = self._vet(url)
        if isinstance(target, _Refused):
            return _result(started, None, target.error, detail=target.detail)
        parts, ip = target
        send_headers = dict(headers)
        send_headers["Host"] = parts.netloc.rsplit("@", 1)[-1]
        with requests.Session() as session:
            session.trust_env = False  # never route through an environment proxy
            session.mount(f"{parts.scheme}://", _PinnedAdapter(ip, parts.hostname or ""))
            try:
                response = session.post(
                    url, data=body, headers=send_headers, timeout=(self._connect_timeout, self._request_timeout), allow_redirects=False, stream=True
                )
            except requests.exceptions.RequestException as exc:
                return _result(started, None, _error_class(exc), detail=str(exc)[:300])
            with response:
                try:
                    text = self._read_limited(response, started)
                except TimeoutError:
                    return _result(started, None, classify.TIMEOUT, detail="response body exceeded the request deadline")
                except (requests.exceptions.RequestException, OSError) as exc:
                    return _result(started, response.status_code, None, detail=str(exc)[:300])
                return _result(started, response.status_code, None, body=text, headers=dict(response.headers))

    def _vet(self, url: str) -> tuple[SplitResult, str] | _Refused:
        """Resolve the URL's host and run every address through the SSRF guard.

        Returns (url parts, vetted ip), or why it may not be contacted.
        """
        parts = urlsplit(url)
        host = parts.hostname
        if parts.scheme not in ("http", "https") or not host:
            return _Refused(classify.INVALID_URL, "not an http(s) URL")
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            return _Refused(classify.INVALID_URL, "bad port")
        why = self._policy.refusal(parts.scheme, host, port)
        if why:
            return _Refused(classify.SSRF_BLOCKED, why)
        try:
            addresses = self._resolve(host, port)
        except (OSError, UnicodeError, ValueError) as exc:
            return _Refused(classify.DNS_FAILURE, str(exc))
        if not addresses:
            return _Refused(classify.DNS_FAILURE, "no addresses")
        try:
            vetted = [str(ssrf.check(a, self._policy.allowed_networks)) for a in addresses]
        except ssrf.AddressRefused as exc:
            return _Refused(classify.SSRF_BLOCKED, str(exc))
        except ValueError as exc:
            return _Refused(classify.DNS_FAILURE, str(exc))
        return parts, vetted[0]

    def _read_limited(self, response: requests.Response, started: float) -> str:
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_content(chunk_size=1024):
            if time.monotonic() - started > self._request_timeout:
                raise TimeoutError
            chunks.append(chunk)
            size += len(chunk)
            if size >= self._body_limit:
                break
        return b"".join(chunks)[: self._body_limit].decode("utf-8", errors="replace")


def _result(started: float, status: int | None, error: str | None, **kw: Any) -> HttpResult:
    return HttpResult(status, error, int((time.monotonic() - started) * 1000), **kw)


def _error_class(exc: requests.exceptions.RequestException) -> str:
    if isinstance(exc, requests.exceptions.Timeout):
        return classify.TIMEOUT
    if isinstance(exc, requests.exceptions.SSLError):
        return classify.TLS_ERROR
    text = repr(exc).lower()
    if "refused" in text:
        return classify.CONNECTION_REFUSED
    if "reset" in text or "aborted" in text or "remotedisconnected" in text:
        return classify.CONNECTION_RESET
    if "timed out" in text or "timeout" in text:
        return classify.TIMEOUT
    return classify.CONNECTION_ERROR
