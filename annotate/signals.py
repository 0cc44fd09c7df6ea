"""Signals by which the annotate app tells (or asks) the apps above it, which it never imports.

* `annotations_complete` (``sentence``): the last of a sentence's k submissions is in; the
  review app opens the sentence's review (inside the submitting transaction).
* `sentence_staff` (``sentence``): who else works on a sentence; a receiver returns a set of
  user ids (the review app: its reviewer), so a reassignment never gives the sentence to them.
* `dashboard_context` (``user``): extra context for the annotator's dashboard; a receiver
  returns a dict (the review app: self-study items and the annotator's complaints).
* `suggestion_systems` (``dataset``): the system outputs a post-edit project may take its
  suggestions from; a receiver returns a list of names (the scoring app: outputs uploaded
  for the dataset's releases), shown on the project page.
"""

from __future__ import annotations

from typing import Any

from django.dispatch import Signal

annotations_complete = Signal()
sentence_staff = Signal()
dashboard_context = Signal()
suggestion_systems = Signal()


def staff_of(sentence: Any) -> set[int]:
    """User ids that the higher apps say work on `sentence` (besides its annotators)."""
    ids: set[int] = set()
    answer: Any
    for _receiver, answer in sentence_staff.send(sender=None, sentence=sentence):
        ids |= set(answer or ())
    return ids


def extra_dashboard_context(user: Any) -> dict[str, Any]:
    context: dict[str, Any] = {}
    answer: Any
    for _receiver, answer in dashboard_context.send(sender=None, user=user):
        context.update(answer or {})
    return context


def project_suggestion_systems(dataset: Any) -> list[str]:
    names: set[str] = set()
    answer: Any
    for _receiver, answer in suggestion_systems.send(sender=None, dataset=dataset):
        names |= set(answer or ())
    return sorted(names)
