"""Each reference's provenance (GoldenReference.entry and the suggestion's label) in the JSONL
export, frozen with a release, in the published Parquet and Croissant files, and counted on
the dataset card with the blind control share."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotate.models import Assignment, Submission
from core.roles import Role
from datasets.models import GoldenReference, ReferenceEntry, ReferenceKind, ReferenceOrigin
from datasets.services.exports import export_dataset
from datasets.services.releases import release_dataset
from publishing import formats, services
from tests.factories import make_dataset, make_user

pytestmark = pytest.mark.django_db

SOURCE = "我很喜欢吃平果"
REFERENCES = [
    ("我很喜欢吃苹果", ReferenceEntry.TYPED, ""),
    ("我喜欢吃苹果", ReferenceEntry.POST_EDITED, "llm:qwen"),
    ("我很爱吃苹果", ReferenceEntry.ACCEPTED_UNCHANGED, "system:AMU"),
]
ORIGINS = ["typed", "post-edited", "accepted-unchanged"]
SUGGESTION_SOURCES = ["", "llm:qwen", "system:AMU"]


@pytest.fixture
def dataset():  # type: ignore[no-untyped-def]
    dataset = make_dataset(sentences=[SOURCE])
    sentence = dataset.sentences.get()
    for position, (text, entry, label) in enumerate(REFERENCES):
        GoldenReference.objects.create(
            sentence=sentence,
            revision=1,
            position=position,
            kind=ReferenceKind.CORRECTION,
            text=text,
            origin=ReferenceOrigin.ANNOTATORS,
            entry=entry,
            suggestion_source=label,
        )
    # Four post-edit items, one of them blind, and one rewrite item: blind share 1 / 4.
    for label in ["system:AMU", "system:AMU", "llm:qwen", "blind", ""]:
        assignment = Assignment.objects.create(
            sentence=sentence,
            annotator=make_user(Role.ANNOTATOR),
            status="submitted",
            blind=label == "blind",
        )
        Submission.objects.create(assignment=assignment, revision=1, suggestion_source=label)
    return dataset


def jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_jsonl_export_gives_each_reference_its_origin_and_suggestion_source(
    dataset, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    export_dataset(dataset=dataset, fmt="jsonl", out=tmp_path / "live.jsonl")
    (line,) = jsonl(tmp_path / "live.jsonl")
    assert line["references"] == [text for text, _, _ in REFERENCES]
    assert line["origin"] == ORIGINS
    assert line["suggestion_source"] == SUGGESTION_SOURCES


def test_a_release_freezes_the_provenance(dataset, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    version = release_dataset(dataset=dataset)
    # Changed after the release (a later revision would do the same): the release keeps
    # what it froze.
    GoldenReference.objects.filter(sentence__dataset=dataset).update(
        entry=ReferenceEntry.TYPED, suggestion_source=""
    )
    export_dataset(dataset=dataset, fmt="jsonl", out=tmp_path / "v1.jsonl", version=version)
    (line,) = jsonl(tmp_path / "v1.jsonl")
    assert line["origin"] == ORIGINS
    assert line["suggestion_source"] == SUGGESTION_SOURCES
    export_dataset(dataset=dataset, fmt="jsonl", out=tmp_path / "live.jsonl")
    assert jsonl(tmp_path / "live.jsonl")[0]["origin"] == ["typed"] * 3


def test_a_release_made_before_post_edit_reads_as_typed(dataset, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    version = release_dataset(dataset=dataset)
    version.sentences.update(reference_entries=[], reference_suggestion_sources=[])
    export_dataset(dataset=dataset, fmt="jsonl", out=tmp_path / "old.jsonl", version=version)
    (line,) = jsonl(tmp_path / "old.jsonl")
    assert (line["origin"], line["suggestion_source"]) == (["typed"] * 3, [""] * 3)
    services.publish_release(version=version, out=tmp_path / "out")
    (record,) = formats.read_parquet_folder(tmp_path / "out")["dev"]
    assert (record["origin"], record["suggestion_source"]) == (["typed"] * 3, [""] * 3)


def test_parquet_croissant_and_card_carry_the_provenance(dataset, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    version = release_dataset(dataset=dataset)
    services.publish_release(version=version, out=tmp_path / "out")
    (record,) = formats.read_parquet_folder(tmp_path / "out")["dev"]
    assert record["origin"] == ORIGINS
    assert record["suggestion_source"] == SUGGESTION_SOURCES
    croissant = json.loads((tmp_path / "out" / "croissant.json").read_text(encoding="utf-8"))
    fields = {f["name"]: f for rs in croissant["recordSet"] for f in rs["field"]}
    assert "accepted-unchanged" in fields["origin"]["description"]
    assert "suggestion" in fields["suggestion_source"]["description"]
    assert "post-editing a suggested correction" in croissant["rai:dataAnnotationProtocol"]
    card = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert (
        "- Provenance of the references (per reference; the `origin` column): "
        "typed from the source (or imported) 1 (33.3%), post-edited from a suggestion 1 "
        "(33.3%), a suggestion accepted unchanged 1 (33.3%)"
    ) in card
    assert "`llm:qwen` 1 references, `system:AMU` 1 references" in card
    assert "- Blind control: 1 of 4 post-edit items (25.0%) opened with the source" in card
