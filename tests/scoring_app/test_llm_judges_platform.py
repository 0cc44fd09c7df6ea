"""The LLM judges (LLM-S, LLM-E) on the platform, end to end: an admin starts a run for a
release, the `gpu` task (eager) asks a real local HTTP server speaking the OpenAI
chat-completions API (the library tests' server, gecscore/tests/reffree/chat_server.py), and
the stored per-system and per-sentence scores equal the library's called directly on the same
inputs; they show on the leaderboard, the system page, and the meta-evaluation catalogue.
An endpoint that hangs, drips, floods or redirects fails the job within its deadlines with a
bounded message (gecscore/tests/reffree/misbehaving_server.py)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from django.test import Client
from gecscore.meta.aggregation import aggregate
from rest_framework.test import APIClient

from core.exceptions import ServiceError
from core.models import BackgroundJob, JobStatus
from core.roles import Role
from datasets.formats import ImportFile
from datasets.models import Dataset
from datasets.services.imports import import_dataset
from datasets.services.releases import release_dataset
from gecscore import get_metric, trueskill_scores
from scoring import services
from scoring.services import meta
from scoring.services.meta.catalogue import available_metrics, stored_metric_scores
from tests.factories import make_user
from tests.scoring_app.llm_servers import ChatServer, MisbehavingServer

pytestmark = [pytest.mark.django_db]

SOURCES = [
    "He go to school every days .",
    "She have two cat .",
    "This is fine .",
    "They was happy yesterday .",
]
REFS = [
    "He goes to school every day .",
    "She has two cats .",
    "This is fine .",
    "They were happy yesterday .",
]
SYSTEMS = {
    "alpha": REFS,
    "beta": [
        "He goes to school every days .",
        "She have two cats .",
        "This is fine .",
        "They was happy yesterday .",
    ],
    "gamma": SOURCES,
}


def _lines(lines: list[str]) -> bytes:
    return "".join(f"{line}\n" for line in lines).encode()


@pytest.fixture
def release(tmp_path: Path, settings):  # type: ignore[no-untyped-def]
    settings.GEC_WEIGHT_CACHE_DIR = tmp_path / "cache"
    settings.GEC_LLM_URL = settings.GEC_LLM_MODEL = ""
    admin = make_user(Role.ADMIN)
    import_dataset(
        name="judged-en",
        fmt="parallel",
        language="en",
        user=admin,
        source_name="tiny",
        files=[ImportFile("src", _lines(SOURCES)), ImportFile("ref0", _lines(REFS))],
    )
    version = release_dataset(dataset=Dataset.objects.get(name="judged-en"), user=admin)
    for name, hyps in SYSTEMS.items():
        system = services.upload_system_output(
            version=version, name=name, data=_lines(hyps), file_name=name, user=admin
        )
        assert services.score_now(system=system, user=admin).status == "done"
    return admin, version


def _library(name: str, url: str) -> tuple[list[float], tuple[tuple[float | None, ...], ...], str]:
    """The library's judge on the same inputs: TrueSkill mu, sentence scores, signature."""
    Judge = get_metric(name)
    judge = Judge(Judge.Config(model="tiny-judge", url=url))  # type: ignore[call-arg]
    result = judge.score_systems(SOURCES, [SYSTEMS[s] for s in sorted(SYSTEMS)])
    return trueskill_scores(result.pairwise), result.scores, result.signature


