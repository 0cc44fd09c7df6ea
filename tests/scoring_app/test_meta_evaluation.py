"""The platform's meta-evaluation of a release: stored metric scores of systems
scored through the real scoring service, correlated with uploaded human system scores.

The expected numbers are the metric library's own (`system_report`) on the values read
straight from the stored SystemScore rows, so the service must add nothing of its own."""

from __future__ import annotations

import gzip
import re
from typing import Any

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from gecscore.meta.report import system_report
from rest_framework.test import APIClient

from core.exceptions import ServiceError
from core.models import BackgroundJob, JobStatus
from core.roles import Role
from datasets.models import GoldenReference, ReferenceKind, ReferenceOrigin
from datasets.services.releases import release_dataset
from scoring import services
from scoring.models import (
    HumanScoreLayout,
    HumanSystemScores,
    MetaEvaluation,
    ScoreStatus,
    SystemOutput,
    SystemScore,
)
from scoring.services import meta
from tests.factories import PASSWORD, make_dataset, make_user

pytestmark = pytest.mark.django_db

SENTENCES = [
    "我很喜欢吃平果",
    "他是一个好学升",
    "今天天气很好",
    "我们明天去公圆玩",
    "这个问题很复杂的",
    "她每天都跑部",
]
REFERENCES = [
    "我很喜欢吃苹果",
    "他是一个好学生",
    "今天天气很好",
    "我们明天去公园玩",
    "这个问题很复杂",
    "她每天都跑步",
]
# Seven systems of different quality (corrections, misses and false positives), so the
# metrics differ from one another and from the human order.
OUTPUTS = {
    "alpha": REFERENCES,
    "beta": [
        "我很喜欢吃苹果",
        "他是一个好学生",
        "今天天气很好。",
        "我们明天去公圆玩",
        "这个问题很复杂",
        "她每天都跑部",
    ],
    "gamma": [
        "我很喜欢吃苹果",
        "他是一个好学升",
        "今天的天气很好",
        "我们明天去公圆玩",
        "这个问题很复杂的",
        "她每天都跑步",
    ],
    "delta": [
        "我很喜欢吃平果",
        "他是一个学生",
        "今天天气很好",
        "我们明天去公园玩",
        "这个问题非常复杂的",
        "她每天都跑部",
    ],
    "epsilon": SENTENCES,
    "zeta": [
        "我很喜欢吃苹果",
        "他是一个好学升",
        "今天天气很好",
        "我们明天去公园玩",
        "这个问题很复杂的",
        "她每天都跑部",
    ],
    "eta": [
        "我很喜欢吃苹果",
        "他是一个好学生们",
        "今天天气非常好",
        "我们明天去公园玩耍",
        "这个问题很复杂",
        "他每天都跑步",
    ],
}
# Human scores in the WMT layout; INPUT has no output on the release and is left out.
HUMAN = {
    "alpha": 0.91,
    "beta": 0.42,
    "gamma": 0.55,
    "delta": -0.3,
    "epsilon": -0.62,
    "zeta": 0.12,
    "eta": 0.2,
    "INPUT": -0.8,
}
SYSTEMS = sorted(OUTPUTS)
METRICS = ["f05", "p", "cleme", "cleme2"]
BOOTSTRAP = 200


def _wmt(scores: dict[str, float]) -> bytes:
    return "".join(f"HUMAN\tzh\ttest\t{s}\t{v}\n" for s, v in scores.items()).encode()


def scored_release(
    sentences: list[str], references: list[str], outputs: dict[str, list[str]]
) -> Any:
    """A release of `sentences` (one reference each) with every output uploaded and scored."""
    dataset = make_dataset(sentences=sentences, source_name="hsk")
    for sentence, ref in zip(dataset.sentences.order_by("position"), references, strict=True):
        GoldenReference.objects.create(
            sentence=sentence,
            position=0,
            text=ref,
            kind=ReferenceKind.ERROR_FREE if ref == sentence.text else ReferenceKind.CORRECTION,
            origin=ReferenceOrigin.IMPORTED,
        )
    version = release_dataset(dataset=dataset)
    for name, hypotheses in outputs.items():
        system = services.upload_system_output(
            version=version,
            name=name,
            data="".join(f"{h}\n" for h in hypotheses).encode(),
            file_name=f"{name}.txt",
            user=None,
            file_format="lines",
        )
        assert services.score_now(system=system).status == ScoreStatus.DONE
    return version


@pytest.fixture
def release():  # type: ignore[no-untyped-def]
    return scored_release(SENTENCES, REFERENCES, OUTPUTS)


@pytest.fixture
def human(release):  # type: ignore[no-untyped-def]
    return meta.upload_human_scores(
        version=release, name="ew", data=_wmt(HUMAN), file_name="human.tsv", user=None
    )


def _stored(release, key: str) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """The metric as the leaderboard shows it, read straight from the rows."""
    out = {}
    for score in SystemScore.objects.filter(system__version=release):
        extra = score.summary["extra"]
        out[score.system.name] = {
            "f05": score.f05,
            "p": score.p,
            "cleme": extra["cleme"]["f05"],
            "cleme2": extra["cleme2"]["score"],
        }[key]
    return out


def _run(release, human, **kw: Any) -> MetaEvaluation:  # type: ignore[no-untyped-def]
    evaluation = meta.request_meta_evaluation(
        version=release,
        user=None,
        metrics=kw.pop("metrics", METRICS),
        human_scores=human,
        bootstrap=kw.pop("bootstrap", BOOTSTRAP),
        queue=False,
        **kw,
    )
    return meta.run_meta_evaluation(
        evaluation_id=evaluation.pk, job_id=evaluation.background_job_id
    )


