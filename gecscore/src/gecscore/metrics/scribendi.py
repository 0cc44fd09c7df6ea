"""The ``scribendi`` metric: the Scribendi score, reference-free (LM perplexity + ratios).

``get_metric("scribendi")`` is :class:`Scribendi`;
the code is in ``gecscore.reffree.scribendi`` (docs/metrics/reference-free.md)."""

from __future__ import annotations

from gecscore.reffree.scribendi import Scribendi, ScribendiConfig

__all__ = ["Scribendi", "ScribendiConfig"]
