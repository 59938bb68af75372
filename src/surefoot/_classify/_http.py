"""``classify(status, headers, body)``: one failed HTTP exchange (or a transport failure
described by text) to a typed error. Never raises."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping

from surefoot._classify._build import build, fallback_error, refine, retry_hint, should_retry_of
from surefoot._classify._dialects import find
from surefoot._classify._input import decode_body, norm_headers, text_of
from surefoot._classify._kinds import Kind
from surefoot._classify._response import inspect_object
from surefoot._classify._rules import TRANSPORT_DEFAULT_LABEL, Finding, decide
from surefoot._classify._wordmodel import WORD_MODEL_LABEL, guess_unnamed
from surefoot.errors import SurefootError

__all__ = [
    "classify",
    "fallback_error",
    "find",
    "guessed",
    "status_or_none",
    "unknown_unless_named",
]


def status_or_none(status: object) -> int | None:
    if isinstance(status, bool):
        return None
    if isinstance(status, int):
        return status if 100 <= status <= 999 else None
    if isinstance(status, str) and status.strip().isdigit() and len(status.strip()) == 3:
        return int(status.strip())
    return None


def classify(
    status: int | None,
    headers: Mapping[str, str] | Iterable[tuple[str, str]] | None,
    body: bytes | str | object | None,
    *,
    provider: str | None = None,
    model: str | None = None,
    in_stream: bool = False,
) -> SurefootError:
    """The typed error for one failed call. ``status`` is ``None`` for a transport failure
    described only by ``body`` text; ``body`` may be bytes, text or parsed JSON; ``provider``
    is a hint (the dialect is otherwise recognised from the body and the headers).

    A 2xx ``status`` has its body inspected for an error inside it (see
    :func:`~surefoot._classify.inspect_response`, and for an SSE body
    :func:`~surefoot._classify.classify_event` on each event); when none is found the result
    is an ``unknown`` error. A failed status obeys an explicit ``x-should-retry: true|false``
    header, as the official SDKs do, whatever the status and the kind say. Never raises:
    garbage gives a typed error of kind ``unknown`` or better, after looking at no more than
    the first MiB of the body.
    """
    try:
        return _classify(status, headers, body, provider, model, in_stream)
    except Exception as exc:  # the classifier must never turn one failure into two
        return fallback_error(f"unclassifiable failure ({type(exc).__name__})", provider, model)


def _classify(
    status_in: object,
    headers: object,
    body: object,
    provider: str | None,
    model: str | None,
    in_stream: bool,
) -> SurefootError:
    status = status_or_none(status_in)
    provider = provider if isinstance(provider, str) and provider else None
    model = model if isinstance(model, str) and model else None
    h = norm_headers(headers)
    b = decode_body(body)
    now = time.time()
    if status is not None and status < 400:
        from surefoot._classify._stream import scan_success

        found = scan_success(b, h, provider=provider, model=model)
        if found is not None:
            found.context.http_status = status
            return found
        return build(
            Kind.UNKNOWN,
            Finding(
                "none",
                message=f"HTTP {status}: no failure found in the response",
                reason="no failure found in the 2xx response",
            ),
            status=status,
            headers=h,
            provider=provider,
            model=model,
            now=now,
        )
    f = find(b, h, provider)
    if status is None and b.obj is not None and f.dialect == "text":
        # a JSON answer with its status lost, and no error envelope in it: a response that
        # failed inside (Gemini's candidates stopped for RECITATION) reads as in a 2xx
        inside = inspect_object(b.obj)
        if inside is not None:
            f = inside
    kind = decide(f, status, transport=status is None, structured=b.obj is not None)
    if status is None:
        # no status and no rule's words: the corpus's words decide, if they are sure enough
        kind = guess_unnamed(kind, f, lambda: b.text)
    retry_after = retry_hint(h, f, now)
    kind = refine(kind, f, retry_after)
    return build(
        kind,
        f,
        status=status,
        headers=h,
        provider=provider,
        model=model,
        in_stream=in_stream,
        now=now,
        retry_after=retry_after,
        hinted=True,
        # Only a failed status speaks for the failure: on a 2xx the header (if any) was sent
        # before the error inside the body existed, and that path returned above.
        should_retry=should_retry_of(h),
    )


def guessed(err: SurefootError) -> bool:
    """Whether only a guess named ``err``: the no-response default (a lost connection) or the
    word model, not a rule's code, structure or words."""
    by = err.context.metadata.get("classified_by")
    if not isinstance(by, str):
        return False
    return by == TRANSPORT_DEFAULT_LABEL or by.startswith(WORD_MODEL_LABEL)


def unknown_unless_named(err: SurefootError, text: str) -> SurefootError:
    """``err``, or an ``unknown`` error for ``text`` when only a guess named it
    (:func:`guessed`): for a caller that does not know its status-less failure was a failure
    of the service (an exception of the caller's own code, a message pasted with no status),
    a guess could advise a retry of a bug."""
    if not guessed(err):
        return err
    provider = getattr(err, "provider", None)
    model = getattr(err, "model", None)
    return fallback_error(
        text_of(text, 2000) or "a failure with no status whose words no rule knows",
        provider if isinstance(provider, str) else None,
        model if isinstance(model, str) else None,
    )
