"""CPU per request of an official SDK wrapped by surefoot vs the same SDK bare, in one run.

Two measurements, both of ``time.process_time()`` over N requests, in interleaved rounds (the
best of each kept):

1. **over loopback sockets**: the stub server of ``bench_client`` (its own process, so its CPU
   is not counted) answers every chat request with a fixed completion, or a fixed SSE stream
   when asked for one. This is what a user sees, but on a small machine its spread between
   rounds (a connection set up or not, the scheduler) is as large as the wrapper's cost;
2. **in memory**: the same answers from an ``httpx2.MockTransport``, no I/O at all. The
   difference between the wrapped and the bare client here is the wrapper's own CPU, free of
   that noise; the target is that it stays within 10 % of the bare SDK's per-request CPU over
   sockets (measurement 1).

    python -m bench sdk          # or: python bench/bench_sdk.py
"""

from __future__ import annotations

import asyncio
import gc
import os
from typing import Any

from bench.bench_client import (
    COMPLETION,
    KEY,
    MESSAGES,
    MODEL,
    SSE,
    _async_cpu,
    _sync_cpu,
    start_stub,
)

N_SYNC = int(os.environ.get("BENCH_N_SDK", "1500"))
N_ASYNC = int(os.environ.get("BENCH_N_SDK_ASYNC", "2000"))
ROUNDS = int(os.environ.get("BENCH_SDK_ROUNDS", "3"))
#: In memory: many short rounds, the least of each kept (robust to a noisy machine).
MEM_N = int(os.environ.get("BENCH_N_SDK_MEMORY", "160"))
MEM_ROUNDS = int(os.environ.get("BENCH_SDK_MEMORY_ROUNDS", "20"))


def _answer(request: Any) -> Any:
    import httpx2

    # A body stream, not content=: a real transport's response is not read in advance.
    if b'"stream":true' in request.content or b'"stream": true' in request.content:
        headers = {"content-type": "text/event-stream", "content-length": str(len(SSE))}
        return httpx2.Response(200, headers=headers, stream=httpx2.ByteStream(SSE))
    headers = {"content-type": "application/json", "content-length": str(len(COMPLETION))}
    return httpx2.Response(200, headers=headers, stream=httpx2.ByteStream(COMPLETION))


def _clients(url: str | None, is_async: bool) -> tuple[Any, Any]:
    """(bare, wrapped) OpenAI clients over the stub at ``url``, or in memory when ``None``."""
    import httpx2
    import openai

    import surefoot

    cls: Any = openai.AsyncOpenAI if is_async else openai.OpenAI

    def make() -> Any:
        if url is not None:
            return cls(base_url=url + "/v1", api_key=KEY, max_retries=2)
        http: Any = httpx2.AsyncClient if is_async else httpx2.Client
        client = http(transport=httpx2.MockTransport(_answer))
        return cls(base_url="http://stub.invalid/v1", api_key=KEY, http_client=client)

    return make(), surefoot.wrap(make(), timeout=30)


def _sync(url: str | None, n: int, rounds: int) -> dict[str, float]:
    bare, wrapped = _clients(url, False)

    def plain(client: Any) -> Any:
        def call() -> None:
            r = client.chat.completions.create(model=MODEL, messages=MESSAGES)
            assert r.choices[0].message.content

        return call

    def stream(client: Any) -> Any:
        def call() -> None:
            parts = [
                c.choices[0].delta.content or ""
                for c in client.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True)
                if c.choices
            ]
            assert parts

        return call

    out: dict[str, float] = {}
    # Interleaved rounds, the best of each: the two clients meet the same machine noise.
    for _ in range(rounds):
        for label, client in (("bare", bare), ("wrapped", wrapped)):
            gc.collect()
            for kind, make in (("plain", plain), ("stream", stream)):
                key = f"sync {kind} {label}"
                v = _sync_cpu(make(client), n)
                out[key] = min(out.get(key, v), v)
    bare.close()
    wrapped.close()
    return out


async def _async(url: str | None, n: int, rounds: int) -> dict[str, float]:
    bare, wrapped = _clients(url, True)

    def plain(client: Any) -> Any:
        async def call() -> None:
            r = await client.chat.completions.create(model=MODEL, messages=MESSAGES)
            assert r.choices[0].message.content

        return call

    out: dict[str, float] = {}
    for _ in range(rounds):
        for label, client in (("bare", bare), ("wrapped", wrapped)):
            gc.collect()
            key = f"async plain {label}"
            v = await _async_cpu(plain(client), n)
            out[key] = min(out.get(key, v), v)
    await bare.close()
    await wrapped.close()
    return out


def main() -> dict[str, Any]:
    import openai

    proc, url = start_stub()
    try:
        sockets = _sync(url, N_SYNC, ROUNDS)
        sockets.update(asyncio.run(_async(url, N_ASYNC, ROUNDS)))
    finally:
        proc.terminate()
    memory = _sync(None, MEM_N, MEM_ROUNDS)
    memory.update(asyncio.run(_async(None, max(MEM_N, 320), MEM_ROUNDS)))
    print(
        f"openai {openai.__version__}; client CPU µs per request, best of {ROUNDS} rounds over "
        f"sockets, of {MEM_ROUNDS} in memory"
    )
    print(
        f"{'call':<13}{'bare':>8}{'wrapped':>9}{'ratio':>7}   {'in memory: bare':>15}"
        f"{'wrapped':>9}{'wrapper':>9}{'wrapper/bare':>14}"
    )
    for kind in ("sync plain", "sync stream", "async plain"):
        bare, wrapped = sockets[f"{kind} bare"], sockets[f"{kind} wrapped"]
        mbare, mwrapped = memory[f"{kind} bare"], memory[f"{kind} wrapped"]
        own = mwrapped - mbare
        print(
            f"{kind:<13}{bare:>8,.0f}{wrapped:>9,.0f}{wrapped / bare:>6.2f}x   {mbare:>15,.0f}"
            f"{mwrapped:>9,.0f}{own:>+9,.0f}{own / bare * 100:>13.1f}%"
        )
    return {"sockets": sockets, "memory": memory}


if __name__ == "__main__":
    main()
