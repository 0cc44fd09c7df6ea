"""Fault injection: a whole Celery worker killed with SIGKILL mid-import,
mid-export and mid-scoring, then restarted; a web process whose broker (and cache) is a
closed port. Real PostgreSQL, Redis and `celery worker` processes; nothing is mocked.

The workers here consume a queue of their own (the suite's session worker, if one runs, never
takes these jobs) and run with a short lease and visibility timeout, so a dead worker's job
is failed by the sweeper within seconds and its message is handed out again within seconds.

Each kill happens at a known point of the work, never after a sleep: the worker to be killed
is started with the test-only checkpoint (settings.GEC_TEST_HOLD_AT_DONE), which stops the
job at its first progress report past a given count, inside the work and its transaction, and
writes a marker file; the test kills when the marker appears. A sleep raced the work: on a
quiet machine the export finished before the kill.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile

from core.models import BackgroundJob, JobStatus
from core.roles import Role
from datasets.jobs import export_path, request_export, request_import
from datasets.models import Dataset, DatasetVersion, GoldenReference, Sentence
from scoring import services as scoring
from scoring.models import ScoreStatus, SentenceResult, SystemScore
from tests.core.faultkit import (
    VISIBILITY_SECONDS,
    Worker,
    corrected,
    mucgec_lines,
    released,
    run_client_script,
    wait_for,
    worker_on_own_queue,
)
from tests.factories import make_user
from tests.parallel import worker_log

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

# Jobs must end (done, or failed and retryable) within this after the kill (issue: 2 min).
BOUND_SECONDS = 60.0


# --- a worker we may kill -------------------------------------------------------------------


@pytest.fixture
def worker(django_db_setup, django_db_blocker, tmp_path, request) -> Iterator[Worker]:  # type: ignore[no-untyped-def]
    """A killable worker on a queue of its own; this test process sends every task there.

    A test marked `hold_worker_at(n)` gets it started with the checkpoint at n units done."""
    log = worker_log("fault-worker")
    log.parent.mkdir(parents=True, exist_ok=True)
    hold_dir = tmp_path / "held"
    hold_dir.mkdir()
    marker = request.node.get_closest_marker("hold_worker_at")
    hold_at_done = marker.args[0] if marker else 0
    with worker_on_own_queue("faults", log, hold_dir, hold_at_done=hold_at_done) as subject:
        yield subject


def held(worker: Worker, job_id: int) -> int | None:
    """Units done when the worker's job reached its checkpoint and stopped there, else None."""
    job = BackgroundJob.objects.get(pk=job_id)
    assert not job.is_finished, f"the job ended before the kill: {job.status} {job.message}"
    marker = worker.hold_dir / f"job-{job_id}"
    if not marker.is_file() or not marker.read_text(encoding="utf-8"):
        return None
    assert job.status == JobStatus.RUNNING and job.claim, (job.status, job.claim)
    return int(marker.read_text(encoding="utf-8"))


def kill_when_held(worker: Worker, job_id: int, *, at_least: int, total: int) -> None:
    """Wait for the job to stop at its checkpoint (mid-work: some units done, not all), kill."""
    done = wait_for(lambda: held(worker, job_id), timeout=60, what=f"job {job_id} to be held")
    assert at_least <= done < total, (done, total)
    worker.kill()


def job_state_from_api(client: Any, job_id: int) -> dict[str, Any]:
    """Read the job the way its page polls it (the read runs the sweeper)."""
    response = client.get(f"/jobs/{job_id}/")
    assert response.status_code == 200, response.content
    return dict(response.json())


def ended(client: Any, job_id: int) -> dict[str, Any] | None:
    state = job_state_from_api(client, job_id)
    return state if state["finished"] else None


# --- killed worker --------------------------------------------------------------------------


