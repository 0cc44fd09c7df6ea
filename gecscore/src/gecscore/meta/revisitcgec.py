"""RevisitCGEC (Wang et al. 2024): the one public set of human rankings of Chinese GEC systems.

The folder (``judgments.xml``, ``system-corrections/{SYSTEM}.{CORPUS}.txt``,
``sentence-ids/{CORPUS}_ids.txt``, ``yaclc-dev/yaclc-{minimal,fluency}_dev.subset.para``) and
MuCGEC dev (``MuCGEC_dev.txt``, by id) give, per corpus (``mucgec``, ``yaclc``):

* the 100 judged sentences in ``sentence-ids`` order: id, source, references (the file's
  targets as given, ``没有错误`` included: the char metric reads them as ChERRANT does), and the
  ``segment`` the XML names it by (MuCGEC: ``src-id`` = id - 1; YACLC: ``src-id`` = id);
* the six systems' outputs, line k = the k-th sentence;
* the ranking items of that corpus (``doc-id``).

:func:`human_scores` ranks the systems from the items as grammatical/evaluation's scripts do
(Expected Wins, TrueSkill; collapsed identical outputs such as ``"bart char spm"`` split into
systems of equal rank, as for GJG15), per corpus or pooled. Pooled segments are
``CORPUS:SRC-ID`` (the two corpora reuse src-ids). Which YACLC reference set the paper used is
not stated; ``yaclc_refs`` picks ``minimal`` (default) or ``fluency``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gecscore.errors import GECError, InputFormatError, read_lines
from gecscore.m2 import NO_ERROR_TEXT, NOT_ANNOTATABLE_TEXT
from gecscore.meta.judgments import RankingItem, read_judgments_xml
from gecscore.meta.report import human_ranking
from gecscore.mucgec import ParallelLine

__all__ = [
    "CORPORA",
    "CORPUS_CHOICES",
    "Corpus",
    "MUCGEC_DEV_NAME",
    "RevisitDataError",
    "SYSTEMS",
    "Sentence",
    "YACLC_REFERENCE_SETS",
    "find_mucgec_dev",
    "human_scores",
    "load_corpus",
    "pool",
]


CORPORA = ("mucgec", "yaclc")
CORPUS_CHOICES = (*CORPORA, "all")
SYSTEMS = ("bart", "char", "s2e", "spm", "t5", "word")
YACLC_REFERENCE_SETS = ("minimal", "fluency")
MUCGEC_DEV_NAME = "MuCGEC_dev.txt"


class RevisitDataError(GECError, ValueError):
    """The RevisitCGEC folder is incomplete or does not line up (file and what to do named)."""


@dataclass(frozen=True)
class Sentence:
    """One judged sentence: dataset id, the XML's segment, source and references."""

    id: str
    segment: str
    source: str
    targets: tuple[str, ...]  # as in the data file (没有错误 / 无法标注 kept)

    @property
    def references(self) -> tuple[str, ...]:
        """Plain corrected texts for text metrics: 没有错误 = the source, 无法标注 left out
        (the source when nothing is left)."""
        texts = [
            self.source if t == NO_ERROR_TEXT else t
            for t in self.targets
            if t != NOT_ANNOTATABLE_TEXT
        ]
        return tuple(texts) or (self.source,)

    def parallel(self, number: int) -> ParallelLine:
        return ParallelLine(self.id, self.source, self.targets, number)


@dataclass(frozen=True)
class Corpus:
    """One corpus of RevisitCGEC (or the pooled 200 sentences, ``name == "all"``)."""

    name: str
    sentences: tuple[Sentence, ...]
    outputs: Mapping[str, tuple[str, ...]]  # system -> one output per sentence
    items: tuple[RankingItem, ...]
    reference_set: str  # "mucgec", "yaclc-minimal", "yaclc-fluency" or "+"-joined

    @property
    def sources(self) -> list[str]:
        return [s.source for s in self.sentences]

    @property
    def segments(self) -> list[str]:
        return [s.segment for s in self.sentences]

    def reference_sets(self) -> list[list[str]]:
        """``refs[k][i]``: reference k of sentence i, as the metric API takes them; a sentence
        with fewer references repeats its first (GLEU's and sacrebleu's convention needs the
        same count for every sentence)."""
        width = max(len(s.references) for s in self.sentences)
        return [
            [s.references[k] if k < len(s.references) else s.references[0] for s in self.sentences]
            for k in range(width)
        ]

    def reference_lines(self) -> list[ParallelLine]:
        return [s.parallel(n) for n, s in enumerate(self.sentences, 1)]

    def hypothesis_lines(self, system: str) -> list[ParallelLine]:
        return [
            ParallelLine(s.id, s.source, (hyp,), n)
            for n, (s, hyp) in enumerate(zip(self.sentences, self.outputs[system], strict=True), 1)
        ]


def _lines(path: Path) -> list[str]:
    if not path.is_file():
        raise RevisitDataError(f"{path}: missing (see the RevisitCGEC folder layout)")
    return read_lines(path)


def _parallel(path: Path) -> dict[str, ParallelLine]:
    from gecscore.mucgec import parallel_rows

    rows = parallel_rows(_lines(path), name=str(path))
    return {row.id: row for row in rows}


