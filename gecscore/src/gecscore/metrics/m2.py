"""The ``m2`` metric: MaxMatch F0.5 (m2scorer 3.2).

``get_metric("m2")`` is :class:`M2`;
the code is in ``gecscore.maxmatch.scorer`` (docs/metrics/m2score.md)."""

from __future__ import annotations

from gecscore.maxmatch.scorer import M2, M2Config

__all__ = ["M2", "M2Config"]