@pytest.mark.hold_worker_at(2000)
def test_worker_killed_mid_import_ends_retryable_and_imports_once(worker, client) -> None:  # type: ignore[no-untyped-def]
    admin = make_user(Role.ADMIN)
    client.force_login(admin)
    n = 30000
    lines, _ = mucgec_lines(n, seed=16)
    data = ("\n".join(lines) + "\n").encode()
    job = request_import(
        user=admin,
        name="faults-import",
        fmt="mucgec",
        uploads=[("big.txt", SimpleUploadedFile("big.txt", data))],
    )
    uploads = [Path(f["path"]) for f in BackgroundJob.objects.get(pk=job.pk).params["files"]]
    assert all(path.is_file() for path in uploads)
    # Held after the first chunk of sentences is written, inside the import's transaction.
    kill_when_held(worker, job.pk, at_least=2000, total=n)
    killed_at = time.monotonic()

    state = wait_for(lambda: ended(client, job.pk), timeout=BOUND_SECONDS, what="the sweeper")
    assert time.monotonic() - killed_at < BOUND_SECONDS
    assert state["status"] == JobStatus.FAILED and state["retryable"], state
    assert "worker" in state["message"]
    assert Sentence.objects.filter(dataset__name="faults-import").count() == 0  # rolled back
    assert all(path.is_file() for path in uploads)  # kept for the retry

    worker.start()
    response = client.post(f"/jobs/{job.pk}/retry/", HTTP_ACCEPT="application/json")
    assert response.status_code == 202, response.content
    state = wait_for(lambda: ended(client, job.pk), timeout=BOUND_SECONDS, what="the retry")
    assert state["status"] == JobStatus.DONE, state
    assert Sentence.objects.filter(dataset__name="faults-import").count() == n
    assert not any(path.exists() for path in uploads)

    # The killed run's message is handed out again after the visibility timeout: it finds
    # the job done and writes nothing.
    time.sleep(VISIBILITY_SECONDS + 3)
    assert Sentence.objects.filter(dataset__name="faults-import").count() == n
    assert GoldenReference.objects.filter(sentence__dataset__name="faults-import").count() == n
    assert BackgroundJob.objects.get(pk=job.pk).status == JobStatus.DONE


