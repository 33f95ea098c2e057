"""hookline in local mode: `python -m local.run` (what `make run` calls).

Everything runs in this one process, built from `hookline.wiring.topology` (the same
specs the CDK stack uses), so the laptop and the cloud cannot drift apart:

* AWS: moto's ThreadedMotoServer on 127.0.0.1:$HOOKLINE_AWS_PORT (4566).
  `AWS_ENDPOINT_URL` points every boto3 client at it; tables, queues (dead-
  letter queues and redrive policies included), Step Functions state
  machines and SNS topics come from topology.TABLES (with their GSIs), QUEUES,
  STATE_MACHINES and TOPICS, and each resource's env var carries its
  name / URL / ARN. moto is told to really execute state machines (a Wait,
  then the SQS send), in real time. Nothing subscribes to the topics locally.
* Functions: every topology.FUNCTIONS handler is imported from its
  spec.handler_path after the environment is set (a cold start), as its own
  module (`hookline_fn_<name>`), even when two functions share code.
* API: an API Gateway HTTP API look-alike on 127.0.0.1:$HOOKLINE_PORT (8787)
  with the stack's routes: `GET /health` (no authorizer) and `ANY /v1/{proxy+}`
  (Lambda authorizer, cached per Authorization header, then the api
  function); other paths get API Gateway's 404 (local/frontdoor.py).
* Queues: one Lambda-like event source poller per function with an
  `sqs_source` (local/pollers.py), honouring batch size and partial batch
  failures; moto's redrive policy moves poison messages to the DLQ.
* API keys: `HOOKLINE_API_KEYS=tenant:key,...`, or one fresh key for tenant
  `local`, stored through hookline.adapters.dynamo.apikeys like `make api-key` does.
* The SSRF guard lets loopback through (`HOOKLINE_ALLOW_PRIVATE_NETWORKS`
  defaults to `127.0.0.0/8,::1/128`) so a receiver on the laptop is reachable.
* Customer emails: moto's SES. `HOOKLINE_NOTIFICATION_SENDER` defaults to
  `notifications@hookline.localhost`, verified at provisioning; each email
  SES accepts is printed on the console (to, subject, first lines; local/mail.py).
* One API request at a time: the api function's handler keeps the request it
  answers in process-wide state (Powertools' event handler), which Lambda
  allows, since an execution environment answers one request at a time. The
  front door takes requests on threads, so they queue for the api function
  (`ONE_AT_A_TIME`); the authorizer and the pollers' functions run side by side.
* The portal demo (local/portal_demo.py) is seeded before the banner, which
  waits for its first attempts to be logged, so the portal link is the last
  thing printed (`make portal-link` prints it again, from local/running.py's
  state file); a step that fails is logged in one line (the request, the API's error code and
  message) and local mode runs on without it. When the URL policy would refuse
  its receivers (e.g. HOOKLINE_ALLOW_PRIVATE_NETWORKS without loopback), it is
  skipped and the banner says why; `--no-demo` (`make run HOOKLINE_DEMO=0`)
  skips it too.
* State: a clean stop (Ctrl-C, SIGTERM) saves the embedded AWS under
  HOOKLINE_LOCAL_DATA_DIR (`.hookline-local/`) and the next start restores it
  (local/saved.py); `--fresh` starts empty; a start after a run that did not stop
  cleanly says so. Restored, the portal demo is not seeded again. `LocalHookline`
  keeps state only when given a `state` (main() gives it one).
* Metrics: Powertools metrics are disabled (`POWERTOOLS_METRICS_DISABLED=true`
  unless set), so EMF blobs do not flood the terminal.

Logs: the handlers log JSON lines through Powertools' Logger, unchanged. The
runner does not touch the Logger or its formatter; it only points each
Powertools stream handler at `local.logs.ReadableLogStream`, which renders
every JSON line as one readable line, and the delivery function's "delivery
attempt" entries as e.g. `12:00:01 attempt 1 evt_… -> ep_… 200 succeeded 12ms`.
`--json-logs` keeps the raw JSON.

Tests embed the whole service in-process::

    with LocalHookline(port=0, aws_port=0, api_keys="acme:testkey123456") as hl:
        requests.get(hl.base_url + "/v1/events", headers={"Authorization": f"Bearer {hl.api_key}"})

`stop()` (or leaving the `with`) restores every environment variable it set
(AWS_ENDPOINT_URL included) and clears hookline's cached settings and clients,
so tests that use moto's in-process `mock_aws` afterwards are not disturbed.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, datetime
from types import TracebackType
from typing import Any

import boto3
import requests
from aws_lambda_powertools import Logger
from moto.server import ThreadedMotoServer

from hookline.adapters import aws
from hookline.core.apikeys import generate_api_key, parse_key_list
from hookline.core.settings import Settings
from hookline.wiring import topology
from hookline.wiring.settings import get_settings
from local import moto_speedups, portal_demo, running, saved
from local.atomic import atomic_dynamodb_writes
from local.frontdoor import FrontDoor, Gateway
from local.lambda_runtime import LocalFunction, load_handler, unload_handler_module
from local.logs import LogRewriter
from local.mail import MailEcho
from local.pollers import ScheduleTimer, SqsPoller
from local.priority import ApiFirst
from local.resources import enable_state_machine_execution, provision, queue_arn, restore_moto_config, seed_api_keys, verify_email_identity

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
LOCAL_TENANT = "local"
DEFAULT_PRIVATE_NETWORKS = "127.0.0.0/8,::1/128"
LOCAL_SENDER = "notifications@hookline.localhost"
SSRF_WARNING = (
    "WARNING: local mode lets the SSRF guard deliver to the private networks HOOKLINE_ALLOW_PRIVATE_NETWORKS={networks} names (loopback, unless set)."
    " The deployed stack does not."
)


def ensure_port_free(port: int, what: str) -> None:
    """Fail fast: ThreadedMotoServer would wait forever for a server that cannot bind."""
    if port == 0:
        return
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the servers do
        try:
            probe.bind((HOST, port))
        except OSError as exc:
            raise OSError(f"{what} port {HOST}:{port} is in use ({exc.strerror}); pick another with the env var") from None


LOCAL_DELIVERY_ROLE_ARN = "arn:aws:iam::123456789012:role/hookline-local-delivery"


def silence_werkzeug() -> None:
    werkzeug = logging.getLogger("werkzeug")
    werkzeug.setLevel(logging.ERROR)
    werkzeug.propagate = False


# Full garbage collections: after this many second-generation ones (Python's default is 10).
GC_FULL_AFTER = 100

# Functions invoked one at a time, as one Lambda execution environment runs them: their handler keeps the request
# being answered in process-wide state. The api function's Powertools event handler holds it in a class attribute
# (`BaseRouter.current_event`) and clears the route's context when any request ends, so two requests answered at
# once read each other's: a /health probe answered while the portal demo's PUT /v1/customers/demo-customer built its
# service gave that PUT the probe's empty body, and it answered 400 malformed_json. The authorizer and
# the pollers' functions keep no request in shared state and run side by side.
ONE_AT_A_TIME = frozenset({topology.API.name})


class LocalHookline:
    """The whole service in this process; start() / stop(), or use as a context manager.

    port / aws_port: None reads HOOKLINE_PORT / HOOKLINE_AWS_PORT; 0 picks a free port.
    api_keys: `tenant:key,...` (sets HOOKLINE_API_KEYS); None reads the environment.
    env: extra environment variables for the run (restored by stop()).
    reset_aws: wipe moto's state first (moto's backends are process-global).
    state: where a clean stop saves the embedded AWS and a start restores it (local.saved); None keeps nothing
    (tests). `fresh`: start empty all the same. `state_note` says, once started, which it did.
    """

    def __init__(
        self,
        *,
        port: int | None = None,
        aws_port: int | None = None,
        api_keys: str | None = None,
        prefix: str = topology.DEFAULT_PREFIX,
        env: Mapping[str, str] | None = None,
        readable_logs: bool = True,
        poller_threads: int = 1,
        reset_aws: bool = True,
        state: saved.LocalState | None = None,
        fresh: bool = False,
    ):
        self.prefix = prefix
        self._port = port
        self._aws_port = aws_port
        self._api_keys = api_keys
        self._extra_env = dict(env or {})
        self._readable_logs = readable_logs
        self._poller_threads = poller_threads
        self._api_first = ApiFirst()  # API requests before the pollers' next batches (local.priority)
        self._reset_aws = reset_aws
        self._state = state
        self._fresh = fresh
        self.state_note = ""
        self._saved_env: dict[str, str | None] = {}
        self._gc_threshold: tuple[int, int, int] | None = None  # the process's own, restored by stop()
        self._moto: ThreadedMotoServer | None = None
        self._moto_sfn_config: dict[str, Any] | None = None
        self._atomic: AbstractContextManager[None] | None = None
        self._front_door: FrontDoor | None = None
        self._pollers: list[SqsPoller] = []
        self._timers: list[ScheduleTimer] = []
        self._mail_echo: MailEcho | None = None
        self._log_rewriter = LogRewriter()
        self._lock = threading.Lock()
        self._one_at_a_time: dict[str, threading.Lock] = {}  # per function in ONE_AT_A_TIME
        self.functions: dict[str, LocalFunction] = {}
        self.resources: dict[str, str] = {}
        self.keys: list[tuple[str, str]] = []
        self.aws_endpoint = ""
        self.region = ""
        self.settings: Settings | None = None
        self.started = False

    # -- environment -------------------------------------------------------

    def _setenv(self, name: str, value: str) -> None:
        if name not in self._saved_env:
            self._saved_env[name] = os.environ.get(name)
        os.environ[name] = value

    def _setdefault(self, name: str, value: str) -> str:
        current = os.environ.get(name)
        if current is None or current == "":
            self._setenv(name, value)
            return value
        return current

    def _restore_env(self) -> None:
        for name, value in self._saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        self._saved_env.clear()

    @staticmethod
    def _forget_cached_state() -> None:
        """Drop hookline's process-wide caches (settings, boto3 clients, services built from them)."""
        aws.reset_clients()
        get_settings.cache_clear()
        container = sys.modules.get("hookline.wiring.container")  # only if a handler imported it
        reset = getattr(container, "reset", None)
        if callable(reset):
            reset()

    # -- lifecycle ---------------------------------------------------------

    def start(self) -> LocalHookline:
        if self.started:
            return self
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        self.started = True
        return self

    def _start(self) -> None:
        moto_speedups.install()  # moto's SendMessage cost grows with the queue's backlog otherwise
        # The API, the pollers and moto share this interpreter, and moto's tables live in it: with a backlog of
        # thousands, a full garbage collection takes 100-250 ms, and one that lands on a request delays it by that.
        # A full one runs a tenth as often (after 100 second-generation runs, not 10); the young ones as usual.
        self._gc_threshold = gc.get_threshold()
        gc.set_threshold(self._gc_threshold[0], self._gc_threshold[1], max(self._gc_threshold[2], GC_FULL_AFTER))
        for name, value in self._extra_env.items():
            self._setenv(name, value)
        if self._api_keys is not None:
            self._setenv("HOOKLINE_API_KEYS", self._api_keys)
        boot = Settings.from_env(os.environ)
        requested_keys = parse_key_list(boot.api_keys)
        port = boot.port if self._port is None else self._port
        aws_port = boot.aws_port if self._aws_port is None else self._aws_port
        ensure_port_free(port, "HOOKLINE_PORT: the API")
        ensure_port_free(aws_port, "HOOKLINE_AWS_PORT: the embedded AWS")
        self._start_aws(aws_port)
        if self._state is not None:  # into the freshly reset backends, before provisioning finds what exists
            self.state_note = self._state.begin(fresh=self._fresh)
        session = boto3.Session()
        self._provision(session)
        if self._state is not None and self._state.restored is not None:
            saved.restart_executions(session.client("stepfunctions"), self._state.restored.executions)
        settings = self.settings = get_settings()
        self.keys = requested_keys or [(LOCAL_TENANT, generate_api_key())]
        seed_api_keys(self.resources[topology.TABLE.env], self.keys, datetime.now(UTC).isoformat(), session=session)
        self._load_functions()
        self._start_front_door(port, settings)
        self._start_pollers(session, settings)
        self._start_schedules(settings)
        self._mail_echo = MailEcho(self.region)
        self._mail_echo.start()

    def _start_aws(self, aws_port: int) -> None:
        """Step 1: the embedded AWS, and the environment that points boto3 (and the handlers) at it."""
        silence_werkzeug()
        self._atomic = atomic_dynamodb_writes()
        self._atomic.__enter__()
        self._moto = ThreadedMotoServer(ip_address=HOST, port=aws_port, verbose=False)
        self._moto.start()
        self.aws_endpoint = f"http://{HOST}:{self._moto.get_host_and_port()[1]}"
        self._setenv("AWS_ENDPOINT_URL", self.aws_endpoint)
        self.region = self._setdefault("AWS_DEFAULT_REGION", "us-east-1")
        self._setdefault("AWS_ACCESS_KEY_ID", "testing")
        self._setdefault("AWS_SECRET_ACCESS_KEY", "testing")
        # Local receivers are plain http on any port; the deployed stack allows https on 443 (and 80) only.
        self._setdefault("HOOKLINE_ALLOW_HTTP", "true")
        self._setdefault("HOOKLINE_LOG_SUCCESSES", "true")  # a terminal shows every attempt
        self._setdefault("HOOKLINE_ALLOWED_PORTS", "*")
        self._setdefault("HOOKLINE_NOTIFICATION_SENDER", LOCAL_SENDER)
        # The customers' queues, topics, buses, streams and buckets live on the same embedded AWS (any account): the role
        # template names this stand-in delivery role, which nothing checks here (moto enforces no trust policies).
        self._setdefault("HOOKLINE_DELIVERY_ROLE_ARNS", LOCAL_DELIVERY_ROLE_ARN)
        networks = self._setdefault("HOOKLINE_ALLOW_PRIVATE_NETWORKS", DEFAULT_PRIVATE_NETWORKS)
        log.warning(SSRF_WARNING.format(networks=networks))
        self._setenv("POWERTOOLS_SERVICE_NAME", "hookline")
        self._setenv("POWERTOOLS_METRICS_NAMESPACE", "hookline")
        self._setenv("POWERTOOLS_TRACE_DISABLED", "true")
        self._setdefault("POWERTOOLS_METRICS_DISABLED", "true")
        self._forget_cached_state()
        if self._reset_aws:
            requests.post(f"{self.aws_endpoint}/moto-api/reset", timeout=10).raise_for_status()
        # State machines really run (Wait, then their SQS task); moto's engine finds SQS at localhost:$MOTO_PORT.
        self._setenv("MOTO_PORT", str(self._moto.get_host_and_port()[1]))
        self._moto_sfn_config = enable_state_machine_execution(self.aws_endpoint)

    def _provision(self, session: boto3.Session) -> None:
        """Step 2: tables, queues, state machines and topics from the topology; their names / URLs / ARNs into the environment."""
        self.resources = provision(self.prefix, session=session)
        # The sender's address, as the emails send from it (a sender may be written `Name <address>`).
        mailbox = Settings.from_env(os.environ).notification_mailbox
        if mailbox is not None:
            verify_email_identity(mailbox.address, session=session)
        for name, value in self.resources.items():
            self._setenv(name, value)
        # One process holds every function, so their extra_env is merged.
        merged: dict[str, str] = {}
        for spec in topology.FUNCTIONS:
            for name, value in spec.extra_env.items():
                if merged.get(name, value) != value:
                    log.warning("%s: extra_env %s=%r overrides another function's value", spec.name, name, value)
                merged[name] = value
                self._setenv(name, value)
        get_settings.cache_clear()

    def _load_functions(self) -> None:
        """Step 4: import every handler, now that the environment is complete (a cold start)."""
        for spec in topology.FUNCTIONS:
            _, handler = load_handler(spec)
            self.functions[spec.name] = LocalFunction(spec=spec, physical_name=f"{self.prefix}-{spec.name}", handler=handler, region=self.region)
        if self._readable_logs:
            service = os.environ["POWERTOOLS_SERVICE_NAME"]
            if getattr(logging.getLogger(service), "powertools_handler", None) is None:
                # Configure the service's Powertools logger now, so the handlers' lazily
                # created Logger(service=...) reuses this handler, which install() rewires.
                Logger(service=service)
            self._log_rewriter.install()

    def _start_front_door(self, port: int, settings: Settings) -> None:
        """Step 5: the API Gateway look-alike: authorizer, then the api function."""
        gateway = Gateway(
            api=self._invoker(topology.API.name),
            authorizer=self._invoker(topology.AUTHORIZER.name),
            region=self.region,
            authorizer_cache_seconds=settings.authorizer_cache_seconds,
        )
        self._front_door = FrontDoor(gateway, host=HOST, port=port, in_flight=self._api_first)
        self._front_door.start()

    def _start_pollers(self, session: boto3.Session, settings: Settings) -> None:
        """Step 6: one Lambda-like event source poller per function with an sqs_source."""
        sqs = session.client("sqs")
        for spec in topology.FUNCTIONS:
            source = spec.sqs_source
            if source is None:
                continue
            url = self.resources[source.queue.env]
            poller = SqsPoller(
                name=spec.name,
                sqs=sqs,
                queue_url=url,
                queue_arn=queue_arn(sqs, url),
                invoke=self._invoker(spec.name),
                batch_size=int(getattr(settings, source.batch_size_setting)),
                region=self.region,
                max_batching_window_seconds=source.batching_window(settings),
                # One thread on a FIFO queue: moto's server answers concurrent receives without a lock, so two could
                # take one message group's messages at once (SQS never hands a group to two receivers).
                threads=1 if source.queue.fifo else self._poller_threads,
                yield_to=self._api_first.yield_to_requests,
            )
            poller.start()
            self._pollers.append(poller)

    def _start_schedules(self, settings: Settings) -> None:
        """Step 7: each scheduled invocation (the sweeper) on a timer thread, as EventBridge Scheduler does in the stack."""
        for spec in topology.SCHEDULES:
            timer = ScheduleTimer(spec.key, self._invoker(spec.function), spec.payload(), 60.0 * float(getattr(settings, spec.interval_setting)))
            timer.start()
            self._timers.append(timer)

    def _invoker(self, name: str) -> Any:
        function = self.functions[name]
        turn: AbstractContextManager[Any] = self._one_at_a_time.setdefault(name, threading.Lock()) if name in ONE_AT_A_TIME else nullcontext()

        def invoke(event: dict[str, Any]) -> Any:
            if self._readable_logs:
                self._log_rewriter.install()  # loggers created lazily since the last call
            with turn:
                return function.invoke(event)

        return invoke

    def _stop_workers(self) -> None:
        """The timers and pollers, and the process's own garbage-collection thresholds back."""
        if self._gc_threshold is not None:
            gc.set_threshold(*self._gc_threshold)
            self._gc_threshold = None
        for timer in self._timers:
            timer.stop()
        self._timers.clear()
        for poller in self._pollers:
            poller.signal_stop()  # all at once: each may be in a 1 s long poll
        for poller in self._pollers:
            poller.stop()
        self._pollers.clear()

    def _save(self, state: saved.LocalState) -> None:
        """The embedded AWS to the state file, nothing running against it but Step Functions' waits (local.saved)."""
        try:
            sfn = boto3.client("stepfunctions", endpoint_url=self.aws_endpoint, region_name=self.region)
            executions = saved.running_executions(sfn, [self.resources[m.env] for m in topology.STATE_MACHINES])
            state.save(executions)
        except Exception:
            log.exception("local state NOT saved (the next start says so, and starts from the last save)")
            return
        print(f"local state saved in {state.snapshot_path}", flush=True)

    def stop(self) -> None:
        with self._lock:
            self._stop_workers()
            if self._mail_echo is not None:
                self._mail_echo.stop()
                self._mail_echo = None
            if self._front_door is not None:
                self._front_door.stop()
                self._front_door = None
            if self._state is not None and self.started:
                self._save(self._state)
            if self._moto is not None:
                if self._moto_sfn_config is not None:
                    try:
                        restore_moto_config(self.aws_endpoint, self._moto_sfn_config)
                    except requests.RequestException as exc:
                        log.debug("moto config restore: %s", exc)
                    self._moto_sfn_config = None
                try:
                    self._moto.stop()
                except Exception as exc:  # the thread may never have started
                    log.debug("moto server stop: %s", exc)
                self._moto = None
            if self._atomic is not None:
                self._atomic.__exit__(None, None, None)
                self._atomic = None
            self._log_rewriter.restore()
            for spec in topology.FUNCTIONS:
                unload_handler_module(spec)
            self.functions.clear()
            self._restore_env()
            self._forget_cached_state()
            self.started = False

    def __enter__(self) -> LocalHookline:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    # -- what callers need -------------------------------------------------

    @property
    def base_url(self) -> str:
        if self._front_door is None:
            raise RuntimeError("LocalHookline is not started")
        return self._front_door.url

    @property
    def port(self) -> int:
        if self._front_door is None:
            raise RuntimeError("LocalHookline is not started")
        return self._front_door.port

    @property
    def pollers(self) -> tuple[SqsPoller, ...]:
        """The running SQS pollers, one per function with an sqs_source (delivery, retry, replay, ...)."""
        return tuple(self._pollers)

    @property
    def api_key(self) -> str:
        if not self.keys:
            raise RuntimeError("LocalHookline is not started")
        return self.keys[0][1]

    def banner(self, demo: str = "") -> str:
        """What `make run` prints once up; `demo`: why the portal demo is not seeded, if it is not."""
        key = self.api_key
        networks = os.environ.get("HOOKLINE_ALLOW_PRIVATE_NETWORKS", "")
        keys = "\n".join(f"  tenant {tenant!r}: {k}" for tenant, k in self.keys)
        queues = ", ".join(q.physical_name(self.prefix) for q in topology.QUEUES)
        tables = ", ".join(t.physical_name(self.prefix) for t in topology.TABLES)
        machines = ", ".join(m.physical_name(self.prefix) for m in topology.STATE_MACHINES) or "-"
        topics = ", ".join(t.physical_name(self.prefix) for t in topology.TOPICS) or "-"
        pollers = ", ".join(f"{s.sqs_source.queue.physical_name(self.prefix)} -> {s.name}" for s in topology.FUNCTIONS if s.sqs_source) or "-"
        demo_note = f"\n\nPortal demo: {demo}." if demo else ""
        return f"""
hookline local mode is up.

  API          {self.base_url}
  AWS (moto)   {self.aws_endpoint}
               tables: {tables}   topics: {topics}   state machines: {machines}
               queues: {queues}
               SQS pollers (queue -> function): {pollers}
               e.g. (no AWS configuration needed with these three exports):
               export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_DEFAULT_REGION={self.region}
               aws --endpoint-url {self.aws_endpoint} sqs list-queues
API keys:
{keys}

{SSRF_WARNING.format(networks=networks)}{demo_note}

Try it: the README's walk-through, as written there (copy-paste into another terminal):

  export HOOKLINE_URL={self.base_url} HOOKLINE_KEY={key}
  export SECRET=$(curl -s -X POST "$HOOKLINE_URL/v1/endpoints" -H "authorization: Bearer $HOOKLINE_KEY" \\
       -d '{{"url": "http://127.0.0.1:9000/webhook", "event_types": ["invoice.paid"]}}' | python3 -c 'import json, sys; print(json.load(sys.stdin)["secret"])')

  # In a third terminal, with the same exports (HOOKLINE_URL, HOOKLINE_KEY and SECRET):
  .venv/bin/python -m local.receiver --port 9000 --secret "$SECRET"   # prints every webhook, refuses (401) one whose signature fails

  curl -s -X POST "$HOOKLINE_URL/v1/events" -H "authorization: Bearer $HOOKLINE_KEY" \\
       -d '{{"type": "invoice.paid", "data": {{"invoice": "in_123", "amount": 4200}}, "id": "invoice-in_123-paid"}}'

  curl -s "$HOOKLINE_URL/v1/events/invoice-in_123-paid" -H "authorization: Bearer $HOOKLINE_KEY"

Delivery attempts are logged below, one line each. Ctrl-C stops everything.
"""


