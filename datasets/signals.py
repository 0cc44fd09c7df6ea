"""Signals by which the datasets app tells (or asks) the apps above it, which it never imports.

* `collect_annotations` (sent with ``sentence_ids``): a JSONL export with annotations asks
  every app that records work on sentences for it; a receiver returns
  ``{sentence_id: {"submissions": [...]}}`` (annotate) or ``{... "verdicts": [...]}`` (review).
* `collect_statistics` (sent with ``dataset`` and ``version``, None for the live dataset):
  `manage.py dataset_stats` asks the apps above for their sections of the statistics; a
  receiver returns ``{key: JSON-able value}`` (scoring: ``prefill``, the post-edit anchoring
  report).
"""

from __future__ import annotations

from django.dispatch import Signal

collect_annotations = Signal()
collect_statistics = Signal()
