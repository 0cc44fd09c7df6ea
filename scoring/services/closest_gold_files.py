"""Closest-gold references in and out of files (docs/closest-gold.md).

In: `import_closest_golds` stores one parallel file per system (``id<TAB>source<TAB>
closest-gold...``, ids and sources the release's) as verified closest-golds through the
closest-gold models: one task per system with no LLM (``prompt_version="imported"``), each
item verified by the importing admin (``output-correct`` where the text is the output, else
``rewritten``); ``proposal_model`` names the file.

Out: `export_closest_golds` writes a release's closest-golds into their own files, never mixed
into the golden references: ``closest_gold.jsonl`` (one record per system and sentence, kind
``closest-gold``, with the verification status) and, for scoring them with `gecscore` alone,
per system ``<SYSTEM>.hyp.txt`` (id, source, output) and ``<SYSTEM>.closest-gold.txt`` (id,
source, its closest-golds; verified sentences only), plus ``pooled.txt`` (id, source, golden
+ every task system's closest-golds).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import transaction

from core.audit import log_action
from core.exceptions import ServiceError
from datasets.formats.files import write_atomically
from datasets.formats.markers import MARKERS
from datasets.models import DatasetVersion, Language
from gecscore import GECError, decode_utf8, parallel_rows
from scoring.closest_gold_selectors import closest_golds
from scoring.models import (
    ClosestGoldItem,
    ClosestGoldTask,
    ClosestGoldVerification,
    SystemOutput,
    VerificationDecision,
)
from scoring.services.reference_sets import set_references
from scoring.services.systems import released_rows

IMPORTED = "imported"
RECORD_KIND = "closest-gold"


def read_closest_gold_file(version: DatasetVersion, data: bytes, *, name: str) -> list[list[str]]:
    """Per released sentence, the closest-golds of a parallel file: every id of the release
    once, with the released source (whitespace ignored)."""
    rows = released_rows(version)
    index_of = {row.external_id: i for i, row in enumerate(rows)}
    texts: list[list[str] | None] = [None] * len(rows)
    try:
        lines = decode_utf8(data, name=name).lstrip("\ufeff").splitlines()
        for line in parallel_rows(lines, name=name):
            index = index_of.get(line.id)
            where = f"{name}, line {line.line}"
            if index is None:
                raise ServiceError(f"{where}: id {line.id!r} is not in {version.label}")
            if texts[index] is not None:
                raise ServiceError(f"{where}: id {line.id!r} given twice")
            if "".join(line.source.split()) != "".join(rows[index].text.split()):
                raise ServiceError(f"{where}: source differs from the released sentence")
            if len(line.targets) != 1 or not line.targets[0].strip():
                # One verification per item and verifier: a second text would need a
                # second verifier, so it is refused rather than dropped.
                raise ServiceError(
                    f"{where}: give exactly one non-empty closest-gold "
                    f"(found {len(line.targets)} fields after the source)"
                )
            texts[index] = list(line.targets)
    except GECError as error:
        raise ServiceError(str(error), field="closest_gold") from None
    missing = [rows[i].external_id for i, t in enumerate(texts) if t is None]
    if missing:
        raise ServiceError(
            f"{name}: no closest-gold for {len(missing)} released sentences "
            f"(first: {', '.join(missing[:3])})",
            field="closest_gold",
        )
    return [t or [] for t in texts]


def import_closest_golds(
    *, system: SystemOutput, texts: Sequence[Sequence[str]], user: Any, label: str
) -> ClosestGoldTask:
    """Store ``texts`` (per released sentence) as ``system``'s verified closest-golds, with
    ``user`` as their verifier."""
    if user is None or not getattr(user, "is_authenticated", False):
        raise ServiceError(
            "imported closest-golds need the admin who vouches for them", field="admin"
        )
    if len(texts) != len(system.hypotheses):
        raise ServiceError(
            f"{label}: {len(texts)} sentences for {len(system.hypotheses)} outputs",
            field="closest_gold",
        )
    with transaction.atomic():
        task = ClosestGoldTask.objects.create(
            version=system.version, per_item=1, prompt_version=IMPORTED, created_by=user
        )
        task.systems.add(system)
        positions = list(
            system.version.sentences.order_by("position").values_list("position", flat=True)
        )
        for position, output, golds in zip(positions, system.hypotheses, texts, strict=True):
            item = ClosestGoldItem.objects.create(
                task=task, position=position, output=output, proposal_model=f"{IMPORTED}:{label}"
            )
            item.systems.add(system)
            if len(golds) > 1:
                raise ServiceError(
                    f"{label}: {len(golds)} closest-golds at position {position}; one per "
                    "sentence (one verifier)",
                    field="closest_gold",
                )
            for text in golds:
                ClosestGoldVerification.objects.create(
                    item=item,
                    verifier=user,
                    decision=VerificationDecision.OUTPUT_CORRECT
                    if text == output
                    else VerificationDecision.REWRITTEN,
                    text=text,
                )
        log_action(system, user, "scoring.closest_gold.import", {"task": task.pk, "file": label})
    return task


@dataclass(frozen=True)
class ClosestGoldRecord:
    system: str
    position: int
    external_id: str
    source: str
    output: str
    closest_golds: list[str]
    decisions: list[str]

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": RECORD_KIND,
            "system": self.system,
            "position": self.position,
            "id": self.external_id,
            "source": self.source,
            "output": self.output,
            "closest_golds": self.closest_golds,
            "verification": "verified" if self.closest_golds else "unverified",
            "decisions": self.decisions,
        }


def closest_gold_systems(version: DatasetVersion) -> list[SystemOutput]:
    return list(
        SystemOutput.objects.filter(version=version, closest_gold_items__task__version=version)
        .distinct()
        .order_by("name")
    )


def closest_gold_records(version: DatasetVersion) -> Iterator[ClosestGoldRecord]:
    """Every task system's closest-golds, sentence by sentence (release order)."""
    rows = released_rows(version)
    for system in closest_gold_systems(version):
        output_at = {row.position: h for row, h in zip(rows, system.hypotheses, strict=True)}
        decisions: dict[int, list[str]] = {}
        for position, output, decision in ClosestGoldVerification.objects.filter(
            item__systems=system, item__task__version=version
        ).values_list("item__position", "item__output", "decision"):
            # Only items of the current output count (as closest_golds reads them).
            if output_at.get(position) == output:
                decisions.setdefault(position, []).append(decision)
        for row, output, golds in zip(rows, system.hypotheses, closest_golds(system), strict=True):
            yield ClosestGoldRecord(
                system=system.name,
                position=row.position,
                external_id=row.external_id,
                source=row.text,
                output=output,
                closest_golds=golds,
                decisions=decisions.get(row.position, []) if golds else [],
            )


