"""The demo dataset for the quick start (sentences written by the platform team)."""

from __future__ import annotations

import json
from pathlib import Path

from core.models import User
from datasets.formats import ImportFile
from datasets.models import Dataset
from datasets.services.imports import import_dataset
from review.workflow import assign_dataset


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
    return assign_dataset(dataset=dataset, seed=DEMO_ASSIGNMENT_SEED, by=admin).assignments


def seed_demo_dataset(*, name: str, path: Path, admin: User) -> bool:
    """Create the demo dataset with annotators 1..3 and the reviewer in its pools, assigned."""
    existing = Dataset.objects.filter(name=name).first()
    if existing is not None:
        assign_demo_dataset(dataset=existing, admin=admin)
        return False
    # Through the import service (as JSONL: the demo rows carry their own source and split),
    # so the demo dataset is built exactly like an admin's import.
    jsonl = "".join(
        json.dumps(
            {"id": external_id, "source": text, "source_name": source_name, "split": split},
            ensure_ascii=False,
        )
        + "\n"
        for external_id, source_name, split, text in read_demo_rows(path)
    )
    dataset = import_dataset(
        name=name,
        fmt="jsonl",
        files=[ImportFile(name=path.name, data=jsonl.encode("utf-8"))],
        user=admin,
    ).dataset
    dataset.description = "Quick-start demo: 12 learner sentences."
    dataset.save(update_fields=["description"])
    dataset.annotators.set(
        User.objects.filter(username__in=["annotator1", "annotator2", "annotator3"])
    )
    dataset.reviewers.set(User.objects.filter(username="reviewer"))
    assign_demo_dataset(dataset=dataset, admin=admin)
    return True
