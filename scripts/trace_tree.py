"""Print the OpenTelemetry span tree of one call with a 429, a fallback and a breaker opening.

Run: ``python scripts/trace_tree.py`` (needs the OpenTelemetry SDK, a dev dependency). The
fault server plays the provider: the primary model answers a 429 with ``Retry-After: 1``, then
a 503; its breaker (threshold 2) opens and the call falls back to the backup model. The tree
printed is the one the README shows (durations vary a little).
"""

from __future__ import annotations

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import surefoot
import surefoot.telemetry as telemetry
from surefoot.llm import LLMClient
from surefoot.testing.faults import FaultServer, Match, Model, Rule, Status

#: The attributes shown, in order (the others are there too).
SHOWN = (
    "error.type",
    "http.response.status_code",
    "http.request.resend_count",
    "surefoot.decision",
    "surefoot.why",
    "gen_ai.response.model",
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.output_tokens",
)


def run() -> list[ReadableSpan]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry.instrument(tracer_provider=provider)
    try:
        breaker = surefoot.CircuitBreaker("gpt-4o", failure_threshold=2)
        rules = [Rule(fault=Status(503), match=Match(model="gpt-4o"))]
        with FaultServer(models=[Model("*", reply="Paris is sunny.")], rules=rules) as srv:
            srv.enqueue(Status(429, retry_after=1))
            client = LLMClient(
                base_url=srv.base_url + "/v1",
                api_key="sk-demo",
                model=["gpt-4o", "gpt-4o-mini"],
                retries=1,
                breaker=breaker,
            )
            client.run("Weather in Paris?")
    finally:
        telemetry.uninstrument()
    return list(exporter.get_finished_spans())


def show(spans: list[ReadableSpan], span: ReadableSpan, depth: int = 0) -> None:
    a = span.attributes or {}
    ms = ((span.end_time or 0) - (span.start_time or 0)) / 1e6
    attrs = " ".join(f"{k}={a[k]}" for k in SHOWN if k in a)
    pad = "  " * depth
    print(f"{pad}{span.name}  [{ms:.0f} ms]  {attrs}")
    for e in span.events:
        shown = " ".join(
            f"{k.split('.', 1)[1]}={v}"
            for k, v in (e.attributes or {}).items()
            if k != "surefoot.reason"
        )
        print(f"{pad}  · {(e.timestamp - (span.start_time or 0)) / 1e6:5.0f} ms  {e.name}  {shown}")
    sid = span.context.span_id if span.context is not None else None
    kids = [s for s in spans if s.parent is not None and s.parent.span_id == sid]
    for kid in sorted(kids, key=lambda s: s.start_time or 0):
        show(spans, kid, depth + 1)


def main() -> None:
    spans = run()
    for root in (s for s in spans if s.parent is None):
        show(spans, root)


if __name__ == "__main__":
    main()
