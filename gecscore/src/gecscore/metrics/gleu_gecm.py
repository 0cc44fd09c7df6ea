"""The ``gleu-gecm`` metric: GLEU as gec-metrics 0.1.1 computes it (registry name ``gleu-gecm``).

``get_metric("gleu-gecm")`` is :class:`GLEUGecMetrics`;
the code is in ``gecscore.english.gleu_gecmetrics`` (docs/metrics/classic-english.md)."""

from __future__ import annotations

from gecscore.english.gleu_gecmetrics import GLEUGecMetrics, GLEUGecMetricsConfig

__all__ = ["GLEUGecMetrics", "GLEUGecMetricsConfig"]
