"""A POST to an endpoint with `auth` (hookline.core.auth): its secrets opened, its credentials added, sent through the
SSRF-guarded client (hookline.adapters.http) as every webhook is.

- basic, bearer: the `Authorization` header (it replaces a custom header of that name).
- mtls: the client certificate presented in the TLS handshake. ssl's load_cert_chain reads files: the certificate and
  key are written once per process and endpoint auth (its sealed text names it) into a private temporary directory
  (0700), each file 0600, and removed when the process ends.
- oauth2_client_credentials: `Authorization: Bearer <token>`. The token is asked for at the token URL through the same
  client (the SSRF guard, the connect and request timeouts) with the client's id and secret (HTTP Basic,
  RFC 6749 2.3.1); it is kept in the process and in the table (a TokenStore, sealed) until shortly before it expires
  (hookline.core.auth.refresh_at); one fetch at a time per endpoint in a process, and a process that has none takes
  the table's before it asks. A receiver that answers 401 gets the request once more with a token fetched anew (never
  the one it refused). A token endpoint that fails makes the attempt fail with `auth_failed` (hookline.core.classify:
  retried and counted like any transient failure), its detail saying why without anything it was sent or answered.

Every request of one attempt (a token's, the webhook's, and the ones a 401 makes) shares the one request deadline a
webhook has (HOOKLINE_REQUEST_TIMEOUT_SECONDS from the attempt's start), so an attempt with auth takes no longer than
one without: what the delivery function's timeout is planned for (hookline.core.config.hand_on_seconds).

Nothing secret is logged or put in an attempt's detail.
"""

from __future__ import annotations

import atexit
import hashlib
import logging
import os
import shutil
import ssl
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import quote_plus, urlencode

from hookline.adapters.http import ClientCertificate
from hookline.core import auth, classify
from hookline.core.models import Endpoint
from hookline.core.responses import HttpResult

_log = logging.getLogger(__name__)


class Opener(Protocol):
    """What this adapter needs of the Sealer (hookline.adapters.sealing.KmsSealer)."""

    def seal(self, plaintext: bytes, context: Mapping[str, str]) -> str: ...

    def open(self, sealed: str, context: Mapping[str, str]) -> bytes: ...


class Poster(Protocol):
    """What this adapter needs of the HTTP client (hookline.adapters.http.WebhookClient)."""

    @property
    def request_timeout(self) -> float: ...

    def post(self, url: str, body: bytes, headers: Mapping[str, str], client: ClientCertificate | None = None, deadline: float | None = None) -> HttpResult: ...


@dataclass(frozen=True)
class StoredToken:
    """A token as the table keeps it: sealed, when it stops being used (epoch seconds), and which auth it is for."""

    sealed: str
    refresh_at: float
    auth: str  # the fingerprint of the endpoint's `auth` it was fetched with (a changed auth fetches anew)


class TokenStore(Protocol):
    def get(self, tenant: str, endpoint_id: str) -> StoredToken | None: ...

    def put(self, tenant: str, endpoint_id: str, token: StoredToken) -> bool: ...


@dataclass(frozen=True)
class _Token:
    value: str
    refresh_at: float


def fingerprint(endpoint_auth: auth.EndpointAuth) -> str:
    """Which auth a token or a certificate file was made for: a hash of its sealed text (a new auth seals anew)."""
    return hashlib.sha256(endpoint_auth.sealed.encode()).hexdigest()[:32]


