"""Every fault of the fault server through every wrapped official SDK (openai and anthropic on
httpx2, groq on httpx; sync and async; plain and streamed): the right answer, or the right
typed error — one object that is both the SDK's exception and surefoot's — after the right
number of requests seen by the server, with the waits the engine decided."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest
from _sdks import Runner, Sdk

import surefoot
from surefoot.testing import FaultServer, faults
from surefoot.testing.faults import FAULT_TYPES


@dataclass(frozen=True)
class Case:
    fault: faults.Fault
    stream: bool
    requests: int  # what the server sees
    sdk_error: str | None = None  # the SDK's exception class name, None: the answer
    surefoot_error: type[surefoot.SurefootError] | None = None
    kind: str | None = None
    answer: str = "hello there"
    #: The fault's event count is that of the OpenAI stream (role, "hello", " there"...); an
    #: Anthropic stream has two more events before its first delta (content_block_start, ping).
    shift: bool = False

    @property
    def id(self) -> str:
        fault = self.fault
        detail = getattr(fault, "status", None) or getattr(fault, "at", None) or ""
        extra = getattr(fault, "after_events", None) or getattr(fault, "after_deltas", None)
        name = f"{type(fault).__name__}{detail}{'' if extra is None else f'@{extra}'}"
        return f"{name}-{'stream' if self.stream else 'plain'}"


def _cases() -> list[Case]:
    f = faults
    return [
        Case(f.Ok(), False, 1),
        Case(f.Ok(), True, 1),
        Case(f.Latency(seconds=0.01), False, 1),
        Case(f.Latency(seconds=0.01), True, 1),
        # retryable statuses: retried unseen, then the answer
        Case(f.Status(429, retry_after=0), False, 2),
        Case(f.Status(503), True, 2),
        Case(f.Status(529, error="overloaded"), True, 2),
        # not retryable: one request, the SDK's class and surefoot's
        Case(f.Status(400), False, 1, "BadRequestError", surefoot.SurefootError, "invalid_request"),
        Case(f.Status(401), True, 1, "AuthenticationError", surefoot.LLMError, "auth_failed"),
        Case(
            f.Status(429, error="insufficient_quota"),
            False,
            1,
            "RateLimitError",
            surefoot.SurefootError,
            "quota_exhausted",
        ),
        # a hang: the call's deadline (timeout=0.3 in the test) ends it
        Case(f.Hang(), False, 1, "APITimeoutError", surefoot.RunTimeoutError, "timeout"),
        Case(f.Hang(), True, 1, "APITimeoutError", surefoot.RunTimeoutError, "timeout"),
        # a stream that stalls after its first events: silent past read_timeout
        Case(
            f.Hang(after_events=2),
            True,
            1,
            "APITimeoutError",
            surefoot.TimeoutError,
            "timeout",
            shift=True,
        ),
        # ... and one that stalls before any part of the answer: retried unseen
        Case(f.Hang(after_events=1), True, 2),
        # resets: before the headers, retried; in a JSON body, retried (nothing was handed on)
        Case(f.Reset(at="before_headers"), False, 2),
        Case(f.Reset(at="before_headers"), True, 2),
        Case(f.Reset(at="mid_body"), False, 2),
        Case(
            f.Reset(at="mid_body", after_events=3),
            True,
            1,
            "APIConnectionError",
            surefoot.NetworkError,
            "network",
            shift=True,
        ),
        Case(f.Reset(at="mid_body", after_events=1), True, 2),
        # truncation: a short JSON body is retried; a stream that lost its end raises
        Case(f.Truncate(), False, 2),
        Case(
            f.Truncate(after_events=2),
            True,
            1,
            "APIConnectionError",
            surefoot.ConnectionFailedError,
            "network",
            shift=True,
        ),
        Case(f.Truncate(after_events=1), True, 2),
        # an error event before any part of the answer: retried unseen; after: raised
        Case(f.StreamError(after_deltas=0), True, 2),
        Case(
            f.StreamError(after_deltas=1),
            True,
            1,
            "*stream",
            surefoot.LLMError,
            "model_overloaded",
        ),
        Case(f.StreamError(after_deltas=1), False, 2),
        Case(f.ErrorIn200(error="server"), False, 2),
        Case(f.ErrorIn200(error="overloaded"), True, 2),
        # answers the SDK parses itself: passed on untouched
        Case(f.MalformedToolCall(), False, 1, answer="get_weather:"),
        Case(f.ContentFilter(), False, 1, answer=""),
        Case(f.ContentFilter(), True, 1, answer=""),
        Case(
            f.ContentFilter(mode="error"),
            False,
            1,
            "BadRequestError",
            surefoot.LLMError,
            "content_filtered",
        ),
        Case(f.HugeBody(megabytes=1), False, 1, answer="*huge"),
        Case(f.Drip(chunk_bytes=64, interval=0.0), False, 1),
        Case(f.Drip(chunk_bytes=16, interval=0.0), True, 1),
        # slow before the first token, but within every limit: answered
        Case(f.SlowFirstToken(seconds=0.05), False, 1),
        Case(f.SlowFirstToken(seconds=0.05), True, 1),
        # a stream that ends after its finish reason without [DONE]/message_stop: whole
        Case(f.NoDone(), False, 1),
        Case(f.NoDone(), True, 1),
        # a body that is not JSON: retried unseen
        Case(f.MalformedChunk(), False, 2),
        # not a prefilled request: answered normally
        Case(f.PrefillRejected(), False, 1),
    ]


CASES = _cases()


def test_every_fault_type_is_covered() -> None:
    assert {type(c.fault) for c in CASES} == set(FAULT_TYPES.values())


def _sdk_error_name(sdk: Sdk, case: Case) -> str:
    if case.sdk_error != "*stream":
        assert case.sdk_error is not None
        return case.sdk_error
    # What each SDK itself raises for a mid-stream error event.
    return "APIStatusError" if sdk.name == "anthropic" else "APIError"


@pytest.mark.parametrize("case", CASES, ids=[f"{i:02d}-{c.id}" for i, c in enumerate(CASES)])
def test_fault_through_wrapped_sdk(sdk: Sdk, runner: Runner, case: Case) -> None:
    fault = case.fault
    if case.shift and sdk.name == "anthropic":
        fault = replace(fault, after_events=getattr(fault, "after_events", 0) + 2)  # type: ignore[call-arg]
    retries: list[surefoot.AttemptRecord] = []
    hooks = surefoot.GuardHooks(on_retry=retries.append)
    # A hang before the headers meets the call's deadline; a stalled stream, read_timeout.
    deadline_case = isinstance(fault, faults.Hang) and fault.after_events is None
    with FaultServer() as srv:
        client = sdk.wrapped(
            srv.base_url,
            timeout=0.3 if deadline_case else 10.0,
            read_timeout=5.0 if deadline_case else 0.2,
            hooks=hooks,
        )
        srv.enqueue(fault)
        if case.sdk_error is None:
            text = sdk.ask(runner, client, stream=case.stream, tools=True)
            if case.answer == "*huge":
                assert len(text) >= 1_000_000
            elif case.answer.endswith(":"):
                assert text.startswith(case.answer)
            else:
                assert text == case.answer
        else:
            with pytest.raises(Exception) as info:
                sdk.ask(runner, client, stream=case.stream)
            err = info.value
            expected = getattr(sdk.package, _sdk_error_name(sdk, case))
            # One object, both types: the SDK's except clauses and surefoot's work.
            assert isinstance(err, expected), type(err).__mro__
            assert case.surefoot_error is not None
            assert isinstance(err, case.surefoot_error), type(err).__mro__
            assert err.kind == case.kind
            assert err.surefoot.kind == case.kind
        seen = [r for r in srv.requests if r.path.endswith(("completions", "messages"))]
        assert len(seen) == case.requests
        # Every retry reused the request's idempotency key and was decided by the engine.
        assert len({r.idempotency_key for r in seen}) == 1
        assert len(retries) == case.requests - 1
        if isinstance(case.fault, faults.Status) and case.fault.retry_after is not None:
            assert retries[0].wait == 0.0
