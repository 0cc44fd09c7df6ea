"""Meta-evaluation with the systems of each metric ranked by TrueSkill or Expected Wins over
sentence-level scores: the platform's numbers are the library's
(``gecscore.meta.aggregation`` and ``system_report``) on the same stored inputs; a metric
without sentence scores is refused; the choice is kept in the run and shown; the ``length``
baseline is reported beside the metrics."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from gecscore.compare import scores as count_scores
from gecscore.meta.aggregation import aggregate
from gecscore.meta.report import system_report
from rest_framework.test import APIClient

from core.exceptions import ServiceError
from core.roles import Role
from scoring.models import MetaEvaluation, ScoreStatus, SentenceResult
from scoring.services import meta
from tests.factories import make_user
from tests.scoring_app.test_meta_evaluation import (
    HUMAN,
    OUTPUTS,
    REFERENCES,
    SENTENCES,
    _wmt,
    scored_release,
)

pytestmark = pytest.mark.django_db

SYSTEMS = sorted(OUTPUTS)
BOOTSTRAP = 100


@pytest.fixture
def release():  # type: ignore[no-untyped-def]
    return scored_release(SENTENCES, REFERENCES, OUTPUTS)


@pytest.fixture
def human(release):  # type: ignore[no-untyped-def]
    return meta.upload_human_scores(
        version=release, name="ew", data=_wmt(HUMAN), file_name="human.tsv", user=None
    )


def _run(release, human, **kw: Any) -> MetaEvaluation:  # type: ignore[no-untyped-def]
    evaluation = meta.request_meta_evaluation(
        version=release,
        user=None,
        metrics=kw.pop("metrics", ["f05", "p"]),
        human_scores=human,
        bootstrap=BOOTSTRAP,
        window=3,
        queue=False,
        **kw,
    )
    return meta.run_meta_evaluation(
        evaluation_id=evaluation.pk, job_id=evaluation.background_job_id
    )


def _sentence_scores(release, attribute: str) -> dict[str, list[float]]:  # type: ignore[no-untyped-def]
    """Each system's per-sentence score from its stored counts, by the library."""
    out: dict[str, list[float]] = {s: [] for s in SYSTEMS}
    for row in SentenceResult.objects.filter(score__system__version=release).order_by(
        "score__system__name", "position"
    ):
        counts = count_scores(row.tp, row.fp, row.fn)
        out[row.score.system.name].append(float(getattr(counts, attribute)))
    return out


def _stored_f05(release) -> dict[str, float]:  # type: ignore[no-untyped-def]
    return {output.name: output.score.f05 for output in release.system_outputs.all()}


@pytest.mark.parametrize(
    ("aggregation", "library_name"), [("trueskill", "trueskill"), ("expected-wins", "ew")]
)
def test_aggregated_numbers_are_the_library_s(release, human, aggregation, library_name) -> None:  # type: ignore[no-untyped-def]
    evaluation = _run(release, human, aggregation=aggregation)
    assert evaluation.status == ScoreStatus.DONE, evaluation.error
    assert evaluation.aggregation == aggregation
    report = evaluation.report
    assert report["aggregation"] == aggregation and evaluation.systems == SYSTEMS
    expected_scores = {
        key: aggregate(library_name, _sentence_scores(release, attribute))
        for key, attribute in (("f05", "f"), ("p", "p"))
    }
    # Aggregation really changes the numbers (or the comparison would prove little).
    assert expected_scores["f05"] != _stored_f05(release)
    for key, scores in expected_scores.items():
        assert report["metric_scores"][key] == pytest.approx(scores, abs=1e-12)
        expected = system_report(HUMAN, {key: scores}, SYSTEMS, bootstrap=BOOTSTRAP, window=3)
        entry = report["metrics"][key]
        for field in ("pearson", "spearman", "pearson_ci", "spearman_ci"):
            assert entry[field] == pytest.approx(expected["metrics"][key][field], abs=1e-12)
        assert entry["label"].endswith(f"· {aggregation}")
    lengths = {s: [float(len(h)) for h in OUTPUTS[s]] for s in SYSTEMS}
    baseline = system_report(
        HUMAN, {"length": aggregate(library_name, lengths)}, SYSTEMS, bootstrap=BOOTSTRAP, window=3
    )
    assert report["baseline"]["length"]["pearson"] == pytest.approx(
        baseline["metrics"]["length"]["pearson"], abs=1e-12
    )
    assert meta.evaluation_state(evaluation)["aggregation"] == aggregation


def test_green_is_ranked_by_its_sentence_scores_as_the_library_ranks_them(release, human) -> None:  # type: ignore[no-untyped-def]
    """GREEN keeps its sentence scores (char units on this Chinese release): TrueSkill over
    them is the library's TrueSkill over the library's GREEN sentence scores."""
    from gecscore.green import GREEN, GREENConfig

    evaluation = _run(release, human, metrics=["green"], aggregation="trueskill")
    assert evaluation.status == ScoreStatus.DONE, evaluation.error
    green = GREEN(GREENConfig(unit="char"))
    library = {
        system: [
            s.score for s in green.score_corpus(SENTENCES, OUTPUTS[system], [REFERENCES]).sentences
        ]
        for system in SYSTEMS
    }
    expected = aggregate("trueskill", library)
    assert evaluation.report["metric_scores"]["green"] == pytest.approx(expected, abs=1e-12)
    stored = {
        o.name: o.score.summary["extra"]["green"]["score"] for o in release.system_outputs.all()
    }
    assert expected != stored