def test_service_gives_the_library_numbers_on_the_stored_scores(release, human) -> None:  # type: ignore[no-untyped-def]
    evaluation = _run(release, human, window=3)
    assert evaluation.status == ScoreStatus.DONE, evaluation.error
    systems = SYSTEMS
    assert evaluation.systems == systems  # INPUT has no output on the release
    metric_scores = {key: _stored(release, key) for key in METRICS}
    # The metrics must really differ, or the comparison would prove little.
    assert len({tuple(sorted(v.values())) for v in metric_scores.values()}) == len(METRICS)
    expected = system_report(
        HUMAN,
        metric_scores,
        systems,
        run_williams=True,
        bootstrap=BOOTSTRAP,
        seed=0,
        window=3,
    )
    report = evaluation.report
    for key in METRICS:
        got, want = report["metrics"][key], expected["metrics"][key]
        assert got["pearson"] == pytest.approx(want["pearson"], abs=1e-12), key
        assert got["spearman"] == pytest.approx(want["spearman"], abs=1e-12), key
        assert got["pearson_ci"] == pytest.approx(want["pearson_ci"], abs=1e-12), key
        assert got["spearman_ci"] == pytest.approx(want["spearman_ci"], abs=1e-12), key
        assert [(w["from"], w["to"], w["systems"]) for w in got["window"]] == [
            (w["from"], w["to"], w["systems"]) for w in want["window"]
        ]
        assert [w["pearson"] for w in got["window"]] == pytest.approx(
            [w["pearson"] for w in want["window"]], abs=1e-12
        )
        for other in METRICS:
            if other != key:
                assert got_or_none(report["williams"][key][other]) == pytest.approx(
                    got_or_none(expected["williams"][key][other]), abs=1e-12
                ), (key, other)
    best = max(METRICS, key=lambda k: abs(expected["metrics"][k]["pearson"]))
    assert report["best"] == best
    for key in METRICS:
        vs_best = report["metrics"][key]["williams_vs_best"]
        assert vs_best == (None if key == best else expected["williams"][best][key])
    assert report["metric_scores"] == {
        k: {s: metric_scores[k][s] for s in systems} for k in METRICS
    }
    assert evaluation.human == HUMAN


def got_or_none(value: float | None) -> float:
    return -1.0 if value is None else value


def test_every_metric_used_keeps_the_signatures_of_its_stored_scores(release, human) -> None:  # type: ignore[no-untyped-def]
    evaluation = _run(release, human, metrics=["f05", "cleme", "detection"])
    scores = list(SystemScore.objects.filter(system__version=release))
    assert evaluation.signatures["f05"] == sorted({s.signature for s in scores})
    assert evaluation.signatures["cleme"] == sorted(
        {s.summary["extra"]["cleme"]["signature"] for s in scores}
    )
    # The main signature with its mode changed: one `mode=` key, not a second one appended.
    assert evaluation.signatures["detection"] == [
        scores[0].signature.replace("|mode=correction|", "|mode=ds|")
    ]
    assert evaluation.signatures["detection"][0].count("mode=") == 1
    assert "cherrant-f0.5" in evaluation.signatures["f05"][0]
    assert evaluation.human_label.startswith("uploaded: ew")


def test_available_metrics_lists_what_the_stored_scores_carry(release) -> None:  # type: ignore[no-untyped-def]
    choices = {c.key: c for c in meta.available_metrics(release)}
    assert {"f05", "p", "r", "detection", "cleme", "cleme2"} <= set(choices)
    assert choices["f05"].label == "ChERRANT F0.5 (char)" and choices["f05"].systems == len(OUTPUTS)
    assert "ptm2" not in choices  # PT-M2 was never run on these outputs
    # A weighted metric stored later under "extra" (as the gpu queue does) is offered too.
    score = SystemScore.objects.get(system__name="alpha")
    score.summary = {
        **score.summary,
        "extra": {**score.summary["extra"], "ptm2": {"f05": 0.7, "signature": "ptm2|x"}},
    }
    score.save()
    assert meta.available_metrics(release)[-1].key == "ptm2"


def test_job_reports_progress_to_the_end(release, human) -> None:  # type: ignore[no-untyped-def]
    evaluation = _run(release, human)
    job = BackgroundJob.objects.get(pk=evaluation.background_job_id or 0)
    assert job.kind == meta.JOB_KIND_META and job.status == JobStatus.DONE
    assert job.total == len(METRICS) + 2 and job.done == job.total
    assert job.result["evaluation"] == evaluation.pk and job.result["systems"] == len(OUTPUTS)
    assert job.result["best"] == evaluation.report["best"]


def test_a_queued_run_goes_through_the_celery_task(
    release: Any, human: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        evaluation = meta.request_meta_evaluation(
            version=release, user=None, metrics=["f05"], human_scores=human, bootstrap=10
        )
    evaluation.refresh_from_db()
    assert evaluation.status == ScoreStatus.DONE
    assert evaluation.report["metrics"]["f05"]["pearson"] is not None


def test_rerun_replaces_the_report(release, human) -> None:  # type: ignore[no-untyped-def]
    evaluation = _run(release, human, metrics=["f05"])
    first = evaluation.report
    again = meta.run_meta_evaluation(evaluation_id=evaluation.pk)
    assert again.report == first and MetaEvaluation.objects.count() == 1


def test_seeda_layout_is_read_in_the_ascii_order_of_the_release_systems(release) -> None:  # type: ignore[no-untyped-def]
    # alpha, beta, delta, epsilon, eta, gamma, zeta
    data = gzip.compress(b"0.9\n0.4\n-0.3\n-0.6\n0.2\n0.5\n0.1\n")
    human = meta.upload_human_scores(
        version=release, name="", data=data, file_name="TS_sent.txt.gz", user=None
    )
    assert human.name == "TS_sent" and human.layout == HumanScoreLayout.SEEDA
    assert human.scores == {
        "alpha": 0.9,
        "beta": 0.4,
        "delta": -0.3,
        "epsilon": -0.6,
        "eta": 0.2,
        "gamma": 0.5,
        "zeta": 0.1,
    }


def test_bad_human_files_give_the_line_and_store_nothing(release) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ServiceError, match=r"bad\.tsv, line 2: score 'x' is not a number"):
        meta.upload_human_scores(
            version=release,
            name="bad",
            data=b"H\tzh\tt\talpha\t0.1\nH\tzh\tt\tbeta\tx\n",
            file_name="bad.tsv",
            user=None,
        )
    with pytest.raises(ServiceError, match="one per system in order"):
        meta.upload_human_scores(
            version=release, name="short", data=b"0.1\n0.2\n", file_name="s.txt", user=None
        )
    with pytest.raises(ServiceError, match="the score of beta is not a finite number"):
        meta.upload_human_scores(
            version=release,
            name="inf",
            data=_wmt({"alpha": 0.5, "beta": float("inf")}),
            file_name="inf.tsv",
            user=None,
        )
    with pytest.raises(ServiceError, match="none of its systems"):
        meta.upload_human_scores(
            version=release, name="other", data=_wmt({"x": 1.0}), file_name="o.tsv", user=None
        )
    assert not HumanSystemScores.objects.exists()


