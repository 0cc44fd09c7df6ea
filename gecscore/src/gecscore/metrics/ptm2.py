"""The ``ptm2`` metric: PT-M2 / PT-ERRANT on char or word edits, edit-weighted F.

``get_metric("ptm2")`` is :class:`PTM2`;
the code is in ``gecscore.ptm2_metric`` (docs/metrics/weighted.md)."""

from __future__ import annotations

from gecscore.ptm2_metric import PTM2, PTM2Config

__all__ = ["PTM2", "PTM2Config"]
