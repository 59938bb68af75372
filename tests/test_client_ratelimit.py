"""rate_limiter=: a SharedRateLimiter learns from every response's rate-limit headers (429s
included) and paces the next send, never past the run's deadline."""

from __future__ import annotations

import json
from typing import Any

import pytest

import surefoot
from surefoot import SharedRateLimiter
from surefoot.errors import RateLimitError
from surefoot.testing.faults import FaultServer, Model, Status
from test_client_helpers import MODES, STYLES, FakeClock, Harness, StubServer, text_of

both = pytest.mark.parametrize("style", STYLES)
modes = pytest.mark.parametrize("mode", MODES)
calls = pytest.mark.parametrize("call", ["run", "stream"])

EMPTY = {
    "x-ratelimit-limit-requests": "60",
    "x-ratelimit-remaining-requests": "0",
    "x-ratelimit-reset-requests": "30s",
}


class RecordingClock(FakeClock):
    """A fake clock that also notes how many requests the server had seen at each sleep."""

    def __init__(self, server: Any) -> None:
        super().__init__()
        self.server = server
        self.seen_at_sleep: list[int] = []

    def sleep(self, seconds: float) -> None:
        self.seen_at_sleep.append(len(self.server.requests))
        super().sleep(seconds)

    async def asleep(self, seconds: float) -> None:
        self.seen_at_sleep.append(len(self.server.requests))
        await super().asleep(seconds)


def _run(h: Harness, call: str, *args: Any, **kwargs: Any) -> tuple[Any, BaseException | None]:
    if call == "stream":
        events, exc = h.stream(*args, **kwargs)
        return (text_of(events) if exc is None else None), exc
    try:
        return h.run(*args, **kwargs).text, None
    except Exception as exc:
        return None, exc


@modes
@both
def test_a_429_paces_the_next_call(mode: str, style: str) -> None:
    """The 429's rate-limit headers (remaining 0, reset 2 s) reach observe(); the next call
    waits in throttle() for the reset before anything is sent."""
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        clock = RecordingClock(srv)
        limiter = SharedRateLimiter(clock=clock)
        h = Harness(mode, srv, style, retries=0, clock=clock, rate_limiter=limiter)
        srv.enqueue(Status(429, retry_after=2))
        with pytest.raises(RateLimitError):
            h.run("hi")
        assert clock.slept == []
        assert limiter.acquire() > 0  # learned from the 429 (nothing taken)
        assert h.run("hi").text == "ok"
        (wait,) = clock.slept
        assert 0 < wait <= 2.0
        assert clock.seen_at_sleep == [1]  # the wait came before the second request
        assert len(srv.requests) == 2


@modes
@both
def test_a_server_hint_and_the_limiter_do_not_stack(mode: str, style: str) -> None:
    """A 429 retried after its Retry-After: by then the limiter's reset has passed too."""
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        clock = FakeClock()
        limiter = SharedRateLimiter(clock=clock)
        h = Harness(mode, srv, style, clock=clock, rate_limiter=limiter)
        srv.enqueue(Status(429, retry_after=2))
        assert h.run("hi").text == "ok"
        assert clock.slept == [2]
        assert len(srv.requests) == 2


@modes
def test_throttle_is_bounded_by_the_run_deadline(mode: str) -> None:
    """No slot before the run's deadline: RateLimitError at once, no wait, nothing sent."""
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        clock = FakeClock()
        limiter = SharedRateLimiter(clock=clock)
        limiter.observe(EMPTY)  # the next request slot is 30 s away
        h = Harness(mode, srv, "openai", clock=clock, rate_limiter=limiter)
        with pytest.raises(RateLimitError) as ei:
            h.run("hi", timeout=5, task_id="rl")
        err = ei.value
        assert err.retry_after is not None and err.retry_after > 5
        assert err.context.task_id == "rl" and err.context.operation == "run"
        assert clock.slept == [] and srv.requests == []
        # Without a deadline (and within the limiter's max_wait) the call waits its turn.
        assert h.run("hi").text == "ok"
        (wait,) = clock.slept
        assert 29 < wait <= 30
        assert len(srv.requests) == 1


@modes
def test_the_token_estimate_is_what_the_limiter_takes(mode: str) -> None:
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        clock = FakeClock()
        limiter = SharedRateLimiter(clock=clock)
        limiter.observe(
            {
                "x-ratelimit-limit-tokens": "100000",
                "x-ratelimit-remaining-tokens": "50",
                "x-ratelimit-reset-tokens": "4s",
            }
        )
        h = Harness(mode, srv, "openai", clock=clock, rate_limiter=limiter)
        assert h.run("hi").text == "ok"  # a few tokens: fits in the 50 left
        assert clock.slept == []
        assert h.run("word " * 200).text == "ok"  # about 200 tokens: waits for the reset
        (wait,) = clock.slept
        assert 3 < wait <= 4


def _completion(stream: bool) -> list[bytes] | bytes:
    if not stream:
        return json.dumps(
            {
                "id": "c1",
                "object": "chat.completion",
                "model": "m1",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": "ok"},
                        "finish_reason": "stop",
                    }
                ],
            }
        ).encode()
    delta = {"choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": None}]}
    end = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    return [
        f"data: {json.dumps(delta)}\n\n".encode(),
        f"data: {json.dumps(end)}\n\n".encode(),
        b"data: [DONE]\n\n",
    ]


@modes
@calls
def test_successful_responses_are_observed_too(mode: str, call: str) -> None:
    """A 200 whose headers say the requests are spent for 3 s paces the next call."""

    def handler(path: str, headers: dict[str, str], body: bytes) -> Any:
        stream = json.loads(body).get("stream", False)
        ctype = "text/event-stream" if stream else "application/json"
        limits = {
            "x-ratelimit-limit-requests": "60",
            "x-ratelimit-remaining-requests": "0",
            "x-ratelimit-reset-requests": "3s",
        }
        return 200, {"content-type": ctype, **limits}, _completion(stream)

    with StubServer(handler) as stub:
        clock = FakeClock()
        limiter = SharedRateLimiter(clock=clock)
        h = Harness(mode, stub, "openai", clock=clock, rate_limiter=limiter)
        assert _run(h, call, "hi") == ("ok", None)
        assert clock.slept == []
        assert _run(h, call, "hi") == ("ok", None)
        (wait,) = clock.slept
        assert 2 < wait <= 3
        assert len(stub.requests) == 2


@modes
def test_without_a_limiter_nothing_waits(mode: str) -> None:
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        h = Harness(mode, srv, "openai", retries=0)
        srv.enqueue(Status(429, retry_after=2))
        with pytest.raises(surefoot.RateLimitError):
            h.run("hi")
        assert h.run("hi").text == "ok"
        assert h.clock.slept == []
