"""The ``errant`` metric: ERRANT's span-based F0.5 (errant_compare 3.0.2).

``get_metric("errant")`` is :class:`ERRANT`;
the code is in ``gecscore.english.errant_compare`` (docs/metrics/classic-english.md)."""

from __future__ import annotations

from gecscore.english.errant_compare import ERRANT, ERRANTConfig

__all__ = ["ERRANT", "ERRANTConfig"]