def test_default_keeps_the_stored_scores_and_reports_the_length_floor(release, human) -> None:  # type: ignore[no-untyped-def]
    evaluation = _run(release, human)
    report = evaluation.report
    assert evaluation.aggregation == "default" and report["aggregation"] == "default"
    assert report["metric_scores"]["f05"] == _stored_f05(release)
    lengths = {s: sum(len(h) for h in OUTPUTS[s]) / len(OUTPUTS[s]) for s in SYSTEMS}
    expected = system_report(HUMAN, {"length": lengths}, SYSTEMS, bootstrap=BOOTSTRAP, window=3)
    entry = report["baseline"]["length"]
    assert entry["scores"] == pytest.approx(lengths, abs=1e-12)
    assert entry["pearson"] == pytest.approx(expected["metrics"]["length"]["pearson"], abs=1e-12)
    assert "length" not in report["metrics"] and report["best"] in ("f05", "p")


def _forget_sentences(release, entry: str) -> None:  # type: ignore[no-untyped-def]
    """One system's ``entry`` as a score stored before sentence scores were kept."""
    score = release.system_outputs.order_by("name").first().score
    extra = dict(score.summary["extra"])
    extra[entry] = {k: v for k, v in extra[entry].items() if k != "sentences"}
    score.summary = {**score.summary, "extra": extra}
    score.save(update_fields=["summary"])


@pytest.mark.parametrize("key", ["cleme", "cleme2"])
def test_cleme_is_ranked_by_its_sentence_scores_as_the_library_ranks_them(  # type: ignore[no-untyped-def]
    release, human, key
) -> None:
    """CLEME and CLEME2.0 keep their sentence scores: TrueSkill over them is the library's
    TrueSkill over the library's sentence scores of the same M2 blocks (the release's
    reference M2 and each output's blocks from the product's one extractor)."""
    from gecscore.cleme import evaluate_chunks, sentence_scores, sentence_scores2
    from gecscore.cleme.evaluate import evaluate_lengths
    from gecscore.cleme.inputs import sentences_from_m2

    from scoring import metric
    from scoring.services.systems import reference_m2_blocks, scoring_resources

    evaluation = _run(release, human, metrics=[key], aggregation="trueskill")
    assert evaluation.status == ScoreStatus.DONE, evaluation.error
    resources = scoring_resources(None)
    refs = sentences_from_m2(reference_m2_blocks(release, resources_dir=None))
    library: dict[str, list[float]] = {}
    for system in SYSTEMS:
        hyps = sentences_from_m2(
            [
                metric.sentence_block(source, [hypothesis], resources=resources)
                for source, hypothesis in zip(SENTENCES, OUTPUTS[system], strict=True)
            ]
        )
        if key == "cleme":
            library[system] = [s.f for s in sentence_scores(evaluate_lengths(hyps, refs))]
        else:
            library[system] = [
                s.aspects.score for s in sentence_scores2(evaluate_chunks(hyps, refs))
            ]
    assert len({tuple(v) for v in library.values()}) > 1  # the systems' sentences differ
    expected = aggregate("trueskill", library)
    assert evaluation.report["metric_scores"][key] == pytest.approx(expected, abs=1e-12)
    stored = {
        o.name: o.score.summary["extra"][key]["score" if key == "cleme2" else "f05"]
        for o in release.system_outputs.all()
    }
    assert expected != stored


def test_a_metric_without_sentence_scores_is_refused(release, human) -> None:  # type: ignore[no-untyped-def]
    before = MetaEvaluation.objects.count()
    _forget_sentences(release, "cleme")
    with pytest.raises(ServiceError, match=r"cleme stores a corpus score only"):
        _run(release, human, metrics=["f05", "cleme"], aggregation="trueskill")
    with pytest.raises(ServiceError, match="aggregation must be one of"):
        _run(release, human, aggregation="mean")
    with pytest.raises(ServiceError, match="sentence bootstrap"):
        _run(release, human, aggregation="trueskill", sentence_bootstrap=10)
    assert MetaEvaluation.objects.count() == before  # nothing stored


def test_page_and_api_take_the_aggregation(release, human) -> None:  # type: ignore[no-untyped-def]
    admin = make_user(Role.ADMIN)
    api = APIClient()
    api.force_authenticate(admin)
    url = f"/api/scoring/releases/{release.pk}/meta/"
    body = {"metrics": ["f05"], "human_scores": human.pk, "bootstrap": 20, "wait": True}
    answer = api.post(url, {**body, "aggregation": "expected-wins"}, format="json")
    assert answer.status_code == 200, answer.content
    data = answer.json()
    assert (
        data["aggregation"] == "expected-wins" and data["report"]["aggregation"] == "expected-wins"
    )
    _forget_sentences(release, "cleme")
    refused = api.post(
        url, {**body, "metrics": ["cleme"], "aggregation": "trueskill"}, format="json"
    )
    assert refused.status_code == 400 and "corpus score only" in refused.json()["detail"]

    client = Client()
    client.force_login(admin)
    page = f"/scoring/releases/{release.pk}/meta/"
    form = {"metrics": ["f05"], "human": f"upload:{human.pk}", "bootstrap": "20"}
    posted = client.post(page, {**form, "aggregation": "trueskill", "window": "3"})
    assert posted.status_code == 302
    run = MetaEvaluation.objects.latest("pk")
    assert run.aggregation == "trueskill"
    meta.run_meta_evaluation(evaluation_id=run.pk, job_id=run.background_job_id)
    shown = client.get(f"{page}?run={run.pk}").content.decode()
    assert 'data-testid="aggregation-shown">trueskill<' in shown
    assert 'data-testid="baseline-row" data-metric="length"' in shown
    assert 'name="aggregation"' in shown
