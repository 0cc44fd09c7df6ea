"""Import RevisitCGEC (Wang et al. 2024) into the platform in one call: the 200 judged
sentences as a Chinese dataset release, its ranking XML as a judgment campaign on that release,
the six systems' outputs uploaded and scored, so the meta-evaluation page runs on the campaign
as the human side. Only existing services are called; the folder is read by the library's
harness (``gecscore.meta.revisitcgec``).

Sentence ids are the pooled segments ``mucgec:SRC-ID`` / ``yaclc:SRC-ID`` (the XML's src-ids,
prefixed because the two corpora reuse them), so the campaign's items tie to the release's
sentences by id.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.exceptions import ServiceError
from datasets.formats import ImportFile
from datasets.models import DatasetVersion, Language
from datasets.selectors import get_dataset
from datasets.services.imports import import_dataset
from datasets.services.releases import release_dataset
from judgments.models import Campaign
from judgments.services import import_judgments
from scoring.models import SystemScore
from scoring.services.systems import score_now, upload_system_output


@dataclass
class RevisitImport:
    release: DatasetVersion
    campaign: Campaign
    scores: dict[str, SystemScore] = field(default_factory=dict)


def _corpus(folder: str | Path, yaclc_refs: str, mucgec_dev: str | None) -> Any:
    from gecscore.errors import GECError
    from gecscore.meta.revisitcgec import load_corpus

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
) -> RevisitImport:
    """Dataset + release, campaign, six scored outputs; a ServiceError names what failed."""
    from gecscore.meta.judgments import JudgmentSet, RankingResult, write_judgments_xml
    from gecscore.meta.revisitcgec import SYSTEMS

    corpus = _corpus(folder, yaclc_refs, mucgec_dev)
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
    release = release_dataset(
        dataset=get_dataset(dataset_name),
        user=user,
        note=f"RevisitCGEC: 100 MuCGEC-dev + 100 YACLC-dev ({yaclc_refs}) sentences",
    )
    xml = write_judgments_xml(JudgmentSet((RankingResult((), corpus.items),)))
    campaign = import_judgments(
        campaign_name=campaign_name,
        source=xml.encode(),
        release=release,
        label=f"{folder}/judgments.xml",
        by=user,
    )
    result = RevisitImport(release, campaign)
    for system in SYSTEMS:
        lines = [
            f"{s.segment}\t{s.source}\t{hyp}"
            for s, hyp in zip(corpus.sentences, corpus.outputs[system], strict=True)
        ]
        output = upload_system_output(
            version=release,
            name=system,
            data=("\n".join(lines) + "\n").encode(),
            file_name=f"{system}.txt",
            user=user,
            file_format="mucgec",
            replace=True,
        )
        result.scores[system] = score_now(system=output, user=user, resources_dir=resources_dir)
    return result
