"""The real official SDKs, wrapped by surefoot, in one small uniform face for the tests.

:class:`Sdk` names one SDK and mode (``openai`` sync/async on httpx2, ``anthropic`` sync/async
on httpx2, ``groq`` sync/async on plain httpx); :meth:`Sdk.ask` sends one chat request through
the SDK's own API (plain or streamed) and returns the answer's text, raising what the SDK
raises. Async clients run on one event loop per :class:`Runner` (a background thread), so a
test stays a plain function and a client's connection pool stays on its loop.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any

import anthropic
import groq
import openai

import surefoot


class Runner:
    """One event loop in a daemon thread; :meth:`run` a coroutine on it and wait."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=60)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)
        self.loop.close()


@dataclass(frozen=True)
class Sdk:
    name: str  # openai | anthropic | groq
    is_async: bool

    @property
    def id(self) -> str:
        return f"{self.name}-{'async' if self.is_async else 'sync'}"

    @property
    def package(self) -> Any:
        return {"openai": openai, "anthropic": anthropic, "groq": groq}[self.name]

    def bare(self, base_url: str, **kwargs: Any) -> Any:
        """The SDK's own client for the fault server at ``base_url``."""
        key = {"openai": "sk-test-openai-0123456789", "anthropic": "sk-ant-test-0123456789"}
        api_key = key.get(self.name, "gsk_test_0123456789")
        if self.name == "openai":
            cls = openai.AsyncOpenAI if self.is_async else openai.OpenAI
            return cls(base_url=base_url + "/v1", api_key=api_key, **kwargs)
        if self.name == "anthropic":
            cls = anthropic.AsyncAnthropic if self.is_async else anthropic.Anthropic
            return cls(base_url=base_url, api_key=api_key, **kwargs)
        cls = groq.AsyncGroq if self.is_async else groq.Groq
        return cls(base_url=base_url, api_key=api_key, **kwargs)

    def wrapped(self, base_url: str, **options: Any) -> Any:
        options.setdefault("retry_base", 0.001)
        options.setdefault("max_delay", 0.01)
        return surefoot.wrap(self.bare(base_url), **options)

    def ask(
        self,
        runner: Runner,
        client: Any,
        text: str = "hello there",
        *,
        stream: bool = False,
        tools: bool = False,
    ) -> str:
        """Send ``text``; the answer's text (or the tool call's name and arguments)."""
        coro = self._aask(client, text, stream, tools)
        if self.is_async:
            return str(runner.run(coro))
        # A sync client: drive the same steps without an event loop.
        return str(_drive_sync(coro))

    async def _aask(self, client: Any, text: str, stream: bool, tools: bool) -> str:
        msgs = [{"role": "user", "content": text}]
        if self.name == "anthropic":
            kw: dict[str, Any] = {"model": "claude-test", "max_tokens": 256, "messages": msgs}
            if tools:
                kw["tools"] = [
                    {
                        "name": "get_weather",
                        "description": "weather",
                        "input_schema": {"type": "object", "properties": {}},
                    }
                ]
            if stream:
                out = await _maybe(client.messages.create(stream=True, **kw))
                parts: list[str] = []
                async for event in _iterate(out):
                    if event.type == "content_block_delta":
                        delta = event.delta
                        parts.append(getattr(delta, "text", None) or "")
                        parts.append(getattr(delta, "partial_json", None) or "")
                return "".join(parts)
            msg = await _maybe(client.messages.create(**kw))
            if not msg.content:  # a refusal may carry no content
                return ""
            block = msg.content[0]
            if block.type == "tool_use":
                return f"{block.name}:{block.input}"
            return str(block.text)
        kw = {"model": "gpt-test", "messages": msgs}
        if tools:
            kw["tools"] = [
                {
                    "type": "function",
                    "function": {"name": "get_weather", "parameters": {"type": "object"}},
                }
            ]
        if stream:
            out = await _maybe(client.chat.completions.create(stream=True, **kw))
            parts = []
            async for chunk in _iterate(out):
                if chunk.choices:
                    delta = chunk.choices[0].delta
                    parts.append(delta.content or "")
                    for call in delta.tool_calls or ():
                        parts.append((call.function and call.function.arguments) or "")
            return "".join(parts)
        completion = await _maybe(client.chat.completions.create(**kw))
        message = completion.choices[0].message
        if message.tool_calls:
            call = message.tool_calls[0]
            return f"{call.function.name}:{call.function.arguments}"
        return str(message.content or "")


async def _maybe(value: Any) -> Any:
    if asyncio.iscoroutine(value):
        return await value
    return value


async def _iterate(stream: Any) -> Any:
    if hasattr(stream, "__aiter__"):
        async for item in stream:
            yield item
    else:
        for item in stream:
            yield item


def _drive_sync(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine that never really suspends (every await is on a sync value)."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    coro.close()
    raise AssertionError("a sync SDK call suspended")


SDKS = [
    Sdk("openai", False),
    Sdk("openai", True),
    Sdk("anthropic", False),
    Sdk("anthropic", True),
    Sdk("groq", False),
    Sdk("groq", True),
]