def test_too_few_common_systems_fail_with_a_clear_message(release) -> None:  # type: ignore[no-untyped-def]
    human = meta.upload_human_scores(
        version=release,
        name="two",
        data=_wmt({"alpha": 1.0, "beta": 0.5, "INPUT": 0.0}),
        file_name="two.tsv",
        user=None,
    )
    evaluation = _run(release, human, metrics=["f05"])
    assert evaluation.status == ScoreStatus.FAILED
    assert "only 2 system(s) have both a human score and every chosen metric" in evaluation.error
    job = BackgroundJob.objects.get(pk=evaluation.background_job_id or 0)
    assert job.status == JobStatus.FAILED and "at least 3 are needed" in job.message


def test_request_checks_metrics_and_human_source(release, human) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ServiceError, match="carries gleu"):
        meta.request_meta_evaluation(
            version=release, user=None, metrics=["gleu"], human_scores=human
        )
    with pytest.raises(ServiceError, match="pick at least one metric"):
        meta.request_meta_evaluation(version=release, user=None, metrics=[], human_scores=human)
    with pytest.raises(ServiceError, match="choose one human source"):
        meta.request_meta_evaluation(version=release, user=None, metrics=["f05"])
    assert not MetaEvaluation.objects.exists()


# --- pages and API ---------------------------------------------------------------------------


def _client(*roles: Role) -> Client:
    client = Client()
    user = make_user(*roles)
    assert client.login(username=user.username, password=PASSWORD)
    return client


def test_meta_page_and_endpoints_are_for_admins_only(client, release, human) -> None:  # type: ignore[no-untyped-def]
    page = reverse("scoring:meta-evaluation", args=[release.pk])
    upload = reverse("scoring:meta-human-upload", args=[release.pk])
    assert client.get(page).status_code == 302  # anonymous: to the login page
    for role in (Role.ANNOTATOR, Role.REVIEWER):
        other = _client(role)
        assert other.get(page).status_code == 403
        assert (
            other.post(page, {"metrics": "f05", "human": f"upload:{human.pk}"}).status_code == 403
        )
        assert (
            other.post(upload, {"file": SimpleUploadedFile("h.tsv", _wmt(HUMAN))}).status_code
            == 403
        )
    assert not MetaEvaluation.objects.exists()
    api = APIClient()
    api.force_authenticate(make_user(Role.REVIEWER))
    assert api.get(reverse("scoring:api-meta-evaluations", args=[release.pk])).status_code == 403
    assert (
        api.post(
            reverse("scoring:api-meta-evaluations", args=[release.pk]),
            {"metrics": ["f05"], "human_scores": human.pk},
            format="json",
        ).status_code
        == 403
    )
    assert api.get(reverse("scoring:api-meta-evaluation", args=[1])).status_code == 403
    assert (
        api.post(
            reverse("scoring:api-human-scores", args=[release.pk]),
            {"file": SimpleUploadedFile("h.tsv", _wmt(HUMAN))},
            format="multipart",
        ).status_code
        == 403
    )
    assert _client(Role.ADMIN).get(page).status_code == 200


def test_admin_uploads_runs_and_sees_table_scatters_and_window_chart(
    release: Any, django_capture_on_commit_callbacks: Any
) -> None:
    client = _client(Role.ADMIN)
    url = reverse("scoring:meta-evaluation", args=[release.pk])
    response = client.post(
        reverse("scoring:meta-human-upload", args=[release.pk]),
        {"name": "EW", "file": SimpleUploadedFile("human.tsv", _wmt(HUMAN))},
        follow=True,
    )
    assert f"human scores EW stored ({len(HUMAN)} systems)" in response.content.decode()
    human = HumanSystemScores.objects.get(name="EW")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            url,
            {"metrics": ["f05", "cleme"], "human": f"upload:{human.pk}", "bootstrap": "50"},
        )
    evaluation = MetaEvaluation.objects.get()
    assert response.status_code == 302 and response["Location"] == f"{url}?run={evaluation.pk}"
    html = client.get(response["Location"]).content.decode()
    assert html.count('data-testid="meta-row"') == 2
    assert html.count('data-testid="scatter"') == 2
    assert html.count('class="point"') == 2 * len(OUTPUTS)
    assert 'data-testid="window-chart"><svg' in html
    assert f"{evaluation.report['metrics']['f05']['pearson']:.3f}" in html
    assert "cherrant-f0.5" in html  # the signature is shown
    assert f"Only {len(OUTPUTS)} systems" in html
    # The Content-Security-Policy forbids inline code and styles.
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html)
    assert " style=" not in html and "<style" not in html


