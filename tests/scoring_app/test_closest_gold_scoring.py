"""Scores under the three reference sets (docs/closest-gold.md) on 30 real MuCGEC-dev
sentences: `score_system --refs closest-gold --json` equals the `gecscore` CLI run on the
exported files; a closest-gold equal to the output gives P = R = F = 1, one equal to the
source P = 0; each system is scored against its OWN closest-golds; an incomplete set shows
its coverage and no score unless a partial one is asked for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from core.exceptions import Conflict
from core.models import BackgroundJob, JobStatus
from core.roles import Role
from datasets.formats import ImportFile
from datasets.models import DatasetVersion
from datasets.services.imports import import_dataset
from datasets.services.releases import release_dataset
from scoring.models import ClosestGoldVerification, ReferenceSetScore, SystemOutput
from scoring.reference_set_selectors import release_sets, system_sets
from scoring.services.closest_gold_files import (
    export_closest_golds,
    import_closest_golds,
    read_closest_gold_file,
)
from scoring.services.reference_sets import score_reference_set
from scoring.services.systems import score_now, upload_system_output
from tests.factories import make_user
from tests.scoring_app.test_english_release import _head, _kept, english_release

__all__ = ["english_release"]

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

SENTENCES = 30


@pytest.fixture
def resources(shared_data: Path) -> str:
    return str(shared_data / "cherrant-resources")


@pytest.fixture
def release(shared_data: Path) -> DatasetVersion:
    lines = (shared_data / "mucgec-dev" / "MuCGEC_dev.txt").read_text("utf-8").splitlines()
    data = ("\n".join(lines[:SENTENCES]) + "\n").encode()
    result = import_dataset(
        name="cg-scoring",
        fmt="mucgec",
        source_name="mucgec",
        split="dev",
        files=[ImportFile(name="MuCGEC_dev head", data=data)],
    )
    return release_dataset(dataset=result.dataset, note="closest-gold tests")


def _rows(release: DatasetVersion) -> list[tuple[str, str, list[str]]]:
    return [
        (row.external_id, row.text, list(row.references))
        for row in release.sentences.order_by("position")
    ]


def _first_real_reference(source: str, refs: list[str]) -> str:
    return next(
        (r for r in refs if r not in ("没有错误", "无法标注") and r != source), source + "。"
    )


def _upload(
    release: DatasetVersion, name: str, hypotheses: list[str], resources: str
) -> SystemOutput:
    rows = _rows(release)
    data = "".join(f"{i}\t{s}\t{h}\n" for (i, s, _), h in zip(rows, hypotheses, strict=True))
    system = upload_system_output(
        version=release, name=name, data=data.encode(), file_name=f"{name}.txt", user=None
    )
    score_now(system=system, resources_dir=resources)
    return system


def _parallel(release: DatasetVersion, texts: list[str]) -> bytes:
    rows = _rows(release)
    return "".join(f"{i}\t{s}\t{t}\n" for (i, s, _), t in zip(rows, texts, strict=True)).encode()


def _two_systems(release: DatasetVersion, resources: str):  # type: ignore[no-untyped-def]
    """`corrector` changes every sentence (its first real reference); `copier` copies half the
    sources. corrector's closest-golds are its outputs; copier's are the sources."""
    rows = _rows(release)
    corrector_out = [_first_real_reference(s, refs) for _, s, refs in rows]
    copier_out = [s if n % 2 else corrector_out[n] for n, (_, s, _) in enumerate(rows)]
    admin = make_user(Role.ADMIN)
    corrector = _upload(release, "corrector", corrector_out, resources)
    copier = _upload(release, "copier", copier_out, resources)
    import_closest_golds(
        system=corrector,
        texts=read_closest_gold_file(release, _parallel(release, corrector_out), name="c.txt"),
        user=admin,
        label="c.txt",
    )
    import_closest_golds(
        system=copier,
        texts=read_closest_gold_file(
            release, _parallel(release, [s for _, s, _ in rows]), name="s.txt"
        ),
        user=admin,
        label="s.txt",
    )
    return corrector, copier, admin


def test_closest_gold_equal_to_output_is_perfect_and_equal_to_source_has_no_precision(
    release: DatasetVersion, resources: str
) -> None:
    corrector, copier, _ = _two_systems(release, resources)
    perfect = score_reference_set(
        system=corrector, reference_set="closest-gold", resources_dir=resources
    )
    assert perfect.tp > 0 and perfect.fp == 0 and perfect.fn == 0
    assert (perfect.p, perfect.r, perfect.f05) == (1.0, 1.0, 1.0)
    assert perfect.signature.endswith("|refs:closest-gold")
    assert perfect.summary["extra"]["cleme"]["signature"].endswith("|refs:closest-gold")
    assert perfect.sentences_scored == SENTENCES and not perfect.partial
    nothing = score_reference_set(
        system=copier, reference_set="closest-gold", resources_dir=resources
    )
    assert nothing.tp == 0 and nothing.fp > 0
    assert nothing.p == 0.0
    # Pooled: golden + both systems' closest-golds; the corrector's own outputs are among
    # them, so it is perfect there too, and its golden rank cannot be better than pooled.
    pooled = score_reference_set(system=corrector, reference_set="pooled", resources_dir=resources)
    assert pooled.f05 == 1.0 and pooled.signature.endswith("|refs:pooled")
    states = {row.system.name: row for row in release_sets([corrector, copier])}
    assert states["corrector"].sets["closest-gold"].rank == 1
    assert states["copier"].sets["golden"].score is not None


def test_score_system_closest_gold_json_equals_gecscore_on_the_exported_files(
    release: DatasetVersion, resources: str, tmp_path: Path
) -> None:
    rows = _rows(release)
    corrector, copier, admin = _two_systems(release, resources)
    # A third system, scored by the command, whose closest-golds differ from its outputs.
    third = [refs[-1] if refs[-1] not in ("没有错误", "无法标注") else s for _, s, refs in rows]
    third_golds = [_first_real_reference(s, refs) for _, s, refs in rows]
    hyp = tmp_path / "third.txt"
    hyp.write_bytes(_parallel(release, third))
    call_command(
        "score_system", "--dataset", "cg-scoring", "--hyp", str(hyp), "--name", "third",
        "--resources", resources, stdout=StringIO(),
    )  # fmt: skip
    system = SystemOutput.objects.get(version=release, name="third")
    import_closest_golds(
        system=system,
        texts=read_closest_gold_file(release, _parallel(release, third_golds), name="t.txt"),
        user=admin,
        label="t.txt",
    )
    out = StringIO()
    call_command(
        "score_system", "--dataset", "cg-scoring", "--hyp", str(hyp), "--name", "third",
        "--resources", resources, "--refs", "closest-gold", "--json", stdout=out,
    )  # fmt: skip
    platform = json.loads(out.getvalue())
    assert platform["reference_set"] == "closest-gold" and platform["verified"] == SENTENCES
    # the system is named as in the golden score's JSON
    assert {key: platform[key] for key in ("system", "system_id", "release", "sentences")} == {
        "system": "third",
        "system_id": system.pk,
        "release": release.label,
        "sentences": SENTENCES,
    }
    folder = tmp_path / "export"
    export_closest_golds(version=release, folder=folder, user=admin)
    env = {**os.environ, "GEC_CHERRANT_RESOURCES": resources}

    def gecscore(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "gecscore", *args],
            capture_output=True, text=True, env=env, check=True,
        )  # fmt: skip
        return done.stdout

    library = json.loads(
        gecscore(
            "score",
            "--ref",
            str(folder / "third.closest-gold.txt"),
            "--hyp",
            str(folder / "third.hyp.txt"),
            "--json",
        )  # fmt: skip
    )
    # The library's JSON is its Result at full precision; the platform stores P/R/F rounded
    # to the 4 places ChERRANT prints.
    assert [platform["tp"], platform["fp"], platform["fn"]] == library["counts"]
    assert platform["p"] == round(library["precision"], 4)
    assert platform["r"] == round(library["recall"], 4)
    assert platform["f05"] == round(library["score"], 4)
    assert platform["f05"] < 1.0 and platform["tp"] > 0
    extract = ("cherrant-m2", "--resources", resources)
    gecscore(*extract, str(folder / "third.closest-gold.txt"), "-o", str(tmp_path / "ref.m2"))
    gecscore(*extract, str(folder / "third.hyp.txt"), "-o", str(tmp_path / "hyp.m2"))
    cleme = json.loads(
        gecscore(
            "cleme", "--hyp", str(tmp_path / "hyp.m2"), "--ref", str(tmp_path / "ref.m2"), "--json"
        )
    )
    assert platform["extra"]["cleme"]["f05"] == round(cleme["score"], 4)
    # GREEN in characters on the plain columns (docs/closest-gold.md's `cut` commands).
    columns = {"src.txt": (folder / "third.hyp.txt", 1), "hyp.txt": (folder / "third.hyp.txt", 2)}
    columns["ref0.txt"] = (folder / "third.closest-gold.txt", 2)
    for name, (source, field) in columns.items():
        lines = source.read_text("utf-8").splitlines()
        (tmp_path / name).write_text(
            "".join(f"{line.split(chr(9))[field]}\n" for line in lines), "utf-8"
        )
    green = json.loads(
        gecscore(
            "green",
            "--src",
            str(tmp_path / "src.txt"),
            "--hyp",
            str(tmp_path / "hyp.txt"),
            "--ref",
            str(tmp_path / "ref0.txt"),
            "--unit",
            "char",
            "--json",
        )  # fmt: skip
    )
    assert platform["extra"]["green"]["score"] == round(green["score"], 4)
    # The JSONL keeps closest-golds as their own kind, with system and verification status.
    records = [
        json.loads(line) for line in (folder / "closest_gold.jsonl").read_text("utf-8").splitlines()
    ]
    assert {r["kind"] for r in records} == {"closest-gold"}
    assert {r["system"] for r in records} == {"corrector", "copier", "third"}
    assert all(r["verification"] == "verified" for r in records)


def test_incomplete_closest_golds_show_coverage_and_score_only_when_partial_is_asked(
    release: DatasetVersion, resources: str, tmp_path: Path
) -> None:
    corrector, copier, _ = _two_systems(release, resources)
    ClosestGoldVerification.objects.filter(item__systems=corrector, item__position__lt=10).delete()
    with pytest.raises(Conflict, match="20 of 30"):
        score_reference_set(system=corrector, reference_set="closest-gold", resources_dir=resources)
    state = system_sets(corrector).sets["closest-gold"]
    assert (state.verified, state.total, state.score) == (20, 30, None)
    partial = score_reference_set(
        system=corrector, reference_set="closest-gold", partial=True, resources_dir=resources
    )
    assert partial.partial and partial.sentences_scored == 20
    assert partial.signature.endswith("|refs:closest-gold|coverage=20/30")
    assert system_sets(corrector).sets["closest-gold"].partial == partial
    hyp = tmp_path / "corrector.txt"
    hyp.write_bytes(_parallel(release, corrector.hypotheses))
    with pytest.raises(CommandError, match="20 of 30"):
        call_command(
            "score_system", "--dataset", "cg-scoring", "--hyp", str(hyp), "--name", "corrector",
            "--resources", resources, "--refs", "closest-gold",
        )  # fmt: skip
    assert ReferenceSetScore.objects.filter(system=corrector, partial=False).count() == 0


def test_pages_and_api_show_the_three_sets_with_rank_changes_to_admins_only(  # type: ignore[no-untyped-def]
    release: DatasetVersion, resources: str, client, settings, django_capture_on_commit_callbacks
) -> None:
    settings.GEC_CHERRANT_RESOURCES = resources
    corrector, copier, admin = _two_systems(release, resources)
    client.force_login(admin)
    # The admin's button queues a job that scores both complete systems under closest-gold
    # and pooled (in-process here: no broker).
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/scoring/releases/{release.pk}/reference-sets/")
    assert response.status_code == 302
    job = BackgroundJob.objects.get(kind="scoring.reference_sets")
    assert job.status == JobStatus.DONE, job.message
    assert job.result["corrector"] == {"closest-gold": 1.0, "pooled": 1.0}
    assert job.result["copier"]["closest-gold"] == 0.0
    assert ReferenceSetScore.objects.filter(system__version=release).count() == 4
    board = client.get(f"/scoring/releases/{release.pk}/").content.decode()
    assert 'data-testid="reference-set-table"' in board
    for name in ("golden", "closest-gold", "pooled"):
        assert f'data-testid="{name}-f05"' in board
    assert 'data-testid="closest-gold-change"' in board
    page = client.get(f"/scoring/systems/{copier.pk}/").content.decode()
    assert 'data-testid="closest-gold-signature"' in page and "refs:closest-gold" in page
    assert 'data-testid="pooled-change"' in page
    api = client.get(f"/api/scoring/releases/{release.pk}/reference-sets/").json()
    sets = {row["system"]: row["sets"] for row in api["systems"]}
    assert sets["corrector"]["closest-gold"]["score"]["f05"] == 1.0
    assert sets["copier"]["closest-gold"]["rank"] == 2
    expected_change = sets["copier"]["golden"]["rank"] - 2
    assert sets["copier"]["closest-gold"]["rank_change"] == expected_change
    export = client.get(f"/api/scoring/releases/{release.pk}/closest-gold.jsonl")
    assert export.status_code == 200
    assert len(export.content.decode().splitlines()) == 2 * SENTENCES
    posted = client.post(
        f"/api/scoring/systems/{copier.pk}/reference-sets/",
        {"refs": "pooled"},
        content_type="application/json",
    )
    assert posted.status_code == 200 and posted.json()["reference_set"] == "pooled"
    bad = client.post(
        f"/api/scoring/systems/{copier.pk}/reference-sets/",
        {"refs": "silver"},
        content_type="application/json",
    )
    assert bad.status_code == 400 and bad.json()["field"] == "refs"
    # Reviewers see the pages (as the leaderboard) but neither the API nor the buttons.
    reviewer = make_user(Role.REVIEWER)
    client.force_login(reviewer)
    assert client.get(f"/scoring/systems/{copier.pk}/").status_code == 200
    for url in (
        f"/api/scoring/releases/{release.pk}/reference-sets/",
        f"/api/scoring/systems/{copier.pk}/reference-sets/",
        f"/api/scoring/releases/{release.pk}/closest-gold.jsonl",
    ):
        assert client.get(url).status_code == 403, url
    assert client.post(f"/scoring/releases/{release.pk}/reference-sets/").status_code == 403
    assert client.post(f"/scoring/systems/{copier.pk}/reference-sets/").status_code == 403
    client.logout()
    assert client.get(f"/api/scoring/releases/{release.pk}/reference-sets/").status_code in (
        401,
        403,
    )


def test_english_closest_gold_goes_through_errant_as_the_golden_references(
    english_release,
    shared_data: Path,  # type: ignore[no-untyped-def]
) -> None:
    """English: a closest-gold that is each sentence's first golden reference scores what
    the golden first-k curve gives for k = 1 (ERRANT extracts each reference alone), and the
    output itself as closest-gold is perfect under ERRANT and M2."""
    admin, version = english_release
    conll = shared_data / "conll14"
    system = upload_system_output(
        version=version,
        name="AMU",
        data=_head(conll / "systems/AMU", _kept(conll)),
        file_name="AMU",
        user=admin,
    )
    golden = score_now(system=system, user=admin)
    first_refs = [[row.references[0]] for row in version.sentences.order_by("position")]
    import_closest_golds(system=system, texts=first_refs, user=admin, label="ref0")
    first = score_reference_set(system=system, reference_set="closest-gold")
    assert first.f05 == golden.summary["ref_count_curve_by_k"]["1"]
    assert first.signature.endswith("|language=en|refs:closest-gold")
    other = upload_system_output(
        version=version,
        name="AMU-again",
        data=_head(conll / "systems/AMU", _kept(conll)),
        file_name="AMU",
        user=admin,
    )
    import_closest_golds(
        system=other, texts=[[h] for h in other.hypotheses], user=admin, label="own"
    )
    own = score_reference_set(system=other, reference_set="closest-gold")
    assert own.tp > 0 and (own.p, own.r, own.f05) == (1.0, 1.0, 1.0)
    assert own.summary["extra"]["m2"]["f05"] == 1.0
