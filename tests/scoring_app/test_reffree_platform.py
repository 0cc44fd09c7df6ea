"""The reference-free metrics on the platform: offered when configured, run by the `gpu` queue's
task on tiny random models, stored beside the other metrics and listed by the meta-evaluation
catalogue with the library's own numbers."""

from __future__ import annotations

from pathlib import Path

import pytest
from gecscore.weights.random_model import build_random_bert, build_random_gpt2

from core.exceptions import ServiceError
from core.models import BackgroundJob, JobStatus
from core.roles import Role
from datasets.formats import ImportFile
from datasets.models import Dataset
from datasets.services.imports import import_dataset
from datasets.services.releases import release_dataset
from gecscore import get_metric
from scoring import services
from scoring.services.meta.catalogue import available_metrics, stored_metric_scores
from tests.factories import make_user

pytestmark = [pytest.mark.django_db]

SOURCES = ["He go to school every days .", "She have two cat .", "This is fine ."]
REFS = ["He goes to school every day .", "She has two cats .", "This is fine ."]
HYPS = ["He goes to school every days .", "She have two cats .", "This is fine ."]


def _lines(lines: list[str]) -> bytes:
    return "".join(f"{line}\n" for line in lines).encode()


@pytest.fixture
def scored(tmp_path: Path):  # type: ignore[no-untyped-def]
    admin = make_user(Role.ADMIN)
    import_dataset(
        name="tiny-en",
        fmt="parallel",
        language="en",
        user=admin,
        source_name="tiny",
        files=[ImportFile("src", _lines(SOURCES)), ImportFile("ref0", _lines(REFS))],
    )
    version = release_dataset(dataset=Dataset.objects.get(name="tiny-en"), user=admin)
    system = services.upload_system_output(
        version=version, name="sys", data=_lines(HYPS), file_name="sys", user=admin
    )
    score = services.score_now(system=system, user=admin)
    assert score.status == "done", score.error
    return admin, version, system, score


def test_reference_free_metrics_run_on_the_gpu_task_when_configured(  # type: ignore[no-untyped-def]
    scored, settings, tmp_path: Path, django_capture_on_commit_callbacks, client
) -> None:
    admin, version, system, score = scored
    client.force_login(admin)
    page = f"/scoring/systems/{system.pk}/"
    settings.GEC_WEIGHT_CACHE_DIR = tmp_path / "cache"
    settings.GEC_BERT_DEVICE = "cpu"
    for name in ("GEC_SOME_MODEL_G", "GEC_SOME_MODEL_F", "GEC_SOME_MODEL_M"):
        setattr(settings, name, "")
    settings.GEC_IMPARA_MODEL_QE = settings.GEC_IMPARA_MODEL_SE = ""
    settings.GEC_SCRIBENDI_MODEL = ""
    assert services.configured_reffree_metrics() == []
    assert 'data-testid="reffree"' not in client.get(page).content.decode()
    with pytest.raises(ServiceError, match="GEC_SCRIBENDI_MODEL"):
        services.request_reffree_scoring(system=system, user=None)

    texts = SOURCES + HYPS
    settings.GEC_SCRIBENDI_MODEL = str(build_random_gpt2(tmp_path / "gpt2", texts, seed=3))
    settings.GEC_IMPARA_MODEL_QE = str(
        build_random_bert(tmp_path / "qe", texts, seed=4, head="regression")
    )
    with pytest.raises(ServiceError, match="GEC_IMPARA_MODEL_SE"):
        services.request_reffree_scoring(system=system, user=None, metrics=["impara"])
    settings.GEC_IMPARA_MODEL_SE = str(build_random_bert(tmp_path / "se", texts, seed=5))
    assert services.configured_reffree_metrics() == ["impara", "scribendi"]

    shown = client.get(page).content.decode()
    assert "Reference-free scores (impara, scribendi)" in shown
    with django_capture_on_commit_callbacks(execute=True):
        posted = client.post(f"/scoring/systems/{system.pk}/reffree/")
    assert posted.status_code == 302
    job = BackgroundJob.objects.get(kind=services.JOB_KIND_REFFREE)
    assert job.status == JobStatus.DONE and job.params["metrics"] == ["impara", "scribendi"]
    score.refresh_from_db()
    extra = score.summary["extra"]
    assert "m2" in extra and "ptm2" not in extra  # the other extras are kept
    for name, models in (
        (
            "impara",
            {"model_qe": settings.GEC_IMPARA_MODEL_QE, "model_se": settings.GEC_IMPARA_MODEL_SE},
        ),
        ("scribendi", {"model": settings.GEC_SCRIBENDI_MODEL}),
    ):
        Metric = get_metric(name)
        config = Metric.Config(**models, device="cpu")  # type: ignore[call-arg]
        expected = Metric(config).score_corpus(SOURCES, HYPS)
        assert extra[name] == {
            "score": expected.score,
            "signature": expected.signature,
            "sentences": [s.score for s in expected.sentences],
        }

    # SOME (three regressors), queued directly for itself: the other entries stay.
    for seed, aspect in enumerate("GFM", start=6):
        folder = build_random_bert(tmp_path / aspect, texts, seed=seed, head="regression")
        setattr(settings, f"GEC_SOME_MODEL_{aspect}", str(folder))
    score = services.run_reffree_scoring(score_id=score.pk, metrics=["some"])
    extra = score.summary["extra"]
    SOME = get_metric("some")
    some_config = SOME.Config(  # type: ignore[call-arg]
        model_g=settings.GEC_SOME_MODEL_G,
        model_f=settings.GEC_SOME_MODEL_F,
        model_m=settings.GEC_SOME_MODEL_M,
        device="cpu",
    )
    expected = SOME(some_config).score_corpus(SOURCES, HYPS)
    assert extra["some"] == {
        "score": expected.score,
        "signature": expected.signature,
        "sentences": [s.score for s in expected.sentences],
    }
    assert {"impara", "scribendi", "m2"} <= set(extra)

    shown = client.get(page).content.decode()
    assert 'data-testid="reffree-metrics"' in shown and extra["scribendi"]["signature"] in shown
    keys = [choice.key for choice in available_metrics(version)]
    assert {"some", "impara", "scribendi"} <= set(keys)
    values, signatures = stored_metric_scores(version, ["scribendi"])
    assert values["scribendi"] == {"sys": extra["scribendi"]["score"]}
    assert signatures["scribendi"] == [extra["scribendi"]["signature"]]


def test_the_task_is_routed_to_the_gpu_queue(settings) -> None:  # type: ignore[no-untyped-def]
    from celery import current_app

    from scoring.tasks import gpu_reffree_score

    router = current_app.amqp.router
    route = router.route({}, gpu_reffree_score.name, args=(), kwargs={})
    assert route["queue"].name == "gpu"