def _parallel(fields: Sequence[str]) -> str:
    return "\t".join(field.replace("\t", " ").replace("\n", " ") for field in fields) + "\n"


def export_closest_golds(*, version: DatasetVersion, folder: Path, user: Any) -> list[Path]:
    """Write the release's closest-gold files into ``folder`` (created); returns them."""
    folder.mkdir(parents=True, exist_ok=True)
    records = list(closest_gold_records(version))
    written = [folder / "closest_gold.jsonl"]
    write_atomically(
        written[0],
        (json.dumps(r.as_json(), ensure_ascii=False) + "\n" for r in records),
    )
    rows = released_rows(version)
    systems = closest_gold_systems(version)
    for system in systems:
        hyp = folder / f"{system.name}.hyp.txt"
        write_atomically(
            hyp,
            (
                _parallel((row.external_id, row.text, output))
                for row, output in zip(rows, system.hypotheses, strict=True)
            ),
        )
        refs = folder / f"{system.name}.closest-gold.txt"
        write_atomically(
            refs,
            (
                _parallel((r.external_id, r.source, *r.closest_golds))
                for r in records
                if r.system == system.name and r.closest_golds
            ),
        )
        written += [hyp, refs]
    if systems:
        pooled = set_references(systems[0], "pooled")
        english = version.dataset.language == Language.ENGLISH
        path = folder / "pooled.txt"
        write_atomically(
            path,
            (
                _parallel(
                    (
                        row.external_id,
                        row.text,
                        *(row.text if english and t in MARKERS else t for t in texts),
                    )
                )
                for row, texts in zip(rows, pooled.references, strict=True)
            ),
        )
        written.append(path)
    log_action(version, user, "scoring.closest_gold.export", {"files": len(written)})
    return written
