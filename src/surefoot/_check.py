"""The one option validator: every public constructor checks its options here.

One contract for every option of every class (``Guard``, ``resilient``, ``CircuitBreaker``,
``RetryBudget``, ``SharedRateLimiter``, ``LLMClient``, ``AsyncLLMClient``, ``Agent``,
``@action``):

- a value of the wrong *type* raises ``TypeError``, a value of the right type but out of range
  raises ``ValueError``;
- the message has one form: ``"<option> must be <rule>, got <value>"``, then, when there is
  one, ``"; <how to fix it>"``;
- ``bool`` is never a number (``retries=True`` is a ``TypeError``);
- a timeout of ``None`` or ``math.inf`` means "no limit"; 0, negative and NaN are refused.

Imports nothing from surefoot: every layer may use it.
"""

from __future__ import annotations

import math
import re
from typing import Any, TypeVar

__all__ = [
    "choice",
    "clock",
    "count",
    "function",
    "header",
    "header_name",
    "hidden",
    "instance",
    "number",
    "port",
    "ratio",
    "seconds",
    "shown",
    "text",
    "timeout",
    "url",
]

T = TypeVar("T")

_MAX_SHOWN = 60


def shown(value: object) -> str:
    """``value`` as a message shows it: its repr, shortened, and its type when that helps."""
    try:
        text_ = repr(value)
    except Exception:
        text_ = f"<{type(value).__name__}>"
    if len(text_) > _MAX_SHOWN:
        text_ = text_[: _MAX_SHOWN - 3] + "..."
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return text_
    return f"{type(value).__name__} {text_}" if value is not None else "None"


def hidden(value: object) -> str:
    """``value`` as a message shows a secret: its type and length, never its text."""
    if isinstance(value, (str, bytes)):
        return f"a {type(value).__name__} of {len(value)} characters (not shown)"
    return f"a {type(value).__name__} (not shown)"


def _fail(
    kind: type[Exception],
    name: str,
    rule: str,
    value: object,
    fix: str | None,
    *,
    secret: bool = False,
) -> Exception:
    msg = f"{name} must be {rule}, got {hidden(value) if secret else shown(value)}"
    if fix:
        msg += f"; {fix}"
    return kind(msg)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def number(
    name: str,
    value: object,
    *,
    low: float = 0.0,
    low_open: bool = False,
    high: float = math.inf,
    fix: str | None = None,
    what: str = "a finite number",
) -> float:
    """A finite number in ``[low, high]`` (``(low, high]`` with ``low_open``), as a float."""
    bound = f"> {low:g}" if low_open else f">= {low:g}"
    if high != math.inf:
        bound = f"in {'(' if low_open else '['}{low:g}, {high:g}]"
    rule = f"{what} {bound}"
    if not _is_number(value):
        raise _fail(TypeError, name, rule, value, fix)
    try:
        v = float(value)  # type: ignore[arg-type]
    except OverflowError:
        v = math.inf
    if not math.isfinite(v) or v < low or (low_open and v == low) or v > high:
        raise _fail(ValueError, name, rule, value, fix)
    return v


def seconds(name: str, value: object, *, positive: bool = False, fix: str | None = None) -> float:
    """A finite number of seconds ``>= 0`` (``> 0`` when ``positive``), as a float."""
    return number(name, value, low_open=positive, fix=fix, what="a finite number of seconds")


def timeout(
    name: str, value: object, *, zero: bool = False, what: str = "seconds > 0"
) -> float | None:
    """A time limit: ``None`` or ``math.inf`` (no limit), or seconds ``> 0`` (``>= 0`` with
    ``zero``: a limit that has already passed)."""
    if value is None:
        return None
    rule = f"{what}, or None (or math.inf) for no limit"
    if not _is_number(value):
        raise _fail(TypeError, name, rule, value, None)
    try:
        v = float(value)  # type: ignore[arg-type]
    except OverflowError:
        return None
    if math.isnan(v) or v < 0 or (v == 0 and not zero):
        raise _fail(ValueError, name, rule, value, None)
    return None if math.isinf(v) else v


def count(
    name: str, value: object, *, low: int = 0, high: int | None = None, fix: str | None = None
) -> int:
    """An ``int`` in ``[low, high]``."""
    rule = f"an int >= {low}" if high is None else f"an int between {low} and {high}"
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(TypeError, name, rule, value, fix)
    if value < low or (high is not None and value > high):
        raise _fail(ValueError, name, rule, value, fix)
    return value


def ratio(name: str, value: object, *, open_low: bool = True) -> float:
    """A fraction in ``(0, 1]`` (``[0, 1]`` when ``open_low`` is false)."""
    return number(name, value, low=0.0, low_open=open_low, high=1.0)


