"""Signing-secret rotation, pure: which secrets sign a delivery, and what a rotation keeps.

A rotation makes a new current secret; the one it replaces keeps signing until its own `valid_until` (the rotation's
time plus HOOKLINE_SECRET_OVERLAP_SECONDS), whatever rotations follow. Every unexpired secret signs every delivery
(Standard Webhooks: one space-separated `v1,<sig>` per secret), up to MAX_LIVE_SECRETS at once, the current one
included. A rotation that would make one more is refused (409 `too_many_secrets`, naming when the oldest stops
signing): a promised secret is never dropped early.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_LIVE_SECRETS = 5  # secrets that sign at once: the current one and up to four earlier ones, each until its valid_until
TOO_MANY_SECRETS = "too_many_secrets"  # 409: a rotation would make more than MAX_LIVE_SECRETS sign at once
ROTATION_CONFLICT = "rotation_conflict"  # 409: another rotation of the same endpoint landed between this one's read and write


@dataclass(frozen=True)
class PreviousSecret:
    """A secret a rotation replaced: it still signs until `valid_until` (epoch seconds). None: replaced by a release
    before this one, which kept one previous secret and no end, and meant `rotated_at` + the overlap."""

    secret: str
    valid_until: float | None


@dataclass(frozen=True)
class LiveSecret:
    """A previous secret that signs until `valid_until` (epoch seconds), its end resolved."""

    secret: str
    valid_until: float


def live_previous(previous: tuple[PreviousSecret, ...], rotated_at: float | None, now: float, overlap: float) -> tuple[LiveSecret, ...]:
    """The previous secrets still signing at `now`, each with its end, the one signing longest first."""
    resolved = (LiveSecret(p.secret, p.valid_until if p.valid_until is not None else (rotated_at or 0.0) + overlap) for p in previous if p.secret)
    return tuple(sorted((p for p in resolved if now < p.valid_until), key=lambda p: -p.valid_until))


@dataclass(frozen=True)
class TooManySecrets:
    """A rotation refused: MAX_LIVE_SECRETS already sign, and the first of them stops at `oldest_until` (epoch seconds)."""

    oldest_until: float


def kept_after_rotation(
    current: str, previous: tuple[PreviousSecret, ...], rotated_at: float | None, now: float, overlap: float, most: int = MAX_LIVE_SECRETS
) -> tuple[LiveSecret, ...] | TooManySecrets:
    """The previous secrets after a rotation at `now`: the replaced current one (signing until now + overlap) and
    every earlier one still live, with its own end. Expired ones are dropped. TooManySecrets when the new secret
    would make more than `most` sign at once."""
    live = live_previous(previous, rotated_at, now, overlap)
    if len(live) + 2 > most:
        return TooManySecrets(oldest_until=live[-1].valid_until)
    return (LiveSecret(current, now + overlap), *live)


@dataclass(frozen=True)
class Rotation:
    """One rotation as the endpoint store writes it: `new_secret` becomes current and `previous` the previous secrets
    (kept_after_rotation), only while the current secret is still `replaced`, the one the rotation read."""

    replaced: str
    new_secret: str
    previous: tuple[LiveSecret, ...]
    at: float  # epoch seconds: the new secret's rotated_at
    at_iso: str  # the same instant, ISO-8601 (the endpoint's updated_at)
    # An Ed25519 endpoint's key rotates with the secret by the same rule: its new private key, and the keys kept ("": none).
    new_key: str = ""
    previous_keys: tuple[LiveSecret, ...] = ()