def test_cleme_signatures_differing_only_in_the_measured_b_are_not_mixed_settings() -> None:
    """CLEME's length bias b is measured from each system's chunks, so systems
    scored the same way carry different signatures; the page must not call that mixed."""
    version = scored_release(
        SENTENCES[:4],
        REFERENCES[:4],
        {
            "plain": REFERENCES[:4],
            # 平果 -> 苹子 overlaps the reference's 平 -> 苹 and widens its chunk to two characters.
            "longer": ["我很喜欢吃苹子", *REFERENCES[1:4]],
            "none": SENTENCES[:4],
        },
    )
    human = meta.upload_human_scores(
        version=version,
        name="ew",
        data=_wmt({"plain": 0.9, "longer": 0.5, "none": -0.4}),
        file_name="human.tsv",
        user=None,
    )
    evaluation = _run(version, human, metrics=["cleme"], bootstrap=20)
    assert len(evaluation.signatures["cleme"]) == 2  # b differs between the systems
    client = _client(Role.ADMIN)
    url = reverse("scoring:meta-evaluation", args=[version.pk])
    html = client.get(f"{url}?run={evaluation.pk}").content.decode()
    assert 'data-testid="meta-row"' in html
    assert "mixed settings" not in html
    assert 'data-testid="measured-per-system"' in html and "b=*" in html
    # Intervals over 3 systems come with a caveat (the 7-system run too, below).
    assert 'data-testid="few-systems"' in html and "Only 3 systems" in html


def test_a_run_read_as_running_polls_its_job_even_when_the_job_ended_since(
    release: Any, human: Any
) -> None:
    """The worker can finish a run and then its job between the page's read of the run and
    its read of the job: the page saw a running run and a finished job, showed neither the
    table nor a progress box, and stayed so (a browser walk waited for the table in vain).
    A run still queued or running polls its job, which reloads the page on the finished run."""
    client = _client(Role.ADMIN)
    url = reverse("scoring:meta-evaluation", args=[release.pk])
    evaluation = _run(release, human, metrics=["f05"], bootstrap=20)
    job = BackgroundJob.objects.create(kind="scoring.meta", status=JobStatus.DONE)
    MetaEvaluation.objects.filter(pk=evaluation.pk).update(
        status=ScoreStatus.RUNNING, background_job_id=job.pk
    )
    html = client.get(f"{url}?run={evaluation.pk}").content.decode()
    assert 'data-testid="job"' in html and f'data-job-url="/jobs/{job.pk}/"' in html
    assert f'data-done-url="{url}?run={evaluation.pk}"' in html
    MetaEvaluation.objects.filter(pk=evaluation.pk).update(status=ScoreStatus.DONE)
    html = client.get(f"{url}?run={evaluation.pk}").content.decode()
    assert 'data-testid="job"' not in html and 'data-testid="meta-table"' in html


def test_page_shows_a_bad_request_as_a_message(release, human) -> None:  # type: ignore[no-untyped-def]
    client = _client(Role.ADMIN)
    url = reverse("scoring:meta-evaluation", args=[release.pk])
    response = client.post(url, {"human": f"upload:{human.pk}"}, follow=True)
    assert "pick at least one metric" in response.content.decode()
    response = client.post(
        url, {"metrics": "f05", "human": f"upload:{human.pk}", "window": "x"}, follow=True
    )
    assert "window must be a whole number" in response.content.decode()
    assert not MetaEvaluation.objects.exists()