def text(name: str, value: object, *, fix: str | None = None) -> str:
    """A non-empty ``str``."""
    if not isinstance(value, str):
        raise _fail(TypeError, name, "a non-empty str", value, fix)
    if not value:
        raise _fail(ValueError, name, "a non-empty str", value, fix)
    return value


def choice(name: str, value: object, choices: tuple[str, ...], *, what: str | None = None) -> str:
    """One of the ``str`` values ``choices``; ``what`` names them for the message."""
    rule = "one of " + ", ".join(repr(c) for c in choices)
    if what:
        rule = f"{what}: {rule}"
    if not isinstance(value, str):
        raise _fail(TypeError, name, rule, value, None)
    if value not in choices:
        raise _fail(ValueError, name, rule, value, None)
    return value


def function(name: str, value: T, what: str, *, optional: bool = True) -> T:
    """A callable (or ``None`` when ``optional``); ``what`` says what it takes and returns."""
    if (value is None and not optional) or (value is not None and not callable(value)):
        rule = f"a callable {what}" + (", or None" if optional else "")
        raise _fail(TypeError, name, rule, value, None)
    return value


def instance(name: str, value: Any, types: type | tuple[type, ...], what: str) -> Any:
    """An instance of ``types`` or ``None``; ``what`` names them for the message."""
    if value is not None and not isinstance(value, types):
        raise _fail(TypeError, name, f"{what} or None", value, None)
    return value


def clock(name: str, value: Any) -> Any:
    """``None`` or an object with the :class:`surefoot.Clock` methods ``now``, ``sleep`` and
    ``asleep`` (checked by duck typing, as the protocol is)."""
    if value is None:
        return None
    if not all(callable(getattr(value, m, None)) for m in ("now", "sleep", "asleep")):
        raise _fail(
            TypeError,
            name,
            "a surefoot.Clock (with now(), sleep() and asleep()), or None",
            value,
            "use surefoot.testing.FakeClock() in tests",
        )
    return value


def port(name: str, value: object, *, fix: str | None = "0 picks a free port") -> int:
    """A TCP port to listen on: an ``int`` in ``[0, 65535]``."""
    return count(name, value, low=0, high=65535, fix=fix)


#: Characters no header line may hold: CR, LF, NUL and the other C0 controls but tab, and DEL.
_BAD_HEADER_CHARS = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
#: An HTTP header name (RFC 9110 ``token``).
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def header(name: str, value: object, *, secret: bool = False, fix: str | None = None) -> str:
    """A ``str`` that can be sent as an HTTP header value: no CR, LF, NUL or other control
    character, and Latin-1 encodable. ``secret`` keeps the value out of the message."""
    rule = "a str without CR, LF or other control characters"
    if not isinstance(value, str):
        raise _fail(TypeError, name, rule, value, fix, secret=secret)
    if _BAD_HEADER_CHARS.search(value):
        raise _fail(ValueError, name, rule, value, fix or "remove the line break", secret=secret)
    try:
        value.encode("latin-1")
    except UnicodeEncodeError:
        raise _fail(
            ValueError,
            name,
            "a str of Latin-1 characters (an HTTP header value)",
            value,
            fix,
            secret=secret,
        ) from None
    return value


def header_name(name: str, value: object) -> str:
    """An HTTP header name: a non-empty token (letters, digits and ``!#$%&'*+-.^_`|~``)."""
    rule = "an HTTP header name (letters, digits, '-' and no space or line break)"
    if not isinstance(value, str):
        raise _fail(TypeError, name, rule, value, None)
    if not _TOKEN.fullmatch(value):
        raise _fail(ValueError, name, rule, value, None)
    return value


def url(name: str, value: object, *, fix: str | None = None) -> str:
    """An absolute ``http://`` or ``https://`` URL with a host, and a port in ``[1, 65535]``
    when it names one."""
    from urllib.parse import urlsplit

    rule = "an absolute http:// or https:// URL"
    if not isinstance(value, str):
        raise _fail(TypeError, name, rule, value, fix)
    stripped = value.strip()
    if not stripped or re.search(r"[\x00-\x20\x7f]", stripped):
        raise _fail(ValueError, name, rule + " (no space or control character)", value, fix)
    try:
        parts = urlsplit(stripped)
        netloc_port = parts.port
    except ValueError:
        raise _fail(
            ValueError, name, rule + " whose port is a number from 1 to 65535", value, fix
        ) from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise _fail(ValueError, name, rule, value, fix)
    if netloc_port is not None and not 1 <= netloc_port <= 65535:
        raise _fail(ValueError, name, rule + " whose port is a number from 1 to 65535", value, fix)
    return value
