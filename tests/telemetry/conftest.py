"""Fixtures of the telemetry tests: the real OpenTelemetry SDK, in memory."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import surefoot.telemetry as telemetry
from surefoot.telemetry import _hub


@dataclass
class Otel:
    tracer_provider: TracerProvider
    exporter: InMemorySpanExporter
    reader: InMemoryMetricReader

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def named(self, name: str) -> list[ReadableSpan]:
        return [s for s in self.spans() if s.name == name]

    def roots(self) -> list[ReadableSpan]:
        return [s for s in self.spans() if s.parent is None]

    def children(self, span: ReadableSpan) -> list[ReadableSpan]:
        sid = span.context.span_id
        kids = [s for s in self.spans() if s.parent is not None and s.parent.span_id == sid]
        return sorted(kids, key=lambda s: s.start_time or 0)

    def metrics(self) -> dict[str, list[Any]]:
        """Every metric's data points, by name."""
        out: dict[str, list[Any]] = {}
        data = self.reader.get_metrics_data()
        if data is None:
            return out
        for rm in data.resource_metrics:
            for sm in rm.scope_metrics:
                for m in sm.metrics:
                    out.setdefault(m.name, []).extend(m.data.data_points)
        return out

    def total(self, name: str, **attrs: Any) -> float:
        """The sum of a counter's points (or a histogram's counts) whose attributes match."""
        n = 0.0
        for p in self.metrics().get(name, []):
            if all(p.attributes.get(k) == v for k, v in attrs.items()):
                n += p.value if hasattr(p, "value") else p.count
        return n


@pytest.fixture
def otel() -> Iterator[Otel]:
    exporter = InMemorySpanExporter()
    tp = TracerProvider()
    tp.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    mp = MeterProvider(metric_readers=[reader])
    telemetry.instrument(tracer_provider=tp, meter_provider=mp)
    try:
        yield Otel(tp, exporter, reader)
    finally:
        telemetry.uninstrument()
        assert _hub.SINKS == ()
