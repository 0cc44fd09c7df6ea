"""Import RevisitCGEC (Wang et al. 2024) into the platform in one call: the 200 judged
sentences as a Chinese dataset release, its ranking XML as a judgment campaign on that release,
the six systems' outputs uploaded and scored, so the meta-evaluation page runs on the campaign
as the human side. Only existing services are called; the folder is read by the library's
harness (``gecscore.meta.revisitcgec``).

Sentence ids are the pooled segments ``mucgec:SRC-ID`` / ``yaclc:SRC-ID`` (the XML's src-ids,
prefixed because the two corpora reuse them), so the campaign's items tie to the release's
sentences by id.

All or nothing: every row (dataset, release, campaign, outputs, scores and their jobs) is
written in one transaction, so a refused system file, a campaign name in use or a score that
fails leaves nothing behind, and the same command can simply be run again. Nothing is
written outside the database (the inputs are passed as bytes, the reference M2 is stored in
a table), so there is no file to clean up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction

from core.exceptions import ServiceError
from datasets.formats import ImportFile
from datasets.models import DatasetVersion, Language
from datasets.selectors import get_dataset
from datasets.services.imports import import_dataset
from datasets.services.releases import release_dataset
from judgments.models import Campaign
from judgments.services import import_judgments
from scoring.models import ReferenceSet, ScoreStatus, SystemScore
from scoring.services.closest_gold_files import import_closest_golds, read_closest_gold_file
from scoring.services.reference_sets import BlockCache, score_reference_set
from scoring.services.systems import score_now, upload_system_output


@dataclass
class RevisitImport:
    release: DatasetVersion
    campaign: Campaign
    scores: dict[str, SystemScore] = field(default_factory=dict)
    # With closest-golds: {system: {"closest-gold": F0.5, "pooled": F0.5}}.
    set_scores: dict[str, dict[str, float]] = field(default_factory=dict)


def _corpus(folder: str | Path, yaclc_refs: str, mucgec_dev: str | None) -> Any:
    from gecscore.meta.revisitcgec import load_corpus  # the RevisitCGEC harness, not API

    from gecscore import GECError

    try:
        return load_corpus(folder, "all", yaclc_refs=yaclc_refs, mucgec_dev=mucgec_dev)
    except (GECError, OSError) as error:
        raise ServiceError(f"{folder}: {error}", field="folder") from None


def import_revisitcgec(
    *,
    folder: str | Path,
    dataset_name: str = "RevisitCGEC",
    campaign_name: str = "RevisitCGEC human rankings",
    yaclc_refs: str = "minimal",
    mucgec_dev: str | None = None,
    resources_dir: str | None = None,
    user: Any = None,
    closest_gold_dir: str | Path | None = None,
) -> RevisitImport:
    """Dataset + release, campaign, six scored outputs, in one transaction; a ServiceError
    names what failed, and then nothing was written. ``closest_gold_dir``: one parallel file
    per system (``<SYSTEM>.txt``: id, source, closest-gold) stored as verified closest-golds
    (verifier ``user``) and scored under closest-gold and pooled (docs/closest-gold.md)."""
    from gecscore.meta.revisitcgec import SYSTEMS  # the RevisitCGEC harness, not API

    corpus = _corpus(folder, yaclc_refs, mucgec_dev)
    with transaction.atomic():
        release = _import_release(corpus, folder, dataset_name, yaclc_refs, user)
        campaign = _import_campaign(corpus, folder, campaign_name, release, user)
        result = RevisitImport(release, campaign)
        for system in SYSTEMS:
            result.scores[system] = _scored_output(corpus, system, release, resources_dir, user)
        if closest_gold_dir is not None:
            result.set_scores = _closest_golds(
                Path(closest_gold_dir), result.scores, resources_dir, user
            )
    return result


def _closest_golds(
    folder: Path, scores: dict[str, SystemScore], resources_dir: str | None, user: Any
) -> dict[str, dict[str, float]]:
    """Import every system's closest-gold file, then score each under both sets (pooled
    needs every system's closest-golds in first)."""
    if not folder.is_dir():
        raise ServiceError(f"{folder}: not a folder of closest-gold files", field="closest_gold")
    for name, score in scores.items():
        path = folder / f"{name}.txt"
        if not path.is_file():
            raise ServiceError(f"{path}: no closest-gold file for {name}", field="closest_gold")
        version = score.system.version
        texts = read_closest_gold_file(version, path.read_bytes(), name=str(path))
        import_closest_golds(system=score.system, texts=texts, user=user, label=path.name)
    out: dict[str, dict[str, float]] = {}
    block_cache: BlockCache = {}  # the pooled references are extracted once for all six
    for name, score in scores.items():
        out[name] = {
            reference_set: score_reference_set(
                system=score.system,
                reference_set=reference_set,
                user=user,
                resources_dir=resources_dir,
                block_cache=block_cache,
            ).f05
            for reference_set in (ReferenceSet.CLOSEST_GOLD, ReferenceSet.POOLED)
        }
    return out


def _import_release(
    corpus: Any, folder: str | Path, dataset_name: str, yaclc_refs: str, user: Any
) -> DatasetVersion:
    rows = ["\t".join((s.segment, s.source, *s.targets)) for s in corpus.sentences]
    import_dataset(
        name=dataset_name,
        fmt="mucgec",
        files=[
            ImportFile(
                name=f"{folder} (RevisitCGEC, YACLC {yaclc_refs})",
                data=("\n".join(rows) + "\n").encode(),
            )
        ],
        source_name="RevisitCGEC",
        split="dev",
        language=Language.CHINESE,
        user=user,
    )
    return release_dataset(
        dataset=get_dataset(dataset_name),
        user=user,
        note=f"RevisitCGEC: 100 MuCGEC-dev + 100 YACLC-dev ({yaclc_refs}) sentences",
    )


def _import_campaign(
    corpus: Any, folder: str | Path, campaign_name: str, release: DatasetVersion, user: Any
) -> Campaign:
    from gecscore import JudgmentSet, RankingResult, write_judgments_xml

    xml = write_judgments_xml(JudgmentSet((RankingResult((), corpus.items),)))
    return import_judgments(
        campaign_name=campaign_name,
        source=xml.encode(),
        release=release,
        label=f"{folder}/judgments.xml",
        by=user,
    )


def _scored_output(
    corpus: Any, system: str, release: DatasetVersion, resources_dir: str | None, user: Any
) -> SystemScore:
    """The system's outputs of both corpora as one upload, scored; a refused upload or a
    failed score raises (a release missing one system is not what the command promises)."""
    lines = [
        f"{s.segment}\t{s.source}\t{hyp}"
        for s, hyp in zip(corpus.sentences, corpus.outputs[system], strict=True)
    ]
    try:
        output = upload_system_output(
            version=release,
            name=system,
            data=("\n".join(lines) + "\n").encode(),
            file_name=f"{system}.txt",
            user=user,
            file_format="mucgec",
            replace=True,
        )
    except ServiceError as error:
        mucgec = sum(1 for s in corpus.sentences if s.segment.startswith("mucgec:"))
        raise ServiceError(
            f"system {system}: {error.message} (its upload is system-corrections/"
            f"{system}.mucgec.txt as lines 1-{mucgec}, then {system}.yaclc.txt as lines "
            f"{mucgec + 1}-{len(lines)})",
            field="folder",
        ) from None
    score = score_now(system=output, user=user, resources_dir=resources_dir)
    if score.status != ScoreStatus.DONE:
        raise ServiceError(
            f"system {system}: scoring ended {score.status}: {score.error}", field="folder"
        )
    return score