def ready_line(started: str, now: float) -> str:
    """How long `make run` took to be up, set-up included ('' when not started by `make run`)."""
    try:
        elapsed = now - float(started)
    except ValueError:
        return ""
    return f"Up {elapsed:.0f} s after `make run` started (installing what local mode needs included)." if 0 <= elapsed < 86400 else ""


DEMO_OFF = "off (--no-demo, which `make run HOOKLINE_DEMO=0` passes)"


NOT_KEPT = "Local state: not kept (HOOKLINE_LOCAL_DATA_DIR=off): this run starts empty and saves nothing."
DEMO_RESTORED = (
    "not seeded again: its customer was restored with the rest, and its receivers did not survive the restart (`make run ARGS=--fresh` seeds it anew)"
)


def demo_skipped(no_demo: bool, settings: Settings | None, restored: bool = False) -> str:
    """Why the portal demo is not seeded, for the banner ('' when it is): --no-demo, a restored state, or a URL policy that refuses its receivers."""
    if no_demo:
        return DEMO_OFF
    if restored:
        return DEMO_RESTORED
    why = portal_demo.refusal(settings.url_policy) if settings is not None else None
    return f"skipped, {why}; the API refuses such endpoints (422 forbidden_url)" if why else ""


def seed_demo(base_url: str, api_key: str) -> portal_demo.PortalDemo | None:
    """The portal demo, or None when it could not be seeded: the reason is logged in one line, and local mode runs on."""
    try:
        return portal_demo.seed(base_url, api_key)
    except (portal_demo.DemoFailed, OSError) as exc:
        log.error("portal demo not seeded: %s. Local mode runs on without it.", exc)
    except Exception as exc:  # a bug in the demo: its traceback follows the line; still no reason to stop the API
        log.exception("portal demo not seeded: %s: %s. Local mode runs on without it.", type(exc).__name__, exc)
    return None