class AuthenticatedPoster:
    """POSTs to endpoints with `auth`; `tokens`: the fleet's token cache (None: the process's alone)."""

    def __init__(self, http: Poster, opener: Opener, tokens: TokenStore | None = None, clock: Callable[[], float] = time.time):
        self._http = http
        self._opener = opener
        self._store = tokens
        self._clock = clock
        self._lock = threading.Lock()
        self._fetching: dict[tuple[str, str], threading.Lock] = {}
        self._tokens: dict[tuple[str, str], tuple[str, _Token]] = {}  # (tenant, endpoint) -> (auth fingerprint, token)
        self._certificates: dict[str, ClientCertificate] = {}
        self._directory: str | None = None
        self.tokens_fetched = 0  # token requests made by this process

    def post(self, endpoint: Endpoint, body: bytes, headers: Mapping[str, str]) -> HttpResult:
        given = endpoint.auth
        if given is None:
            return self._http.post(endpoint.url, body, headers)
        started = time.monotonic()
        deadline = started + self._http.request_timeout
        try:
            secret = auth.secrets_of(self._opener.open(given.sealed, auth.seal_context(endpoint.tenant, endpoint.id)))
        except Exception as exc:  # a key refused or unreachable: the delivery waits and retries like any other
            return _failed(started, f"the endpoint's auth secrets could not be opened: {type(exc).__name__}")
        shown = dict(given.shown)
        if given.type == auth.BASIC:
            return self._http.post(endpoint.url, body, _authorized(headers, auth.basic_header(shown["username"], secret["password"])), deadline=deadline)
        if given.type == auth.BEARER:
            return self._http.post(endpoint.url, body, _authorized(headers, f"Bearer {secret['token']}"), deadline=deadline)
        if given.type == auth.MTLS:
            return self._http.post(endpoint.url, body, headers, client=self._certificate(given, shown["certificate"], secret["private_key"]), deadline=deadline)
        if given.type == auth.OAUTH2:
            return self._oauth2(endpoint, shown, secret, body, headers, started, deadline)
        return _failed(started, f"auth of unknown type {given.type[:40]!r}")

    # -- OAuth2 client credentials -----------------------------------------------------------------------------------

    def _oauth2(
        self, endpoint: Endpoint, shown: dict[str, str], secret: dict[str, str], body: bytes, headers: Mapping[str, str], started: float, deadline: float
    ) -> HttpResult:
        try:
            token = self._token(endpoint, shown, secret, None, deadline)
        except auth.TokenRefused as exc:
            return _failed(started, str(exc))
        result = self._http.post(endpoint.url, body, _authorized(headers, f"Bearer {token}"), deadline=deadline)
        if result.status_code != 401:
            return result
        try:  # refused: once more with a token fetched anew
            fresh = self._token(endpoint, shown, secret, token, deadline)
        except auth.TokenRefused as exc:
            return _failed(started, f"the receiver refused the token (401) and no new one came: {exc}")
        return self._http.post(endpoint.url, body, _authorized(headers, f"Bearer {fresh}"), deadline=deadline)

    def _token(self, endpoint: Endpoint, shown: dict[str, str], secret: dict[str, str], refused: str | None, deadline: float) -> str:
        """A token to send: the process's, the table's, or one fetched now (one fetch at a time per endpoint)."""
        assert endpoint.auth is not None
        key = (endpoint.tenant, endpoint.id)
        mark = fingerprint(endpoint.auth)
        with self._lock:
            fetching = self._fetching.setdefault(key, threading.Lock())
        with fetching:
            now = self._clock()
            kept = self._tokens.get(key)
            if kept is not None and kept[0] == mark and auth.usable(kept[1].refresh_at, now) and kept[1].value != refused:
                return kept[1].value
            context = auth.seal_context(endpoint.tenant, endpoint.id)
            shared = self._shared(endpoint, mark, now, context)
            if shared is not None and shared.value != refused:
                self._keep(key, mark, shared)
                return shared.value
            token = self._fetch(shown, secret, now, deadline)
            self._keep(key, mark, token)
            if self._store is not None:
                try:
                    sealed = self._opener.seal(token.value.encode(), context)
                    self._store.put(endpoint.tenant, endpoint.id, StoredToken(sealed, token.refresh_at, mark))
                except Exception as exc:  # the fleet's cache is an optimization: the token fetched is good for this delivery
                    _log.warning("an OAuth2 token was not kept in the table", extra={"endpoint_id": endpoint.id, "error": type(exc).__name__})
            return token.value

    def _shared(self, endpoint: Endpoint, mark: str, now: float, context: Mapping[str, str]) -> _Token | None:
        if self._store is None:
            return None
        try:
            stored = self._store.get(endpoint.tenant, endpoint.id)
            if stored is None or stored.auth != mark or not auth.usable(stored.refresh_at, now):
                return None
            return _Token(self._opener.open(stored.sealed, context).decode(), stored.refresh_at)
        except Exception:  # unreadable: ask the token endpoint instead
            return None

    def _keep(self, key: tuple[str, str], mark: str, token: _Token) -> None:
        with self._lock:
            self._tokens[key] = (mark, token)

    def _fetch(self, shown: dict[str, str], secret: dict[str, str], now: float, deadline: float) -> _Token:
        form: dict[str, str] = {"grant_type": "client_credentials", **{k: shown[k] for k in ("scope", "audience") if k in shown}}
        client = auth.basic_header(quote_plus(shown["client_id"]), quote_plus(secret["client_secret"]))  # RFC 6749 2.3.1
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json", "Authorization": client}
        self.tokens_fetched += 1
        answer = self._http.post(shown["token_url"], urlencode(form).encode(), headers, deadline=deadline)
        value, expires_in = auth.token_of(answer.status_code, answer.error, answer.body)
        return _Token(value, auth.refresh_at(now, expires_in))

    # -- mTLS ----------------------------------------------------------------------------------------------------------

    def _certificate(self, given: auth.EndpointAuth, certificate: str, private_key: str) -> ClientCertificate:
        mark = fingerprint(given)
        with self._lock:
            made = self._certificates.get(mark)
            if made is None:
                directory = self._private_directory()
                cert_file, key_file = os.path.join(directory, f"{mark}.pem"), os.path.join(directory, f"{mark}.key")
                _write_private(cert_file, certificate)
                _write_private(key_file, private_key)
                made = self._certificates[mark] = ClientCertificate(mark, cert_file, key_file)
        return made

    def _private_directory(self) -> str:
        if self._directory is None:
            self._directory = tempfile.mkdtemp(prefix="hookline-mtls-")  # 0700, this process's alone
            atexit.register(shutil.rmtree, self._directory, True)
        return self._directory


class SslCertificates:
    """ClientCertificates by ssl itself: the certificate and key loaded as a handshake would load them (in a private
    temporary directory, removed at once), so an endpoint whose certificate could never be presented is refused when
    it is given, not at every delivery."""

    def refusal(self, certificate: str, private_key: str) -> str | None:
        with tempfile.TemporaryDirectory(prefix="hookline-mtls-check-") as directory:
            cert_file, key_file = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
            _write_private(cert_file, certificate)
            _write_private(key_file, private_key)
            try:
                ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_cert_chain(cert_file, key_file, password=lambda: b"")
            except ssl.SSLError as exc:
                if exc.reason == "KEY_VALUES_MISMATCH":
                    return "the private key is not the certificate's"
                return "the certificate or the private key cannot be read (PEM; the key unencrypted)"
        return None


def _write_private(path: str, text: str) -> None:
    """A file only this process's user may read or write (0600), made so: never readable by others, even for a moment."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as f:
        f.write(text)


def _authorized(headers: Mapping[str, str], value: str) -> dict[str, str]:
    return {**{k: v for k, v in headers.items() if k.lower() != "authorization"}, "Authorization": value}


def _failed(started: float, detail: str) -> HttpResult:
    return HttpResult(None, classify.AUTH_FAILED, int((time.monotonic() - started) * 1000), detail=detail[:300])
