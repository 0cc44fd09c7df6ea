"""Per-system references for ``meta system --compute``: closest-gold and pooled columns.

A closest-gold reference is a correct version written from a system's own output rather than
from the source, so every system has references of its own. ``--closest-gold DIR`` names a
folder with one file per system, named after it: ``<SYSTEM>.closest-gold.txt`` (as the
platform exports it), ``<SYSTEM>.txt`` or ``<SYSTEM>``, a
parallel file (``id<TAB>source<TAB>closest-gold...``, one line per gold sentence, in the
gold's order, sources equal to the gold's), or ``<SYSTEM>.m2``, an M2 file of the same
sentences. Each ``--compute`` metric is then also computed with each system against its own
file, as ``NAME@closest-gold``; ``--pooled`` adds ``NAME@pooled``: every system against the
gold's annotators plus every system's closest-golds (a text already among a sentence's
references is not added twice, as the platform pools them).

Parallel files are extracted by the gold language's one extractor (ChERRANT char level with
$GEC_CHERRANT_RESOURCES for Chinese, ERRANT for English), as the outputs are. GLEU and GREEN
score against the closest-gold texts, so they need parallel files, and for ``@pooled`` the
golden plain references too (``--refs``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from gecscore.errors import InputError

if TYPE_CHECKING:
    from gecscore.m2 import M2Block, M2Target
    from gecscore.meta.compute import Inputs, MetricScores

__all__ = [
    "CLOSEST_GOLD",
    "closest_gold_columns",
    "POOLED",
    "SystemReferences",
    "pooled_references",
    "read_closest_gold_dir",
    "reference_set_scores",
]

CLOSEST_GOLD = "closest-gold"
POOLED = "pooled"


@dataclass(frozen=True)
class SystemReferences:
    """One system's references: M2 blocks (one per gold sentence) and, from a parallel file,
    the texts of each sentence (``None`` from an M2 file)."""

    blocks: list[M2Block]
    texts: list[list[str]] | None


def _file_of(folder: Path, system: str) -> Path:
    for name in (f"{system}.closest-gold.txt", f"{system}.txt", system, f"{system}.m2"):
        if (folder / name).is_file():
            return folder / name
    raise InputError(
        f"{folder}: no closest-gold file for {system} ({system}.closest-gold.txt, "
        f"{system}.txt, {system} or {system}.m2)"
    )


def _extract(sources: Sequence[str], texts: list[list[str]], language: str) -> list[M2Block]:
    if language == "zh":
        from gecscore.extract import parallel_to_m2
        from gecscore.mucgec import ParallelLine
        from gecscore.resources import resources_from_env

        lines = [
            ParallelLine(str(n), source, tuple(refs), n)
            for n, (source, refs) in enumerate(zip(sources, texts, strict=True), 1)
        ]
        return parallel_to_m2(
            lines, resources=resources_from_env(), granularity="char", name="closest-gold"
        )[0]
    from gecscore.english.errant_edits import ragged_m2_blocks

    return ragged_m2_blocks(sources, texts)


def _read_one(path: Path, gold: Sequence[M2Block], language: str) -> SystemReferences:
    if path.suffix == ".m2":
        from gecscore.m2 import read_m2

        blocks = read_m2(str(path))
        if len(blocks) != len(gold):
            raise InputError(f"{path}: {len(blocks)} sentences for {len(gold)} gold sentences")
        return SystemReferences(blocks, None)
    from gecscore.extract import read_parallel

    lines = read_parallel(path)
    if len(lines) != len(gold):
        raise InputError(f"{path}: {len(lines)} lines for {len(gold)} gold sentences")
    for line, block in zip(lines, gold, strict=True):
        if "".join(line.source.split()) != "".join(block.source.split()):
            raise InputError(
                f"{path}, line {line.line}: source differs from the gold's sentence "
                f"{block.line or '?'} (the files follow the gold's order)"
            )
    texts = [list(line.targets) for line in lines]
    sources = (
        ["".join(b.source.split()) for b in gold] if language == "zh" else [b.source for b in gold]
    )
    return SystemReferences(_extract(sources, texts, language), texts)


def read_closest_gold_dir(
    folder: str | Path, systems: Sequence[str], gold: Sequence[M2Block], language: str
) -> dict[str, SystemReferences]:
    """Every system's closest-gold references from ``folder`` (one file each)."""
    root = Path(folder)
    if not root.is_dir():
        raise InputError(f"{root}: not a folder of closest-gold files")
    return {system: _read_one(_file_of(root, system), gold, language) for system in systems}


def _renumbered(block: M2Block, first: int) -> list[M2Target]:
    """The block's targets with annotators ``first``, ``first + 1``, ... (edits too)."""
    from gecscore.m2 import M2Target

    ids = sorted({t.annotator for t in block.targets})
    out = []
    for target in block.targets:
        new_id = first + ids.index(target.annotator)
        edits = [edit._replace(annotator=new_id) for edit in target.edits]
        out.append(M2Target(new_id, target.alternative, target.text, edits))
    return out


