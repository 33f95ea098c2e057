"""Compare-and-swap against a versioned item: the one retry loop for every conditional state write.

Breaker and limiter items carry a version; a write lands only if the version
is still the one read. When another worker wrote first, the change is proposed
again from the state that won, so every Lambda instance agrees on one history: the
state the refusal returned (hookline.core.conflicts.Lost), else the state read again.
A bounded number of tries keeps a hot item from stalling a batch.
"""

from __future__ import annotations

from collections.abc import Callable

from hookline.core.conflicts import Lost

SAVE_TRIES = 5


def compare_and_swap[S, R](
    state: S,
    propose: Callable[[S], tuple[R, S | None]],
    save: Callable[[S, S], bool | Lost[S]],
    read: Callable[[], S],
    tries: int = SAVE_TRIES,
) -> R | None:
    """Propose a change from `state` and save it conditionally on `state` being current.

    `propose` returns (result, the new state, or None when nothing changes);
    `save(new, base)` writes conditionally on `base`'s version: True when it landed, else False or Lost (with the
    state that beat it, when the refusal returned it). Returns the result whose write landed (or that needed none),
    or None when every try lost the race. `read` runs only after a refusal that did not return the state.
    """
    current: S | None = state
    for _ in range(tries):
        if current is None:
            current = read()
        result, write = propose(current)
        if write is None:
            return result
        saved = save(write, current)
        if saved is True:
            return result
        current = saved.current if isinstance(saved, Lost) else None
    return None
