"""The ``ptm2-m2`` metric: PT-M2 on the MaxMatch lattice (registry name ``ptm2-m2``).

``get_metric("ptm2-m2")`` is :class:`PTM2M2`;
the code is in ``gecscore.ptm2_metric`` (docs/metrics/ptm2.md)."""

from __future__ import annotations

from gecscore.ptm2_metric import PTM2M2, PTM2M2Config

__all__ = ["PTM2M2", "PTM2M2Config"]
