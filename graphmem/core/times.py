"""Times as every backend stores them: the fixed-width UTC text form, parsing
it (and other ISO 8601 text), caller timestamps and memory expiry. Pure; bad
input raises InvalidArgumentError."""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta, timezone

from graphmem.errors import InvalidArgumentError

__all__ = [
    "check_timestamp",
    "check_ttl_days",
    "expiry",
    "format_time",
    "parse_time",
    "utc_now",
]


def utc_now() -> datetime:
    """The current time, UTC, microsecond precision."""
    return datetime.now(timezone.utc)


def format_time(value: datetime) -> str:
    """The fixed-width text form that sorts like the time (stored in every backend).

    >>> format_time(datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc))
    '2026-01-02T03:04:05.000000+00:00'
    >>> format_time(datetime(999, 1, 1, tzinfo=timezone.utc))
    '0999-01-01T00:00:00.000000+00:00'
    """
    v = value if value.tzinfo is timezone.utc else value.astimezone(timezone.utc)
    # Not strftime: its %Y does not pad years below 1000 on every platform;
    # isoformat pads the year to four digits and always shows the microseconds here.
    return v.isoformat(timespec="microseconds")


def parse_time(value: str) -> datetime:
    """Inverse of :func:`format_time`; also reads other ISO 8601 text a DBA may
    have stored (``Z``, any fraction digits; no offset means UTC) on every
    supported Python.

    >>> parse_time("2024-01-01T00:00:00Z") == parse_time("2024-01-01T00:00:00.000000+00:00")
    True

    Raises:
        ValueError: ``value`` is not ISO 8601 text.
    """
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:  # Python 3.10 reads neither Z nor 1, 2, 4 or 5 fraction digits
        parsed = datetime.fromisoformat(_normalise_iso(value))
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=timezone.utc)
    return parsed if parsed.tzinfo is timezone.utc else parsed.astimezone(timezone.utc)


_FRACTION = re.compile(r"(T\d\d:\d\d:\d\d)\.(\d+)")


def _normalise_iso(text: str) -> str:
    """ISO 8601 text in the form every supported Python's ``fromisoformat`` reads.

    Python 3.10 accepts only 3 or 6 fraction digits and no ``Z``.

    >>> _normalise_iso("2024-02-29T23:59:59.5Z")
    '2024-02-29T23:59:59.500000+00:00'
    """
    text = text.strip()
    if text[-1:] in ("Z", "z"):
        text = text[:-1] + "+00:00"
    return _FRACTION.sub(lambda m: f"{m[1]}.{(m[2] + '000000')[:6]}", text, count=1)


def check_timestamp(argument: str, value: object) -> datetime | None:
    """A caller timestamp: ``datetime`` (naive means UTC) or ISO 8601 text, or ``None``."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(_normalise_iso(value))
        except ValueError as exc:
            raise InvalidArgumentError(argument, f"is not ISO 8601: {value!r}") from exc
    if not isinstance(value, datetime):
        raise InvalidArgumentError(argument, "must be a datetime or ISO 8601 text")
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    try:
        return value.astimezone(timezone.utc)
    except (OverflowError, ValueError) as exc:
        raise InvalidArgumentError(argument, f"is out of range in UTC: {value!r}") from exc


def check_ttl_days(value: object) -> float | None:
    """Days until a memory expires, positive, or ``None`` for never."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidArgumentError("ttl_days", "must be a positive number of days")
    if not math.isfinite(value) or value <= 0 or value > 365_000:
        raise InvalidArgumentError("ttl_days", "must be a positive number of days (at most 365000)")
    return float(value)


def expiry(created_at: datetime, ttl_days: float | None) -> datetime | None:
    """When a memory created at ``created_at`` expires.

    Raises:
        InvalidArgumentError: ``ttl_days`` reaches past the last day of year 9999.
    """
    if ttl_days is None:
        return None
    try:
        return created_at + timedelta(days=ttl_days)
    except OverflowError:
        raise InvalidArgumentError(
            "ttl_days", f"{ttl_days!r} days from {created_at:%Y-%m-%d} is past the year 9999"
        ) from None
