"""The three examples of seed 003 (a C# client's retry knobs), ported to Python as written.

A real HTTP stub on loopback stands in for the provider; the LLM client does not exist yet, so
each example is a ``@surefoot.resilient`` function that POSTs to the stub and raises a classified
error for a non-2xx response (``classify`` below: 5xx → ``LLMError(SERVER_ERROR)``, other 4xx →
``BusinessError``, both with ``context.http_status``).

Examples 1, 2 and 3A run their waits on a :class:`FakeClock` (the 500's typed error suggests a
2 s wait, which the seed's ``RetryBaseMs = 1`` does not shorten); 3B uses the real clock.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import time
from collections.abc import Callable
from urllib.parse import urlsplit

import pytest

import surefoot
from _http_stub import Handler, Stub
from surefoot import time_left
from surefoot.guard import resilient
from surefoot.policy import ErrorInfo, Tier
from surefoot.testing.clock import FakeClock

Stubs = Callable[[Handler], Stub]


def classify(status: int, body: str) -> surefoot.SurefootError:
    ctx = surefoot.ErrorContext(http_status=status)
    if status >= 500:
        return surefoot.LLMError(body, error_type=surefoot.LLMErrorType.SERVER_ERROR, context=ctx)
    return surefoot.BusinessError(body, context=ctx)


def post(base_url: str, prompt: str) -> str:
    """POST a chat request; the socket timeout is whatever is left of the run's deadline."""
    u = urlsplit(base_url)
    conn = http.client.HTTPConnection(u.hostname or "", u.port, timeout=time_left())
    try:
        body = json.dumps(
            {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": prompt}]}
        )
        conn.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
        resp = conn.getresponse()
        text = resp.read().decode()
    finally:
        conn.close()
    if not 200 <= resp.status < 300:
        raise classify(resp.status, text)
    return str(json.loads(text)["choices"][0]["message"]["content"])


async def apost(base_url: str, prompt: str) -> str:
    u = urlsplit(base_url)
    reader, writer = await asyncio.open_connection(u.hostname, u.port)
    try:
        body = json.dumps({"messages": [{"role": "user", "content": prompt}]}).encode()
        writer.write(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: stub\r\n"
            + b"Content-Type: application/json\r\n"
            + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            + body
        )
        await writer.drain()
        raw = await reader.read()
    finally:
        writer.close()
    head, _, payload = raw.partition(b"\r\n\r\n")
    status = int(head.split()[1])
    if not 200 <= status < 300:
        raise classify(status, payload.decode())
    return str(json.loads(payload)["choices"][0]["message"]["content"])


def completion(content: str) -> str:
    return json.dumps(
        {
            "id": "c1",
            "choices": [
                {"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
            ],
        }
    )


# -- 1. The default classifier retries a transient 500 -------------------------------------


def test_example_1_default_classifier_retries_transient_500(
    http_stub: Stubs,
) -> None:
    calls = 0

    def handler() -> tuple[int, str]:
        nonlocal calls
        calls += 1
        if calls == 1:
            return 500, '{"error":"upstream hiccup"}'
        return 200, completion("recovered")

    stub = http_stub(handler)

    @resilient(retry_base=0.001, clock=FakeClock())  # no on_error needed for the default
    def run(prompt: str) -> str:
        return post(stub.base_url, prompt)

    result = run("try again")
    assert calls == 2, f"expected 1 retry (2 calls), got {calls}"
    assert result == "recovered"


# -- 2. on_error overrides the classifier: retry a status the default gives up on ----------


def test_example_2_on_error_retries_402(http_stub: Stubs) -> None:
    calls = 0
    seen: list[ErrorInfo] = []

    def handler() -> tuple[int, str]:
        nonlocal calls
        calls += 1
        if calls == 1:  # 402 is NOT in the default retryable set
            return 402, '{"error":"payment required"}'
        return 200, completion("topped up")

    stub = http_stub(handler)

    def on_error(info: ErrorInfo) -> Tier:
        seen.append(info)
        if info.status == 402:
            return Tier.RETRY  # custom rule
        return Tier.RETRY if info.retryable else Tier.FAIL

    @resilient(retry_base=0.001, on_error=on_error, clock=FakeClock())
    def run(prompt: str) -> str:
        return post(stub.base_url, prompt)

    result = run("pay and retry")
    assert calls == 2, f"expected 2 calls, got {calls}"
    assert result == "topped up"
    assert len(seen) == 1 and seen[0].status == 402 and seen[0].attempt == 0
    assert not seen[0].retryable, "402 should NOT be in the default retryable set"


# -- 3A. Tier.FAIL stops immediately ---------------------------------------------------------


def test_example_3a_tier_fail_stops_after_one_call(http_stub: Stubs) -> None:
    calls = 0

    def handler() -> tuple[int, str]:
        nonlocal calls
        calls += 1
        return 500, '{"error":"down"}'

    stub = http_stub(handler)

    @resilient(retries=5, retry_base=0.001, on_error=lambda _: Tier.FAIL, clock=FakeClock())
    def run(prompt: str) -> str:
        return post(stub.base_url, prompt)

    with pytest.raises(surefoot.LLMError):  # a non-2xx response surfaces once on_error says FAIL
        run("give up fast")
    assert calls == 1, f"Tier.FAIL must skip retries entirely, got {calls} call(s)"


# -- 3B. timeout bounds a stalled call ---------------------------------------------------------


def stalled() -> tuple[int, str]:
    time.sleep(1.5)  # far longer than the 200 ms deadline below
    return 200, completion("too late")


def test_example_3b_timeout_bounds_stalled_call_sync(http_stub: Stubs) -> None:
    stub = http_stub(stalled)

    @resilient(retries=0, timeout=0.2)
    def run(prompt: str) -> str:
        return post(stub.base_url, prompt)  # the socket timeout comes from time_left()

    with pytest.raises(surefoot.RunTimeoutError):
        run("this will stall")


async def test_example_3b_timeout_bounds_stalled_call_async(
    http_stub: Stubs,
) -> None:
    stub = http_stub(stalled)

    @resilient(retries=0, timeout=0.2)
    async def run(prompt: str) -> str:
        return await apost(stub.base_url, prompt)

    with pytest.raises(surefoot.RunTimeoutError):
        await run("this will stall")


async def test_external_cancel_surfaces_as_cancelled_error(
    http_stub: Stubs,
) -> None:
    stub = http_stub(stalled)
    classified: list[ErrorInfo] = []

    @resilient(retries=2, timeout=10, on_error=lambda i: classified.append(i) or Tier.RETRY)
    async def run(prompt: str) -> str:
        return await apost(stub.base_url, prompt)

    task = asyncio.create_task(run("cancel me"))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError) as ei:
        await task
    assert not isinstance(ei.value, surefoot.RunTimeoutError)
    assert classified == []  # an abort bypasses on_error
