"""The resilient LLM client: :class:`AsyncLLMClient` and :class:`LLMClient`.

::

    client = AsyncLLMClient(
        base_url="https://api.openai.com/v1", api_key=key, style="openai",
        model=[ModelSpec("gpt-4o-mini", context_window=128_000), "gpt-4o"],
        retries=2, retry_base=0.5, timeout=60,
    )
    result = await client.run("What is the weather in Paris?", tools=[get_weather])
    async for event in client.stream("Tell me a story"):
        if event.type == "text":
            print(event.text, end="")

Options (both clients): ``base_url``, ``api_key`` (never shown in an error, a repr, a log line
or an attempt record), ``model`` (a name, a :class:`ModelSpec`, or a list of them in fallback
order), ``style`` (``"openai"`` chat completions or ``"anthropic"`` messages), ``retries`` (2),
``retry_base`` (0.5 s), ``max_delay`` (8 s: the longest backoff wait, and the cap of an
error's own suggested delay; never of a server hint), ``max_hint`` (120 s: the longest server
hint, such as Retry-After, honoured; a longer one fails at once), ``on_error``
(``ErrorInfo -> Tier``), ``timeout`` (whole run, ``None``; within any deadline already in
force, such as ``surefoot.deadline()``),
``breaker`` (a :class:`~surefoot.CircuitBreaker` shared by every model, or a dict of
model name to breaker), ``budget`` (a :class:`~surefoot.RetryBudget`, keyed
``"style:model"``), ``rate_limiter`` (a :class:`~surefoot.SharedRateLimiter`, ``None``:
before each send it waits in ``throttle(tokens=estimate)``, never past the run's deadline,
raising its :class:`~surefoot.RateLimitError` when no slot comes in time; after every response,
429s included, it observes the headers), ``hooks`` (``on_attempt``, ``on_retry``,
``on_give_up`` with a :class:`ModelAttempt`, itself a :class:`~surefoot.guard.AttemptRecord`
naming its ``model``;
``on_breaker_state_change(name, old, new)`` when a call of the run moved a breaker; a
:class:`~surefoot.guard.GuardHooks` works), transport options
(``transport``, ``max_body``, ``read_timeout``, ``connect_timeout``, ``max_connections``), and
the loop's bounds (``max_turns`` 20, ``stream_attempts`` 5 (the connections of one streamed
request in all, first attempt and resumes; before the first delta ``retries`` applies as for
``run()``), ``max_tool_errors`` 3,
``max_repeats`` 3, ``max_validation_retries`` 2), ``clock`` and extra ``headers``.

Failures: a chain of one model raises that model's own final error (a
:class:`~surefoot.RateLimitError` once the retries are spent, a :class:`~surefoot.CircuitOpenError`
when its breaker is open...); a chain of several raises ``LLM_PROVIDERS_UNAVAILABLE`` when
every model stayed unavailable (see :mod:`~surefoot.llm._ctx`). A request too long for every
configured window is an :class:`~surefoot.LLMError` of type ``CONTEXT_TOO_LONG`` (code
``LLM_CONFIG_CONTEXT_TOO_SMALL``), like the provider's own answer. After the first streamed
delta, a retryable failure (a cut, a reset, an overload or another 5xx-class error event)
reconnects with ``Last-Event-ID`` when the events carry ids; a final error event is not retried.

How the pieces fit: a pure generator flow (:mod:`~surefoot.llm._loop`, :mod:`~surefoot.llm._call`,
:mod:`~surefoot.llm._stream`, each model's attempts on the engine's loop
:mod:`surefoot.policy._attempts`) yields ops (:mod:`~surefoot.llm._ops`) that two small drivers
carry out, one async (:mod:`~surefoot.llm._client_async`, hand-written), one sync
(:mod:`~surefoot.llm._client_sync`, generated from it by ``scripts/unasync.py``).
"""

from surefoot.llm._client_async import AsyncLLMClient
from surefoot.llm._client_sync import LLMClient
from surefoot.llm._messages import Completion, Message, ToolCall, Usage
from surefoot.llm._options import ModelSpec
from surefoot.llm._result import (
    ModelAttempt,
    Pending,
    RestartEvent,
    ResultEvent,
    RunResult,
    Suspend,
    ToolResultEvent,
    WaitFor,
)
from surefoot.llm._tools import ToolSpec, tool_from_function
from surefoot.llm._wire import TextDelta, ToolCallDelta

__all__ = [
    "AsyncLLMClient",
    "Completion",
    "LLMClient",
    "Message",
    "ModelAttempt",
    "ModelSpec",
    "Pending",
    "RestartEvent",
    "ResultEvent",
    "RunResult",
    "Suspend",
    "TextDelta",
    "ToolCall",
    "ToolCallDelta",
    "ToolResultEvent",
    "ToolSpec",
    "Usage",
    "WaitFor",
    "tool_from_function",
]
