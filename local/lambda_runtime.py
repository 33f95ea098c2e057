"""What the Lambda runtime gives a handler: its module, loaded from disk, and a context object."""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from hookline.wiring.topology import FunctionSpec
from local import REPO_ROOT

Handler = Callable[[dict[str, Any], Any], Any]

ACCOUNT_ID = "123456789012"  # moto's default account


def module_name(spec: FunctionSpec) -> str:
    return "hookline_fn_" + "".join(c if c.isalnum() else "_" for c in spec.name)


def load_handler_module(spec: FunctionSpec, root: Path = REPO_ROOT) -> ModuleType:
    """Import functions/<name>/handler.py under a unique module name.

    Call this only after the environment is set: handlers may read it at import
    time, as they would during a Lambda cold start. The function's own folder is
    on sys.path while it imports, like /var/task in Lambda.
    """
    path = root / spec.handler_path
    name = module_name(spec)
    import_spec = importlib.util.spec_from_file_location(name, path)
    if import_spec is None or import_spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(import_spec)
    sys.modules[name] = module
    folder = str(path.parent)
    sys.path.insert(0, folder)
    try:
        import_spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    finally:
        if folder in sys.path:
            sys.path.remove(folder)
    return module


def load_handler(spec: FunctionSpec, root: Path = REPO_ROOT) -> tuple[ModuleType, Handler]:
    """The handler module and its handler, which is given a fresh LambdaContext when called with None.

    The Lambda runtime always passes a context, and Powertools' inject_lambda_context
    reads it; tests and the bench call the handler with None for brevity.
    """
    module = load_handler_module(spec, root)
    attribute = spec.handler.rsplit(".", 1)[-1]
    handler = getattr(module, attribute, None)
    if not callable(handler):
        raise ImportError(f"{spec.handler_path} has no callable {attribute!r}")

    @functools.wraps(handler)
    def with_context(event: dict[str, Any], context: Any) -> Any:
        if context is None:
            region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
            context = function_context(spec, spec.name, region)
        return handler(event, context)

    return module, with_context


def unload_handler_module(spec: FunctionSpec) -> None:
    sys.modules.pop(module_name(spec), None)


@dataclass
class LambdaContext:
    """The attributes of the Python runtime's context object that handlers and Powertools read."""

    function_name: str
    memory_limit_in_mb: int
    timeout_seconds: int
    region: str
    function_version: str = "$LATEST"
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    identity: Any = None
    client_context: Any = None
    _deadline: float = field(default=0.0, repr=False)

    def __post_init__(self) -> None:
        self._deadline = time.monotonic() + self.timeout_seconds

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:{self.region}:{ACCOUNT_ID}:function:{self.function_name}"

    @property
    def log_group_name(self) -> str:
        return f"/aws/lambda/{self.function_name}"

    @property
    def log_stream_name(self) -> str:
        return time.strftime("%Y/%m/%d/[$LATEST]") + "local"

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def function_context(spec: FunctionSpec, function_name: str, region: str) -> LambdaContext:
    return LambdaContext(function_name=function_name, memory_limit_in_mb=spec.memory_mb, timeout_seconds=spec.timeout_seconds, region=region)


@dataclass(frozen=True)
class LocalFunction:
    """One loaded function: its spec, physical name and handler."""

    spec: FunctionSpec
    physical_name: str
    handler: Handler
    region: str

    def context(self) -> LambdaContext:
        return function_context(self.spec, self.physical_name, self.region)

    def invoke(self, event: dict[str, Any]) -> Any:
        return self.handler(event, self.context())
