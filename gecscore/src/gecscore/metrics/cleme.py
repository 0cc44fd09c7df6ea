"""The ``cleme`` metric: CLEME v1.0, chunk-level F0.5.

``get_metric("cleme")`` is :class:`CLEME`;
the code is in ``gecscore.cleme.metric`` (docs/metrics/cleme.md)."""

from __future__ import annotations

from gecscore.cleme.metric import CLEME, CLEMEConfig

__all__ = ["CLEME", "CLEMEConfig"]
