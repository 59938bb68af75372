"""Server wait hints: ``retry-after-ms``, ``Retry-After``, problem details, Google ``RetryInfo``.

Every parser here is total: a negative, non-finite, overflowing or malformed value yields
``None`` (no hint), never an exception. Values are seconds as ``float``. Pure: the current Unix
time that an HTTP-date is measured from is passed in (``now_epoch``); without it a date is no
hint (the classifier, which reads the wall clock at its boundary, always passes it).

Precedence (:func:`server_hint`): ``retry-after-ms`` > ``Retry-After`` (delta-seconds or an
HTTP-date in any of the three RFC 9110 formats) > problem details' ``retry_after_seconds`` >
Google's ``google.rpc.RetryInfo``.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "hint_from_text",
    "parse_duration",
    "parse_google_retry_info",
    "parse_retry_after",
    "parse_retry_after_ms",
    "server_hint",
]

_MAX_TEXT = 256  # longer header values are garbage, not hints

_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
    )
}
_UNITS = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}
#: The patterns, compiled on first use by :func:`_re` (so that importing costs nothing).
_SOURCES: dict[str, tuple[str, int]] = {
    "imf": (
        r"(?:mon|tue|wed|thu|fri|sat|sun), (\d{2}) ([a-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) gmt",
        0,
    ),
    "rfc850": (
        r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday), "
        r"(\d{2})-([a-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) gmt",
        0,
    ),
    "asctime": (
        r"(?:mon|tue|wed|thu|fri|sat|sun) ([a-z]{3}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})",
        0,
    ),
    "number": (r"[+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?", 0),
    "duration_part": (r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)", 0),
    "text_hint": (
        r"(?:try again|retry|retrying)\s+(?:in|after)\s+"
        r"((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h)(?:(?:\d+(?:\.\d*)?|\.\d+)"
        r"(?:ns|us|µs|μs|ms|s|m|h))*"
        r"|(?:\d+(?:\.\d*)?|\.\d+)\s*(?:milliseconds?|msecs?|seconds?|secs?|minutes?|mins?)?)\b",
        re.IGNORECASE,
    ),
}


@functools.cache
def _re(name: str) -> re.Pattern[str]:
    """The compiled pattern ``name``, compiled on first use (``import`` stays cheap)."""
    pattern, flags = _SOURCES[name]
    return re.compile(pattern, flags)


def _seconds(value: float) -> float | None:
    """``value`` if it is a usable wait (finite, >= 0), else ``None``."""
    if math.isfinite(value) and value >= 0:
        return float(value)
    return None


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        try:
            return _seconds(float(value))
        except OverflowError:
            return None
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    if not isinstance(value, str):
        return None
    text = value.strip()
    if len(text) > _MAX_TEXT or not _re("number").fullmatch(text.lower()):
        return None
    try:
        return _seconds(float(text))
    except (ValueError, OverflowError):
        return None


def parse_retry_after_ms(value: object) -> float | None:
    """The ``retry-after-ms`` header (milliseconds) in seconds, or ``None``."""
    ms = _number(value)
    return None if ms is None else ms / 1000.0


def _http_date(text: str, now_epoch: float) -> float | None:
    import calendar  # loaded by the first HTTP-date: importing this module stays cheap
    import datetime

    t = " ".join(text.lower().split())
    if m := _re("imf").fullmatch(t):
        day, mon, year, hh, mm, ss = m.groups()
        yy = int(year)
    elif m := _re("rfc850").fullmatch(t):
        day, mon, year, hh, mm, ss = m.groups()
        # RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is in the past.
        try:
            this_year = datetime.datetime.fromtimestamp(now_epoch, datetime.UTC).year
        except (ValueError, OverflowError, OSError):
            return None
        yy = this_year - this_year % 100 + int(year)
        if yy > this_year + 50:
            yy -= 100
    elif m := _re("asctime").fullmatch(t):
        mon, day, hh, mm, ss, year = m.groups()
        yy = int(year)
    else:
        return None
    month = _MONTHS.get(mon)
    if month is None:
        return None
    try:
        stamp = calendar.timegm((yy, month, int(day), int(hh), int(mm), int(ss), 0, 0, 0))
    except (ValueError, OverflowError):
        return None
    if not (1 <= int(day) <= 31 and int(hh) <= 23 and int(mm) <= 59 and int(ss) <= 60):
        return None
    return max(0.0, float(stamp) - now_epoch)


def parse_retry_after(value: object, now_epoch: float | None = None) -> float | None:
    """``Retry-After``: delta-seconds or an HTTP-date (IMF-fixdate, RFC 850, asctime).

    ``now_epoch`` is the current Unix time, used only for dates: without it a date gives
    ``None``. A date in the past gives ``0.0``.
    """
    secs = _number(value)
    if secs is not None:
        return secs
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    if not isinstance(value, str) or len(value) > _MAX_TEXT:
        return None
    if now_epoch is None or not math.isfinite(now_epoch):
        return None
    return _http_date(value, now_epoch)


def parse_duration(text: object) -> float | None:
    """A Go-style duration (``"6m0s"``, ``"1.5s"``, ``"12ms"``, ``"1h2m3.5s"``) in seconds.

    A bare ``"0"`` is zero; a sign, a unit-less number or any other text gives ``None``.
    """
    if not isinstance(text, str):
        return None
    t = text.strip()
    if t == "0":
        return 0.0
    if not t or len(t) > _MAX_TEXT:
        return None
    total = 0.0
    pos = 0
    for m in _re("duration_part").finditer(t):
        if m.start() != pos:
            return None
        pos = m.end()
        try:
            total += float(m.group(1)) * _UNITS[m.group(2)]
        except (ValueError, OverflowError):
            return None
    if pos != len(t) or pos == 0:
        return None
    return _seconds(total)


def parse_google_retry_info(details: object) -> float | None:
    """The ``retryDelay`` of a ``google.rpc.RetryInfo`` entry of an error's ``details`` list.

    Accepts the JSON form (``"2.5s"``) and the proto form (``{"seconds": 2, "nanos": 5e8}``).
    """
    if not isinstance(details, (list, tuple)):
        return None
    for item in details:
        if not isinstance(item, Mapping):
            continue
        typ = item.get("@type")
        if not isinstance(typ, str) or not typ.endswith("google.rpc.RetryInfo"):
            continue
        delay = item.get("retryDelay", item.get("retry_delay"))
        if isinstance(delay, str):
            return parse_duration(delay)
        if isinstance(delay, Mapping):
            secs = _number(delay.get("seconds", 0))
            nanos = _number(delay.get("nanos", 0))
            if secs is None or nanos is None:
                return None
            return _seconds(secs + nanos / 1e9)
        return None
    return None


def hint_from_text(message: object) -> float | None:
    """A wait mentioned in an error message: ``"try again in 11.122s"``, ``"retry after 3
    seconds"``, ``"Please retry in 20ms"``, ``"try again in 1m30s"``."""
    if not isinstance(message, str):
        return None
    text = message[:4096]
    # every match holds "try" ("try again", "retry"), and no other character folds to t, r or y
    if "try" not in text.lower():
        return None
    m = _re("text_hint").search(text)
    if m is None:
        return None
    token = m.group(1).strip().lower()
    dur = parse_duration(token)
    if dur is not None:
        return dur
    num = re.match(r"(\d+(?:\.\d*)?|\.\d+)\s*([a-z]*)", token)
    if num is None:  # pragma: no cover - the pattern above guarantees a number
        return None
    value = _number(num.group(1))
    if value is None:
        return None
    unit = num.group(2)
    if unit.startswith(("ms", "milli")):
        return value / 1000.0
    if unit.startswith("m"):
        return _seconds(value * 60.0)
    return value


