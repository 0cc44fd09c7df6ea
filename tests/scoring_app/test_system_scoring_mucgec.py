"""System scoring on the real MuCGEC dev set, against the public numbers of
shared/specs/char-metric.md section 8 (ChERRANT's own results).

The dataset is imported through the datasets import service, released, and the example
system is uploaded and scored once for the module (the extraction of 2,467 references is
the slow part); every test reads that stored score.
"""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from core.models import AuditLog, BackgroundJob, JobStatus
from datasets.formats import ImportFile
from datasets.models import DatasetVersion, ReferenceM2Cache, Sentence
from datasets.services.imports import import_dataset
from datasets.services.releases import release_dataset
from scoring import services
from scoring.models import ScoreStatus, SentenceResult, SystemOutput, SystemScore

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

DATASET = "mucgec-dev-scoring"


def _spec_table(shared_dir: Path) -> dict[str, tuple[int, int, int, float]]:
    """The `-cat 1` line of char-metric.md section 8, read from the spec itself."""
    import re

    text = (shared_dir / "specs" / "char-metric.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    start = next(i for i, row in enumerate(lines) if "`-cat 1` for example" in row)
    # The bullet continues on indented lines.
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith("  "))
    line = " ".join(lines[start:end])
    table = {}
    for name, tp, fp, fn, f in re.findall(r"([MRSW]) (\d+)/(\d+)/(\d+) \(F? ?([0-9.]+)\)", line):
        table[name] = (int(tp), int(fp), int(fn), float(f))
    assert set(table) == {"M", "R", "S", "W"}, line
    return table


@pytest.fixture(scope="module")
def resources_dir(shared_data: Path) -> str:
    return str(shared_data / "cherrant-resources")


@pytest.fixture(scope="module")
def mucgec_release(django_db_setup, django_db_blocker, shared_data: Path):  # type: ignore[no-untyped-def]
    """Committed outside the tests' transactions, so the teardown deletes every row the module
    made, the jobs and audit entries too: a test of another module that ran after it on the
    same worker found them (`BackgroundJob.objects.get()` with two jobs)."""
    with django_db_blocker.unblock():
        last_job = BackgroundJob.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        last_audit = AuditLog.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        result = import_dataset(
            name=DATASET,
            fmt="mucgec",
            source_name="mucgec",
            split="dev",
            files=[ImportFile.from_path(shared_data / "mucgec-dev" / "MuCGEC_dev.txt")],
        )
        version = release_dataset(dataset=result.dataset, note="scoring tests")
        yield version
        SystemOutput.objects.filter(version=version).delete()
        ReferenceM2Cache.objects.filter(version=version).delete()
        DatasetVersion.objects.filter(pk=version.pk).delete()
        Sentence.objects.filter(dataset=result.dataset).delete()
        result.dataset.delete()
        BackgroundJob.objects.filter(pk__gt=last_job).delete()
        AuditLog.objects.filter(pk__gt=last_audit).delete()


@pytest.fixture(scope="module")
def example_score(mucgec_release, django_db_blocker, shared_data: Path, resources_dir: str):  # type: ignore[no-untyped-def]
    with django_db_blocker.unblock():
        path = shared_data / "mucgec-dev" / "example_pred_dev.txt"
        system = services.upload_system_output(
            version=mucgec_release,
            name="example",
            data=path.read_bytes(),
            file_name=path.name,
            user=None,
        )
        # The Celery task runs in-process (no broker) when the request's transaction commits.
        score = services.request_scoring(system=system, user=None, resources_dir=resources_dir)
        score.refresh_from_db()
        yield score


def test_example_system_scores_like_cherrant(example_score: SystemScore) -> None:
    assert example_score.status == ScoreStatus.DONE, example_score.error
    assert (example_score.tp, example_score.fp, example_score.fn) == (1084, 1635, 3003)
    assert (example_score.p, example_score.r, example_score.f05) == (0.3987, 0.2652, 0.3622)
    assert "resources=cherrant:" in example_score.signature
    assert "mode=correction" in example_score.signature


def test_reference_count_curve_is_first_1_2_3_then_all(example_score: SystemScore) -> None:
    assert example_score.summary["ref_count_curve"] == [0.2759, 0.3424, 0.3614, 0.3622]
    by_k = example_score.summary["ref_count_curve_by_k"]
    # MuCGEC dev has up to 7 references per sentence: k = 1..6 then all.
    assert list(by_k) == ["1", "2", "3", "4", "5", "6", "all"]
    assert by_k["all"] == 0.3622