def test_api_uploads_human_scores_runs_with_wait_and_reads_the_result(release) -> None:  # type: ignore[no-untyped-def]
    api = APIClient()
    api.force_authenticate(make_user(Role.ADMIN))
    uploaded = api.post(
        reverse("scoring:api-human-scores", args=[release.pk]),
        {"name": "ts", "file": SimpleUploadedFile("ts.tsv", _wmt(HUMAN))},
        format="multipart",
    )
    assert uploaded.status_code == 201, uploaded.content
    listing = api.get(reverse("scoring:api-meta-evaluations", args=[release.pk])).json()
    assert "cleme2" in {m["key"] for m in listing["metrics"]}
    assert listing["human_scores"][0]["scores"]["alpha"] == 0.91
    response = api.post(
        reverse("scoring:api-meta-evaluations", args=[release.pk]),
        {"metrics": ["f05", "r"], "human_scores": uploaded.json()["id"], "wait": True},
        format="json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "done" and body["systems"] == SYSTEMS
    assert set(body["report"]["metrics"]) == {"f05", "r"}
    assert set(body["signatures"]) == {"f05", "r"}
    detail = api.get(reverse("scoring:api-meta-evaluation", args=[body["id"]])).json()
    assert detail["report"] == body["report"]
    bad = api.post(
        reverse("scoring:api-meta-evaluations", args=[release.pk]),
        {"metrics": ["nope"], "human_scores": uploaded.json()["id"]},
        format="json",
    )
    assert bad.status_code == 400 and "nope" in bad.json()["detail"]


def test_system_outputs_of_another_release_do_not_leak_in(release, human) -> None:  # type: ignore[no-untyped-def]
    other = make_dataset(sentences=SENTENCES[:2])
    for sentence, ref in zip(other.sentences.order_by("position"), REFERENCES[:2], strict=True):
        GoldenReference.objects.create(
            sentence=sentence,
            position=0,
            text=ref,
            kind=ReferenceKind.CORRECTION,
            origin=ReferenceOrigin.IMPORTED,
        )
    other_release = release_dataset(dataset=other)
    stranger = services.upload_system_output(
        version=other_release,
        name="INPUT",  # a name the human file scores, but on another release
        data="".join(f"{h}\n" for h in SENTENCES[:2]).encode(),
        file_name="input.txt",
        user=None,
        file_format="lines",
    )
    assert services.score_now(system=stranger).status == ScoreStatus.DONE
    evaluation = _run(release, human, metrics=["f05"])
    assert set(evaluation.report["metric_scores"]["f05"]) == set(OUTPUTS)
    assert "INPUT" not in evaluation.systems


# --- human side (b): a judgments campaign on the release -------------------------------------


def _judged_campaign(release, admin=None, name="meta-campaign"):  # type: ignore[no-untyped-def]
    """A campaign over the release's seven outputs (created by `admin`, a new admin when not
    given), judged through the judgments services by a judge who ranks each shown output by
    the hidden quality HUMAN (best = rank 1)."""
    from judgments import services as judgment_services

    judge = make_user(Role.ANNOTATOR)
    outputs = {s.name: list(s.hypotheses) for s in SystemOutput.objects.filter(version=release)}
    campaign = judgment_services.create_campaign(
        name=name,
        created_by=admin or make_user(Role.ADMIN),
        system_outputs=outputs,
        release=release,
        judges=[judge],
        judges_per_item=1,
        outputs_per_item=5,
        consistency_share=0.0,
    )
    while (
        assignment := judgment_services.next_assignment(campaign=campaign, judge=judge)
    ) is not None:
        shown = list(assignment.item.outputs.order_by("position"))
        quality = [max(HUMAN[s] for s in output.systems) for output in shown]
        ranks = [1 + sum(other > q for other in quality) for q in quality]
        judgment_services.submit_judgment(assignment_id=assignment.pk, judge=judge, ranks=ranks)
    return campaign


def test_campaign_scores_are_the_judgments_selectors_and_correlate_as_the_library(release) -> None:  # type: ignore[no-untyped-def]
    from judgments.selectors import human_system_scores

    campaign = _judged_campaign(release)
    evaluation = meta.request_meta_evaluation(
        version=release,
        user=campaign.created_by,
        metrics=["f05", "cleme"],
        campaign_id=campaign.pk,
        method="ew",
        bootstrap=BOOTSTRAP,
        queue=False,
    )
    evaluation = meta.run_meta_evaluation(
        evaluation_id=evaluation.pk, job_id=evaluation.background_job_id
    )
    assert evaluation.status == ScoreStatus.DONE, evaluation.error
    human = human_system_scores(campaign, method="ew")
    assert evaluation.human == pytest.approx(human) and len(human) == len(OUTPUTS)
    assert evaluation.human_label == "campaign: meta-campaign (Expected Wins)"
    expected = system_report(
        human,
        {k: _stored(release, k) for k in ("f05", "cleme")},
        sorted(human),
        bootstrap=BOOTSTRAP,
        window=meta.auto_window(len(human)),
    )
    for key in ("f05", "cleme"):
        got, want = evaluation.report["metrics"][key], expected["metrics"][key]
        assert got["pearson"] == pytest.approx(want["pearson"], abs=1e-12)
        assert got["spearman"] == pytest.approx(want["spearman"], abs=1e-12)
        assert got["pearson_ci"] == pytest.approx(want["pearson_ci"], abs=1e-12)
        assert [w["pearson"] for w in got["window"]] == pytest.approx(
            [w["pearson"] for w in want["window"]], abs=1e-12
        )


def test_campaign_is_preselected_from_the_judgments_link_and_checked(release) -> None:  # type: ignore[no-untyped-def]
    admin = make_user(Role.ADMIN)
    campaign = _judged_campaign(release, admin)
    client = Client()
    client.force_login(admin)
    url = reverse("scoring:meta-evaluation", args=[release.pk])
    html = client.get(f"{url}?campaign={campaign.pk}").content.decode()
    assert f'value="campaign:{campaign.pk}" selected' in html
    with pytest.raises(ServiceError, match="has no judgment campaign 999"):
        meta.request_meta_evaluation(
            version=release, user=admin, metrics=["f05"], campaign_id=999, method="ew"
        )
    with pytest.raises(ServiceError, match="method must be one of ew, trueskill"):
        meta.request_meta_evaluation(
            version=release, user=admin, metrics=["f05"], campaign_id=campaign.pk, method="x"
        )


def _edit_judged_campaign(release, admin):  # type: ignore[no-untyped-def]
    """An edits-mode campaign over the release's outputs: the judge marks an edit correct when
    the output's best system has a HUMAN score above 0."""
    from judgments import selectors as judgment_selectors
    from judgments import services as judgment_services

    judge = make_user(Role.ANNOTATOR)
    outputs = {s.name: list(s.hypotheses) for s in SystemOutput.objects.filter(version=release)}
    campaign = judgment_services.create_campaign(
        name="edit-campaign",
        mode="edits",
        created_by=admin,
        system_outputs=outputs,
        release=release,
        judges=[judge],
        judges_per_item=1,
        outputs_per_item=5,
        consistency_share=0.0,
    )
    while (
        assignment := judgment_services.next_assignment(campaign=campaign, judge=judge)
    ) is not None:
        view = judgment_selectors.judge_view_of_item(assignment.item, language="zh")
        good = {
            o.position: max(HUMAN[s] for s in o.systems) > 0 for o in assignment.item.outputs.all()
        }
        verdicts = [
            {"output": o["position"], "edit": e["index"], "correct": good[o["position"]]}
            for o in view["outputs"]
            for e in o["edits"]
        ]
        judgment_services.submit_judgment(
            assignment_id=assignment.pk,
            judge=judge,
            ranks=[1] * len(view["outputs"]),
            edit_verdicts=verdicts,
        )
    return campaign


def test_edit_verdicts_are_a_human_side_and_need_an_edits_campaign(release) -> None:  # type: ignore[no-untyped-def]
    from judgments.selectors import human_system_scores

    admin = make_user(Role.ADMIN)
    campaign = _edit_judged_campaign(release, admin)
    evaluation = meta.request_meta_evaluation(
        version=release,
        user=admin,
        metrics=["f05"],
        campaign_id=campaign.pk,
        method="edit-precision",
        bootstrap=0,
        queue=False,
    )
    evaluation = meta.run_meta_evaluation(
        evaluation_id=evaluation.pk, job_id=evaluation.background_job_id
    )
    assert evaluation.status == ScoreStatus.DONE, evaluation.error
    human = human_system_scores(campaign, method="edit-precision")
    assert evaluation.human == pytest.approx(human)
    assert {name for name, value in human.items() if value == 1.0} == {
        name for name in human if HUMAN[name] > 0
    }
    assert evaluation.human_label == "campaign: edit-campaign (edit precision)"
    ranked = _judged_campaign(release, admin, name="ranks-only")
    with pytest.raises(ServiceError, match="has no edit verdicts"):
        meta.request_meta_evaluation(
            version=release, user=admin, metrics=["f05"], campaign_id=ranked.pk, method="edit-ew"
        )
    client = Client()
    client.force_login(admin)
    html = client.get(reverse("scoring:meta-evaluation", args=[release.pk])).content.decode()
    assert '<option value="edit-precision"' in html


# --- one check on real data: SEEDA's systems and human scores on an English release ------------

SEEDA_SENTENCES = 24  # of the 391-sentence subset: enough to separate 15 systems, quick


@pytest.mark.slow
def test_seeda_human_file_and_english_metrics_correlate_as_the_library(shared_data: Any) -> None:
    """An English release of the first SEEDA subset sentences (CoNLL-14 sources, the two ptm2
    references), SEEDA's 15 system outputs uploaded and scored by the platform (ERRANT, M2,
    SentM2, GLEU, CLEME), and SEEDA's own ``scores/human/EW_edit.txt`` uploaded unchanged (its
    one-score-a-line layout in ASCII order): the stored report is the library's on the stored
    scores and the file's numbers, for SEEDA's ``all`` set."""
    from gecscore.meta.scorefiles import SEEDA_SYSTEMS, read_system_scores, select_systems

    from datasets.formats import ImportFile
    from datasets.models import Dataset
    from datasets.services.imports import import_dataset

    conll, seeda = shared_data / "conll14", shared_data / "seeda"
    numbers = [int(n) for n in (seeda / "subset_conll14_lines.txt").read_text().split()]
    refs = [(conll / f"refs/ptm2/ref{k}").read_text(encoding="utf-8").splitlines() for k in (0, 1)]
    outputs = {
        name: (seeda / f"outputs/subset/{name}.txt").read_text(encoding="utf-8").split("\n")
        for name in SEEDA_SYSTEMS
    }
    # Subset sentences whose two references and 15 outputs are non-empty (the platform stores
    # no empty reference and refuses an empty hypothesis).
    kept = [
        k
        for k, n in enumerate(numbers)
        if all(r[n - 1].strip() for r in refs) and all(o[k].strip() for o in outputs.values())
    ][:SEEDA_SENTENCES]
    source = (conll / "conll14st-test.tok.src").read_text(encoding="utf-8").splitlines()

    def lines(rows: list[str], pick: list[int]) -> bytes:
        return "".join(rows[i] + "\n" for i in pick).encode()

    full = [numbers[k] - 1 for k in kept]
    admin = make_user(Role.ADMIN)
    import_dataset(
        name="seeda-head",
        fmt="parallel",
        language="en",
        user=admin,
        source_name="conll14",
        files=[
            ImportFile("src", lines(source, full)),
            ImportFile("ref0", lines(refs[0], full)),
            ImportFile("ref1", lines(refs[1], full)),
        ],
    )
    release = release_dataset(dataset=Dataset.objects.get(name="seeda-head"), user=admin)
    for name, output in outputs.items():
        system = services.upload_system_output(
            version=release,
            name=name,
            data=lines(output, kept),
            file_name=f"{name}.txt",
            user=None,
            file_format="lines",
        )
        assert services.score_now(system=system).status == ScoreStatus.DONE
    human_path = seeda / "scores/human/EW_edit.txt"
    human = meta.upload_human_scores(
        version=release,
        name="EW_edit",
        data=human_path.read_bytes(),
        file_name="EW_edit.txt",
        user=None,
    )
    assert human.layout == HumanScoreLayout.SEEDA
    assert human.scores == read_system_scores(human_path).scores
    keys = ["f05", "m2", "sentm2", "gleu", "cleme"]
    evaluation = _run(release, human, metrics=keys, bootstrap=100, window=4)
    assert evaluation.status == ScoreStatus.DONE, evaluation.error
    systems = select_systems(SEEDA_SYSTEMS, "all")
    assert evaluation.systems == systems
    stored: dict[str, dict[str, float]] = {k: {} for k in keys}
    for score in SystemScore.objects.filter(system__version=release).select_related("system"):
        extra = score.summary["extra"]
        stored["f05"][score.system.name] = score.f05
        stored["m2"][score.system.name] = extra["m2"]["f05"]
        stored["sentm2"][score.system.name] = extra["m2"]["sent_f05"]
        stored["gleu"][score.system.name] = extra["gleu"]["score"]
        stored["cleme"][score.system.name] = extra["cleme"]["f05"]
    expected = system_report(
        human.scores, stored, systems, run_williams=True, bootstrap=100, seed=0, window=4
    )
    for key in keys:
        got, want = evaluation.report["metrics"][key], expected["metrics"][key]
        for field in ("pearson", "spearman", "pearson_ci", "spearman_ci"):
            assert got[field] == pytest.approx(want[field], abs=1e-12), (key, field)
        assert [w["pearson"] for w in got["window"]] == pytest.approx(
            [w["pearson"] for w in want["window"]], abs=1e-12
        )
        for other in keys:
            if other != key:
                assert got_or_none(evaluation.report["williams"][key][other]) == pytest.approx(
                    got_or_none(expected["williams"][key][other]), abs=1e-12
                ), (key, other)
    # Real systems separate: the metrics do not all agree with the judges equally.
    assert len({round(evaluation.report["metrics"][k]["pearson"], 6) for k in keys}) > 1


def test_a_cancelled_job_stops_the_run_and_keeps_no_report(release, human) -> None:  # type: ignore[no-untyped-def]
    from core.jobs import cancel_job

    admin = make_user(Role.ADMIN)
    evaluation = meta.request_meta_evaluation(
        version=release, user=admin, metrics=["f05"], human_scores=human, queue=False
    )
    cancel_job(evaluation.background_job_id or 0, user=admin)
    evaluation = meta.run_meta_evaluation(
        evaluation_id=evaluation.pk, job_id=evaluation.background_job_id
    )
    assert evaluation.status == ScoreStatus.CANCELLED and evaluation.report == {}


def test_left_out_systems_are_not_correlated(release, human) -> None:  # type: ignore[no-untyped-def]
    evaluation = _run(release, human, metrics=["f05"], exclude=["epsilon"], window=3)
    kept = [s for s in SYSTEMS if s != "epsilon"]
    assert evaluation.systems == kept and evaluation.report["excluded"] == ["epsilon"]
    expected = system_report(
        HUMAN, {"f05": _stored(release, "f05")}, kept, bootstrap=BOOTSTRAP, window=3
    )
    assert evaluation.report["metrics"]["f05"]["pearson"] == pytest.approx(
        expected["metrics"]["f05"]["pearson"], abs=1e-12
    )
    with pytest.raises(ServiceError, match="cannot leave out INPUT: not a system output"):
        meta.request_meta_evaluation(
            version=release, user=None, metrics=["f05"], human_scores=human, exclude=["INPUT"]
        )


def test_page_form_leaves_out_the_ticked_systems(
    release: Any, human: Any, django_capture_on_commit_callbacks: Any
) -> None:
    client = _client(Role.ADMIN)
    url = reverse("scoring:meta-evaluation", args=[release.pk])
    assert 'data-testid="exclude-epsilon"' in client.get(url).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            url,
            {
                "metrics": ["f05"],
                "human": f"upload:{human.pk}",
                "exclude": ["epsilon", "zeta"],
                "bootstrap": "0",
            },
        )
    evaluation = MetaEvaluation.objects.get()
    assert evaluation.status == ScoreStatus.DONE
    assert evaluation.excluded_systems == ["epsilon", "zeta"]
    assert "epsilon" not in evaluation.systems and len(evaluation.systems) == len(OUTPUTS) - 2
    assert evaluation.report["metrics"]["f05"]["pearson_ci"] is None  # 0 samples: no interval


