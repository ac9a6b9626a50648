"""Prometheus metrics of one running appliance (own registry: no global state)."""

from __future__ import annotations

from typing import Callable, Iterable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily

_MS_BUCKETS = (0.5, 1, 2, 5, 10, 20, 30, 50, 75, 100, 150, 250, 500, 1000, 2500, 5000)
_BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64)


class ApplianceMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.asks = Counter("eduqa_asks", "Asks answered, by kind and outcome", ["kind", "outcome"], registry=r)
        self.rejected = Counter("eduqa_asks_rejected", "Asks refused before answering, by reason", ["reason"], registry=r)
        self.stage_ms = Histogram("eduqa_stage_milliseconds", "Time per ask stage", ["stage"], buckets=_MS_BUCKETS, registry=r)
        self.total_ms = Histogram("eduqa_ask_milliseconds", "Time per ask, end to end in the service", ["kind"], buckets=_MS_BUCKETS, registry=r)
        self.batch_size = Histogram("eduqa_batch_size", "Items per engine batch", ["engine"], buckets=_BATCH_BUCKETS, registry=r)
        self.queue_depth = Gauge("eduqa_queue_depth", "Items waiting for an engine batch", ["engine"], registry=r)
        self.ocr_reads = Counter("eduqa_ocr_reads", "Photos read, whole or centre-first (photos were waiting)", ["reading"], registry=r)
        self.ocr_unread = Counter("eduqa_ocr_lines_unread", "Lines found on photos read centre-first and not read", registry=r)
        self.cache = Counter("eduqa_cache_lookups", "Cache lookups, by cache and result", ["cache", "result"], registry=r)
        self.serving = ServingCollector()
        r.register(self.serving)
        self.rebuilds = Counter("eduqa_engine_rebuilds", "Engine rebuilds scheduled", ["model"], registry=r)

    def record_ask(self, kind: str, outcome: str, stage_ms: dict[str, float], total_ms: float) -> None:
        self.asks.labels(kind, outcome).inc()
        self.total_ms.labels(kind).observe(total_ms)
        for stage, ms in stage_ms.items():
            self.stage_ms.labels(stage).observe(ms)

    def record_photo_read(self, unread: int) -> None:
        self.ocr_reads.labels("centre_first" if unread else "whole").inc()
        self.ocr_unread.inc(unread)

    def render(self) -> bytes:
        return generate_latest(self.registry)


#: (model, backend, precision) of each model served now.
ServingRows = Callable[[], Iterable[tuple[str, str, str]]]


class ServingCollector:
    """``eduqa_model_backend{model, backend, precision} 1``, read at each scrape from the
    service (so a failover shows at the next scrape)."""

    def __init__(self) -> None:
        self.rows: ServingRows = lambda: ()

    def describe(self):
        return []  # nothing to collect at registration: the service is not wired yet

    def collect(self):
        family = GaugeMetricFamily("eduqa_model_backend", "1 for the backend serving each model now",
                                   labels=["model", "backend", "precision"])
        for model, backend, precision in self.rows():
            family.add_metric([model, backend, precision], 1)
        yield family
