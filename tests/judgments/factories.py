"""Builders for judgment tests, through the real services."""

from __future__ import annotations

from typing import Any

from core.models import User
from datasets.models import DatasetVersion, GoldenReference, ReferenceKind, ReferenceOrigin
from datasets.services.releases import release_dataset
from judgments.models import Campaign
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


SOURCES = ["我很喜欢吃平果", "他是一个好学升", "今天天汽很好", "我们一起去公圆"]
SYSTEMS = {
    "sysA": ["我很喜欢吃苹果", "他是一个好学生", "今天天气很好", "我们一起去公园"],
    "sysB": ["我很喜欢吃平果", "他是一个好学生", "今天天汽很好", "我们一起去公园"],
    "sysC": ["我很喜欢吃苹果", "他是个好学生", "今天天气很好", "我们一起去公圆"],
}


def make_campaign(
    *,
    judges: list[User],
    mode: str = "ranking",
    k: int = 2,
    consistency: float = 0.0,
    **extra: Any,
) -> Campaign:
    """A campaign on a four-sentence Chinese release with three systems (sentence 3 has two
    identical outputs, collapsed into one shown output)."""
    from judgments.services import create_campaign

    release = make_release(SOURCES)
    return create_campaign(
        name=extra.pop("name", "camp"),
        release=release,
        system_outputs=SYSTEMS,
        mode=mode,
        judges=judges,
        judges_per_item=k,
        consistency_share=consistency,
        **extra,
    )