def test_a_run_cancelled_before_a_worker_took_it_is_shown_cancelled(release, human) -> None:  # type: ignore[no-untyped-def]
    from core.jobs import cancel_job
    from scoring.tasks import meta_evaluate

    admin = make_user(Role.ADMIN)
    evaluation = meta.request_meta_evaluation(
        version=release, user=admin, metrics=["f05"], human_scores=human, queue=False
    )
    cancel_job(evaluation.background_job_id or 0, user=admin)
    # The task does not take a cancelled job (core.jobs.run_claimed); the run follows the job.
    assert meta_evaluate.delay(evaluation.pk, evaluation.background_job_id).get() is None
    evaluation.refresh_from_db()
    assert evaluation.status == ScoreStatus.CANCELLED and evaluation.report == {}
    api = APIClient()
    api.force_authenticate(admin)
    body = api.get(reverse("scoring:api-meta-evaluation", args=[evaluation.pk])).json()
    assert body["status"] == "cancelled"


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_real_worker_runs_the_meta_evaluation(release, human, celery_worker) -> None:  # type: ignore[no-untyped-def]
    """PostgreSQL + Redis + a real Celery worker: the run is queued on commit, the worker
    claims the job and writes the report, the job endpoint's state ends done."""
    import time

    evaluation = meta.request_meta_evaluation(
        version=release, user=None, metrics=["f05", "cleme"], human_scores=human, bootstrap=50
    )
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        job = BackgroundJob.objects.get(pk=evaluation.background_job_id or 0)
        if job.is_finished:
            break
        time.sleep(0.2)
    assert job.status == JobStatus.DONE, job.message
    assert job.done == job.total == 4
    evaluation.refresh_from_db()
    assert evaluation.status == ScoreStatus.DONE and evaluation.systems == SYSTEMS
    expected = system_report(HUMAN, {"f05": _stored(release, "f05")}, SYSTEMS, bootstrap=50)
    assert evaluation.report["metrics"]["f05"]["pearson_ci"] == pytest.approx(
        expected["metrics"]["f05"]["pearson_ci"], abs=1e-12
    )


