"""`manage.py import_revisitcgec`: RevisitCGEC's folder becomes a release, a judgment campaign
on it and six scored outputs, and the meta-evaluation runs on the campaign with no glue; its
human side equals the library's harness, its ChERRANT scores the library's on the same data."""

from __future__ import annotations

import io
import signal
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from core.roles import Role
from scoring.models import ScoreStatus, SystemScore
from scoring.services import meta
from tests.factories import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


@pytest.fixture
def revisit(shared_data: Path) -> Path:
    folder = shared_data / "revisitcgec"
    if not (folder / "judgments.xml").is_file():
        pytest.skip("shared/data/revisitcgec is absent")
    return folder


def test_one_command_imports_scores_and_meta_evaluates_revisitcgec(
    revisit: Path, shared_data: Path
) -> None:
    from gecscore.meta.revisitcgec import SYSTEMS, human_scores, load_corpus
    from gecscore.meta.revisitcgec_metrics import Extraction, cherrant
    from gecscore.resources import load_resources

    from judgments.models import Campaign
    from judgments.selectors import human_system_scores

    admin = make_user(Role.ADMIN)
    resources = shared_data / "cherrant-resources"
    out = io.StringIO()
    call_command(
        "import_revisitcgec",
        str(revisit),
        "--resources",
        str(resources),
        "--admin",
        admin.username,
        stdout=out,
    )
    assert "meta-evaluation page: /scoring/releases/" in out.getvalue()
    campaign = Campaign.objects.get(name="RevisitCGEC human rankings")
    release = campaign.release
    assert release is not None and release.counts
    assert campaign.assignments.count() == 1000
    corpus = load_corpus(revisit, "all")
    # Human side: the campaign's Expected Wins are the library harness's.
    library = human_scores(corpus, method="ew")
    platform = human_system_scores(campaign, method="ew")
    for system in SYSTEMS:
        assert platform[system] == pytest.approx(
            library["systems"][system]["expected_wins"], abs=1e-9
        )
    # Metric side: the stored char-level F0.5 equals the library on the same 200 sentences.
    expected = cherrant(Extraction(corpus, load_resources(resources)), "char").scores
    stored = {s.system.name: s for s in SystemScore.objects.filter(system__version=release)}
    assert {name: score.status for name, score in stored.items()} == {
        s: ScoreStatus.DONE for s in SYSTEMS
    }
    assert {name: score.f05 for name, score in stored.items()} == pytest.approx(expected)
    evaluation = meta.request_meta_evaluation(
        version=release,
        user=admin,
        metrics=["f05"],
        campaign_id=campaign.pk,
        method="ew",
        bootstrap=100,
        queue=False,
    )
    evaluation = meta.run_meta_evaluation(
        evaluation_id=evaluation.pk, job_id=evaluation.background_job_id
    )
    assert evaluation.status == ScoreStatus.DONE, evaluation.error
    assert set(evaluation.report["metrics"]) == {"f05"}


def test_an_unknown_admin_is_refused(revisit: Path) -> None:
    with pytest.raises(CommandError, match="no admin"):
        call_command("import_revisitcgec", str(revisit), "--admin", "nobody", stdout=io.StringIO())


