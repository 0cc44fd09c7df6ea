from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from datasets.formats import ImportFile
from datasets.services.imports import import_dataset
from datasets.services.releases import release_dataset
from datasets.statistics import dataset_statistics

pytestmark = pytest.mark.django_db

# MuCGEC dev, as the issue states it.
HISTOGRAM = {"1": 287, "2": 462, "3": 313, "4": 62, "5": 10, "6": 2, "7": 1}


def f(name: str, text: str) -> ImportFile:
    return ImportFile(name=name, data=text.encode("utf-8"))


def expected_from_first_m2(path: Path) -> dict:
    """Ground truth from ChERRANT's own `-s first` M2 of the references: edits per reference,
    edit types and erroneous sentences (a block with at least one real edit)."""
    types: Counter[str] = Counter()
    erroneous = references = 0
    for block in path.read_text(encoding="utf-8").strip().split("\n\n"):
        lines = block.splitlines()
        headers = [line for line in lines if line.startswith("T")]
        edits = [line.split("|||")[1] for line in lines if line.startswith("A ")]
        real = [t for t in edits if t in ("M", "R", "S", "W")]
        references += sum(1 for h in headers if not h.endswith("无法标注"))
        types.update(real)
        erroneous += bool(real)
    return {"types": types, "erroneous": erroneous, "references": references}


@pytest.mark.slow
def test_mucgec_dev_statistics(mucgec_dev: Path, shared_data: Path, settings) -> None:
    settings.GEC_CHERRANT_RESOURCES = str(shared_data / "cherrant-resources")
    dataset = import_dataset(
        name="dev", fmt="mucgec", files=[ImportFile.from_path(mucgec_dev)], source_name="mucgec"
    ).dataset
    version = release_dataset(dataset=dataset)
    stats = dataset_statistics(dataset=dataset, version=version, workers=2)
    assert stats["sentences"] == 1137
    assert stats["references"] == 2467
    assert stats["refs_per_sentence_histogram"] == HISTOGRAM
    truth = expected_from_first_m2(shared_data / "mucgec-dev" / "MuCGEC_dev.first.m2")
    assert stats["edit_types"] == {t: truth["types"][t] for t in "MRSW"}
    assert stats["erroneous_sentences"] == truth["erroneous"]
    assert stats["edits_per_reference"] == round(
        sum(truth["types"].values()) / truth["references"], 4
    )
    rows = [line.split("\t") for line in mucgec_dev.read_text(encoding="utf-8").splitlines()]
    assert stats["chars_per_sentence"] == round(
        sum(len("".join(r[1].split())) for r in rows) / 1137, 4
    )
    assert stats["by_source"]["mucgec"]["sentences"] == 1137
    assert stats["release"] == "dev@v1"
    figure = stats["erroneous_by_refs"]
    assert sum(v["sentences"] for v in figure.values()) == truth["erroneous"]


def test_identical_references_count_once_and_sources_are_separate(settings) -> None:
    settings.GEC_CHERRANT_RESOURCES = ""
    import_dataset(
        name="s",
        fmt="mucgec",
        source_name="a",
        files=[f("a.txt", "1\t他去学校。\t他去了学校。\t他去了学校。\n2\t我很好。\t没有错误\n")],
    )
    import_dataset(
        name="s", fmt="mucgec", source_name="b", files=[f("b.txt", "3\t乱七八糟\t无法标注\n")]
    )
    from datasets.models import Dataset

    stats = dataset_statistics(dataset=Dataset.objects.get(name="s"), workers=1)
    assert stats["references"] == 3
    assert stats["refs_per_sentence_histogram"] == {"1": 3}
    assert stats["erroneous_sentences"] == 1
    assert stats["edit_types"] == {"M": 1, "R": 0, "S": 0, "W": 0}
    # 2 references can carry edits (the 无法标注 one cannot); 1 edit in total.
    assert stats["edits_per_reference"] == 0.5
    assert (
        stats["by_source"]["a"]["sentences"] == 2
        and stats["by_source"]["b"]["not_annotatable_sentences"] == 1
    )
    assert stats["by_source"]["a"]["error_free_sentences"] == 1
    assert stats["chars_per_sentence"] == round((5 + 4 + 4) / 3, 4)


def test_statistics_from_the_stored_reference_m2_equal_fresh_ones(
    mucgec_dev: Path, shared_data: Path, tmp_path: Path, settings
) -> None:
    from core.models import AuditLog
    from datasets.services.exports import export_dataset

    settings.GEC_CHERRANT_RESOURCES = str(shared_data / "cherrant-resources")
    head = "".join(
        line + "\n" for line in mucgec_dev.read_text(encoding="utf-8").splitlines()[:120]
    )
    # A duplicated reference makes the distinct-reference mapping matter.
    head += "dup\t他去学校。\t他去了学校。\t他去了学校。\t他去学校了。\n"
    dataset = import_dataset(name="head", fmt="mucgec", files=[f("h.txt", head)]).dataset
    version = release_dataset(dataset=dataset)
    fresh = dataset_statistics(dataset=dataset, version=version, workers=1)
    export_dataset(dataset=dataset, version=version, fmt="m2", out=tmp_path / "h.m2", workers=1)
    assert AuditLog.objects.filter(action="dataset.export").count() == 1
    stored = dataset_statistics(dataset=dataset, version=version, workers=1)
    assert stored == fresh
    assert fresh["sentences"] == 121 and fresh["refs_per_sentence_histogram"]["2"] >= 1
    # And they really come from the stored text: change one edit's type there and they follow.
    from datasets.models import ReferenceM2Cache

    cache = ReferenceM2Cache.objects.get(version=version)
    cache.m2_text = cache.m2_text.replace("|||S|||", "|||W|||", 1)
    cache.save()
    changed = dataset_statistics(dataset=dataset, version=version, workers=1)
    assert changed["edit_types"]["W"] == fresh["edit_types"]["W"] + 1
    assert changed["edit_types"]["S"] == fresh["edit_types"]["S"] - 1


@pytest.mark.slow
def test_cleme_chunk_statistics_of_mucgec_dev_match_the_spec(
    mucgec_dev: Path, shared_data: Path, settings
) -> None:
    from datasets.statistics import cleme_chunk_statistics

    settings.GEC_CHERRANT_RESOURCES = str(shared_data / "cherrant-resources")
    dataset = import_dataset(
        name="dev", fmt="mucgec", files=[ImportFile.from_path(mucgec_dev)]
    ).dataset
    version = release_dataset(dataset=dataset)
    chunks = cleme_chunk_statistics(dataset=dataset, version=version, workers=2)
    # specs/cleme.md section 7: 11,007 chunks = 5,994 unchanged (mean 7.24 chars)
    # + 3,247 corrected (mean source length 2.05) + 1,766 dummy.
    assert (chunks["chunks"], chunks["unchanged"], chunks["corrected"], chunks["dummy"]) == (
        11007,
        5994,
        3247,
        1766,
    )
    assert round(chunks["unchanged_mean_length"], 2) == 7.24
    assert round(chunks["corrected_mean_length"], 2) == 2.05
    assert round(chunks["icc"] + chunks["iuc"] + chunks["cc"], 3) == 1.0
