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


DEMO_ASSIGNMENT_SEED = 0


def assign_demo_dataset(*, dataset: Dataset, admin: User) -> int:
    """Give every demo sentence to annotator1..3 (k=3) with the reviewer reviewing it, so a
    newcomer can walk the whole loop by hand. Re-running assigns only what is unassigned."""
    from annotate.services import assign_dataset

    return assign_dataset(dataset=dataset, seed=DEMO_ASSIGNMENT_SEED, by=admin).assignments


def seed_demo_dataset(*, name: str, path: Path, admin: User) -> bool:
    """Create the demo dataset with annotators 1..3 and the reviewer in its pools, assigned."""
    existing = Dataset.objects.filter(name=name).first()
    if existing is not None:
        assign_demo_dataset(dataset=existing, admin=admin)
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
    assign_demo_dataset(dataset=dataset, admin=admin)
    return True
