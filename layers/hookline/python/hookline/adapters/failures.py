"""How the AWS adapters report a failed dependency: the services never see botocore.

`translate_failures` marks a class behind a service port. Every public method
of it then raises `hookline.core.errors.DependencyFailed` (chained to the
original, naming it) where botocore raised a ClientError or BotoCoreError. A
failed condition that means something to the caller (the item is gone, someone
wrote first) is handled inside the method first and comes back as a False or
None result (hookline.adapters.dynamo.ops), never as an exception.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from hookline.core.errors import DependencyFailed


@contextmanager
def translated() -> Iterator[None]:
    try:
        yield
    except (ClientError, BotoCoreError) as exc:
        raise DependencyFailed(str(exc), cause=_name(exc)) from exc


def _name(exc: ClientError | BotoCoreError) -> str:
    """The failure's name for the answer and the log: its class, or its AWS error code when botocore raised the
    generic ClientError (a code the service model has no class for, e.g. ProvisionedThroughputExceededException
    raised from a hook)."""
    if type(exc) is ClientError:
        code = exc.response.get("Error", {}).get("Code")
        if isinstance(code, str) and code.isidentifier():
            return code
    return type(exc).__name__


def _guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    if inspect.isgeneratorfunction(method):
        # A generator fails while it is iterated, not when it is called.
        @functools.wraps(method)
        def iterate(*args: Any, **kwargs: Any) -> Iterator[Any]:
            with translated():
                yield from method(*args, **kwargs)

        return iterate

    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        with translated():
            return method(*args, **kwargs)

    return call


def translate_failures[Class: type](cls: Class) -> Class:
    """Every public method defined on `cls` (static methods aside) raises DependencyFailed instead of botocore's errors."""
    for name, value in list(vars(cls).items()):
        if not name.startswith("_") and inspect.isfunction(value):
            setattr(cls, name, _guarded(value))
    return cls
