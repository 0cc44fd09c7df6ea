"""The ``cherrant`` metric: ChERRANT's char-level F0.5 (Chinese).

``get_metric("cherrant")`` is :class:`ChERRANT`;
the code is in ``gecscore.cherrant`` (docs/metrics/char.md)."""

from __future__ import annotations

from gecscore.cherrant import ChERRANT, ChERRANTConfig

__all__ = ["ChERRANT", "ChERRANTConfig"]
