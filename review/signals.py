"""Signals by which the review app asks the apps above it, which it never imports.

* `project_context` (``dataset``, ``user``): extra context for an annotation project's page;
  a receiver returns a dict (the scoring app: the post-edit anchoring report).
"""

from __future__ import annotations

from typing import Any

from django.dispatch import Signal

project_context = Signal()


def extra_project_context(dataset: Any, user: Any) -> dict[str, Any]:
    context: dict[str, Any] = {}
    answer: Any
    for _receiver, answer in project_context.send(sender=None, dataset=dataset, user=user):
        context.update(answer or {})
    return context
