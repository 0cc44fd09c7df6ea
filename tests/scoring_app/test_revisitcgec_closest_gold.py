"""RevisitCGEC with closest-golds (docs/closest-gold.md): `import_revisitcgec --closest-gold
DIR` stores one parallel file per system as verified closest-golds and scores the six
systems under closest-gold and pooled; the meta-evaluation page then correlates golden,
closest-gold and pooled columns with the human rankings and says the closest-gold ones are
only as good as their references. Real data; the closest-golds are stand-ins (RevisitCGEC has
none of its own): each system's file holds the NEXT system's output on even sentences and
the first golden reference on odd ones. (Other systems' outputs everywhere would put every
output into the pool, so every system would score pooled F0.5 = 1 and r is undefined.)"""

from __future__ import annotations

import io
import math
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from core.roles import Role
from judgments.models import Campaign
from scoring.models import ReferenceSetScore, ScoreStatus
from scoring.services import meta
from tests.factories import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


@pytest.fixture
def revisit(shared_data: Path) -> Path:
    folder = shared_data / "revisitcgec"
    if not (folder / "judgments.xml").is_file():
        pytest.skip("shared/data/revisitcgec is absent")
    return folder


def stand_in_closest_golds(revisit: Path, folder: Path) -> list[str]:
    """``<SYSTEM>.txt`` = id, source, the next system's output (even sentences) or the first
    golden reference (odd ones): a parallel file each."""
    from gecscore.meta.revisitcgec import SYSTEMS, load_corpus

    corpus = load_corpus(revisit, "all")
    folder.mkdir()
    for k, system in enumerate(SYSTEMS):
        other = corpus.outputs[SYSTEMS[(k + 1) % len(SYSTEMS)]]
        (folder / f"{system}.txt").write_text(
            "".join(
                f"{s.segment}\t{s.source}\t{text if n % 2 == 0 else s.targets[0]}\n"
                for n, (s, text) in enumerate(zip(corpus.sentences, other, strict=True))
            ),
            encoding="utf-8",
        )
    return list(SYSTEMS)


def test_meta_evaluation_correlates_golden_closest_gold_and_pooled_on_revisitcgec(
    revisit: Path,
    shared_data: Path,
    tmp_path: Path,
    client,  # type: ignore[no-untyped-def]
) -> None:
    systems = stand_in_closest_golds(revisit, tmp_path / "cg")
    admin = make_user(Role.ADMIN)
    out = io.StringIO()
    call_command(
        "import_revisitcgec", str(revisit), "--resources", str(shared_data / "cherrant-resources"),
        "--admin", admin.username, "--closest-gold", str(tmp_path / "cg"), stdout=out,
    )  # fmt: skip
    assert "closest-gold" in out.getvalue()
    campaign = Campaign.objects.get(name="RevisitCGEC human rankings")
    release = campaign.release
    assert release is not None
    stored = ReferenceSetScore.objects.filter(system__version=release, partial=False)
    assert stored.count() == 2 * len(systems)
    choices = {choice.key: choice.systems for choice in meta.available_metrics(release)}
    for key in ("f05", "f05@closest-gold", "f05@pooled", "cleme@closest-gold", "green@pooled"):
        assert choices.get(key) == len(systems), key
    metrics = ["f05", "f05@closest-gold", "f05@pooled"]
    evaluation = meta.request_meta_evaluation(
        version=release, user=admin, metrics=metrics, campaign_id=campaign.pk, method="ew",
        bootstrap=100, queue=False,
    )  # fmt: skip
    evaluation = meta.run_meta_evaluation(
        evaluation_id=evaluation.pk, job_id=evaluation.background_job_id
    )
    assert evaluation.status == ScoreStatus.DONE, evaluation.error
    report = evaluation.report["metrics"]
    assert set(report) == set(metrics)
    for key in metrics:
        assert math.isfinite(report[key]["pearson"]), key
    # Each system's closest-gold numbers are its own: the stored scores differ by system.
    closest = {row.system.name: row.f05 for row in stored.filter(reference_set="closest-gold")}
    assert evaluation.report["metric_scores"]["f05@closest-gold"] == pytest.approx(closest)
    assert evaluation.signatures["f05@pooled"][0].endswith("|refs:pooled")
    client.force_login(admin)
    page = client.get(f"/scoring/releases/{release.pk}/meta/?run={evaluation.pk}").content.decode()
    assert 'data-testid="closest-gold-caveat"' in page
    assert 'data-testid="closest-gold-offered"' in page
    assert "[closest-gold]" in page and "[pooled]" in page


def test_closest_golds_need_an_admin_as_verifier(revisit: Path, tmp_path: Path) -> None:
    stand_in_closest_golds(revisit, tmp_path / "cg")
    with pytest.raises(CommandError, match="needs --admin"):
        call_command(
            "import_revisitcgec", str(revisit), "--closest-gold", str(tmp_path / "cg"),
            stdout=io.StringIO(),
        )  # fmt: skip
