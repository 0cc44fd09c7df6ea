from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from gecscore.meta.scorefiles import SEEDA_SYSTEMS


def wmt_scores(path: Path) -> dict[str, float]:
    """A WMT human-score file (gzipped, tab-separated; name in column 4, score in column 5)."""
    with gzip.open(path, "rt") as handle:
        return {f[3]: float(f[4]) for f in (line.rstrip("\n").split("\t") for line in handle)}


def seeda_scores(path: Path) -> dict[str, float]:
    """SEEDA's human scores: one number per line, in SEEDA_SYSTEMS order."""
    values = [float(x) for x in path.read_text().split()]
    return dict(zip(SEEDA_SYSTEMS, values, strict=True))


# (file, published EW, published TrueSkill, inter kappa, intra kappa) per judgment set
def judgment_cases(
    shared: Path,
) -> dict[str, tuple[Path, dict[str, float], dict[str, float], str, str]]:
    human = shared / "seeda" / "scores" / "human"
    conll = shared / "conll14" / "human"
    return {
        "gjg15": (
            conll / "judgments.xml",
            wmt_scores(conll / "expected_wins.txt.gz"),
            wmt_scores(conll / "trueskill.txt.gz"),
            "0.29",
            "0.46",
        ),
        "seeda-sent": (
            shared / "seeda" / "data" / "judgments_sent.xml",
            seeda_scores(human / "EW_sent.txt"),
            seeda_scores(human / "TS_sent.txt"),
            "0.40",
            "0.72",
        ),
        "seeda-edit": (
            shared / "seeda" / "data" / "judgments_edit.xml",
            seeda_scores(human / "EW_edit.txt"),
            seeda_scores(human / "TS_edit.txt"),
            "0.28",
            "0.62",
        ),
    }


@pytest.fixture(scope="session")
def cases(shared_data: Path):  # type: ignore[no-untyped-def]
    if not (shared_data / "conll14" / "human").is_dir() or not (shared_data / "seeda").is_dir():
        pytest.skip("shared/data/conll14 or shared/data/seeda is absent")
    return judgment_cases(shared_data)


def run_queued_results() -> int:
    """Run every queued results job here, as a worker would: in a test the task's message is
    sent on a commit that the test's transaction never makes. How many ran."""
    from core.jobs import run_claimed
    from core.models import BackgroundJob, JobStatus
    from judgments import results, results_job

    queued = BackgroundJob.objects.filter(kind=results.JOB_KIND_RESULTS, status=JobStatus.QUEUED)
    ran = 0
    for job_id in list(queued.order_by("id").values_list("id", flat=True)):
        run_claimed(job_id, results_job.run_results_job)
        ran += 1
    return ran


@pytest.fixture
def computed():  # type: ignore[no-untyped-def]
    """`computed(client, url, data)`: GET a results page or API URL, run the results job it
    queued (as a worker would), then GET it again: the stored results, served from storage."""

    def get(client, url, data=None):  # type: ignore[no-untyped-def]
        client.get(url, data)
        run_queued_results()
        return client.get(url, data)

    return get
