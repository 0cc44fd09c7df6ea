"""A published release carries its closest-gold references as their own kind
(docs/closest-gold.md): ``closest_gold/closest_gold.parquet`` with the system and the
verification status, never in ``data/`` beside the golden references; the card counts them."""

from __future__ import annotations

from pathlib import Path

import pytest

from datasets.models import DatasetVersion
from publishing import formats, services
from scoring.models import ClosestGoldVerification
from tests.scoring_app.test_closest_gold_scoring import (
    SENTENCES,
    _two_systems,
    release,
    resources,
)

__all__ = ["release", "resources"]

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_the_published_folder_has_closest_golds_in_their_own_parquet_and_the_card_counts_them(
    release: DatasetVersion, resources: str, tmp_path: Path
) -> None:
    import pyarrow.parquet as pq

    corrector, copier, admin = _two_systems(release, resources)
    ClosestGoldVerification.objects.filter(item__systems=copier, item__position__lt=4).delete()
    out = tmp_path / "published"
    result = services.publish_release(version=release, out=out, user=admin, allow_blocked=True)
    table = pq.read_table(out / "closest_gold" / "closest_gold.parquet").to_pylist()
    assert len(table) == 2 * SENTENCES
    assert {row["kind"] for row in table} == {"closest-gold"}
    assert {row["system"] for row in table} == {"corrector", "copier"}
    unverified = [row for row in table if row["verification"] == "unverified"]
    assert [(r["system"], r["position"]) for r in unverified] == [("copier", p) for p in range(4)]
    assert all(row["closest_golds"] == [] for row in unverified)
    mine = [r for r in table if r["system"] == "corrector"]
    assert [r["closest_golds"] for r in mine] == [[h] for h in corrector.hypotheses]
    # The golden data is untouched: no closest-gold text among data/'s references.
    golden = formats.read_parquet_folder(out)
    assert all("closest_golds" not in row for rows in golden.values() for row in rows)
    assert result["closest_gold"]["unverified"] == 4
    card = (out / "README.md").read_text("utf-8")
    assert "### Closest-gold references" in card
    assert f"records: {2 * SENTENCES} ({2 * SENTENCES - 4} verified, 4 not yet)" in card
    assert f"copier ({SENTENCES - 4}/{SENTENCES} verified)" in card
    assert "closest_gold/closest_gold.parquet" in (out / "SHA256SUMS").read_text("utf-8")
