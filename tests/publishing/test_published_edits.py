"""A published release round-trips: applying every Parquet row's edits to its source gives its
references exactly, in Chinese and in English; no Chinese marker is left in any file of an
English release; Hugging Face `datasets` reads the Parquet folder.

The edits are the one extractor's (ChERRANT char-level, ERRANT), as the release's reference
M2 holds them, mapped to characters of the raw texts (publishing/edits.py)."""

from __future__ import annotations

import json
import os
import subprocess
import zipfile
from pathlib import Path

import pytest
from gecscore.english.errant_edits import parallel_to_m2_blocks
from gecscore.extract import annotate_sentence
from gecscore.resources import load_resources

from core.roles import Role
from datasets.formats import ImportFile
from datasets.models import Dataset, DatasetVersion
from datasets.services.imports import import_dataset
from datasets.services.releases import release_dataset
from publishing import formats, services
from publishing.edits import apply_edits, character_edits
from tests.factories import make_user
from tests.refs import reference_missing, reference_path

MARKERS = ("没有错误", "无法标注")


def _chinese(source: str, reference: str) -> list[dict]:
    block, _ = annotate_sentence(
        source, [reference], resources=load_resources(None), granularity="char"
    )
    edits = [e for e in block.targets[0].edits if e.start >= 0]
    return character_edits(source, reference, block.source_tokens, edits)


def _english(source: str, reference: str) -> list[dict]:
    [block] = parallel_to_m2_blocks([source], [[reference]])
    edits = [e for e in block.targets[0].edits if e.start >= 0 and e.type != "noop"]
    return character_edits(source, reference, block.source_tokens, edits)


def test_a_chinese_correction_of_two_characters_is_published_without_the_token_space() -> None:
    source, reference = "即是下雨，我们也去。", "即使下雨，我们也去。"
    edits = _chinese(source, reference)
    assert [(e["start"], e["end"], e["correction"]) for e in edits] == [(1, 2, "使")]
    source, reference = "他们虽然下雨也去了。", "即使下雨他们也去了。"
    edits = _chinese(source, reference)
    assert all(" " not in e["correction"] for e in edits)
    assert apply_edits(source, edits) == reference


def test_english_deletions_and_insertions_keep_the_spacing_of_the_reference() -> None:
    cases = [
        ("I like the apples very much .", "I like apples very much ."),  # deletion
        ("He go to school .", "He goes to the school ."),  # substitution + insertion
        ("She have been there", "She has been there ."),  # insertion at the end
        ("the cat sat", "The cat sat down ."),  # first token, two insertions
    ]
    for source, reference in cases:
        edits = _english(source, reference)
        assert edits, (source, reference)
        assert apply_edits(source, edits) == reference, (source, reference, edits)
    [only] = _english("I like apple .", "I like apples .")
    assert (only["start"], only["end"], only["correction"]) == (7, 12, "apples")


def test_a_reference_the_extractor_normalised_still_applies_exactly() -> None:
    # ChERRANT compares the traditional-script reference as simplified characters: its
    # tokens are not the reference's text, and one edit covers what differs.
    source, reference = "我们学习汉语。", "我們學習漢語。"
    edits = _chinese(source, reference)
    assert apply_edits(source, edits) == reference


def test_overlapping_edits_are_refused() -> None:
    with pytest.raises(ValueError, match="overlaps"):
        apply_edits(
            "abcdef",
            [{"start": 0, "end": 3, "correction": "x"}, {"start": 2, "end": 4, "correction": "y"}],
        )


# --- whole releases ---------------------------------------------------------------------------


def _publish(version: DatasetVersion, tmp_path: Path) -> Path:
    out = tmp_path / version.label.replace("@", "-")
    services.publish_release(version=version, out=out, allow_blocked=True)
    return out


def _assert_round_trip(out: Path, expected: dict[str, list[str]]) -> int:
    """Every record's edits applied to its source give its references; returns how many
    references were checked (and that the references are the expected ones)."""
    checked = 0
    for records in formats.read_parquet_folder(out).values():
        for record in records:
            assert record["references"] == expected[record["id"]], record["id"]
            for reference, edits in zip(record["references"], record["edits"], strict=True):
                assert apply_edits(record["source"], edits) == reference, (record["id"], edits)
                checked += 1
    return checked


@pytest.mark.django_db
@pytest.mark.slow
def test_a_published_mucgec_release_round_trips(shared_data: Path, tmp_path: Path) -> None:
    lines = (shared_data / "mucgec-dev" / "MuCGEC_dev.txt").read_text(encoding="utf-8")
    head = "".join(lines.splitlines(keepends=True)[:300])
    dataset = import_dataset(
        name="mucgec-head",
        fmt="mucgec",
        files=[ImportFile("MuCGEC_dev.txt", head.encode("utf-8"))],
        user=make_user(Role.ADMIN),
    ).dataset
    version = release_dataset(dataset=dataset)
    out = _publish(version, tmp_path)
    expected = {}
    with_markers = 0
    for line in head.splitlines():
        external_id, source, *references = line.split("\t")
        expected[external_id] = [source if r in MARKERS else r for r in references]
        with_markers += any(r in MARKERS for r in references)
    assert with_markers  # the head holds error-free sentences: their marker became the source
    checked = _assert_round_trip(out, expected)
    assert checked == sum(len(refs) for refs in expected.values()) > 600
    # The Chinese MuCGEC file keeps MuCGEC's markers: its readers expect them.
    assert "没有错误" in (out / "formats" / "mucgec-head-v1.txt").read_text(encoding="utf-8")


