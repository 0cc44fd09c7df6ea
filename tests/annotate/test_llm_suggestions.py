"""Suggested corrections from the configured LLM, end to end: a real OpenAI-compatible server
on 127.0.0.1 (tests/annotate/correction_server.py; the library tests' misbehaving server for
garbage), the job on the default queue, the answers cleaned, cached and never duplicated, a
slow endpoint failing the job as retryable and its retry finishing; and a tiny random causal
LM built here, on the `gpu` task."""

from __future__ import annotations

from pathlib import Path

import pytest
from gecscore.weights.random_model import build_random_gpt2
from rest_framework.test import APIClient

from annotate.llm_suggestions import (
    JOB_KIND_LLM_SUGGESTIONS,
    parse_answer,
    request_llm_suggestions,
    run_llm_suggestions,
)
from annotate.models import Assignment, LLMSuggestionCache, Suggestion
from core.jobs import retry_job
from core.models import BackgroundJob, JobStatus
from core.roles import Role
from tests.annotate.correction_server import CorrectionServer
from tests.annotate.workflow import make_world
from tests.factories import make_dataset, make_user
from tests.scoring_app.llm_servers import MisbehavingServer

pytestmark = [pytest.mark.django_db]

SOURCES = [
    "我昨天去了图书馆借书了三本。",
    "他对中国的历史很感兴趣的。",
    "我们应该要保护环境。",
    "因为在冰箱里没什么东西也做很好吃的菜。",
    "这个句子没有错误。",
]
CORRECTIONS = [
    "我昨天去图书馆借了三本书。",
    "他对中国的历史很感兴趣。",
    "我们应该保护环境。",
    "即使冰箱里没什么东西也能做很好吃的菜。",
    "这个句子没有错误。",
]


@pytest.fixture
def llm(settings):  # type: ignore[no-untyped-def]
    settings.GEC_LLM_TIMEOUT, settings.GEC_LLM_RETRIES, settings.GEC_LLM_RETRY_WAIT = 5.0, 1, 0.0
    settings.GEC_LLM_CONCURRENCY = 4
    return settings


def _configure(settings, url: str, model: str = "tiny-corrector") -> None:  # type: ignore[no-untyped-def]
    settings.GEC_LLM_URL, settings.GEC_LLM_MODEL = url, model


def test_answers_are_cleaned_and_garbage_is_no_suggestion() -> None:
    source = SOURCES[0]
    fixed = CORRECTIONS[0]
    assert parse_answer(f"```\n{fixed}\n```", source) == fixed
    assert parse_answer(f"```text\n{fixed}\n```", source) == fixed
    assert parse_answer(f"“{fixed}”", source) == fixed
    assert parse_answer(f'"{fixed}"', source) == fixed
    assert parse_answer(f"改正后：{fixed}", source) == fixed
    assert parse_answer(f"Corrected sentence: 「{fixed}」", source) == fixed
    assert parse_answer(f"  {source}  ", source) == source  # "no error" is an answer
    for garbage in (
        "",
        "   ",
        "```\n```",
        f"The sentence has errors.\n{fixed}",
        "Sorry, I cannot help with that request today.",
        fixed * 5,
        f"{fixed}\u200b",
    ):
        assert parse_answer(garbage, source) is None, garbage


