"""Human and metric score files, gzipped or not, in the two layouts meta-evaluation uses.

* WMT metrics-task layout (``../conll14/published_scores``, gecmetrics): tab-separated
  ``NAME LANGPAIR TESTSET SYSTEM SCORE`` (system level) or
  ``NAME LANGPAIR TESTSET SYSTEM SEGMENT SCORE`` (sentence level).
* SEEDA layout: one score per line, systems in SEEDA's alphabetical order
  (:data:`SEEDA_SYSTEMS`); sentence scores one per line in one ``<SYSTEM>.txt`` file per system
  in a folder, line k = the k-th judged sentence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from gecscore.boundedio import DEFAULT_LIMITS, ReadLimits, read_bounded
from gecscore.errors import InputFormatError, OptionError, decode_utf8, split_lines

__all__ = [
    "SEEDA_SYSTEMS",
    "SYSTEM_SETS",
    "ScoreFileError",
    "SentenceScores",
    "SystemScores",
    "read_sentence_scores",
    "read_system_list",
    "read_system_scores",
    "select_systems",
]

# SEEDA's system order (ASCII order of the names), as in its score files and scripts.
SEEDA_SYSTEMS: tuple[str, ...] = (
    "BART",
    "BERT-fuse",
    "GECToR-BERT",
    "GECToR-ens",
    "GPT-3.5",
    "INPUT",
    "LM-Critic",
    "PIE",
    "REF-F",
    "REF-M",
    "Riken-Tohoku",
    "T5",
    "TemplateGEC",
    "TransGEC",
    "UEDIN-MS",
)

# SEEDA's system sets (corr_system.py --systems): the systems each one leaves out.
SYSTEM_SETS: dict[str, frozenset[str]] = {
    "base": frozenset({"GPT-3.5", "INPUT", "REF-F"}),
    "+INPUT": frozenset({"GPT-3.5", "REF-F"}),
    "+REF-F_GPT-3.5": frozenset({"INPUT"}),
    "all": frozenset(),
}


class ScoreFileError(InputFormatError):
    """A score file line that cannot be used (file name and 1-based line in the message)."""


@dataclass(frozen=True)
class SystemScores:
    """One score per system, under one name (the metric, or ``HUMAN``)."""

    name: str
    scores: dict[str, float]


@dataclass(frozen=True)
class SentenceScores:
    """Per system, per segment key, one score."""

    name: str
    scores: dict[str, dict[str, float]]


def _read_text(path: str | Path, limits: ReadLimits = DEFAULT_LIMITS) -> str:
    name = str(path)
    try:
        data = read_bounded(path, name=name, limits=limits)  # gzip sniffed, bounded
    except InputFormatError as exc:
        raise ScoreFileError(exc.path, exc.line, exc.message) from None
    return decode_utf8(data, name=name, error=ScoreFileError)


def _number(text: str, path: str, line: int) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ScoreFileError(path, line, f"score {text!r} is not a number") from None
    if math.isnan(value):
        raise ScoreFileError(path, line, f"score {text!r} is not a number")
    return value


def _lines(path: str | Path, limits: ReadLimits = DEFAULT_LIMITS) -> list[tuple[int, str]]:
    text = _read_text(path, limits)
    return [(n, line.strip()) for n, line in enumerate(split_lines(text), 1) if line.strip()]


def read_system_scores(
    path: str | Path,
    *,
    name: str | None = None,
    systems: tuple[str, ...] = SEEDA_SYSTEMS,
    limits: ReadLimits = DEFAULT_LIMITS,
) -> SystemScores:
    """System scores from a WMT-layout or a SEEDA-layout file (detected per file).

    WMT layout: a file holding several names needs ``name`` to pick one. SEEDA layout: one
    number per line, in the order ``systems`` (SEEDA's 15 by default)."""
    label = str(path)
    rows = _lines(path, limits)
    if not rows:
        raise ScoreFileError(label, 1, "the file holds no scores")
    if "\t" not in rows[0][1]:
        if len(rows) != len(systems):
            raise ScoreFileError(
                label,
                rows[-1][0],
                f"{len(rows)} scores, but the one-score-per-line layout needs one per system"
                f" in order ({len(systems)}: {', '.join(systems)})",
            )
        scores = {s: _number(text, label, n) for s, (n, text) in zip(systems, rows, strict=True)}
        return SystemScores(name or Path(label).name.split(".")[0], scores)
    names: dict[str, dict[str, float]] = {}
    for n, text in rows:
        fields = text.split("\t")
        if len(fields) != 5:
            raise ScoreFileError(
                label, n, f"{len(fields)} fields; expected NAME LANGPAIR TESTSET SYSTEM SCORE"
            )
        per_system = names.setdefault(fields[0], {})
        if fields[3] in per_system:
            raise ScoreFileError(label, n, f"system {fields[3]!r} is scored twice")
        per_system[fields[3]] = _number(fields[4], label, n)
    if name is not None and name in names:
        return SystemScores(name, names[name])
    if len(names) == 1:
        only = next(iter(names))
        return SystemScores(only if name is None else name, names[only])
    raise ScoreFileError(label, 1, f"the file holds several names ({', '.join(names)}); pick one")


def read_sentence_scores(
    path: str | Path, *, systems: tuple[str, ...] | None = None
) -> SentenceScores:
    """Sentence scores: a WMT-layout file (``... SYSTEM SEGMENT SCORE``; segment keys as
    written) or a folder of ``<SYSTEM>.txt`` files with one score per line (keys ``0``,
    ``1``, ... = line number - 1). ``systems`` limits the folder to those files."""
    label = str(path)
    folder = Path(label)
    if folder.is_dir():
        scores: dict[str, dict[str, float]] = {}
        files = sorted(folder.glob("*.txt"))
        wanted = set(systems) if systems is not None else None
        for file in files:
            system = file.name[: -len(".txt")]
            if wanted is not None and system not in wanted:
                continue
            scores[system] = {
                str(n - 1): _number(text, str(file), n)
                for n, text in enumerate(_read_text(file).splitlines(), 1)
                if text.strip()
            }
        if wanted is not None and wanted - set(scores):
            missing = ", ".join(sorted(wanted - set(scores)))
            raise ScoreFileError(label, 1, f"no score file for {missing} in the folder")
        if not scores:
            raise ScoreFileError(label, 1, "the folder holds no <SYSTEM>.txt score files")
        return SentenceScores(folder.name, scores)
    name = ""
    table: dict[str, dict[str, float]] = {}
    for n, text in _lines(path):
        fields = text.split("\t")
        if len(fields) != 6:
            raise ScoreFileError(
                label,
                n,
                f"{len(fields)} fields; expected NAME LANGPAIR TESTSET SYSTEM SEGMENT SCORE",
            )
        name = fields[0]
        per_segment = table.setdefault(fields[3], {})
        if fields[4] in per_segment:
            raise ScoreFileError(label, n, f"segment {fields[4]} of {fields[3]} is scored twice")
        per_segment[fields[4]] = _number(fields[5], label, n)
    if not table:
        raise ScoreFileError(label, 1, "the file holds no scores")
    return SentenceScores(name, table)


def read_system_list(path: str | Path) -> list[str]:
    """System names, one per line (a ``--systems FILE``)."""
    return [text for _, text in _lines(path)]


def select_systems(
    available: list[str] | tuple[str, ...],
    selection: str = "all",
    *,
    exclude: tuple[str, ...] = (),
) -> list[str]:
    """The systems of a named set (``base``, ``+INPUT``, ``+REF-F_GPT-3.5``, ``all``) or of a
    file listing names, minus ``exclude``; in the order of ``available``."""
    if selection in SYSTEM_SETS:
        chosen = [s for s in available if s not in SYSTEM_SETS[selection]]
    else:
        listed = read_system_list(selection)
        unknown = [s for s in listed if s not in available]
        if unknown:
            raise ScoreFileError(selection, 1, f"unknown systems {', '.join(unknown)}")
        chosen = [s for s in available if s in set(listed)]
    unknown = [s for s in exclude if s not in available]
    if unknown:
        raise OptionError(f"cannot exclude unknown systems: {', '.join(unknown)}")
    return [s for s in chosen if s not in set(exclude)]