SEEDING_LINE = "API {api} is up; seeding the portal demo (a customer with a healthy and a failing endpoint), then the banner."

PORTAL_BANNER = """Customer portal (a demo customer with a healthy and a failing endpoint; open it in a browser):

  {link}

  The failing endpoint's receiver recovers after {recover} s from the start: replay its failures from the portal then.
  Print this link again: `make portal-link` (in another terminal, while this runs).
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m local.run", description="Run hookline locally.")
    parser.add_argument("--json-logs", action="store_true", help="keep the functions' raw Powertools JSON logs")
    parser.add_argument("--no-demo", action="store_true", help="skip the portal demo (a customer with a healthy and a failing endpoint)")
    parser.add_argument("--fresh", action="store_true", help="start empty: delete the state the last clean stop saved")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)-8s %(message)s", datefmt="%H:%M:%S")
    logging.getLogger("local").setLevel(logging.INFO)
    data_dir = Settings.from_env(os.environ).local_data_dir
    state = None if data_dir == saved.OFF else saved.LocalState(saved.state_dir(data_dir))
    hookline = LocalHookline(readable_logs=not args.json_logs, state=state, fresh=args.fresh)

    def terminate(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    # Before anything starts: a signal during start-up stops it as cleanly as one later.
    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even when started with SIGINT ignored (e.g. `cmd &`)
    demo = None
    try:
        try:
            hookline.start()
        except (OSError, ValueError) as exc:
            print(f"hookline local mode could not start: {exc}", file=sys.stderr)
            return 1
        running.announce(hookline.aws_endpoint, hookline.base_url)
        print(hookline.state_note or NOT_KEPT, flush=True)
        skipped = demo_skipped(args.no_demo, hookline.settings, restored=state is not None and state.restored is not None)
        if not skipped:
            # The demo first, and its first attempts logged, so the banner and the portal link come after them, last.
            print(SEEDING_LINE.format(api=hookline.base_url), flush=True)
            demo = seed_demo(hookline.base_url, hookline.api_key)
            if demo is not None:
                demo.wait_first_attempts(hookline.base_url, hookline.api_key, portal_demo.FIRST_ATTEMPTS_SECONDS)
                running.announce(hookline.aws_endpoint, hookline.base_url, portal_link=demo.link)
        print(hookline.banner(demo=skipped), flush=True)
        ready = ready_line(os.environ.get("HOOKLINE_RUN_STARTED", ""), time.time())
        if ready:
            print(ready, flush=True)
        if demo is not None:
            print(PORTAL_BANNER.format(link=demo.link, recover=int(portal_demo.DEFAULT_RECOVERY_SECONDS)), flush=True)
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        print("\nstopping...", flush=True)
    finally:
        # One signal stops it: the next ones (a terminal's Ctrl-C and a supervisor's SIGTERM both reach the whole
        # process group, make included) must not interrupt the stop halfway with a traceback.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        running.withdraw()
        if demo is not None:
            demo.stop()
        hookline.stop()
    print("stopped.", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
