"""Client CPU per chat request: surefoot vs openai-python (httpx and aiohttp) vs raw clients.

A minimal raw-asyncio HTTP/1.1 stub runs in a *separate process* and answers every POST with a
fixed chat completion (or, when the request asks for a stream, a fixed SSE stream), so its CPU
is not counted. For each client we measure ``time.process_time()`` of this process over N
requests and report microseconds of client CPU per request, and the ratios.

    python bench/bench_client.py            # prints the table; main() returns the numbers
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import socket
import sys
import time
from typing import Any

CONCURRENCY = 32
N_ASYNC = int(os.environ.get("BENCH_N_ASYNC", "3000"))
N_SYNC = int(os.environ.get("BENCH_N_SYNC", "1500"))
N_STREAM = int(os.environ.get("BENCH_N_STREAM", "1000"))
WARMUP = 200

COMPLETION = json.dumps(
    {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "gpt-4o-mini",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Hello! How can I help you today?"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 9, "completion_tokens": 9, "total_tokens": 18},
    }
).encode()


def _sse() -> bytes:
    out = []
    for i, word in enumerate(["Hello", "!", " How", " can", " I", " help", "?"]):
        chunk = {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1700000000,
            "model": "gpt-4o-mini",
            "choices": [{"index": 0, "delta": {"content": word}, "finish_reason": None}],
        }
        out.append(f"id: {i}\ndata: {json.dumps(chunk)}\n\n")
    last = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 7, "total_tokens": 16},
    }
    out.append(f"id: 99\ndata: {json.dumps(last)}\n\ndata: [DONE]\n\n")
    return "".join(out).encode()


SSE = _sse()
JSON_RESPONSE = (
    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
    + str(len(COMPLETION)).encode()
    + b"\r\n\r\n"
    + COMPLETION
)
SSE_RESPONSE = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: "
    + str(len(SSE)).encode()
    + b"\r\n\r\n"
    + SSE
)


# -- the stub server (its own process) ---------------------------------------------------------


async def _handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            body = await reader.readexactly(length) if length else b""
            stream = b'"stream":true' in body or b'"stream": true' in body
            writer.write(SSE_RESPONSE if stream else JSON_RESPONSE)
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
        pass
    finally:
        writer.close()


def _serve(sock: socket.socket) -> None:
    async def main() -> None:
        server = await asyncio.start_server(_handle, sock=sock, backlog=1024)
        async with server:
            await server.serve_forever()

    try:
        import uvloop  # type: ignore[import-not-found]

        uvloop.run(main())
    except ImportError:
        asyncio.run(main())


def start_stub() -> tuple[multiprocessing.Process, str]:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    port = sock.getsockname()[1]
    proc = multiprocessing.get_context("fork").Process(target=_serve, args=(sock,), daemon=True)
    proc.start()
    sock.close()
    return proc, f"http://127.0.0.1:{port}"


# -- measurement -------------------------------------------------------------------------------

MESSAGES = [{"role": "user", "content": "Say hello"}]
MODEL = "gpt-4o-mini"
KEY = "sk-bench-0000000000000000"


async def _async_cpu(call: Any, n: int) -> float:
    async def worker(k: int) -> None:
        for _ in range(k):
            await call()

    await asyncio.gather(*(worker(WARMUP // CONCURRENCY + 1) for _ in range(CONCURRENCY)))
    per = n // CONCURRENCY
    t0 = time.process_time()
    await asyncio.gather(*(worker(per) for _ in range(CONCURRENCY)))
    return (time.process_time() - t0) / (per * CONCURRENCY) * 1e6


def _sync_cpu(call: Any, n: int) -> float:
    for _ in range(WARMUP):
        call()
    t0 = time.process_time()
    for _ in range(n):
        call()
    return (time.process_time() - t0) / n * 1e6


async def bench_async(url: str) -> dict[str, float]:
    import aiohttp
    import openai

    from surefoot import llm

    out: dict[str, float] = {}
    async with llm.AsyncLLMClient(base_url=url + "/v1", api_key=KEY, model=MODEL) as sf:

        async def sf_call() -> None:
            r = await sf.run(MESSAGES)
            assert r.text

        out["surefoot AsyncLLMClient"] = await _async_cpu(sf_call, N_ASYNC)

    oa = openai.AsyncOpenAI(base_url=url + "/v1", api_key=KEY, max_retries=2)

    async def oa_call() -> None:
        r = await oa.chat.completions.create(model=MODEL, messages=MESSAGES)  # type: ignore[arg-type]
        assert r.choices[0].message.content

    out["openai AsyncOpenAI (httpx)"] = await _async_cpu(oa_call, N_ASYNC)
    await oa.close()

    try:
        http_client = openai.DefaultAioHttpClient()
    except Exception as exc:  # httpx-aiohttp missing
        print(f"openai aiohttp backend unavailable: {exc}", file=sys.stderr)
    else:
        oa2 = openai.AsyncOpenAI(
            base_url=url + "/v1", api_key=KEY, max_retries=2, http_client=http_client
        )

        async def oa2_call() -> None:
            r = await oa2.chat.completions.create(model=MODEL, messages=MESSAGES)  # type: ignore[arg-type]
            assert r.choices[0].message.content

        out["openai AsyncOpenAI (aiohttp)"] = await _async_cpu(oa2_call, N_ASYNC)
        await oa2.close()

    body = json.dumps({"model": MODEL, "messages": MESSAGES}).encode()
    headers = {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"}
    async with aiohttp.ClientSession() as session:
        endpoint = url + "/v1/chat/completions"

        async def raw_call() -> None:
            async with session.post(endpoint, data=body, headers=headers) as resp:
                data = json.loads(await resp.read())
                assert data["choices"]

        out["raw aiohttp"] = await _async_cpu(raw_call, N_ASYNC)
    return out


async def bench_async_stream(url: str) -> dict[str, float]:
    import openai

    from surefoot import llm

    out: dict[str, float] = {}
    async with llm.AsyncLLMClient(base_url=url + "/v1", api_key=KEY, model=MODEL) as sf:

        async def sf_call() -> None:
            n = 0
            async for ev in sf.stream(MESSAGES):
                n += ev.type == "text"
            assert n

        out["surefoot AsyncLLMClient.stream"] = await _async_cpu(sf_call, N_STREAM)
    oa = openai.AsyncOpenAI(base_url=url + "/v1", api_key=KEY, max_retries=2)

    async def oa_call() -> None:
        n = 0
        s = await oa.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True)  # type: ignore[arg-type]
        async for _ in s:
            n += 1
        assert n

    out["openai AsyncOpenAI stream (httpx)"] = await _async_cpu(oa_call, N_STREAM)
    await oa.close()
    return out


def bench_sync(url: str) -> dict[str, float]:
    import openai
    import urllib3

    from surefoot import llm

    out: dict[str, float] = {}
    with llm.LLMClient(base_url=url + "/v1", api_key=KEY, model=MODEL) as sf:
        out["surefoot LLMClient"] = _sync_cpu(lambda: sf.run(MESSAGES).text, N_SYNC)
    oa = openai.OpenAI(base_url=url + "/v1", api_key=KEY, max_retries=2)
    out["openai OpenAI (httpx)"] = _sync_cpu(
        lambda: oa.chat.completions.create(model=MODEL, messages=MESSAGES),  # type: ignore[arg-type]
        N_SYNC,
    )
    oa.close()
    pool = urllib3.PoolManager()
    body = json.dumps({"model": MODEL, "messages": MESSAGES}).encode()
    headers = {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"}
    endpoint = url + "/v1/chat/completions"

    def raw() -> None:
        r = pool.request("POST", endpoint, body=body, headers=headers)
        assert json.loads(r.data)["choices"]

    out["raw urllib3"] = _sync_cpu(raw, N_SYNC)
    return out


def main() -> dict[str, Any]:
    proc, url = start_stub()
    try:
        time.sleep(0.3)
        results: dict[str, Any] = {}
        results["async"] = asyncio.run(bench_async(url))
        results["async_stream"] = asyncio.run(bench_async_stream(url))
        results["sync"] = bench_sync(url)
    finally:
        proc.terminate()
        proc.join(5)
    a, s, st = results["async"], results["sync"], results["async_stream"]
    sf_a, sf_s = a["surefoot AsyncLLMClient"], s["surefoot LLMClient"]
    ratios = {
        "async: openai(httpx) / surefoot": a["openai AsyncOpenAI (httpx)"] / sf_a,
        "async: surefoot / raw aiohttp": sf_a / a["raw aiohttp"],
        "sync: openai / surefoot": s["openai OpenAI (httpx)"] / sf_s,
        "sync: surefoot / raw urllib3": sf_s / s["raw urllib3"],
        "stream: openai(httpx) / surefoot": st["openai AsyncOpenAI stream (httpx)"]
        / st["surefoot AsyncLLMClient.stream"],
    }
    if "openai AsyncOpenAI (aiohttp)" in a:
        ratios["async: openai(aiohttp) / surefoot"] = a["openai AsyncOpenAI (aiohttp)"] / sf_a
    results["ratios"] = ratios
    print(f"client CPU per request (µs), async at concurrency {CONCURRENCY}:")
    for section in ("async", "async_stream", "sync"):
        for name, us in results[section].items():
            print(f"  {section:13s} {name:36s} {us:9.1f}")
    print(
        "ratios (targets: async openai/surefoot >= 5, surefoot/raw aiohttp <= 1.5, "
        "sync openai/surefoot >= 3):"
    )
    for name, r in ratios.items():
        print(f"  {name:40s} {r:6.2f}x")
    return results


if __name__ == "__main__":
    main()