def _english_error_free_release(shared_data: Path) -> tuple[DatasetVersion, dict[str, list[str]]]:
    """The first 80 CoNLL-14 sentences with ERRANT's two references; one sentence's second
    reference is the error-free marker, as a reviewer's "error free" verdict stores it."""
    conll = shared_data / "conll14"
    sources = (conll / "conll14st-test.tok.src").read_text(encoding="utf-8").splitlines()
    refs = [(conll / f"refs/ptm2/ref{k}").read_text(encoding="utf-8").splitlines() for k in (0, 1)]
    rows, expected = [], {}
    for i in range(80):
        references = [r[i] for r in refs if r[i].strip()]
        if i == 3:
            references = ["没有错误"]
        rows.append({"id": f"s{i}", "source": sources[i], "references": references})
        expected[f"s{i}"] = [sources[i] if r in MARKERS else r for r in references]
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    dataset = import_dataset(
        name="conll-head",
        fmt="jsonl",
        language="en",
        files=[ImportFile("conll.jsonl", text.encode("utf-8"))],
        user=make_user(Role.ADMIN),
    ).dataset
    return release_dataset(dataset=Dataset.objects.get(pk=dataset.pk)), expected


@pytest.mark.django_db
@pytest.mark.slow
def test_a_published_english_release_round_trips_without_a_chinese_marker(
    shared_data: Path, tmp_path: Path
) -> None:
    version, expected = _english_error_free_release(shared_data)
    out = _publish(version, tmp_path)
    checked = _assert_round_trip(out, expected)
    assert checked == sum(len(refs) for refs in expected.values()) > 150
    records = {r["id"]: r for rs in formats.read_parquet_folder(out).values() for r in rs}
    assert records["s3"]["judgement"] == "error_free"
    assert records["s3"]["references"] == [records["s3"]["source"]]
    # No file of the folder (exports included, the zip's members too) carries a marker.
    for path in out.rglob("*"):
        if not path.is_file():
            continue
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                texts = [archive.read(name).decode("utf-8") for name in archive.namelist()]
        elif path.suffix == ".parquet":
            texts = [json.dumps(records, ensure_ascii=False)]
        else:
            texts = [path.read_text(encoding="utf-8")]
        for text in texts:
            assert not any(marker in text for marker in MARKERS), path.name
    jsonl = (out / "formats" / "conll-head-v1.jsonl").read_text(encoding="utf-8").splitlines()
    s3 = json.loads(jsonl[3])
    assert s3["references"] == [s3["source"]] and s3["judgement"] == "error_free"


def _hf_python() -> Path:
    """The interpreter of a virtualenv with Hugging Face `datasets` ($GEC_HF_DATASETS_PYTHON,
    else $GEC_REFS_DIR/hf-datasets/bin/python, where .ci/run makes it; it is kept out of the
    product's: its package name is our Django app's)."""
    python = reference_path("GEC_HF_DATASETS_PYTHON", "hf-datasets", "bin", "python")
    if not python.is_file():
        reference_missing(
            "hf-datasets",
            variable="GEC_HF_DATASETS_PYTHON",
            path=python,
            what="a python with Hugging Face `datasets`",
        )
    return python


@pytest.mark.django_db
@pytest.mark.slow
def test_hugging_face_datasets_reads_the_published_folder(
    shared_data: Path, tmp_path: Path
) -> None:
    python = _hf_python()
    version, expected = _english_error_free_release(shared_data)
    out = _publish(version, tmp_path)
    script = (
        "import datasets, json, sys\n"
        "d = datasets.load_dataset('parquet', data_dir=sys.argv[1])\n"
        "print(json.dumps({s: [dict(r) for r in d[s]] for s in d}))\n"
    )
    result = subprocess.run(
        [str(python), "-c", script, str(out / "data")],
        cwd=tmp_path,  # never our Django app `datasets` on the path
        capture_output=True,
        text=True,
        timeout=300,
        env={
            **os.environ,
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "HF_HOME": str(tmp_path / "hf"),
        },
    )
    assert result.returncode == 0, result.stderr[-2000:]
    loaded = json.loads(result.stdout)
    rows = [row for split in loaded.values() for row in split]
    assert {row["id"]: row["references"] for row in rows} == expected
    parquet = {r["id"]: r for rs in formats.read_parquet_folder(out).values() for r in rs}
    assert all(row["edits"] == parquet[row["id"]]["edits"] for row in rows)