def test_sentence_bootstrap_resamples_the_stored_sentence_counts(release, human) -> None:  # type: ignore[no-untyped-def]
    """Pearson's CI over resampled sentences for the main F0.5 and P (their per-sentence
    TP/FP/FN are stored), computed by the library's bootstrap_sentences; none for CLEME."""
    from gecscore.compare import scores
    from gecscore.meta.correlation import bootstrap_sentences

    evaluation = _run(
        release, human, metrics=["f05", "p", "cleme"], bootstrap=0, sentence_bootstrap=300
    )
    assert evaluation.status == ScoreStatus.DONE, evaluation.error
    stats = []
    for name in SYSTEMS:
        score = SystemScore.objects.get(system__version=release, system__name=name)
        counts = [(r.tp, r.fp, r.fn) for r in score.sentences.order_by("position")]
        stats.append(np.asarray(counts, dtype=float))
        # The summed sentence counts give back the stored corpus score.
        assert scores(*(int(v) for v in stats[-1].sum(axis=0))).f == pytest.approx(score.f05)
    for key, attribute in (("f05", "f"), ("p", "p")):

        def aggregate(sums: Any, _n: int, attribute: str = attribute) -> float:
            return float(getattr(scores(*(int(v) for v in sums)), attribute))

        expected = bootstrap_sentences(
            [HUMAN[s] for s in SYSTEMS], stats, aggregate, samples=300, seed=0
        )
        got = evaluation.report["metrics"][key]["pearson_ci_sentences"]
        assert got == pytest.approx(list(expected), abs=1e-12), key
        assert got[0] < evaluation.report["metrics"][key]["pearson"] <= got[1] + 1e-12
    assert evaluation.report["metrics"]["cleme"]["pearson_ci_sentences"] is None
    assert evaluation.report["metrics"]["f05"]["pearson_ci"] is None  # 0 system resamples


