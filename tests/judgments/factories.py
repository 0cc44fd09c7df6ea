"""Builders for judgment tests, through the real services."""

from __future__ import annotations

from datasets.models import DatasetVersion, GoldenReference, ReferenceKind, ReferenceOrigin
from datasets.services.releases import release_dataset
from tests.factories import make_dataset


def make_release(sentences: list[str], references: list[str] | None = None) -> DatasetVersion:
    """A released dataset whose sentence ids are "1", "2", ... (one reference each)."""
    dataset = make_dataset(sentences=sentences)
    for sentence, ref in zip(
        dataset.sentences.order_by("position"), references or sentences, strict=True
    ):
        GoldenReference.objects.create(
            sentence=sentence,
            position=0,
            text=ref,
            kind=ReferenceKind.CORRECTION,
            origin=ReferenceOrigin.IMPORTED,
        )
    return release_dataset(dataset=dataset)
