"""The ``cleme2`` metric: CLEME2.0.

``get_metric("cleme2")`` is :class:`CLEME2`;
the code is in ``gecscore.cleme.metric`` (docs/metrics/cleme.md)."""

from __future__ import annotations

from gecscore.cleme.metric import CLEME2, CLEME2Config

__all__ = ["CLEME2", "CLEME2Config"]
