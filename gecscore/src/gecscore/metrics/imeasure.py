"""The ``imeasure`` metric: I-measure (mfelice/imeasure ieval.py -nomix).

``get_metric("imeasure")`` is :class:`IMeasure`;
the code is in ``gecscore.english.imeasure_metric`` (docs/metrics/imeasure.md)."""

from __future__ import annotations

from gecscore.english.imeasure_metric import IMeasure, IMeasureMetricConfig

__all__ = ["IMeasure", "IMeasureMetricConfig"]
