"""The ``gleu`` metric: GLEU (gec-ranking compute_gleu).

``get_metric("gleu")`` is :class:`GLEU`;
the code is in ``gecscore.english.gleu`` (docs/metrics/classic-english.md)."""

from __future__ import annotations

from gecscore.english.gleu import GLEU, GLEUConfig

__all__ = ["GLEU", "GLEUConfig"]
