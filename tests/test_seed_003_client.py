"""Seed 003's three examples, ported as written onto the real LLM client.

The seed runs ``LlmClient.RunAsync`` against an ``HttpListener`` stub; here a
``ThreadingHTTPServer`` on loopback plays the stub and ``surefoot.AsyncLLMClient`` /
``surefoot.LLMClient`` the client. Waits between attempts run on a :class:`FakeClock` where the
example only counts calls (a provider 500 is a server error, whose own 2 s delay floors the
backoff; the seed's ``RetryBaseMs = 1`` cannot shorten a typed error's delay in surefoot). The
deadline example (3B) runs on the real clock, as it must.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import pytest

import surefoot
from _http_stub import Handler, Stub
from surefoot import ErrorInfo, Tier
from surefoot.testing.clock import FakeClock

Stubs = Callable[[Handler], Stub]

OK = json.dumps(
    {
        "id": "c1",
        "choices": [{"message": {"role": "assistant", "content": "{}"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
    }
)


def completion(text: str) -> str:
    doc = json.loads(OK)
    doc["choices"][0]["message"]["content"] = text
    return json.dumps(doc)


def options(base_url: str, **extra: Any) -> dict[str, Any]:
    return {
        "base_url": base_url,
        "style": "openai",
        "model": "gpt-4o-mini",
        "api_key": "test-key",
        "retry_base": 0.001,
        **extra,
    }


# -- 1. The default classifier retries a transient 500 ---------------------------------------


def test_example_1_transient_500_is_retried_once(http_stub: Stubs) -> None:
    answers = iter([(500, '{"error":"upstream hiccup"}'), (200, completion("recovered"))])
    s = http_stub(lambda: next(answers))
    client = surefoot.LLMClient(**options(s.base_url, clock=FakeClock()))
    result = client.run("try again")
    assert s.calls == 2, f"expected 1 retry (2 calls), got {s.calls}"
    assert result.text == "recovered"


async def test_example_1_async(http_stub: Stubs) -> None:
    answers = iter([(500, '{"error":"upstream hiccup"}'), (200, completion("recovered"))])
    s = http_stub(lambda: next(answers))
    async with surefoot.AsyncLLMClient(**options(s.base_url, clock=FakeClock())) as client:
        result = await client.run("try again")
    assert (s.calls, result.text) == (2, "recovered")


# -- 2. on_error overrides the classifier: retry a status the default gives up on -------------


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_example_2_on_error_retries_a_402(http_stub: Stubs, mode: str) -> None:
    answers = iter([(402, '{"error":"payment required"}'), (200, completion("topped up"))])
    s = http_stub(lambda: next(answers))
    seen: list[ErrorInfo] = []

    def on_error(info: ErrorInfo) -> Tier:
        seen.append(info)
        if info.status == 402:
            return Tier.RETRY  # custom rule
        return Tier.RETRY if info.retryable else Tier.FAIL

    opts = options(s.base_url, on_error=on_error, clock=FakeClock())
    if mode == "sync":
        result = surefoot.LLMClient(**opts).run("pay and retry")
    else:
        async with surefoot.AsyncLLMClient(**opts) as client:
            result = await client.run("pay and retry")
    assert s.calls == 2
    assert result.text == "topped up"
    assert len(seen) == 1 and seen[0].status == 402 and seen[0].attempt == 0
    assert seen[0].retryable is False, "402 should NOT be in the default retryable set"


# -- 3A. Tier.FAIL stops at once, even with retries=5 -----------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_example_3a_fail_skips_retries(http_stub: Stubs, mode: str) -> None:
    s = http_stub(lambda: (500, '{"error":"down"}'))
    opts = options(s.base_url, retries=5, on_error=lambda _: Tier.FAIL, clock=FakeClock())
    with pytest.raises(surefoot.SurefootError) as info:
        if mode == "sync":
            surefoot.LLMClient(**opts).run("give up fast")
        else:
            async with surefoot.AsyncLLMClient(**opts) as client:
                await client.run("give up fast")
    assert s.calls == 1, f"Tier.FAIL must skip retries entirely, got {s.calls} call(s)"
    assert info.value.status == 500


# -- 3B. timeout bounds a run against a server that never answers in time ---------------------


def stalled() -> tuple[int, str]:
    time.sleep(1.5)  # far longer than the 200 ms deadline below
    return 200, completion("too late")


def test_example_3b_timeout_bounds_a_stalled_call_sync(
    http_stub: Stubs,
) -> None:
    s = http_stub(stalled)
    client = surefoot.LLMClient(**options(s.base_url, retries=0, timeout=0.2))
    start = time.monotonic()
    with pytest.raises(surefoot.RunTimeoutError):
        client.run("this will stall")
    assert time.monotonic() - start < 1.4, "the deadline, not the server, must end the run"


async def test_example_3b_timeout_bounds_a_stalled_call_async(
    http_stub: Stubs,
) -> None:
    s = http_stub(stalled)
    async with surefoot.AsyncLLMClient(**options(s.base_url, retries=0, timeout=0.2)) as client:
        start = time.monotonic()
        with pytest.raises(surefoot.RunTimeoutError):
            await client.run("this will stall")
    assert time.monotonic() - start < 1.4


async def test_caution_a_cancel_is_never_a_run_timeout(
    http_stub: Stubs,
) -> None:
    s = http_stub(stalled)
    async with surefoot.AsyncLLMClient(**options(s.base_url, timeout=10)) as client:
        task = asyncio.create_task(client.run("cancel me"))
        while s.calls == 0:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
