"""The ``sentm2`` metric: SentM2, the mean of the sentences' best MaxMatch F.

``get_metric("sentm2")`` is :class:`SentM2`;
the code is in ``gecscore.maxmatch.scorer`` (docs/metrics/m2score.md)."""

from __future__ import annotations

from gecscore.maxmatch.scorer import M2Config, SentM2

__all__ = ["M2Config", "SentM2"]
