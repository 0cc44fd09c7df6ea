"""Signals by which the datasets app tells (or asks) the apps above it, which it never imports.

* `collect_annotations` (sent with ``sentence_ids``): a JSONL export with annotations asks
  every app that records work on sentences for it; a receiver returns
  ``{sentence_id: {"submissions": [...]}}`` (annotate) or ``{... "verdicts": [...]}`` (review).
"""

from __future__ import annotations

from django.dispatch import Signal

collect_annotations = Signal()
