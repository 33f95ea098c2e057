"""Compare-and-swap against a versioned item: the one retry loop for every conditional state write.

Breaker and limiter items carry a version; a write lands only if the version
is still the one read. When another worker wrote first, the state is read
again and the change proposed again from it, so every Lambda instance agrees on
one history. A bounded number of tries keeps a hot item from stalling a batch.
"""

from __future__ import annotations

from collections.abc import Callable

SAVE_TRIES = 5


def compare_and_swap[S, R](
    state: S,
    propose: Callable[[S], tuple[R, S | None]],
    save: Callable[[S, S], bool],
    read: Callable[[], S],
    tries: int = SAVE_TRIES,
) -> R | None:
    """Propose a change from `state` and save it conditionally on `state` being current.

    `propose` returns (result, the new state, or None when nothing changes);
    `save(new, base)` writes conditionally on `base`'s version and says whether it landed. Returns the
    result whose write landed (or that needed none), or None when every try lost
    the race.
    """
    for attempt in range(tries):
        if attempt:
            state = read()
        result, write = propose(state)
        if write is None or save(write, state):
            return result
    return None
