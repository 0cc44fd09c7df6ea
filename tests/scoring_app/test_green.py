"""GREEN on the platform: every scored system of a Chinese release carries GREEN
(char units) in its summary, the leaderboard can show it, and the meta-evaluation catalogue,
page and API offer it with the library's numbers."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from gecscore.green import GREEN, GREENConfig
from gecscore.meta.report import system_report

from core.roles import Role
from scoring.models import ScoreStatus, SystemScore
from scoring.services import meta
from tests.factories import PASSWORD, make_user
from tests.scoring_app.test_meta_evaluation import (
    HUMAN,
    OUTPUTS,
    REFERENCES,
    SENTENCES,
    _wmt,
    scored_release,
)

pytestmark = pytest.mark.django_db


def test_scored_systems_carry_green_and_the_meta_evaluation_offers_it() -> None:
    release = scored_release(SENTENCES, REFERENCES, OUTPUTS)
    metric = GREEN(GREENConfig(unit="char"))
    stored = {}
    for score in SystemScore.objects.filter(system__version=release).select_related("system"):
        entry = score.summary["extra"]["green"]
        expected = metric.score_corpus(SENTENCES, OUTPUTS[score.system.name], [REFERENCES])
        assert entry == {
            "score": round(expected.score, 4),
            "signature": expected.signature,
            "sentences": [s.score for s in expected.sentences],
        }
        assert "unit=char" in entry["signature"]
        stored[score.system.name] = entry["score"]
    assert len(set(stored.values())) > 2  # the systems really differ

    choices = {choice.key: choice for choice in meta.available_metrics(release)}
    assert choices["green"].label == "GREEN"
    assert choices["green"].systems == len(OUTPUTS)

    human = meta.upload_human_scores(
        version=release, name="ew", data=_wmt(HUMAN), file_name="human.tsv", user=None
    )
    requested = meta.request_meta_evaluation(
        version=release,
        user=None,
        metrics=["green", "f05"],
        human_scores=human,
        bootstrap=0,
        queue=False,
    )
    evaluation = meta.run_meta_evaluation(
        evaluation_id=requested.pk, job_id=requested.background_job_id
    )
    assert evaluation.status == ScoreStatus.DONE, evaluation.error
    expected_report = system_report(
        HUMAN, {"green": stored}, sorted(OUTPUTS), run_williams=False, bootstrap=0, seed=0
    )
    assert evaluation.report["metrics"]["green"]["pearson"] == pytest.approx(
        expected_report["metrics"]["green"]["pearson"], abs=1e-12
    )

    admin = make_user(Role.ADMIN)
    client = Client()
    assert client.login(username=admin.username, password=PASSWORD)
    page = client.get(reverse("scoring:meta-evaluation", args=[release.pk]))
    assert page.status_code == 200 and 'data-testid="metric-green"' in page.content.decode()
    api = client.get(reverse("scoring:api-meta-evaluations", args=[release.pk]))
    assert {"key": "green", "label": "GREEN", "systems": len(OUTPUTS)} in api.json()["metrics"]
    board = client.get(reverse("scoring:leaderboard", args=[release.pk]), {"cols": "green"})
    assert board.content.decode().count('data-testid="green"') == len(OUTPUTS)
