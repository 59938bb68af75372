"""End to end through the OTLP/HTTP exporters to a real receiver on loopback: the spans and
metrics of a retried, fallen-back LLM call arrive as protobuf, as a Collector would get them.

(No OpenTelemetry Collector installs from the package registries this project uses, so the
receiver is a small HTTP server decoding the OTLP protobuf messages with opentelemetry-proto.)
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

import surefoot
import surefoot.telemetry as telemetry
from surefoot.llm import LLMClient
from surefoot.testing.faults import FaultServer, Match, Model, Rule, Status


class Receiver:
    """An OTLP/HTTP receiver: POST /v1/traces and /v1/metrics, protobuf bodies."""

    def __init__(self) -> None:
        self.traces: list[Any] = []
        self.metrics: list[Any] = []
        self.content_types: set[str] = set()
        outer = self

        class H(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                n = int(self.headers.get("content-length", "0"))
                body = self.rfile.read(n)
                outer.content_types.add(self.headers.get("content-type", ""))
                if self.path == "/v1/traces":
                    req = trace_service_pb2.ExportTraceServiceRequest()
                    req.ParseFromString(body)
                    outer.traces.append(req)
                    out = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
                elif self.path == "/v1/metrics":
                    mreq = metrics_service_pb2.ExportMetricsServiceRequest()
                    mreq.ParseFromString(body)
                    outer.metrics.append(mreq)
                    out = metrics_service_pb2.ExportMetricsServiceResponse().SerializeToString()
                else:
                    self.send_response(404)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def spans(self) -> list[Any]:
        return [
            s
            for req in self.traces
            for rs in req.resource_spans
            for ss in rs.scope_spans
            for s in ss.spans
        ]

    def metric_names(self) -> set[str]:
        return {
            m.name
            for req in self.metrics
            for rm in req.resource_metrics
            for sm in rm.scope_metrics
            for m in sm.metrics
        }


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


def _attrs(span: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in span.attributes:
        v = kv.value
        out[kv.key] = getattr(v, v.WhichOneof("value"))
    return out


def test_spans_and_metrics_reach_an_otlp_receiver(receiver: Receiver) -> None:
    tp = TracerProvider()
    tp.add_span_processor(
        BatchSpanProcessor(OTLPSpanExporter(endpoint=receiver.url + "/v1/traces"))
    )
    reader = PeriodicExportingMetricReader(
        OTLPMetricExporter(endpoint=receiver.url + "/v1/metrics"), export_interval_millis=60_000
    )
    mp = MeterProvider(metric_readers=[reader])
    telemetry.instrument(tracer_provider=tp, meter_provider=mp)
    try:
        rules = [Rule(fault=Status(503), match=Match(model="primary"))]
        breaker = surefoot.CircuitBreaker(failure_threshold=2, name="primary")
        with FaultServer(models=[Model("*", reply="ok")], rules=rules) as srv:
            srv.enqueue(Status(429, retry_after=0))
            client = LLMClient(
                base_url=srv.base_url + "/v1",
                api_key="sk-test-otlp-0123456789abcdef",
                model=["primary", "backup"],
                retries=1,
                retry_base=0.01,
                breaker={"primary": breaker},
            )
            assert client.run("hi").text == "ok"
        assert tp.force_flush(10_000)
        assert mp.force_flush(10_000)
    finally:
        telemetry.uninstrument()
        tp.shutdown()
        mp.shutdown()
    assert receiver.content_types == {"application/x-protobuf"}
    spans = receiver.spans()
    names = sorted(s.name for s in spans)
    assert names == ["chat backup", "chat primary", "chat primary", "chat primary"]
    (root,) = [s for s in spans if not s.parent_span_id]
    kids = [s for s in spans if s.parent_span_id == root.span_id]
    assert len(kids) == 3 and all(s.trace_id == root.trace_id for s in spans)
    a = _attrs(root)
    assert a["gen_ai.response.model"] == "backup" and a["surefoot.retries"] == 1
    assert {e.name for e in root.events} == {
        "surefoot.wait",
        "surefoot.fallback",
        "surefoot.breaker.state_change",
    }
    assert {
        "gen_ai.client.operation.duration",
        "gen_ai.client.token.usage",
        "surefoot.attempts",
        "surefoot.retries",
        "surefoot.fallbacks",
        "surefoot.breaker.state",
        "surefoot.breaker.transitions",
    } <= receiver.metric_names()