def test_judges_run_on_the_gpu_task_and_equal_the_library(  # type: ignore[no-untyped-def]
    release, settings, django_capture_on_commit_callbacks
) -> None:
    admin, version = release
    client = Client()
    client.force_login(admin)
    board = f"/scoring/releases/{version.pk}/"
    shown = client.get(board).content.decode()
    assert 'data-testid="judges-unconfigured"' in shown and "GEC_LLM_URL" in shown
    with pytest.raises(ServiceError, match="GEC_LLM_URL"):
        services.request_judge_run(version=version, user=admin)
    settings.GEC_LLM_URL = "http://127.0.0.1:9/v1"
    with pytest.raises(ServiceError, match="GEC_LLM_MODEL"):
        services.request_judge_run(version=version, user=admin)

    with ChatServer() as server:
        settings.GEC_LLM_URL, settings.GEC_LLM_MODEL = server.url, "tiny-judge"
        assert 'data-testid="judges"' in client.get(board).content.decode()
        with django_capture_on_commit_callbacks(execute=True):
            posted = client.post(f"/scoring/releases/{version.pk}/judges/")
        assert posted.status_code == 302
        expected = {name: _library(name, server.url) for name in services.JUDGE_METRICS}

    job = BackgroundJob.objects.get(kind=services.JOB_KIND_JUDGE)
    assert job.status == JobStatus.DONE, job.message
    assert job.params["metrics"] == ["llm-s", "llm-e"]
    names = sorted(SYSTEMS)
    for metric, (mu, sentence_scores, signature) in expected.items():
        values, signatures = stored_metric_scores(version, [metric])
        assert values[metric] == dict(zip(names, mu, strict=True))
        assert signatures[metric] == [f"{signature}|aggregate=trueskill|systems=3"]
        assert "model=tiny-judge" in signature and "prompt=" in signature
        for k, name in enumerate(names):
            entry = version.system_outputs.get(name=name).score.summary["extra"][metric]
            assert entry["sentences"] == list(sentence_scores[k])
            assert entry["systems"] == names and entry["aggregation"] == "trueskill"
    assert {"llm-s", "llm-e"} <= {choice.key for choice in available_metrics(version)}

    shown = client.get(board).content.decode()
    assert 'data-testid="llm-s"' in shown and 'data-testid="llm-e"' in shown
    alpha = version.system_outputs.get(name="alpha")
    page = client.get(f"/scoring/systems/{alpha.pk}/").content.decode()
    assert 'data-testid="judge-metrics"' in page
    assert alpha.score.summary["extra"]["llm-s"]["signature"] in page
    _meta_evaluation_of_the_judges(version, expected)


def _meta_evaluation_of_the_judges(version, expected) -> None:  # type: ignore[no-untyped-def]
    """The judges correlate with human scores like any metric, by their TrueSkill (default)
    or re-aggregated from their sentence scores: the library's numbers."""
    names = sorted(SYSTEMS)
    data = "".join(
        f"HUMAN\ten\ttest\t{s}\t{v}\n" for s, v in zip(names, (0.9, 0.1, -0.5), strict=True)
    )
    human = meta.upload_human_scores(
        version=version, name="h", data=data.encode(), file_name="h.tsv", user=None
    )
    for aggregation in ("default", "expected-wins"):
        run = meta.request_meta_evaluation(
            version=version,
            user=None,
            metrics=["llm-s", "llm-e"],
            human_scores=human,
            bootstrap=0,
            aggregation=aggregation,
            queue=False,
        )
        run = meta.run_meta_evaluation(evaluation_id=run.pk, job_id=run.background_job_id)
        assert run.status == "done", run.error
        for metric, (mu, sentence_scores, _signature) in expected.items():
            if aggregation == "default":
                wanted = dict(zip(names, mu, strict=True))
            else:
                wanted = aggregate("ew", dict(zip(names, map(list, sentence_scores), strict=True)))
            assert run.report["metric_scores"][metric] == pytest.approx(wanted, abs=1e-12)


def test_a_dead_endpoint_fails_the_job_as_retryable(  # type: ignore[no-untyped-def]
    release, settings, django_capture_on_commit_callbacks
) -> None:
    admin, version = release
    with ChatServer() as server:
        url = server.url  # the port is free again once the server has stopped
    settings.GEC_LLM_URL, settings.GEC_LLM_MODEL = url, "tiny-judge"
    settings.GEC_LLM_TIMEOUT = 2.0
    # The operator's retry settings reach the judge: 1 retry, no wait (the defaults, 3 retries
    # after 1 + 2 + 4 s, kept this test waiting 7 s).
    settings.GEC_LLM_RETRIES, settings.GEC_LLM_RETRY_WAIT = 1, 0.0
    started = time.monotonic()
    with django_capture_on_commit_callbacks(execute=True):
        services.request_judge_run(version=version, user=admin, metrics=["llm-s"])
    job = BackgroundJob.objects.get(kind=services.JOB_KIND_JUDGE)
    assert job.status == JobStatus.FAILED and job.retryable
    assert url.removesuffix("/v1") in job.message
    assert "failed 2 times" in job.message, job.message
    assert time.monotonic() - started < 5
    for score in (s.score for s in version.system_outputs.all()):
        assert "llm-s" not in score.summary["extra"]  # nothing half-written


