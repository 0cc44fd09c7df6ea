"""The demo dataset for the quick start (sentences written by the platform team)."""

from __future__ import annotations

from pathlib import Path

from annotate.models import Dataset, Sentence, Source
from core.models import User


def read_demo_rows(path: Path) -> list[tuple[str, str, str, str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        external_id, source_name, split, text = line.split("\t")
        rows.append((external_id, source_name, split, text))
    return rows


def seed_demo_dataset(*, name: str, path: Path, admin: User) -> bool:
    """Create the demo dataset with annotators 1..3 and the reviewer in its pools."""
    if Dataset.objects.filter(name=name).exists():
        return False
    dataset = Dataset.objects.create(
        name=name, description="Quick-start demo: 12 learner sentences.", created_by=admin
    )
    sources: dict[str, Source] = {}
    for position, (external_id, source_name, split, text) in enumerate(read_demo_rows(path)):
        if source_name not in sources:
            sources[source_name] = Source.objects.create(dataset=dataset, name=source_name)
        Sentence.objects.create(
            dataset=dataset, source=sources[source_name], split=split,
            external_id=external_id, position=position, text=text,
        )
    dataset.annotators.set(User.objects.filter(username__in=["annotator1", "annotator2", "annotator3"]))
    dataset.reviewers.set(User.objects.filter(username="reviewer"))
    return True
