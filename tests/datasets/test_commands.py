from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from core.models import BackgroundJob, JobStatus
from datasets.models import Dataset, DatasetVersion

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


@pytest.mark.slow
def test_commands_import_release_export_and_stats(
    mucgec_dev: Path, shared_data: Path, tmp_path: Path
) -> None:
    run(
        "import_dataset",
        str(mucgec_dev),
        "--name",
        "dev",
        "--format",
        "mucgec",
        "--source",
        "mucgec",
        "--split",
        "dev",
    )
    version_id = run("release_dataset", "dev", "--note", "paper").strip()
    version = DatasetVersion.objects.get(pk=int(version_id))
    assert version.note == "paper" and version.number == 1
    out = tmp_path / "dev.m2"
    run(
        "export_dataset",
        "dev",
        "--release",
        "1",
        "--format",
        "m2",
        "-o",
        str(out),
        "--resources",
        str(shared_data / "cherrant-resources"),
        "--workers",
        "2",
    )
    assert out.read_bytes() == (shared_data / "mucgec-dev" / "MuCGEC_dev.m2").read_bytes()
    stats = json.loads(run("dataset_stats", "dev", "--release", "v1", "--json", "--workers", "2"))
    assert stats["sentences"] == 1137 and stats["references"] == 2467
    assert stats["refs_per_sentence_histogram"] == {
        "1": 287,
        "2": 462,
        "3": 313,
        "4": 62,
        "5": 10,
        "6": 2,
        "7": 1,
    }
    for key in (
        "sentences",
        "references",
        "refs_per_sentence_histogram",
        "erroneous_sentences",
        "chars_per_sentence",
        "edits_per_reference",
    ):
        assert key in stats["by_source"]["mucgec"]
    assert BackgroundJob.objects.filter(kind="datasets.export", status=JobStatus.DONE).count() == 1


def test_import_command_reports_the_line_and_writes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("1\t他去。\n1\t我来。\n", encoding="utf-8")
    with pytest.raises(CommandError, match=r"bad.txt, line 2, field id: duplicate id '1'"):
        run("import_dataset", str(bad), "--name", "x", "--format", "mucgec")
    assert not Dataset.objects.exists()
    assert BackgroundJob.objects.get().status == JobStatus.FAILED


def test_export_command_names_a_missing_release(tmp_path: Path) -> None:
    src = tmp_path / "a.txt"
    src.write_text("1\t他去。\t他去了。\n", encoding="utf-8")
    run("import_dataset", str(src), "--name", "a", "--format", "mucgec")
    with pytest.raises(CommandError, match="has no release v4"):
        run(
            "export_dataset",
            "a",
            "--release",
            "4",
            "--format",
            "mucgec",
            "-o",
            str(tmp_path / "o.txt"),
        )
    text = run("dataset_stats", "a")
    assert "overall" in text
