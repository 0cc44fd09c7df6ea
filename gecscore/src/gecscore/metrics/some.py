"""The ``some`` metric: SOME, reference-free (three BERT regressors).

``get_metric("some")`` is :class:`SOME`;
the code is in ``gecscore.reffree.some`` (docs/metrics/reference-free.md)."""

from __future__ import annotations

from gecscore.reffree.some import SOME, SOMEConfig

__all__ = ["SOME", "SOMEConfig"]