def _header(headers: Mapping[str, Any] | Iterable[tuple[Any, Any]], name: str) -> object:
    items = headers.items() if isinstance(headers, Mapping) else headers
    for key, value in items:
        k = key.decode("latin-1") if isinstance(key, bytes) else key
        if isinstance(k, str) and k.lower() == name:
            return value
    return None


def server_hint(
    headers: Mapping[str, Any] | Iterable[tuple[Any, Any]] | None = None,
    problem: Any = None,
    google_details: object = None,
    *,
    now_epoch: float | None = None,
) -> float | None:
    """The server's wait hint in seconds, in precedence order, or ``None``.

    ``headers`` is any mapping or list of ``(name, value)`` pairs (names case-insensitive);
    ``problem`` a :class:`surefoot.ProblemDetails` or a plain mapping; ``google_details`` the
    ``error.details`` list of a Google API error body.
    """
    if headers is not None:
        try:
            ms = parse_retry_after_ms(_header(headers, "retry-after-ms"))
            if ms is not None:
                return ms
            ra = parse_retry_after(_header(headers, "retry-after"), now_epoch)
            if ra is not None:
                return ra
        except (TypeError, ValueError):
            pass
    if problem is not None:
        value: object
        if isinstance(problem, Mapping):
            value = problem.get("retry_after_seconds")
        else:
            value = getattr(problem, "retry_after_seconds", None)
        secs = _number(value) if not isinstance(value, str) else None
        if secs is not None:
            return secs
    return parse_google_retry_info(google_details)
