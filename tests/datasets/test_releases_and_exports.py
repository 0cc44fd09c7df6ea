from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest

from annotate.models import Assignment, Correction, Submission
from core.exceptions import ServiceError
from core.models import AuditLog
from datasets.formats import ImportFile
from datasets.models import Dataset, GoldenReference, ReferenceOrigin, ReleasedSentence, Sentence
from datasets.selectors import export_rows
from datasets.services.exports import export_dataset
from datasets.services.imports import import_dataset
from datasets.services.releases import release_dataset, verify_release
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def f(name: str, text: str) -> ImportFile:
    return ImportFile(name=name, data=text.encode("utf-8"))


def content(dataset: Dataset) -> list[tuple]:
    return [
        (r.external_id, r.text, r.references, r.source_name, r.split)
        for r in export_rows(dataset=dataset)
    ]


@pytest.fixture
def dev(mucgec_dev: Path) -> Dataset:
    return import_dataset(
        name="dev",
        fmt="mucgec",
        files=[ImportFile.from_path(mucgec_dev)],
        source_name="mucgec",
        split="dev",
    ).dataset


def test_release_freezes_references_with_checksum_of_the_mucgec_text(
    dev: Dataset, mucgec_dev: Path
) -> None:
    admin = make_user()
    version = release_dataset(dataset=dev, user=admin, note="first")
    assert version.number == 1 and version.created_by == admin and version.created_at
    # The canonical text of a release is the MuCGEC file it was imported from.
    assert version.checksum == hashlib.sha256(mucgec_dev.read_bytes()).hexdigest()
    assert version.counts["sentences"] == 1137 and version.counts["references"] == 2467
    assert AuditLog.objects.filter(action="dataset.release", object_id=str(version.pk)).exists()
    assert release_dataset(dataset=dev).number == 2


def test_release_does_not_change_when_references_change_later(tmp_path: Path) -> None:
    dataset = import_dataset(
        name="d", fmt="mucgec", files=[f("a.txt", "1\t他去。\t他去了。\n2\t我来。\t没有错误\n")]
    ).dataset
    version = release_dataset(dataset=dataset)
    sentence = Sentence.objects.get(dataset=dataset, external_id="1")
    GoldenReference.objects.filter(sentence=sentence).update(is_current=False)
    GoldenReference.objects.create(
        sentence=sentence, revision=2, position=0, text="他走了。", origin=ReferenceOrigin.EDITED
    )
    released = export_dataset(
        dataset=dataset, version=version, fmt="mucgec", out=tmp_path / "v1.txt"
    )
    live = export_dataset(dataset=dataset, fmt="mucgec", out=tmp_path / "live.txt")
    assert (tmp_path / "v1.txt").read_text(
        encoding="utf-8"
    ) == "1\t他去。\t他去了。\n2\t我来。\t没有错误\n"
    assert (tmp_path / "live.txt").read_text(
        encoding="utf-8"
    ) == "1\t他去。\t他走了。\n2\t我来。\t没有错误\n"
    assert released.label == "d@v1" and live.label == "d (live)"
    assert verify_release(version)
    ReleasedSentence.objects.filter(version=version, external_id="1").update(text="tampered")
    assert not verify_release(version)


def test_release_of_a_subset_and_without_references() -> None:
    import_dataset(
        name="s",
        fmt="mucgec",
        source_name="a",
        split="dev",
        files=[f("a.txt", "1\t他去。\t他去了。\n2\t我来。\n")],
    )
    import_dataset(
        name="s",
        fmt="mucgec",
        source_name="b",
        split="test",
        files=[f("b.txt", "3\t你好。\t没有错误\n")],
    )
    dataset = Dataset.objects.get(name="s")
    only_a = release_dataset(dataset=dataset, source_names=["a"])
    assert only_a.counts["sentences"] == 1 and only_a.counts["skipped_without_references"] == 1
    test_split = release_dataset(dataset=dataset, split="test")
    assert list(test_split.sentences.values_list("external_id", flat=True)) == ["3"]
    with pytest.raises(ServiceError) as info:
        release_dataset(dataset=dataset, source_names=["zzz"])
    assert "no source 'zzz'" in info.value.message
    empty = import_dataset(name="e", fmt="text", files=[f("e.txt", "他去。\n")]).dataset
    with pytest.raises(ServiceError) as info:
        release_dataset(dataset=empty)
    assert "nothing to release" in info.value.message
    assert empty.versions.count() == 0


