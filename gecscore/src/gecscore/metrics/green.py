"""The ``green`` metric: GREEN, the n-gram F-beta of gec-metrics.

``get_metric("green")`` is :class:`GREEN`;
the code is in ``gecscore.green`` (docs/metrics/green.md)."""

from __future__ import annotations

from gecscore.green import GREEN, GREENConfig

__all__ = ["GREEN", "GREENConfig"]
