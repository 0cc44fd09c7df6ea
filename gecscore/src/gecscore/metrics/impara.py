"""The ``impara`` metric: IMPARA, reference-free (quality + similarity).

``get_metric("impara")`` is :class:`IMPARA`;
the code is in ``gecscore.reffree.impara`` (docs/metrics/reference-free.md)."""

from __future__ import annotations

from gecscore.reffree.impara import IMPARA, IMPARAConfig

__all__ = ["IMPARA", "IMPARAConfig"]