@pytest.mark.slow
def test_m2_export_of_a_release_is_byte_identical_to_cherrant(
    dev: Dataset, shared_data: Path, tmp_path: Path, settings
) -> None:
    settings.GEC_CHERRANT_RESOURCES = str(shared_data / "cherrant-resources")
    version = release_dataset(dataset=dev)
    result = export_dataset(
        dataset=dev, version=version, fmt="m2", out=tmp_path / "dev.m2", workers=2
    )
    expected = (shared_data / "mucgec-dev" / "MuCGEC_dev.m2").read_bytes()
    assert (tmp_path / "dev.m2").read_bytes() == expected
    assert result.sentences == 1137 and result.label == "dev@v1"
    assert result.resources and result.resources != "default"


def test_mucgec_export_reproduces_the_file_and_reimports_identically(
    dev: Dataset, mucgec_dev: Path, tmp_path: Path
) -> None:
    version = release_dataset(dataset=dev)
    export_dataset(dataset=dev, version=version, fmt="mucgec", out=tmp_path / "out.txt")
    assert (tmp_path / "out.txt").read_bytes() == mucgec_dev.read_bytes()
    again = import_dataset(
        name="again",
        fmt="mucgec",
        files=[ImportFile.from_path(tmp_path / "out.txt")],
        source_name="mucgec",
        split="dev",
    ).dataset
    assert content(again) == content(dev)


