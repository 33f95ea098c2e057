"""Local mode's state across restarts: a clean stop saves the embedded AWS, the next start restores it.

What is kept: every moto backend local mode's process has loaded (DynamoDB's tables and items, SQS's queues and
messages, delayed and in-flight ones included, with their absolute visibility times, SNS, SES and its verified
identities, KMS's keys (endpoints' `auth` secrets are sealed with one), S3's buckets and objects, IAM, STS, and
whatever a customer's destination used), pickled whole with
fresh locks in place of the live ones; and each Step Functions execution of hookline's state machines that was
running (a retry's long wait), by its name and input: moto's executions run on live threads, which cannot be
saved, so the restored start starts each one again with the same name and input. Its Wait reads an absolute
time (`until`), so it waits only what remained, or not at all when that moment has passed. What is not kept: the
history of finished executions; the authorizer's cached answers; receivers the portal demo ran (its endpoints
are restored and fail until disabled).

The running executions are read before the queues are pickled: one that ends in between is both on its queue and
started again, a duplicate delivery task (delivery is at least once, and the task is idempotent), never a lost one.

Files, in the state directory (HOOKLINE_LOCAL_DATA_DIR, relative to the repository; ignored by git):
`aws-state.pickle`, written atomically (a temporary file, then a rename) and readable by its user only, and
`running.json` while a local mode runs. A start that finds `running.json` knows the last run did not stop cleanly
(SIGKILL, a crash): what it changed since the last clean save is lost, and the start says so.
"""

from __future__ import annotations

import importlib
import json
import os
import pickle
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from moto.core.base_backend import BackendDict

from local import REPO_ROOT

SNAPSHOT = "aws-state.pickle"
MARKER = "running.json"
OFF = "off"  # HOOKLINE_LOCAL_DATA_DIR=off: local mode keeps nothing
FORMAT = 1  # a snapshot of another format (or another moto's) is not restored
# moto's Step Functions run executions on live threads: their running executions are started again instead.
NOT_PICKLED = frozenset({"stepfunctions", "moto_api"})

_LOCKS = (type(threading.Lock()), type(threading.RLock()))


def _private_key(pem: bytes) -> Any:
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    return load_pem_private_key(pem, password=None)


def _is_private_key(obj: Any) -> bool:
    return type(obj).__module__.startswith("cryptography.") and hasattr(obj, "private_bytes") and hasattr(obj, "public_key")


class _Pickler(pickle.Pickler):
    """Locks and conditions become fresh ones; threads (none are live in a stopped local mode's backends) None;
    cryptography's private keys (moto's KMS keeps one per key, which sealed endpoints' `auth` secrets) their PEM."""

    def reducer_override(self, obj: Any) -> Any:
        if _is_private_key(obj):
            from cryptography.hazmat.primitives import serialization

            pem = obj.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
            return _private_key, (pem,)
        if isinstance(obj, _LOCKS):
            return type(obj), ()
        if isinstance(obj, threading.Condition):
            return threading.Condition, ()
        if isinstance(obj, threading.Thread):
            return _none, ()
        return NotImplemented


def _none() -> None:
    return None


def state_dir(setting: str) -> Path:
    path = Path(setting)
    return path if path.is_absolute() else REPO_ROOT / path


def loaded_backends() -> dict[str, BackendDict[Any]]:
    """Every moto backend this process has imported, by `module:attribute` (the first module naming it), those of
    NOT_PICKLED left out."""
    found: dict[str, BackendDict[Any]] = {}
    seen: set[int] = set()
    for module_name in sorted(name for name in sys.modules if name.startswith("moto.")):
        module = sys.modules.get(module_name)
        for attribute, value in sorted(vars(module).items()) if module is not None else ():
            if isinstance(value, BackendDict) and id(value) not in seen:
                seen.add(id(value))
                if value.service_name not in NOT_PICKLED:
                    found[f"{module_name}:{attribute}"] = value
    return found


@dataclass
class Snapshot:
    saved_at: float
    backends: dict[str, BackendDict[Any]]
    executions: list[dict[str, str]] = field(default_factory=list)  # stateMachineArn, name, input
    format: int = FORMAT