def test_error_type_table_matches_spec(example_score: SystemScore, shared_dir: Path) -> None:
    expected = _spec_table(shared_dir)
    categories = example_score.summary["categories"]
    for name, (tp, fp, fn, f) in expected.items():
        row = categories[name]
        assert (row["tp"], row["fp"], row["fn"], row["f05"]) == (tp, fp, fn, f), name


def test_detection_and_source_breakdown_are_stored(example_score: SystemScore) -> None:
    detection = example_score.summary["detection"]
    assert set(detection) == {"ds", "dt"}
    # Detection ignores the correction string, so it finds at least the correction TPs.
    assert detection["ds"]["tp"] >= example_score.tp
    by_source = example_score.summary["by_source"]
    assert list(by_source) == ["mucgec"]
    assert by_source["mucgec"]["sentences"] == 1137
    assert by_source["mucgec"]["f05"] == 0.3622


def test_one_result_row_per_sentence_summing_to_the_corpus(example_score: SystemScore) -> None:
    rows = SentenceResult.objects.filter(score=example_score)
    assert rows.count() == 1137
    assert sum(r.tp for r in rows) == 1084
    assert sum(r.fp for r in rows) == 1635
    assert sum(r.fn for r in rows) == 3003
    labelled = [e for r in rows for e in r.edits]
    assert {e["label"] for e in labelled} <= {"TP", "FP", "FN", "skipped"}
    assert sum(1 for e in labelled if e["label"] == "TP") > 0


def test_job_recorded_progress_to_the_end(example_score: SystemScore) -> None:
    job = BackgroundJob.objects.get(pk=example_score.background_job_id)
    assert job.status == JobStatus.DONE
    assert job.done == job.total == 1137
    assert job.result["f05"] == 0.3622


def test_rescoring_replaces_rows_instead_of_adding(
    example_score: SystemScore, resources_dir: str
) -> None:
    before = SentenceResult.objects.filter(score=example_score).count()
    again = services.run_scoring(score_id=example_score.pk, resources_dir=resources_dir)
    assert again.status == ScoreStatus.DONE
    assert SentenceResult.objects.filter(score=example_score).count() == before == 1137
    assert (again.tp, again.fp, again.fn, again.f05) == (1084, 1635, 3003, 0.3622)
    assert SystemScore.objects.filter(system=example_score.system).count() == 1


def test_score_system_command_prints_the_contract_json(
    example_score: SystemScore, shared_data: Path, resources_dir: str
) -> None:
    out = StringIO()
    call_command(
        "score_system",
        "--dataset",
        DATASET,
        "--hyp",
        str(shared_data / "mucgec-dev" / "source_pred_dev.txt"),
        "--name",
        "source-copy",
        "--resources",
        resources_dir,
        "--json",
        stdout=out,
    )
    payload = json.loads(out.getvalue())
    # char-metric.md section 8, row "source".
    assert (payload["tp"], payload["fp"], payload["fn"]) == (24, 6, 3618)
    assert (payload["p"], payload["r"], payload["f05"]) == (0.8, 0.0066, 0.0319)
    assert payload["ref_count_curve"] == [0.0222, 0.0304, 0.0318, 0.0319]
    assert set(payload["categories"]) >= {"M", "R", "S", "W"}
    assert set(payload["by_source"]) == {"mucgec"}
    assert payload["release"] == f"{DATASET}@v1"


def test_resources_come_from_the_setting(
    example_score: SystemScore, shared_data: Path, resources_dir: str, settings
) -> None:  # type: ignore[no-untyped-def]
    settings.GEC_CHERRANT_RESOURCES = resources_dir
    assert services.scoring_resources().signature.startswith("cherrant:")
    settings.GEC_CHERRANT_RESOURCES = ""
    assert services.scoring_resources().signature == "default"


def test_chunk_metrics_match_the_cleme_spec(example_score: SystemScore) -> None:
    # shared/specs/cleme.md section 8: CLEME corpus dependent 0.3155; CLEME2.0 corpus,
    # unweighted, dependent: hit 0.2686, wrong 0.2178, under 0.5136, over 0.3069, score 0.5022.
    extra = example_score.summary["extra"]
    assert extra["cleme"]["f05"] == 0.3155
    cleme2 = extra["cleme2"]
    assert (cleme2["hit"], cleme2["wrong"], cleme2["under"], cleme2["over"], cleme2["score"]) == (
        0.2686,
        0.2178,
        0.5136,
        0.3069,
        0.5022,
    )
