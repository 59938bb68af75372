"""Throughput of surefoot.sse.SSEDecoder against openai-python's and httpx-sse's SSE decoders.

Run: ``python bench/bench_sse.py`` (needs ``openai`` and ``httpx-sse``, the ``bench`` extra).

The stream is 100k realistic chat-completion chunks (``data: {...}\\n\\n``, the deltas of a long
answer, with a role chunk first, a finish chunk and ``data: [DONE]`` last) as one bytes stream,
cut into network-sized pieces of 1 to 4 KiB. Each decoder is driven the way its library drives
it on a real response, from bytes to event objects:

* surefoot: ``SSEDecoder.feed(chunk)`` per chunk, then ``flush()``;
* openai: ``openai._streaming.SSEDecoder().iter_bytes(chunks)`` (its own bytes line splitter);
* httpx-sse: what ``EventSource.iter_sse`` does on ``response.iter_text()``: an incremental
  UTF-8 decoder (httpx's ``TextDecoder``), ``SSELineDecoder.decode`` to split lines, then
  ``SSEDecoder.decode(line.rstrip("\\n"))`` per line.

Every decoder runs several times; the best run counts. The result is events per second.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

N_EVENTS = 100_000
ROUNDS = 7
SEED = 20240601

_VOCABULARY = (
    "the quick brown fox jumps over lazy dog retry budget circuit breaker deadline stream "
    "token model answer because however résumé naïve café 東京 ✓"
)
# Deltas of an answer: words, with JSON escapes and non-ASCII text among them.
_WORDS = (*_VOCABULARY.split(), '"quoted"', "back\\slash", ".\n\n")


def build_stream(n_events: int = N_EVENTS, seed: int = SEED) -> bytes:
    """``n_events`` chat.completion.chunk events (the last one ``[DONE]``) as one stream."""
    rng = random.Random(seed)
    created = 1_717_171_717
    parts: list[bytes] = []

    def chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
        payload = {
            "id": "chatcmpl-9XyZabcDEFghiJKLmnoPQRstuVW",
            "object": "chat.completion.chunk",
            "created": created,
            "model": "gpt-4o-2024-08-06",
            "system_fingerprint": "fp_4e2b2da518",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
        return (
            b"data: "
            + json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
            + b"\n\n"
        )

    parts.append(chunk({"role": "assistant", "content": "", "refusal": None}))
    for _ in range(n_events - 3):
        word = rng.choice(_WORDS)
        parts.append(chunk({"content": word if rng.random() < 0.3 else " " + word}))
    parts.append(chunk({}, finish="stop"))
    parts.append(b"data: [DONE]\n\n")
    return b"".join(parts)


def split_network(stream: bytes, seed: int = SEED) -> list[bytes]:
    """Cut ``stream`` into pieces of 1 to 4 KiB, as reads from a socket would."""
    rng = random.Random(seed)
    chunks: list[bytes] = []
    i = 0
    while i < len(stream):
        size = rng.randint(1024, 4096)
        chunks.append(stream[i : i + size])
        i += size
    return chunks


def run_surefoot(chunks: list[bytes]) -> int:
    from surefoot.sse import SSEDecoder

    decoder = SSEDecoder()
    feed = decoder.feed
    n = 0
    for chunk in chunks:
        n += len(feed(chunk))
    n += len(decoder.flush())
    return n


def run_openai(chunks: list[bytes]) -> int:
    from openai._streaming import SSEDecoder

    n = 0
    for _ in SSEDecoder().iter_bytes(iter(chunks)):
        n += 1
    return n


def run_httpx_sse(chunks: list[bytes]) -> int:
    # httpx_sse.EventSource.iter_sse over httpx.Response.iter_text(), minus the HTTP response.
    from httpx._decoders import TextDecoder
    from httpx_sse._decoders import SSEDecoder, SSELineDecoder

    def iter_text() -> Iterator[str]:
        text_decoder = TextDecoder("utf-8")
        for chunk in chunks:
            text = text_decoder.decode(chunk)
            if text:
                yield text
        text = text_decoder.flush()
        if text:
            yield text

    def iter_sse_lines() -> Iterator[str]:
        line_decoder = SSELineDecoder()
        for text in iter_text():
            yield from line_decoder.decode(text)
        yield from line_decoder.flush()

    decoder = SSEDecoder()
    n = 0
    for line in iter_sse_lines():
        line = line.rstrip("\n")
        sse = decoder.decode(line)
        if sse is not None:
            n += 1
    return n


def best_rates(
    runners: dict[str, Callable[[list[bytes]], int]], chunks: list[bytes]
) -> tuple[dict[str, float], dict[str, int]]:
    """The best events/s of each runner over ``ROUNDS`` rounds, and the events each decoded.

    Rounds interleave the runners, so that a noisy neighbour slows all of them alike.
    """
    best = dict.fromkeys(runners, float("inf"))
    counts = dict.fromkeys(runners, 0)
    for _ in range(ROUNDS):
        for name, run in runners.items():
            start = time.perf_counter()
            counts[name] = run(chunks)
            best[name] = min(best[name], time.perf_counter() - start)
    return {name: counts[name] / best[name] for name in runners}, counts


def main() -> dict[str, float]:
    """Run the benchmark, print the table; return ``{"surefoot": eps, "openai": eps, ...}``."""
    src = Path(__file__).resolve().parent.parent / "src"
    if str(src) not in sys.path:
        sys.path.insert(0, str(src))

    stream = build_stream()
    chunks = split_network(stream)
    print(
        f"SSE decode: {N_EVENTS:,} chat.completion.chunk events, {len(stream) / 1e6:.1f} MB "
        f"in {len(chunks):,} chunks of 1-4 KiB; best of {ROUNDS} runs; "
        f"Python {sys.version.split()[0]}"
    )
    runners: dict[str, Callable[[list[bytes]], int]] = {
        "surefoot": run_surefoot,
        "openai": run_openai,
        "httpx_sse": run_httpx_sse,
    }
    results, counts = best_rates(runners, chunks)
    assert len(set(counts.values())) == 1 and counts["surefoot"] == N_EVENTS, counts

    ours = results["surefoot"]
    print(f"{'decoder':<12}{'M events/s':>12}{'surefoot/this':>16}")
    for name, eps in results.items():
        print(f"{name:<12}{eps / 1e6:>12.3f}{ours / eps:>15.2f}x")
    return results


if __name__ == "__main__":
    main()