def test_llm_suggestions_over_http_end_to_end(llm, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    world = make_world(sentences=SOURCES)
    answers = {
        SOURCES[0]: f"```\n{CORRECTIONS[0]}\n```",
        SOURCES[1]: f"“{CORRECTIONS[1]}”",
        SOURCES[2]: f"改正后：{CORRECTIONS[2]}",
        SOURCES[3]: "I am not sure what you mean.\nCould you give more context?",
        SOURCES[4]: CORRECTIONS[4],
    }
    with CorrectionServer(answers) as server:
        _configure(llm, server.url)
        api = APIClient()
        api.force_authenticate(world.admin)
        with django_capture_on_commit_callbacks(execute=True):
            response = api.post(
                f"/api/scoring/projects/{world.dataset.name}/suggestions/",
                {"source": "llm", "blind_share": 0.4, "seed": 2},
                format="json",
            )
        assert response.status_code == 202, response.content
        job = BackgroundJob.objects.get(pk=response.json()["job_id"])
        assert job.kind == JOB_KIND_LLM_SUGGESTIONS
        assert job.task_name == "annotate.llm_suggestions"  # an endpoint: the default queue
        assert job.status == JobStatus.DONE, job.message
        assert (job.done, job.total) == (5, 5)
        assert job.result["suggested"] == 4 and job.result["unsuggested"] == 1
        assert job.result["signature"] == "llm:tiny-corrector|prompt:zh-v1|backend:http"
        assert job.result["blind"] == 3 * 2  # round(0.4 x 5) per annotator
        assert set(server.models) == {"tiny-corrector"}
        stored = dict(
            Suggestion.objects.filter(sentence__dataset=world.dataset).values_list(
                "sentence__text", "text"
            )
        )
        assert stored == {
            s: c for s, c in zip(SOURCES, CORRECTIONS, strict=True) if s != SOURCES[3]
        }
        world.dataset.refresh_from_db()
        assert world.dataset.suggestion_source == "llm:tiny-corrector"

        # Again: the cache answers all but the garbled one, and no row is duplicated.
        asked = len(server.asked)
        run = run_llm_suggestions(dataset_id=world.dataset.pk)
        assert server.asked[asked:] == [SOURCES[3]]
        assert (run.suggested, run.unsuggested) == (4, 1)
        assert Suggestion.objects.filter(sentence__dataset=world.dataset).count() == 4
        assert LLMSuggestionCache.objects.count() == 4
        assert Assignment.objects.filter(blind=True).count() == 6  # no share: left as drawn


def test_a_slow_endpoint_fails_the_job_as_retryable_and_the_retry_finishes(  # type: ignore[no-untyped-def]
    llm, django_capture_on_commit_callbacks
) -> None:
    llm.GEC_LLM_TIMEOUT = 1.0
    dataset = make_dataset(sentences=SOURCES)
    admin = make_user(Role.ADMIN)
    answers = dict(zip(SOURCES, CORRECTIONS, strict=True))
    # Sentence 3 answers after the deadline twice: the first attempt and its one retry.
    with CorrectionServer(answers, slow={SOURCES[2]: 2}, slow_seconds=2.5) as server:
        _configure(llm, server.url)
        with django_capture_on_commit_callbacks(execute=True):
            job = request_llm_suggestions(dataset=dataset, user=admin)
        job.refresh_from_db()
        assert job.status == JobStatus.FAILED and job.retryable
        assert "timeout" in job.message and len(job.message) < 600
        assert not Suggestion.objects.exists()
        # What did answer is cached, so the retry asks only the slow sentence again.
        assert LLMSuggestionCache.objects.count() == 4
        asked = len(server.asked)
        with django_capture_on_commit_callbacks(execute=True):
            retry_job(job_id=job.pk, user=admin)
        job.refresh_from_db()
        assert job.status == JobStatus.DONE, job.message
        assert server.asked[asked:] == [SOURCES[2]]
        assert job.result["suggested"] == 5
        assert Suggestion.objects.filter(sentence__dataset=dataset).count() == 5


def test_an_endpoint_answering_garbage_gives_no_suggestions_not_a_crash(llm) -> None:  # type: ignore[no-untyped-def]
    dataset = make_dataset(sentences=SOURCES[:3])
    with MisbehavingServer("good", answer="Here you go:\n\n1. fixed\n2. also fixed") as server:
        _configure(llm, server.url)
        run = run_llm_suggestions(dataset_id=dataset.pk)
    assert (run.suggested, run.unsuggested) == (0, 3)
    assert len(server.requests) == 3
    assert not Suggestion.objects.exists() and not LLMSuggestionCache.objects.exists()


def test_english_sentences_get_the_english_prompt(llm) -> None:  # type: ignore[no-untyped-def]
    dataset = make_dataset(sentences=["She have two cat ."], language="en")
    with CorrectionServer({"She have two cat .": '"She has two cats ."'}) as server:
        _configure(llm, server.url)
        run = run_llm_suggestions(dataset_id=dataset.pk)
    assert run.signature == "llm:tiny-corrector|prompt:en-v1|backend:http"
    assert dataset.sentences.get().suggestions.get().text == "She has two cats ."


def test_a_tiny_random_causal_lm_runs_on_the_gpu_task(  # type: ignore[no-untyped-def]
    llm, tmp_path: Path, django_capture_on_commit_callbacks
) -> None:
    from celery import current_app

    from annotate.tasks import gpu_llm_suggestions

    folder = build_random_gpt2(
        tmp_path / "tiny-lm", SOURCES + CORRECTIONS, seed=5, n_positions=1024
    )
    llm.GEC_LLM_URL, llm.GEC_LLM_MODEL, llm.GEC_BERT_DEVICE = "", str(folder), "cpu"
    dataset = make_dataset(sentences=SOURCES[:2])
    with django_capture_on_commit_callbacks(execute=True):
        job = request_llm_suggestions(dataset=dataset, user=make_user(Role.ADMIN))
    job.refresh_from_db()
    assert job.task_name == "annotate.gpu_llm_suggestions"
    route = current_app.amqp.router.route({}, gpu_llm_suggestions.name, args=(), kwargs={})
    assert route["queue"].name == "gpu"
    assert job.status == JobStatus.DONE, job.message
    # A random model writes no usable correction; what it writes is parsed, never trusted.
    assert job.result["suggested"] + job.result["unsuggested"] == 2
    assert job.result["signature"].startswith("llm:tiny-lm|prompt:zh-v1|backend:hf|model:tiny-lm@")
    for suggestion in Suggestion.objects.all():
        assert parse_answer(suggestion.text, suggestion.sentence.text) == suggestion.text


def test_a_bad_share_or_seed_is_refused_before_the_job_is_queued(llm) -> None:  # type: ignore[no-untyped-def]
    from core.exceptions import ServiceError

    _configure(llm, "http://127.0.0.1:9/v1")
    dataset = make_dataset(sentences=SOURCES[:1])
    admin = make_user(Role.ADMIN)
    with pytest.raises(ServiceError, match="seed must be a whole number"):
        request_llm_suggestions(dataset=dataset, user=admin, seed="seven")
    with pytest.raises(ServiceError, match=r"blind share must be in \[0, 1\)"):
        request_llm_suggestions(dataset=dataset, user=admin, blind_share=1)
    assert not BackgroundJob.objects.exists()