def find_mucgec_dev(folder: Path) -> Path:
    """``MuCGEC_dev.txt`` in the folder, its ``mucgec-dev/`` or the sibling ``mucgec-dev/``."""
    for candidate in (
        folder / MUCGEC_DEV_NAME,
        folder / "mucgec-dev" / MUCGEC_DEV_NAME,
        folder.parent / "mucgec-dev" / MUCGEC_DEV_NAME,
    ):
        if candidate.is_file():
            return candidate
    raise RevisitDataError(
        f"{folder}: no {MUCGEC_DEV_NAME} beside it (give its path: --mucgec-dev FILE)"
    )


def _corpus_sentences(
    folder: Path, corpus: str, mucgec_dev: Path, yaclc_refs: str
) -> tuple[list[Sentence], str]:
    ids_path = folder / "sentence-ids" / f"{corpus}_ids.txt"
    ids = [line.strip() for line in _lines(ids_path) if line.strip()]
    if corpus == "mucgec":
        rows, reference_set = _parallel(mucgec_dev), "mucgec"
    else:
        name = f"yaclc-{yaclc_refs}_dev.subset.para"
        rows, reference_set = _parallel(folder / "yaclc-dev" / name), f"yaclc-{yaclc_refs}"
    sentences = []
    for number, sid in enumerate(ids, 1):
        row = rows.get(sid)
        if row is None:
            raise InputFormatError(str(ids_path), number, f"id {sid} is not in the {corpus} data")
        # The XML's src-id: MuCGEC numbers from 0 (id - 1), YACLC uses the .para id itself.
        segment = str(int(sid) - 1) if corpus == "mucgec" else sid
        sentences.append(Sentence(sid, segment, row.source, row.targets))
    return sentences, reference_set


def load_corpus(
    folder: str | Path,
    corpus: str,
    *,
    mucgec_dev: str | Path | None = None,
    yaclc_refs: str = "minimal",
    items: Sequence[RankingItem] | None = None,
) -> Corpus:
    """One corpus (``mucgec``, ``yaclc``) or both pooled (``all``)."""
    root = Path(folder)
    if corpus not in CORPUS_CHOICES:
        raise RevisitDataError(f"corpus must be one of {', '.join(CORPUS_CHOICES)}, got {corpus!r}")
    if yaclc_refs not in YACLC_REFERENCE_SETS:
        raise RevisitDataError(
            f"YACLC references must be {' or '.join(YACLC_REFERENCE_SETS)}, got {yaclc_refs!r}"
        )
    if items is None:
        items = read_judgments_xml(root / "judgments.xml").items
    if corpus == "all":
        parts = [
            load_corpus(root, c, mucgec_dev=mucgec_dev, yaclc_refs=yaclc_refs, items=items)
            for c in CORPORA
        ]
        return pool(parts)
    dev = Path(mucgec_dev) if mucgec_dev is not None else find_mucgec_dev(root)
    sentences, reference_set = _corpus_sentences(root, corpus, dev, yaclc_refs)
    outputs: dict[str, tuple[str, ...]] = {}
    for system in SYSTEMS:
        path = root / "system-corrections" / f"{system}.{corpus}.txt"
        lines = _lines(path)
        if len(lines) != len(sentences):
            raise RevisitDataError(f"{path}: {len(lines)} lines for {len(sentences)} sentences")
        outputs[system] = tuple(lines)
    mine = tuple(item for item in items if item.doc_id == corpus)
    known = {s.segment for s in sentences}
    stray = sorted({item.src_id for item in mine} - known)
    if stray:
        raise RevisitDataError(
            f"judgments.xml: {corpus} items name src-id {', '.join(stray[:5])} that no sentence "
            "of sentence-ids has"
        )
    return Corpus(corpus, tuple(sentences), outputs, mine, reference_set)


def pool(parts: Sequence[Corpus]) -> Corpus:
    """The corpora as one: segments (and the items' src-ids) become ``CORPUS:SRC-ID``."""
    sentences: list[Sentence] = []
    items: list[RankingItem] = []
    for part in parts:
        sentences.extend(replace(s, segment=f"{part.name}:{s.segment}") for s in part.sentences)
        items.extend(replace(i, src_id=f"{part.name}:{i.src_id}") for i in part.items)
    outputs = {
        system: tuple(line for part in parts for line in part.outputs[system]) for system in SYSTEMS
    }
    return Corpus(
        "all", tuple(sentences), outputs, tuple(items), "+".join(p.reference_set for p in parts)
    )


def human_scores(
    corpus: Corpus,
    *,
    method: str = "both",
    runs: int = 1000,
    seed: int = 0,
    bootstrap: int = 0,
    workers: int = 1,
) -> dict[str, Any]:
    """The human ranking of the six systems on the corpus's items (``report.human_ranking``:
    ``systems.<name>.expected_wins`` / ``trueskill``, agreement, counts)."""
    return human_ranking(
        corpus.items,
        method=method,
        runs=runs,
        seed=seed,
        bootstrap=bootstrap,
        systems=SYSTEMS,
        workers=workers,
    )