def test_jsonl_export_reimports_identically(dev: Dataset, tmp_path: Path) -> None:
    version = release_dataset(dataset=dev)
    export_dataset(dataset=dev, version=version, fmt="jsonl", out=tmp_path / "out.jsonl")
    again = import_dataset(
        name="again", fmt="jsonl", files=[ImportFile.from_path(tmp_path / "out.jsonl")]
    ).dataset
    assert content(again) == content(dev)
    first = json.loads((tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert set(first) == {
        "id",
        "source",
        "references",
        "source_name",
        "split",
        "judgement",
        "origin",
        "suggestion_source",
    }
    # Imported references were written without a suggestion: typed, one per reference.
    assert first["origin"] == ["typed"] * len(first["references"])
    assert first["suggestion_source"] == [""] * len(first["references"])


def test_parallel_export_reimports_with_the_same_references(dev: Dataset, tmp_path: Path) -> None:
    result = export_dataset(dataset=dev, fmt="parallel", out=tmp_path / "par")
    assert result.files == ["source.txt", *[f"ref{i}.txt" for i in range(1, 8)], "ids.txt"]
    files = [ImportFile.from_path(tmp_path / "par" / name) for name in result.files[:-1]]
    again = import_dataset(name="again", fmt="parallel", files=files).dataset
    assert [(r.text, r.references) for r in export_rows(dataset=again)] == [
        (r.text, r.references) for r in export_rows(dataset=dev)
    ]
    export_dataset(dataset=dev, fmt="parallel", out=tmp_path / "par.zip")
    with zipfile.ZipFile(tmp_path / "par.zip") as archive:
        assert archive.read("ref7.txt").decode().count("\n") == 1137


def test_jsonl_export_can_carry_raw_submissions(tmp_path: Path) -> None:
    dataset = import_dataset(
        name="d", fmt="mucgec", files=[f("a.txt", "1\t他去。\t他去了。\n")]
    ).dataset
    annotator = make_user(username="ann1")
    sentence = dataset.sentences.get()
    assignment = Assignment.objects.create(
        sentence=sentence, annotator=annotator, status="submitted"
    )
    submission = Submission.objects.create(assignment=assignment, revision=1)
    Correction.objects.create(submission=submission, position=0, text="他去了。")
    Correction.objects.create(submission=submission, position=1, text="他走了。")
    from review.models import ReviewTask, Verdict

    reviewer = make_user(username="rev1")
    task = ReviewTask.objects.create(sentence=sentence, reviewer=reviewer, status="done")
    verdict = Verdict.objects.create(
        task=task, position=0, kind="correction", text="他走了。", is_correct=False, edited_text=""
    )
    verdict.submissions.add(submission)
    export_dataset(dataset=dataset, fmt="jsonl", out=tmp_path / "a.jsonl", include_annotations=True)
    row = json.loads((tmp_path / "a.jsonl").read_text(encoding="utf-8"))
    assert row["submissions"][0]["annotator"] == "ann1"
    assert row["submissions"][0]["corrections"] == ["他去了。", "他走了。"]
    assert row["verdicts"] == [
        {
            "position": 0,
            "kind": "correction",
            "text": "他走了。",
            "is_correct": False,
            "edited_text": "",
            "reviewer": "rev1",
            "review_submitted_at": None,
            "proposed_by": ["ann1"],
        }
    ]
    # Without the option the research fields are absent and the file re-imports as is.
    export_dataset(dataset=dataset, fmt="jsonl", out=tmp_path / "b.jsonl")
    assert "submissions" not in json.loads((tmp_path / "b.jsonl").read_text(encoding="utf-8"))


def test_export_rejects_unknown_format_and_foreign_release(tmp_path: Path) -> None:
    a = import_dataset(name="a", fmt="mucgec", files=[f("a.txt", "1\t他去。\t他去了。\n")]).dataset
    b = import_dataset(name="b", fmt="mucgec", files=[f("b.txt", "1\t他去。\t他去了。\n")]).dataset
    with pytest.raises(ServiceError) as info:
        export_dataset(dataset=a, fmt="xml", out=tmp_path / "x")
    assert "unknown export format 'xml'" in info.value.message
    with pytest.raises(ServiceError) as info:
        export_dataset(
            dataset=a, version=release_dataset(dataset=b), fmt="mucgec", out=tmp_path / "x"
        )
    assert "is not a release of 'a'" in info.value.message
    assert not (tmp_path / "x").exists()


def test_m2_of_a_release_is_extracted_once_and_shared_with_scoring(
    tmp_path: Path, settings
) -> None:
    from datasets.models import ReferenceM2Cache

    settings.GEC_CHERRANT_RESOURCES = ""
    dataset = import_dataset(
        name="d",
        fmt="mucgec",
        files=[f("a.txt", "1\t他去学校。\t他去了学校。\n2\t我很好。\t没有错误\n")],
    ).dataset
    version = release_dataset(dataset=dataset)
    first = export_dataset(
        dataset=dataset, version=version, fmt="m2", out=tmp_path / "a.m2", workers=1
    )
    text = (tmp_path / "a.m2").read_text(encoding="utf-8")
    assert text.startswith(
        "S 他 去 学 校 。\nT0-A0 他 去 了 学 校 。\nA 2 2|||M|||了|||REQUIRED|||-NONE-|||0\n\n"
    )
    cache = ReferenceM2Cache.objects.get(version=version)
    assert cache.resources_key == first.resources and cache.m2_text == text
    second = export_dataset(
        dataset=dataset, version=version, fmt="m2", out=tmp_path / "b.m2", workers=1
    )
    assert (tmp_path / "b.m2").read_text(encoding="utf-8") == text
    assert second.sentences == 2 and second.references == 2
    exports = AuditLog.objects.filter(action="dataset.export").order_by("id")
    assert [e.data.get("cached", False) for e in exports] == [False, True]


def test_m2_export_of_a_new_release_reuses_unchanged_blocks_of_the_previous_one(
    tmp_path: Path, settings
) -> None:
    from gecscore.m2 import format_m2_block

    from datasets.models import ReferenceM2Cache
    from gecscore import annotate_sentence, default_resources

    settings.GEC_CHERRANT_RESOURCES = ""
    text = "1\t他去学校。\t他去了学校。\n2\t我很好。\t没有错误\n3\t今天天气好。\t今天天气很好。\n"
    dataset = import_dataset(name="inc", fmt="mucgec", files=[f("a.txt", text)]).dataset
    v1 = release_dataset(dataset=dataset)
    export_dataset(dataset=dataset, version=v1, fmt="m2", out=tmp_path / "v1.m2", workers=1)
    # Mark sentence 3's stored block, to see whether v2 takes it from there.
    cache = ReferenceM2Cache.objects.get(version=v1)
    assert "|||M|||很" in cache.m2_text
    cache.m2_text = cache.m2_text.replace("|||M|||很", "|||X|||很")
    cache.save()
    sentence = Sentence.objects.get(dataset=dataset, external_id="1")
    GoldenReference.objects.filter(sentence=sentence).update(is_current=False)
    GoldenReference.objects.create(
        sentence=sentence,
        revision=2,
        position=0,
        text="他去过学校。",
        origin=ReferenceOrigin.EDITED,
    )
    v2 = release_dataset(dataset=dataset)
    export_dataset(dataset=dataset, version=v2, fmt="m2", out=tmp_path / "v2.m2", workers=2)
    blocks = (tmp_path / "v2.m2").read_text(encoding="utf-8").split("\n\n")
    fresh, _ = annotate_sentence("他去学校。", ["他去过学校。"], resources=default_resources())
    assert blocks[0] == format_m2_block(fresh)  # changed: extracted again
    assert "|||X|||很" in blocks[2]  # unchanged: reused