@pytest.mark.hold_worker_at(2000)
def test_worker_killed_mid_export_redelivery_takes_over_and_writes_one_whole_file(
    worker: Worker,
    client: Any,
) -> None:
    admin = make_user(Role.ADMIN)
    client.force_login(admin)
    n = 4000
    version, _ = released(n, seed=17)
    job = request_export(user=admin, dataset=version.dataset, fmt="m2", version=version)
    # Held with half the M2 written to the hidden temporary file.
    kill_when_held(worker, job.pk, at_least=n // 2, total=n)
    killed_at = time.monotonic()
    worker.start()
    # Nobody reads the job here: the restarted worker gets the message again after the
    # visibility timeout, finds the lease expired, takes the job over and finishes it.
    job = wait_for(
        lambda: (j := BackgroundJob.objects.get(pk=job.pk)).is_finished and j,
        timeout=BOUND_SECONDS,
        what="the re-delivered export",
        step=0.5,
    )
    assert time.monotonic() - killed_at < BOUND_SECONDS
    assert job.status == JobStatus.DONE, job.message
    assert job.attempts == 2
    out = export_path(job)
    text = out.read_text(encoding="utf-8")
    assert text.count("\nS ") + text.startswith("S ") == n  # every sentence exactly once
    assert not list(out.parent.glob(f".{out.name}.*"))  # no temporary half file left


@pytest.mark.hold_worker_at(2000)
def test_worker_killed_mid_scoring_fails_the_score_and_score_again_replaces(
    worker: Worker,
    client: Any,
) -> None:
    admin = make_user(Role.ADMIN)
    client.force_login(admin)
    n = 4000
    version, references = released(n, seed=18)
    rng = random.Random(5)
    hypotheses = [r if rng.random() < 0.5 else corrected(r, rng) for r in references]
    system = scoring.upload_system_output(
        version=version,
        name="sys",
        data=("\n".join(hypotheses) + "\n").encode(),
        file_name="sys.txt",
        user=admin,
    )
    score = scoring.request_scoring(system=system, user=admin)
    job_id = score.background_job_id
    assert job_id is not None
    # Held with half the hypotheses' edits extracted.
    kill_when_held(worker, job_id, at_least=n // 2, total=n)

    state = wait_for(lambda: ended(client, job_id), timeout=BOUND_SECONDS, what="the sweeper")
    assert state["status"] == JobStatus.FAILED and state["retryable"], state
    score.refresh_from_db()
    assert score.status == ScoreStatus.FAILED  # not "queued" or "running" for ever

    worker.start()
    response = client.post(f"/api/scoring/systems/{system.pk}/score/")
    assert response.status_code == 202, response.content
    score.refresh_from_db()
    assert score.background_job_id != job_id  # a new job was really queued
    new_job_id = score.background_job_id
    assert new_job_id is not None
    state = wait_for(lambda: ended(client, new_job_id), timeout=BOUND_SECONDS, what="the rescore")
    assert state["status"] == JobStatus.DONE, state
    score.refresh_from_db()
    assert score.status == ScoreStatus.DONE
    assert SentenceResult.objects.filter(score=score).count() == n  # replaced, not added
    time.sleep(VISIBILITY_SECONDS + 3)  # the killed run's message comes back: no effect
    assert SentenceResult.objects.filter(score=score).count() == n
    assert BackgroundJob.objects.get(pk=job_id).status == JobStatus.FAILED


# --- dead broker ----------------------------------------------------------------------------

DEAD_BROKER_SCRIPT = r"""
client.get(f"/api/scoring/systems/{args['system']}/")
timed("score", "post", f"/api/scoring/systems/{args['system']}/score/")
timed("rescore_page", "post", f"/scoring/systems/{args['system']}/rescore/")
with open(args["upload"], "rb") as handle:
    timed("upload", "post", "/api/scoring/systems/", data={
        "dataset": args["dataset"], "name": "new-sys", "file": handle, "format": "auto"})
with open(args["import_file"], "rb") as handle:
    timed("import", "post", "/datasets/api/import/", data={
        "name": "never-imported", "format": "mucgec", "files": handle})
timed("export", "post", f"/datasets/api/{args['dataset']}/exports/",
      data={"format": "m2", "release": args["release"]}, content_type="application/json")
timed("release", "post", f"/datasets/api/{args['dataset']}/releases/",
      data={"note": "x"}, content_type="application/json")
timed("stats_api", "get", f"/datasets/api/{args['dataset']}/stats/?release={args['release']}")
timed("stats_page", "get", f"/datasets/{args['dataset']}/stats/?release={args['release']}")
timed("job", "get", f"/jobs/{args['job']}/")
"""


def test_dead_broker_answers_503_fast_and_changes_nothing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    admin = make_user(Role.ADMIN)
    version, references = released(40, seed=19)
    system = scoring.upload_system_output(
        version=version,
        name="done-sys",
        data=("\n".join(references) + "\n").encode(),
        file_name="s.txt",
        user=admin,
    )
    finished = scoring.score_now(system=system, user=admin)
    assert finished.status == ScoreStatus.DONE
    upload = tmp_path / "other.txt"
    upload.write_text("\n".join(references) + "\n", encoding="utf-8")
    import_file = tmp_path / "import.txt"
    import_file.write_text("\n".join(mucgec_lines(5, seed=3)[0]) + "\n", encoding="utf-8")
    media = Path(settings.MEDIA_ROOT)
    imports_before = sorted((media / "imports").rglob("*")) if (media / "imports").exists() else []
    jobs_before = BackgroundJob.objects.count()
    versions_before = DatasetVersion.objects.count()
    results = run_client_script(
        DEAD_BROKER_SCRIPT,
        user=admin,
        args={
            "system": system.pk,
            "dataset": version.dataset.name,
            "release": version.number,
            "upload": str(upload),
            "import_file": str(import_file),
            "job": finished.background_job_id or 0,
        },
        # Nothing listens there: broker, results, cache.
        env={"REDIS_URL": "redis://127.0.0.1:1/0", "GEC_BROKER_TIMEOUT": "2"},
    )
    for name in ("score", "upload", "import", "export", "release"):
        assert results[name]["status"] == 503, (name, results[name])
        assert results[name]["seconds"] < 5, (name, results[name])
        assert "task queue cannot be reached" in results[name]["body"], results[name]
    # A page gets the same message on a page, not a bare 500.
    assert results["rescore_page"]["status"] == 503, results["rescore_page"]
    assert results["rescore_page"]["seconds"] < 5
    # Cache down: statistics are computed without it.
    assert results["stats_api"]["status"] == 200, results["stats_api"]
    assert results["stats_page"]["status"] == 200, results["stats_page"]
    # Nothing changed: the finished score stays finished, no job, release or upload was left.
    finished.refresh_from_db()
    assert finished.status == ScoreStatus.DONE
    assert SystemScore.objects.get(pk=finished.pk).background_job_id == finished.background_job_id
    assert BackgroundJob.objects.count() == jobs_before
    assert DatasetVersion.objects.count() == versions_before
    assert not version.system_outputs.filter(name="new-sys").exists()
    imports_after = sorted((media / "imports").rglob("*")) if (media / "imports").exists() else []
    assert imports_after == imports_before
    assert not Dataset.objects.filter(name="never-imported").exists()


# --- bad bytes on every upload path ------------------------------------------------------------


def _files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def test_nul_bytes_are_refused_on_every_upload_path_and_leave_nothing(  # type: ignore[no-untyped-def]
    worker, client
) -> None:
    admin = make_user(Role.ADMIN)
    client.force_login(admin)
    version, references = released(310, seed=20)
    lines, _ = mucgec_lines(310, seed=21)
    lines[300] = lines[300].replace("\t", "\t\x00", 1)  # a NUL on line 301
    bad_import = ("\n".join(lines) + "\n").encode()
    media = Path(settings.MEDIA_ROOT)
    uploads_before = _files_under(media / "imports")  # other tests' leftovers, if any

    # Dataset import, API and page: accepted for checking, then the job (on the real worker)
    # fails naming line 301 - never stuck "running" - and its uploads are gone.
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = client.post(
        "/datasets/api/import/",
        {
            "name": "nul-api",
            "format": "mucgec",
            "files": SimpleUploadedFile("nul.txt", bad_import),
        },
    )
    assert response.status_code == 202, response.content
    page = client.post(
        "/datasets/import/",
        {
            "name": "nul-page",
            "format": "mucgec",
            "files": SimpleUploadedFile("nul.txt", bad_import),
        },
    )
    assert page.status_code == 302, page.content
    page_job_id = int(page["Location"].rstrip("/").rsplit("/", 1)[1])
    for job_id in (response.json()["id"], page_job_id):
        state = wait_for(lambda j=job_id: ended(client, j), timeout=60, what="the import job")
        assert state["status"] == JobStatus.FAILED, state
        assert "301" in state["message"], state["message"]
        files = BackgroundJob.objects.get(pk=job_id).params["files"]
        assert files
        # Deleted right after the job's end is written (the same worker, milliseconds later).
        wait_for(
            lambda f=files: not any(Path(x["path"]).exists() for x in f),
            timeout=5,
            what="the uploads to be deleted",
        )
    assert not Dataset.objects.filter(name__in=["nul-api", "nul-page"]).exists()
    assert _files_under(media / "imports") == uploads_before

    # System outputs, API and page: refused at once with the line, nothing stored.
    hypotheses = list(references)
    hypotheses[300] = hypotheses[300][:3] + "\x00" + hypotheses[300][3:]
    bad_output = ("\n".join(hypotheses) + "\n").encode()
    response = client.post(
        "/api/scoring/systems/",
        {
            "dataset": version.dataset.name,
            "name": "nul-sys",
            "format": "auto",
            "file": SimpleUploadedFile("sys.txt", bad_output),
        },
    )
    assert response.status_code == 400, response.content
    assert "301" in response.json()["detail"], response.json()
    page = client.post(
        f"/scoring/releases/{version.pk}/upload/",
        {"name": "nul-sys-page", "format": "auto", "file": SimpleUploadedFile("s.txt", bad_output)},
        follow=True,
    )
    assert page.status_code == 200
    assert "301" in page.content.decode()
    assert not version.system_outputs.exists()
    assert not SystemScore.objects.exists()
