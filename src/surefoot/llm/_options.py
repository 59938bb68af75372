"""The client's options, checked once: :class:`ModelSpec` and :class:`Options`.

Every bad value raises a ``TypeError`` (wrong type) or ``ValueError`` (wrong value) whose message
names the option and the fix, when the client is built, never later inside a run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from surefoot import _check
from surefoot._redact import register_secret
from surefoot.clock import SYSTEM_CLOCK, Clock
from surefoot.guard._breaker import CircuitBreaker
from surefoot.guard._budget import BoundBudget, RetryBudget
from surefoot.guard._hooks import GuardHooks
from surefoot.guard._limiter import SharedRateLimiter
from surefoot.llm._wire import WireFormat
from surefoot.llm._wires import STYLES, get_wire
from surefoot.policy._retry import RetryPolicy
from surefoot.policy._types import OnError

__all__ = ["DEFAULT_MAX_TURNS", "RESCUES", "ModelSpec", "Options"]

DEFAULT_MAX_TURNS = 20
DEFAULT_STREAM_ATTEMPTS = 5
DEFAULT_MAX_TOOL_ERRORS = 3
DEFAULT_MAX_REPEATS = 3
DEFAULT_MAX_VALIDATION_RETRIES = 2
DEFAULT_MAX_BAD_CHUNKS = 3
DEFAULT_FAILOVER_ATTEMPTS = 2
DEFAULT_FAILOVER_WAIT = 2.0
#: What a stream that fails after its first delta, without event ids to resume from, does.
RESCUES = ("restart", "buffer", "off")


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """One model of the fallback chain: its ``name`` and its ``context_window`` in tokens.

    ``context_window=None`` means unknown: the model is never skipped for size, and a provider's
    context-too-long error still moves the run to the next model. ``max_tokens`` is the output
    limit sent with each request (required by the Anthropic wire; 1024 when ``None`` there).
    ``prefill=True`` says the model continues a partial assistant message (Anthropic's
    prefill): a stream cut after its first delta, with nothing to resume from, continues from
    the text received instead of starting over; a model that rejects the prefilled request
    starts over after all (the cut stays the attempt's failure).
    """

    name: str
    context_window: int | None = None
    max_tokens: int | None = None
    prefill: bool = False

    def __post_init__(self) -> None:
        _check.text("ModelSpec.name", self.name, fix="a model name, like 'gpt-4o-mini'")
        if not self.name.strip():
            raise ValueError("ModelSpec.name must be a non-empty str, like 'gpt-4o-mini'")
        if not isinstance(self.prefill, bool):
            raise TypeError(f"ModelSpec.prefill must be True or False, got {self.prefill!r}")
        for field_name in ("context_window", "max_tokens"):
            v = getattr(self, field_name)
            if v is not None:
                _check.count(f"ModelSpec.{field_name}", v, low=1, fix="a size in tokens, or None")


def _models(model: object) -> tuple[ModelSpec, ...]:
    if isinstance(model, (str, ModelSpec)):
        model = [model]
    if not isinstance(model, Sequence) or isinstance(model, (bytes, bytearray)):
        raise TypeError(
            "model must be a model name (str), a ModelSpec, or a list of them in fallback "
            f"order, not {type(model).__name__}"
        )
    out: list[ModelSpec] = []
    for i, m in enumerate(model):
        if isinstance(m, str):
            out.append(ModelSpec(m))
        elif isinstance(m, ModelSpec):
            out.append(m)
        else:
            raise TypeError(
                f"model[{i}] is a {type(m).__name__}; pass a str or "
                "ModelSpec('name', context_window=...)"
            )
    if not out:
        raise ValueError("model is an empty list; give at least one model name")
    names = [m.name for m in out]
    if len(set(names)) != len(names):
        raise ValueError(f"model lists a name twice ({names}); each model once, in fallback order")
    return tuple(out)


class Options:
    """The checked, normalized configuration shared by the sync and async clients."""

    __slots__ = (
        "api_key",
        "background",
        "base_url",
        "breakers",
        "budget",
        "clock",
        "failover_attempts",
        "failover_wait",
        "first_token_timeout",
        "headers",
        "hooks",
        "idle_timeout",
        "max_bad_chunks",
        "max_repeats",
        "max_tool_errors",
        "max_turns",
        "max_validation_retries",
        "models",
        "policy",
        "rate_limiter",
        "read_timeout",
        "resume_policy",
        "stream_headers",
        "stream_rescue",
        "style",
        "timeout",
        "url",
        "wire",
    )

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None,
        model: object,
        style: str,
        retries: int,
        retry_base: float,
        max_delay: float,
        max_hint: float,
        on_error: OnError | None,
        timeout: float | None,
        breaker: CircuitBreaker | Mapping[str, CircuitBreaker] | None,
        budget: RetryBudget | BoundBudget | None,
        hooks: object | None,
        read_timeout: float | None,
        max_turns: int,
        stream_attempts: int,
        max_tool_errors: int,
        max_repeats: int,
        max_validation_retries: int,
        clock: Clock | None,
        headers: Mapping[str, str] | None,
        rate_limiter: SharedRateLimiter | None = None,
        first_token_timeout: float | None = None,
        idle_timeout: float | None = None,
        stream_rescue: str = "restart",
        max_bad_chunks: int = DEFAULT_MAX_BAD_CHUNKS,
        failover_attempts: int = DEFAULT_FAILOVER_ATTEMPTS,
        failover_wait: float = DEFAULT_FAILOVER_WAIT,
        background: bool = False,
    ) -> None:
        _check.url("base_url", base_url, fix="the API root, like 'https://api.openai.com/v1'")
        if api_key is not None:
            _check.text("api_key", api_key)
            _check.header(
                "api_key",
                api_key,
                secret=True,
                fix="a key read from a file or an environment variable often ends in a "
                "newline: pass api_key.strip()",
            )
        register_secret(api_key)
        if style not in STYLES:
            raise ValueError(
                f"style must be 'openai' (chat completions), 'anthropic' (messages) or "
                f"'responses' (the OpenAI Responses API), got {style!r}"
            )
        self.style = style
        self.wire: WireFormat = get_wire(style)
        self.url = self.wire.endpoint(base_url)  # validates the URL shape
        self.base_url = base_url
        self.api_key = api_key
        self.models = _models(model)
        self.policy = RetryPolicy(
            retries=retries,
            retry_base=retry_base,
            max_delay=max_delay,
            max_hint=max_hint,
            on_error=on_error,
        )
        # After the first delta, a stream resumes within one budget of connections shared by
        # every kind of failure (an error's own max_retry_attempts does not cap it), as a task
        # stream does: at most `stream_attempts` connections in all, receiving events does not
        # reset it. Before the first delta, `retries=` applies as for run().
        self.resume_policy = RetryPolicy(
            retries=_check.count("stream_attempts", stream_attempts, low=1, high=1001) - 1,
            retry_base=retry_base,
            max_delay=max_delay,
            max_hint=max_hint,
            on_error=on_error,
            respect_error_attempts=False,
        )
        self.timeout = _check.timeout("timeout", timeout)
        self.read_timeout = _check.timeout("read_timeout", read_timeout)
        self.first_token_timeout = _check.timeout("first_token_timeout", first_token_timeout)
        self.idle_timeout = _check.timeout("idle_timeout", idle_timeout)
        self.stream_rescue = _check.choice("stream_rescue", stream_rescue, RESCUES)
        self.max_bad_chunks = _check.count("max_bad_chunks", max_bad_chunks)
        self.failover_attempts = _check.count("failover_attempts", failover_attempts, low=1)
        self.failover_wait = _check.seconds("failover_wait", failover_wait)
        if not isinstance(background, bool):
            raise TypeError(f"background must be True or False, got {_check.shown(background)}")
        if background and style != "responses":
            raise ValueError(
                "background=True makes resumable background responses of the OpenAI Responses "
                f"API: it needs style='responses', not {style!r}"
            )
        self.background = background
        self.breakers = _breakers(breaker, self.models, base_url)
        self.budget = _check.instance(
            "budget", budget, (RetryBudget, BoundBudget), "a surefoot.RetryBudget"
        )
        self.rate_limiter = _check.instance(
            "rate_limiter", rate_limiter, SharedRateLimiter, "a surefoot.SharedRateLimiter"
        )
        self.hooks = GuardHooks.coerce(hooks)
        self.max_turns = _check.count("max_turns", max_turns, low=1)
        self.max_tool_errors = _check.count("max_tool_errors", max_tool_errors)
        self.max_repeats = _check.count("max_repeats", max_repeats, low=2)
        self.max_validation_retries = _check.count("max_validation_retries", max_validation_retries)
        self.clock: Clock = _check.clock("clock", clock) or SYSTEM_CLOCK
        _check.instance("headers", headers, Mapping, "a mapping of extra request headers")
        extra = _headers(headers)
        self.headers: dict[str, str] = {**self.wire.headers(api_key), **extra}
        self.stream_headers: dict[str, str] = {**self.wire.headers(api_key, stream=True), **extra}

    def breaker_for(self, model: str) -> CircuitBreaker | None:
        return self.breakers.get(model) if self.breakers else None


def _headers(headers: Mapping[str, str] | None) -> dict[str, str]:
    """The extra headers, each name a token and each value sendable (never shown: a header may
    hold a secret)."""
    out: dict[str, str] = {}
    for k, v in (headers or {}).items():
        name = _check.header_name("headers key", k)
        out[name] = _check.header(
            f"headers[{name!r}]", v, secret=True, fix="remove the line break or control character"
        )
    return out


def _breakers(
    breaker: object, models: tuple[ModelSpec, ...], base_url: str
) -> dict[str, CircuitBreaker]:
    """Per model: one breaker given guards the first model, and each other model gets its own
    breaker of the same configuration and store (``breaker.for_key(route)``), so that one
    model's outage is never hidden by another's successes."""
    if breaker is None:
        return {}
    if isinstance(breaker, CircuitBreaker):
        from urllib.parse import urlsplit

        host = urlsplit(base_url).netloc
        first, *rest = models
        chain = {first.name: breaker}
        for m in rest:
            chain[m.name] = breaker.for_key(f"{host}/{m.name}")
        return chain
    if isinstance(breaker, Mapping):
        out: dict[str, CircuitBreaker] = {}
        for k, v in breaker.items():
            if not isinstance(v, CircuitBreaker):
                raise TypeError(
                    f"breaker[{k!r}] must be a surefoot.CircuitBreaker, got {type(v).__name__}"
                )
            out[str(k)] = v
        unknown = set(out) - {m.name for m in models}
        if unknown:
            raise ValueError(f"breaker names models that are not configured: {sorted(unknown)}")
        return out
    raise TypeError(
        "breaker must be a surefoot.CircuitBreaker (shared by every model), a dict of model "
        f"name to CircuitBreaker, or None, got {_check.shown(breaker)}"
    )