def test_a_folder_without_judgments_is_refused_with_its_name(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="judgments.xml"):
        call_command("import_revisitcgec", str(tmp_path), stdout=io.StringIO())


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_on_postgres_redis_and_a_worker_the_campaign_run_is_queued_and_done(
    revisit: Path, shared_data: Path, celery_worker: object
) -> None:
    """PostgreSQL + Redis + a real Celery worker: the command's scoring is synchronous, the
    meta-evaluation on the campaign is queued on commit and the worker finishes it."""
    import time

    from core.models import BackgroundJob, JobStatus
    from judgments.models import Campaign

    admin = make_user(Role.ADMIN)
    call_command(
        "import_revisitcgec",
        str(revisit),
        "--admin",
        admin.username,
        "--resources",
        str(shared_data / "cherrant-resources"),
        stdout=io.StringIO(),
    )
    campaign = Campaign.objects.get(name="RevisitCGEC human rankings")
    evaluation = meta.request_meta_evaluation(
        version=campaign.release,
        user=admin,
        metrics=["f05", "cleme2"],
        campaign_id=campaign.pk,
        method="trueskill",
        bootstrap=50,
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        job = BackgroundJob.objects.get(pk=evaluation.background_job_id or 0)
        if job.is_finished:
            break
        time.sleep(0.5)
    assert job.status == JobStatus.DONE, job.message
    evaluation.refresh_from_db()
    assert evaluation.status == ScoreStatus.DONE
    assert set(evaluation.report["metrics"]) == {"f05", "cleme2"}
    assert len(evaluation.human) == 6


# --- all or nothing -------------------------------------------------------------------------


def _rows_of_an_import() -> dict[str, int]:
    """How many rows of each kind an import writes (the test database starts without any)."""
    from core.models import BackgroundJob
    from datasets.models import Dataset, DatasetVersion, Sentence
    from judgments.models import Campaign, Item
    from scoring.models import SystemOutput

    return {
        model.__name__: model.objects.count()
        for model in (
            Dataset,
            DatasetVersion,
            Sentence,
            Campaign,
            Item,
            SystemOutput,
            SystemScore,
            BackgroundJob,
        )
    }


@pytest.fixture
def revisit_copy(revisit: Path, tmp_path: Path) -> Path:
    """A writable copy of the RevisitCGEC folder (its MuCGEC dev file is passed explicitly)."""
    import shutil

    folder = tmp_path / "revisitcgec"
    shutil.copytree(revisit, folder)
    for path in folder.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return folder


def _import(folder: Path, shared_data: Path, *extra: str) -> str:
    out = io.StringIO()
    call_command(
        "import_revisitcgec",
        str(folder),
        "--mucgec-dev",
        str(shared_data / "mucgec-dev" / "MuCGEC_dev.txt"),
        "--resources",
        str(shared_data / "cherrant-resources"),
        *extra,
        stdout=out,
    )
    return out.getvalue()


def test_a_nul_byte_in_a_system_file_imports_nothing_and_a_rerun_imports_all(
    revisit_copy: Path, shared_data: Path
) -> None:
    """The third system's file is refused after the dataset, the release, the campaign and
    two scored systems were written: all of them go, and the fixed folder then imports."""
    from gecscore.meta.revisitcgec import SYSTEMS

    before = _rows_of_an_import()
    system_file = revisit_copy / "system-corrections" / f"{SYSTEMS[2]}.yaclc.txt"
    original = system_file.read_bytes()
    lines = original.split(b"\n")
    lines[3] = b"\x00" + lines[3]
    system_file.write_bytes(b"\n".join(lines))
    with pytest.raises(CommandError, match="NUL") as refused:
        _import(revisit_copy, shared_data)
    # Line 4 of the YACLC file is line 104 of the upload, which the message explains.
    assert "line 104" in str(refused.value)
    assert f"{SYSTEMS[2]}.yaclc.txt as lines 101-200" in str(refused.value)
    assert _rows_of_an_import() == before
    system_file.write_bytes(original)
    out = _import(revisit_copy, shared_data)
    assert "meta-evaluation page" in out
    after = _rows_of_an_import()
    assert after["Dataset"] == before["Dataset"] + 1
    assert after["SystemScore"] == before["SystemScore"] + len(SYSTEMS)
    assert set(
        SystemScore.objects.filter(system__version__dataset__name="RevisitCGEC").values_list(
            "status", flat=True
        )
    ) == {ScoreStatus.DONE}


def test_a_campaign_name_in_use_imports_nothing_and_another_name_imports(
    revisit_copy: Path, shared_data: Path
) -> None:
    from judgments.models import Campaign

    Campaign.objects.create(name="RevisitCGEC human rankings")
    before = _rows_of_an_import()
    with pytest.raises(CommandError, match="RevisitCGEC human rankings"):
        _import(revisit_copy, shared_data)
    assert _rows_of_an_import() == before
    _import(revisit_copy, shared_data, "--campaign", "RevisitCGEC, second import")
    assert Campaign.objects.get(name="RevisitCGEC, second import").release is not None


@pytest.mark.django_db(transaction=True)
def test_an_import_killed_midway_leaves_nothing_and_a_rerun_imports(
    revisit: Path, shared_data: Path, tmp_path: Path
) -> None:
    """A real `manage.py import_revisitcgec` stopped when it first reads the ChERRANT
    resources (scoring the first system: the dataset, release, campaign and first output are
    written by then, uncommitted) and killed there with SIGKILL: no row stays; the same
    command then imports everything. (SIGTERM ends it the same way: the command sets no
    handler, so Python dies at once and the database drops the open transaction.)"""
    from gecscore.meta.revisitcgec import SYSTEMS

    from tests.manage_subprocess import (
        end_group,
        kill_stopped,
        manage_env,
        rows_in,
        start_manage,
        wait_until_stopped,
    )

    env = manage_env(tmp_path)
    args = [
        "import_revisitcgec",
        str(revisit),
        "--resources",
        str(shared_data / "cherrant-resources"),
    ]
    tables = ("datasets_dataset", "judgments_campaign", "scoring_systemoutput")
    log = tmp_path / "import.log"
    process = start_manage(args, env, log, stop_before="open */cherrant-resources/cilin.txt")
    try:
        wait_until_stopped(process, log, "scoring the first system")
        assert kill_stopped(process, signal.SIGKILL) == -signal.SIGKILL
    finally:
        end_group(process)
    assert {table: rows_in(env, table) for table in tables} == dict.fromkeys(tables, 0)
    rerun = start_manage(args, env, tmp_path / "rerun.log")
    try:
        assert rerun.wait(timeout=600) == 0, (tmp_path / "rerun.log").read_text()
    finally:
        end_group(rerun)
    assert [rows_in(env, table) for table in tables] == [1, 1, len(SYSTEMS)]
