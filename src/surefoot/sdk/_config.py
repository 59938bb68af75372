"""The wrapper's options, checked once (:class:`SdkConfig`): those of :class:`surefoot.LLMClient`,
with its defaults, plus the stream limits.

Every bad value raises ``TypeError`` (wrong type) or ``ValueError`` (wrong value) naming the
option and the fix, when the client is wrapped, never later inside a call.
"""

from __future__ import annotations

import random as _random
from collections.abc import Mapping

from surefoot import _check
from surefoot.clock import SYSTEM_CLOCK, Clock
from surefoot.guard._breaker import CircuitBreaker
from surefoot.guard._budget import BoundBudget, RetryBudget, unbind
from surefoot.guard._hooks import GuardHooks
from surefoot.guard._limiter import SharedRateLimiter
from surefoot.policy._retry import RetryPolicy
from surefoot.policy._types import OnError

__all__ = ["DEFAULT_READ_TIMEOUT", "PROVIDERS", "SdkConfig"]

#: The longest silence tolerated on a connection or a stream, as for ``LLMClient``.
DEFAULT_READ_TIMEOUT = 600.0
#: The dialects a failure is classified in.
PROVIDERS = ("openai", "anthropic", "azure", "groq", "mistral", "google", "bedrock")


class SdkConfig:
    """The checked options of one wrapped client or transport."""

    __slots__ = (
        "breaker",
        "breakers",
        "budget",
        "clock",
        "first_token_timeout",
        "hooks",
        "operation",
        "policy",
        "provider",
        "rate_limiter",
        "read_timeout",
        "timeout",
    )

    def __init__(
        self,
        *,
        provider: str,
        retries: int = 2,
        retry_base: float = 0.5,
        max_delay: float = 8.0,
        max_hint: float = 120.0,
        on_error: OnError | None = None,
        timeout: float | None = None,
        breaker: CircuitBreaker | Mapping[str, CircuitBreaker] | None = None,
        budget: RetryBudget | BoundBudget | None = None,
        rate_limiter: SharedRateLimiter | None = None,
        hooks: object | None = None,
        read_timeout: float | None = DEFAULT_READ_TIMEOUT,
        first_token_timeout: float | None = None,
        clock: Clock | None = None,
        operation: str | None = None,
    ) -> None:
        _check.choice("provider", provider, PROVIDERS)
        self.provider = provider
        self.policy = RetryPolicy(
            retries=retries,
            retry_base=retry_base,
            max_delay=max_delay,
            max_hint=max_hint,
            on_error=on_error,
            random=_random.random,
        )
        self.timeout = _check.timeout("timeout", timeout)
        self.read_timeout = _check.timeout("read_timeout", read_timeout)
        self.first_token_timeout = _check.timeout("first_token_timeout", first_token_timeout)
        self.breaker: CircuitBreaker | None = None
        self.breakers: dict[str, CircuitBreaker] = {}
        if isinstance(breaker, Mapping):
            for name, b in breaker.items():
                _check.text("breaker's model name", name)
                _check.instance(
                    f"breaker[{name!r}]", b, CircuitBreaker, "a surefoot.CircuitBreaker"
                )
            self.breakers = dict(breaker)
        else:
            self.breaker = _check.instance(
                "breaker",
                breaker,
                CircuitBreaker,
                "a surefoot.CircuitBreaker, or a mapping of model name to CircuitBreaker",
            )
        _check.instance("budget", budget, (RetryBudget, BoundBudget), "a surefoot.RetryBudget")
        self.budget: RetryBudget | BoundBudget | None = budget
        self.rate_limiter = _check.instance(
            "rate_limiter", rate_limiter, SharedRateLimiter, "a surefoot.SharedRateLimiter"
        )
        self.hooks = GuardHooks.coerce(hooks)
        self.clock: Clock = _check.clock("clock", clock) or SYSTEM_CLOCK
        if operation is not None:
            _check.text("operation", operation)
        self.operation = operation

    def breaker_for(self, model: str | None) -> CircuitBreaker | None:
        """The model's breaker (a mapping), else the one breaker, else ``None``."""
        if self.breakers:
            return self.breakers.get(model or "")
        return self.breaker

    def budget_for(self, model: str | None) -> tuple[RetryBudget | None, str | None]:
        """``(budget, key)``: a bound budget's own key, else one bucket per provider and
        model (as ``LLMClient`` keys it)."""
        if self.budget is None:
            return None, None
        budget, key = unbind(self.budget, f"{self.provider}:{model or '-'}")
        return budget, key