def pooled_references(
    gold: Sequence[M2Block],
    golden_texts: Sequence[Sequence[str]] | None,
    per_system: Mapping[str, SystemReferences],
) -> SystemReferences:
    """The gold's annotators, then each system's closest-golds (systems in name order) whose
    text is not already a reference of the sentence."""
    from gecscore.m2 import M2Block

    blocks: list[M2Block] = []
    texts: list[list[str]] | None = (
        None if golden_texts is None or any(r.texts is None for r in per_system.values()) else []
    )
    for index, block in enumerate(gold):
        targets = list(block.targets)
        seen = {t.text for t in targets if t.text}
        sentence_texts = list(golden_texts[index]) if golden_texts is not None else []
        seen.update(sentence_texts)
        next_id = max((t.annotator for t in targets), default=-1) + 1
        for system in sorted(per_system):
            refs = per_system[system]
            extra = refs.blocks[index]
            fresh = [t for t in extra.targets if not (t.text and t.text in seen)]
            if refs.texts is not None:
                fresh_texts = [t for t in refs.texts[index] if t not in seen]
                sentence_texts.extend(fresh_texts)
                seen.update(fresh_texts)
            if fresh:
                shown = M2Block(extra.source, fresh, extra.line)
                targets.extend(_renumbered(shown, next_id))
                next_id = max(t.annotator for t in targets) + 1
            seen.update(t.text for t in fresh if t.text)
        blocks.append(M2Block(block.source, targets, block.line))
        if texts is not None:
            texts.append(sentence_texts)
    return SystemReferences(blocks, texts)


def _columns(texts: Sequence[Sequence[str]], sources: Sequence[str]) -> list[list[str]]:
    """Reference files (``columns[k][i]``) from per-sentence texts: a sentence with fewer
    references repeats its first (as the CoNLL-14 reference files do)."""
    width = max((len(t) for t in texts), default=1) or 1
    return [
        [(refs[k] if k < len(refs) else (refs[0] if refs else source)) for refs, source in
         zip(texts, sources, strict=True)]
        for k in range(width)
    ]  # fmt: skip


def reference_set_scores(
    names: Sequence[str],
    inputs: Inputs,
    per_system: Mapping[str, SystemReferences],
    label: str,
) -> dict[str, MetricScores]:
    """``{NAME@label: scores}``: each metric with each system against its own references."""
    from gecscore.meta.compute import PLAIN_REFERENCE_METRICS, MetricScores, compute_all
    from gecscore.meta.compute_edits import gold_language

    language = gold_language(inputs)
    merged: dict[str, MetricScores] = {}
    for system, lines in inputs.outputs.items():
        refs = per_system[system]
        if refs.texts is None and any(n in PLAIN_REFERENCE_METRICS for n in names):
            raise InputError(
                f"{label} of {', '.join(n for n in names if n in PLAIN_REFERENCE_METRICS)} "
                f"needs parallel closest-gold files (texts), not M2 ({system})"
            )
        sub = replace(
            inputs,
            outputs={system: lines},
            gold=refs.blocks,
            references=_columns(refs.texts, inputs.sources) if refs.texts is not None else [],
            language=language,
        )
        for name, result in compute_all(names, sub).items():
            key = f"{name}@{label}"
            into = merged.setdefault(
                key,
                MetricScores(
                    {},
                    None if result.sentence_stats is None else {},
                    result.aggregate,
                    None if result.sentence_scores is None else {},
                ),
            )
            into.scores.update(result.scores)
            if result.sentence_stats is not None and into.sentence_stats is not None:
                into.sentence_stats.update(result.sentence_stats)
            if result.sentence_scores is not None and into.sentence_scores is not None:
                into.sentence_scores.update(result.sentence_scores)
    return merged


def closest_gold_columns(
    names: Sequence[str], inputs: Inputs, folder: str | Path, pooled: bool
) -> dict[str, MetricScores]:
    """``meta system --compute NAMES --closest-gold DIR [--pooled]``: the metrics as
    ``NAME@closest-gold`` (and ``NAME@pooled``) beside the golden ones."""
    from gecscore.meta.compute_edits import gold_language

    per_system = read_closest_gold_dir(
        folder, list(inputs.outputs), inputs.gold, gold_language(inputs)
    )
    out = reference_set_scores(names, inputs, per_system, CLOSEST_GOLD)
    if pooled:
        golden = [list(dict.fromkeys(texts)) for texts in zip(*inputs.references, strict=True)]
        pool = pooled_references(inputs.gold, golden or None, per_system)
        out.update(reference_set_scores(names, inputs, dict.fromkeys(inputs.outputs, pool), POOLED))
    return out
