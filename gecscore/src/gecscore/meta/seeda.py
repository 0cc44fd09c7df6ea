"""SEEDA's standard meta-evaluation of one metric (``gecscore meta seeda``), the setting of
gec-metrics' ``MetaEvalSEEDA``: the ``base`` systems (all but GPT-3.5, INPUT, REF-F), the 391
CoNLL-14 test sentences SEEDA judged, references REF0/REF1, the four human system scores
(Expected Wins and TrueSkill of SEEDA-E and SEEDA-S) and the two judgment files for the
sentence level.

It only finds SEEDA's files and calls what ``meta system --compute`` and ``meta sentence
--variant seeda`` call (:func:`gecscore.meta.compute.load_inputs`, ``compute_all``,
``aggregated``, :func:`gecscore.meta.report.system_report`, ``sentence_report``), so its
numbers are theirs for the same setting.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gecscore.errors import InputError, OptionError, read_lines
from gecscore.meta import compute
from gecscore.meta.aggregation_names import AGGREGATION_SPELLINGS
from gecscore.meta.judgments import pairwise, read_judgments_xml
from gecscore.meta.report import sentence_report, system_report
from gecscore.meta.scorefiles import SEEDA_SYSTEMS, read_system_scores, select_systems

__all__ = [
    "AGGREGATES",
    "HUMAN_SIDES",
    "JUDGMENTS",
    "SYSTEM_SET",
    "SeedaFiles",
    "format_text",
    "seeda_files",
    "seeda_report",
]

SYSTEM_SET = "base"
AGGREGATES = AGGREGATION_SPELLINGS  # gec-metrics' spellings
# JSON key -> file in scores/human/ (gec-metrics' ``SEEDASystemCorrOutput`` fields).
HUMAN_SIDES = {
    "ew_edit": "EW_edit.txt",
    "ew_sent": "EW_sent.txt",
    "ts_edit": "TS_edit.txt",
    "ts_sent": "TS_sent.txt",
}
# JSON key -> file in data/ (gec-metrics' ``SEEDASentenceCorrOutput`` fields).
JUDGMENTS = {"edit": "judgments_edit.xml", "sent": "judgments_sent.xml"}
GOLD_NAME = "conll14st-test.m2"
REFERENCE_NAMES = ("REF0.txt", "REF1.txt")


@dataclass(frozen=True)
class SeedaFiles:
    """The files of a SEEDA folder that the standard setting reads."""

    outputs: Path
    lines: Path
    gold: Path
    references: tuple[Path, ...]
    human: dict[str, Path]
    judgments: dict[str, Path]


def _not_seeda(folder: Path, missing: Sequence[str]) -> InputError:
    return InputError(
        f"{folder}: not a SEEDA folder (tmu-nlp/SEEDA's layout): missing {', '.join(missing)}"
    )


def _references(root: Path) -> tuple[Path, ...]:
    """REF0/REF1 of the subset: ``refs/`` (this repository's data) or ``outputs/subset/``
    (where gec-metrics' ``gecmetrics-prepare-meta-eval`` writes them)."""
    for folder in (root / "refs", root / "outputs" / "subset"):
        found = tuple(folder / name for name in REFERENCE_NAMES)
        if all(path.is_file() for path in found):
            return found
    raise InputError(
        f"{root}: no REF0.txt and REF1.txt in refs/ or outputs/subset/ (CoNLL-14 gold "
        "annotators 0 and 1 on the subset's 391 lines, as gec-metrics prepares them)"
    )


def _gold(root: Path, gold: str | Path | None) -> Path:
    if gold is not None:
        path = Path(gold)
        if not path.is_file():
            raise InputError(f"{path}: no such gold M2 file")
        return path
    candidates = (root / GOLD_NAME, root.parent / "conll14" / GOLD_NAME)
    for path in candidates:
        if path.is_file():
            return path
    raise InputError(
        f"no CoNLL-14 gold M2 found (looked for {', '.join(map(str, candidates))}): "
        "give --gold conll14st-test.m2"
    )


def seeda_files(folder: str | Path, *, gold: str | Path | None = None) -> SeedaFiles:
    """The files of SEEDA's layout in ``folder``; an :class:`InputError` naming what is
    missing. The gold M2 is ``gold``, else ``conll14st-test.m2`` in the folder or in
    ``../conll14/`` beside it."""
    root = Path(folder)
    if not root.is_dir():
        raise InputError(f"{root}: no such folder (give --seeda the SEEDA folder)")
    outputs = root / "outputs" / "subset"
    lines = root / "subset_conll14_lines.txt"
    human = {key: root / "scores" / "human" / name for key, name in HUMAN_SIDES.items()}
    judgments = {key: root / "data" / name for key, name in JUDGMENTS.items()}
    missing = ["outputs/subset/"] if not outputs.is_dir() else []
    missing += [
        str(path.relative_to(root))
        for path in (*human.values(), *judgments.values())
        if not path.is_file()
    ]
    if missing:
        raise _not_seeda(root, missing)
    if not lines.is_file():
        raise InputError(
            f"{lines}: missing; line k must be the 1-based CoNLL-14 test line of subset "
            "sentence k (391 lines)"
        )
    return SeedaFiles(outputs, lines, _gold(root, gold), _references(root), human, judgments)


def seeda_report(
    folder: str | Path,
    metric: str,
    *,
    aggregate: str = "default",
    gold: str | Path | None = None,
    ptm2_model: str | None = None,
    ptm2_layers: int | None = None,
) -> dict[str, Any]:
    """SEEDA's standard setting for the registry metric ``metric`` (a name of
    :data:`gecscore.meta.compute.METRICS`): ``{"metric", "aggregate", "system_set",
    "systems", "sentences", "metric_scores", "system", "sentence", "files"}`` (keys in
    ``docs/metrics/meta-evaluation.md``). ``ptm2_model``/``ptm2_layers``: PT-M2's BERT, as
    ``meta system --compute ptm2`` takes it."""
    if metric not in compute.METRICS:
        raise OptionError(f"unknown metric {metric!r} (known: {', '.join(compute.METRICS)})")
    if aggregate not in AGGREGATES:
        raise OptionError(f"aggregate must be one of {', '.join(AGGREGATES)} (got {aggregate!r})")
    files = seeda_files(folder, gold=gold)
    systems = select_systems(SEEDA_SYSTEMS, SYSTEM_SET)
    inputs = compute.load_inputs(
        files.outputs,
        files.gold,
        lines=files.lines,
        references=files.references,
        systems=systems,
        ptm2_model=ptm2_model,
        ptm2_layers=ptm2_layers,
    )
    subset = [int(text) for text in files.lines.read_text(encoding="utf-8").split()]
    _check_sources(files, inputs.sources)
    result = compute.compute_all([metric], inputs)[metric]
    scores = compute.aggregated(metric, result, aggregate, systems)
    system: dict[str, dict[str, Any]] = {}
    for key, path in files.human.items():
        human = read_system_scores(path).scores
        entry = system_report(human, {metric: scores}, systems)["metrics"][metric]
        system[key] = {"pearson": entry["pearson"], "spearman": entry["spearman"]}
    sentence: dict[str, dict[str, Any]] | None = None
    if result.sentence_scores is not None:
        # Keyed by src-id (the CoNLL-14 line), the segment the judgment files name.
        by_segment = {
            s: {
                str(line): value
                for line, value in zip(subset, result.sentence_scores[s], strict=True)
            }
            for s in systems
        }
        sentence = {}
        for key, path in files.judgments.items():
            comparisons = pairwise(read_judgments_xml(path).items, systems=systems)
            report = sentence_report(comparisons, {metric: by_segment}, variant="seeda")
            sentence[key] = {**report["metrics"][metric], "pairs": report["pairs"]}
    return {
        "metric": metric,
        "aggregate": aggregate,
        "system_set": SYSTEM_SET,
        "systems": systems,
        "sentences": len(subset),
        "metric_scores": {s: scores[s] for s in systems},
        "system": system,
        "sentence": sentence,
        "files": {
            "outputs": str(files.outputs),
            "lines": str(files.lines),
            "gold": str(files.gold),
            "references": [str(p) for p in files.references],
            "human": {k: str(p) for k, p in files.human.items()},
            "judgments": {k: str(p) for k, p in files.judgments.items()},
        },
    }


def _check_sources(files: SeedaFiles, sources: Sequence[str]) -> None:
    """INPUT.txt is the subset's sources: a gold file or line list that does not match it
    would score other sentences."""
    input_file = files.outputs / "INPUT.txt"
    if not input_file.is_file():
        return
    given = read_lines(input_file)
    if len(given) != len(sources):
        raise InputError(
            f"{input_file}: {len(given)} lines for {len(sources)} lines in {files.lines}"
        )
    for k, (line, source) in enumerate(zip(given, sources, strict=True), 1):
        if line.strip() != source.strip():
            raise InputError(
                f"{input_file}: line {k} is not the source of gold line k of "
                f"{files.lines} in {files.gold}: wrong gold file or line list"
            )


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def format_text(report: dict[str, Any]) -> str:
    """The tables ``meta seeda`` prints without ``--json``."""
    refs = " ".join(Path(p).stem for p in report["files"]["references"])
    lines = [
        f"{report['metric']} on SEEDA: {report['system_set']} ({len(report['systems'])} "
        f"systems), {report['sentences']} sentences, references {refs}, "
        f"aggregate {report['aggregate']}",
        "system level\tpearson\tspearman",
    ]
    for key, entry in report["system"].items():
        lines.append(f"{key}\t{_fmt(entry['pearson'])}\t{_fmt(entry['spearman'])}")
    if report["sentence"] is None:
        lines.append(f"sentence level: {report['metric']} has no sentence scores")
    else:
        lines.append("sentence level\taccuracy\tkendall\taccuracy_ties\tkendall_ties\tpairs")
        for key, entry in report["sentence"].items():
            values = (entry[k] for k in ("accuracy", "kendall", "accuracy_ties", "kendall_ties"))
            lines.append(f"{key}\t" + "\t".join(map(_fmt, values)) + f"\t{entry['pairs']}")
    return "\n".join(lines) + "\n"
