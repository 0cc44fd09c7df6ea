"""How each golden reference a review writes came to be (post-edit annotation):
`GoldenReference.entry` and `suggestion_source`, from the provenance the annotate service
stored on the submissions (never from the page)."""

from __future__ import annotations

from annotate.models import Submission
from annotate.suggestions import BLIND
from datasets.models import ReferenceEntry, ReferenceKind, ReferenceOrigin
from review.models import Verdict
from review.selectors import Candidate

ReferenceRow = tuple[str, str, str]  # kind, text, origin


def reference_entries(
    rows: list[ReferenceRow], verdicts: list[Verdict], candidates: list[Candidate]
) -> dict[str, tuple[str, str]]:
    """Reference text -> (GoldenReference.entry, suggestion_source), read from the first
    submission of the text (the one review.verdicts credits as its annotator): accepted-unchanged when
    that submission was the suggestion unchanged and the reviewer accepted it as it is;
    post-edited when a suggestion was shown and changed, or the reviewer edited the text;
    typed otherwise (the reviewer's own references too)."""
    by_position = {c.position: c for c in candidates}
    sources: dict[str, tuple[list[int], bool]] = {}  # text -> (submissions, edited)
    for verdict in verdicts:
        candidate = by_position[verdict.position]
        if verdict.edited_text:
            sources.setdefault(verdict.edited_text, (candidate.submission_ids, True))
        elif verdict.is_correct and candidate.is_correction:
            sources.setdefault(candidate.text, (candidate.submission_ids, False))
    for kind, text, origin in rows:
        if origin == ReferenceOrigin.ANNOTATORS and kind != ReferenceKind.CORRECTION:
            tagged = [i for c in candidates if c.kind == kind for i in c.submission_ids]
            sources.setdefault(text, (tagged, False))
    firsts = {min(ids) for ids, _edited in sources.values() if ids}
    shown = {
        pk: (label, unchanged)
        for pk, label, unchanged in Submission.objects.filter(pk__in=firsts).values_list(
            "pk", "suggestion_source", "unchanged"
        )
    }
    entries: dict[str, tuple[str, str]] = {}
    for _kind, text, origin in rows:
        ids, edited = sources.get(text, ([], False))
        if origin not in (ReferenceOrigin.ANNOTATORS, ReferenceOrigin.EDITED) or not ids:
            entries[text] = (ReferenceEntry.TYPED, "")
            continue
        label, unchanged = shown.get(min(ids), ("", False))
        suggested = label not in ("", BLIND)
        if unchanged and suggested and not edited:
            entries[text] = (ReferenceEntry.ACCEPTED_UNCHANGED, label)
        elif suggested or edited:
            entries[text] = (ReferenceEntry.POST_EDITED, label if suggested else "")
        else:
            entries[text] = (ReferenceEntry.TYPED, "")
    return entries