# --- visibility: another admin's campaign is not offered, run or shown -------------------------


def _campaign_run(release, owner):  # type: ignore[no-untyped-def]
    campaign = _judged_campaign(release, owner, name="private-campaign")
    evaluation = meta.request_meta_evaluation(
        version=release,
        user=owner,
        metrics=["f05"],
        campaign_id=campaign.pk,
        bootstrap=BOOTSTRAP,
        queue=False,
    )
    evaluation = meta.run_meta_evaluation(
        evaluation_id=evaluation.pk, job_id=evaluation.background_job_id
    )
    assert evaluation.status == ScoreStatus.DONE, evaluation.error
    return campaign, evaluation


def test_api_offers_runs_and_shows_only_campaigns_the_admin_may_see(release, human) -> None:  # type: ignore[no-untyped-def]
    owner, other = make_user(Role.ADMIN), make_user(Role.ADMIN)
    campaign, evaluation = _campaign_run(release, owner)
    on_upload = _run(release, human)
    listing_url = reverse("scoring:api-meta-evaluations", args=[release.pk])
    api = APIClient()
    api.force_authenticate(owner)
    mine = api.get(listing_url).json()
    assert [c["id"] for c in mine["campaigns"]] == [campaign.pk]
    assert {e["id"] for e in mine["evaluations"]} == {evaluation.pk, on_upload.pk}
    api.force_authenticate(other)
    # The campaign's own results refuse this admin; so does everything meta-evaluation shows.
    results = api.get(f"/api/judgments/campaigns/{campaign.pk}/results/")
    assert results.status_code == 404
    theirs = api.get(listing_url).json()
    assert theirs["campaigns"] == []
    assert [e["id"] for e in theirs["evaluations"]] == [on_upload.pk]
    detail = api.get(reverse("scoring:api-meta-evaluation", args=[evaluation.pk]))
    assert detail.status_code == 404 and "human" not in detail.json()
    assert api.get(reverse("scoring:api-meta-evaluation", args=[on_upload.pk])).status_code == 200
    refused = api.post(
        listing_url,
        {"metrics": ["f05"], "campaign": campaign.pk, "wait": True},
        format="json",
    )
    assert refused.status_code == 404, refused.content
    assert refused.json()["field"] == "campaign"
    assert "Expected Wins" not in refused.content.decode()
    assert MetaEvaluation.objects.count() == 2


def test_page_offers_runs_and_shows_only_campaigns_the_admin_may_see(release, human) -> None:  # type: ignore[no-untyped-def]
    owner, other = make_user(Role.ADMIN), make_user(Role.ADMIN)
    campaign, evaluation = _campaign_run(release, owner)
    url = reverse("scoring:meta-evaluation", args=[release.pk])
    client = Client()
    client.force_login(owner)
    html = client.get(f"{url}?run={evaluation.pk}").content.decode()
    assert f'value="campaign:{campaign.pk}"' in html and f'href="?run={evaluation.pk}"' in html
    assert 'data-testid="meta-row"' in html
    client.force_login(other)
    html = client.get(f"{url}?run={evaluation.pk}").content.decode()
    assert f'value="campaign:{campaign.pk}"' not in html
    assert f'href="?run={evaluation.pk}"' not in html
    assert 'data-testid="meta-row"' not in html and "private-campaign" not in html
    response = client.post(
        url,
        {"metrics": ["f05"], "human": f"campaign:{campaign.pk}", "bootstrap": "10"},
        follow=True,
    )
    assert f"has no judgment campaign {campaign.pk}" in response.content.decode()
    assert MetaEvaluation.objects.count() == 1


def test_page_keeps_the_form_choices_and_names_systems_without_a_human_score(
    release: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """After a run the form still shows its human side, ranking, aggregation and metrics; with
    edit precision, a system none of whose edits was judged (epsilon outputs the sources: no
    edit) is named as left out, with why, rather than silently missing."""
    admin = make_user(Role.ADMIN)
    campaign = _edit_judged_campaign(release, admin)
    client = Client()
    client.force_login(admin)
    url = reverse("scoring:meta-evaluation", args=[release.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            url,
            {
                "metrics": ["f05", "cleme"],
                "human": f"campaign:{campaign.pk}",
                "method": "edit-precision",
                "aggregation": "default",
                "bootstrap": "0",
            },
        )
    evaluation = MetaEvaluation.objects.get()
    assert evaluation.status == ScoreStatus.DONE, evaluation.error
    assert "epsilon" not in evaluation.systems
    assert evaluation.report["left_out"] == {
        "epsilon": "no human score: none of its edits was judged"
    }
    assert response["Location"].endswith(f"?run={evaluation.pk}")
    html = client.get(response["Location"]).content.decode()
    assert f'<option value="campaign:{campaign.pk}" selected>' in html
    assert '<option value="edit-precision" selected>' in html
    assert '<option value="default" selected>' in html
    assert (
        'data-testid="metric-f05" checked' in html and 'data-testid="metric-cleme" checked' in html
    )
    assert 'data-testid="metric-p" checked' not in html
    left_out = html.split('data-testid="left-out">')[1].split("</p>")[0]
    assert "<strong>epsilon</strong> (no human score: none of its edits was judged)" in left_out


def test_a_human_file_naming_a_system_without_output_says_it_was_left_out(release, human) -> None:  # type: ignore[no-untyped-def]
    evaluation = _run(release, human, metrics=["f05"], bootstrap=0)
    assert evaluation.report["left_out"] == {"INPUT": "no stored score of f05"}