def running_executions(sfn: Any, machine_arns: list[str]) -> list[dict[str, str]]:
    """The running executions of these state machines, by what starts them again (state machine, name, input)."""
    found = []
    for arn in machine_arns:
        for page in sfn.get_paginator("list_executions").paginate(stateMachineArn=arn, statusFilter="RUNNING"):
            for execution in page["executions"]:
                described = sfn.describe_execution(executionArn=execution["executionArn"])
                found.append({"stateMachineArn": arn, "name": execution["name"], "input": described.get("input", "{}")})
    return found


def restart_executions(sfn: Any, executions: list[dict[str, str]]) -> None:
    for execution in executions:
        sfn.start_execution(**execution)


def _when(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).astimezone().strftime("%Y-%m-%d %H:%M:%S")


class LocalState:
    """The state directory of one local mode: `begin()` at start (restores, or not, and says which), `save()` at a
    clean stop, which also ends the run's mark."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.snapshot_path = directory / SNAPSHOT
        self.marker_path = directory / MARKER
        self.restored: Snapshot | None = None

    def begin(self, *, fresh: bool) -> str:
        """Restore the last clean save into moto's backends (unless `fresh`) and mark this run; what happened, in a line."""
        self.directory.mkdir(parents=True, exist_ok=True)
        crashed = self._read_marker()
        self._write_marker()
        lost = ""
        if crashed is not None:
            lost = f"The last local mode (pid {crashed.get('pid')}, started {_when(float(crashed.get('started_at', 0)))}) did not stop cleanly (killed or crashed): what it changed is lost. "
        if fresh:
            self.snapshot_path.unlink(missing_ok=True)
            return f"{lost}Local state: starting empty (--fresh); the state saved in {self.directory} is deleted."
        snapshot, unreadable = self._load()
        if snapshot is None:
            why = f" ({unreadable})" if unreadable else (" (nothing saved yet)" if not lost else "")
            return f"{lost}Local state: starting empty{why}; a clean stop (Ctrl-C) saves it in {self.directory}."
        for key, loaded in snapshot.backends.items():
            module_name, attribute = key.split(":", 1)
            target = getattr(importlib.import_module(module_name), attribute)
            target.clear()
            target.update(loaded)
        self.restored = snapshot
        return f"{lost}Local state: restored from the clean stop of {_when(snapshot.saved_at)} ({self.snapshot_path}); `make run ARGS=--fresh` starts empty."

    def save(self, executions: list[dict[str, str]]) -> None:
        """Pickle the embedded AWS (call it with nothing running against it), atomically, then end this run's mark."""
        snapshot = Snapshot(saved_at=time.time(), backends=loaded_backends(), executions=executions)
        temporary = self.snapshot_path.with_name(f".{SNAPSHOT}.{os.getpid()}.tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(descriptor, "wb") as out:
                _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(snapshot)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.snapshot_path)
        finally:
            temporary.unlink(missing_ok=True)
        self.marker_path.unlink(missing_ok=True)

    def _load(self) -> tuple[Snapshot | None, str]:
        try:
            with self.snapshot_path.open("rb") as saved:
                snapshot = pickle.load(saved)  # noqa: S301 - local mode's own file, in its user's ignored directory, mode 0600
        except FileNotFoundError:
            return None, ""
        except Exception as exc:  # a truncated file, another moto's classes
            return None, f"{self.snapshot_path} could not be read: {type(exc).__name__}: {exc}"
        if not isinstance(snapshot, Snapshot) or snapshot.format != FORMAT:
            return None, f"{self.snapshot_path} is of another format"
        return snapshot, ""

    def _read_marker(self) -> dict[str, Any] | None:
        try:
            marker = json.loads(self.marker_path.read_text())
        except (OSError, ValueError):
            return None
        return marker if isinstance(marker, dict) else {}

    def _write_marker(self) -> None:
        self.marker_path.write_text(json.dumps({"pid": os.getpid(), "started_at": time.time()}))