@pytest.mark.parametrize(
    ("mode", "options", "said"),
    [
        ("hang", {}, "failed 2 times (last: no complete answer within the 1 s timeout)"),
        ("drip", {"interval": 0.2}, "no complete answer within the 1 s timeout"),
        ("huge", {"size": 500 * 1024 * 1024}, "over the 1048576-byte limit"),
        ("not-utf8", {"size": 1000}, "(1000 bytes, not UTF-8)"),
        ("redirect", {"location": "http://127.0.0.1:9/internal"}, "redirects are not followed"),
    ],
)
def test_a_misbehaving_endpoint_fails_the_job_within_its_deadlines(  # type: ignore[no-untyped-def]
    release, settings, django_capture_on_commit_callbacks, mode, options, said
) -> None:
    """GEC_LLM_TIMEOUT x (GEC_LLM_RETRIES + 1) per run, however many prompts (one at a time
    here: before, each waited out its own deadlines), with a bounded message."""
    admin, version = release
    settings.GEC_LLM_TIMEOUT, settings.GEC_LLM_RETRIES, settings.GEC_LLM_RETRY_WAIT = 1.0, 1, 0.0
    settings.GEC_LLM_CONCURRENCY = 1
    with MisbehavingServer(mode, **options) as server:
        settings.GEC_LLM_URL, settings.GEC_LLM_MODEL = server.url, "tiny-judge"
        started = time.monotonic()
        with django_capture_on_commit_callbacks(execute=True):
            services.request_judge_run(version=version, user=admin, metrics=["llm-s"])
        elapsed = time.monotonic() - started
        asked = len(server.requests)
    job = BackgroundJob.objects.get(kind=services.JOB_KIND_JUDGE)
    assert job.status == JobStatus.FAILED and said in job.message, job.message[:1000]
    assert len(job.message) < 700
    assert elapsed < 1.0 * (1 + 1) + 1.5
    assert asked <= 2  # the first prompt's two attempts; the 3 others never asked
    for score in (s.score for s in version.system_outputs.all()):
        assert "llm-s" not in score.summary["extra"]


def test_only_admins_start_a_judge_run(release, settings) -> None:  # type: ignore[no-untyped-def]
    from judgments.services import create_campaign

    admin, version = release
    settings.GEC_LLM_URL, settings.GEC_LLM_MODEL = "http://127.0.0.1:9/v1", "tiny-judge"
    judge = make_user()
    create_campaign(
        name="c", release=version, system_outputs=SYSTEMS, judges=[judge], judges_per_item=1
    )
    refused = [None, make_user(Role.ANNOTATOR), make_user(Role.REVIEWER), judge]
    for user in refused:
        web, api = Client(), APIClient()
        if user is not None:
            web.force_login(user)
            api.force_authenticate(user)
        page = web.post(f"/scoring/releases/{version.pk}/judges/")
        assert page.status_code in (302, 403)
        if page.status_code == 302:
            assert "/login" in page["Location"] or "/accounts/" in page["Location"]
        answer = api.post(f"/api/scoring/releases/{version.pk}/judges/", {}, format="json")
        assert answer.status_code in (401, 403)
    assert not BackgroundJob.objects.filter(kind=services.JOB_KIND_JUDGE).exists()

    api = APIClient()
    api.force_authenticate(admin)
    bad = api.post(
        f"/api/scoring/releases/{version.pk}/judges/", {"metrics": ["gpt"]}, format="json"
    )
    assert bad.status_code == 400
    answer = api.post(
        f"/api/scoring/releases/{version.pk}/judges/", {"metrics": ["llm-e"]}, format="json"
    )
    assert answer.status_code == 202 and answer.json()["metrics"] == ["llm-e"]
    assert BackgroundJob.objects.get(pk=answer.json()["job_id"]).kind == services.JOB_KIND_JUDGE


def test_the_judge_task_is_routed_to_the_gpu_queue() -> None:
    from celery import current_app

    from scoring.tasks import gpu_llm_judge

    route = current_app.amqp.router.route({}, gpu_llm_judge.name, args=(), kwargs={})
    assert route["queue"].name == "gpu"
