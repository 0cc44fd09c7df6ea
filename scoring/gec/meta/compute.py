"""Compute metric scores on system outputs for meta-evaluation, by metric name.

``meta system --compute m2 sentm2 gleu --outputs DIR --gold GOLD.m2 [--lines FILE]
[--refs REF ...]`` scores every system file of DIR (``<SYSTEM>`` or ``<SYSTEM>.txt``, one
tokenised sentence per line) with our own implementations and meta-evaluates the scores in the
same call, beside any ``--metric NAME=SCORES`` files. ``--lines`` (1-based line numbers into
GOLD.m2, one per output line) scores a subset, e.g. SEEDA's 391 sentences against the CoNLL-14
gold blocks. The registry :data:`METRICS` maps a name to a function
``(outputs, gold blocks, references) -> {system: score}``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from scoring.gec.errors import InputFormatError, decode_utf8
from scoring.gec.m2 import M2Block, read_m2


@dataclass(frozen=True)
class Inputs:
    """What a metric may need: system outputs, gold M2 blocks, plain references, sources."""

    outputs: Mapping[str, list[str]]
    gold: Sequence[M2Block]
    references: Sequence[Sequence[str]]

    @property
    def sources(self) -> list[str]:
        return [block.source for block in self.gold]


MetricFunction = Callable[[Inputs], dict[str, float]]


def _m2(inputs: Inputs) -> dict[str, float]:
    from scoring.gec.maxmatch import score_systems

    results = score_systems(dict(inputs.outputs), inputs.gold)
    return {system: result.f for system, result in results.items()}


def _sentm2(inputs: Inputs) -> dict[str, float]:
    from scoring.gec.maxmatch import score_systems

    results = score_systems(dict(inputs.outputs), inputs.gold)
    return {system: result.sent_f for system, result in results.items()}


def _gleu(inputs: Inputs) -> dict[str, float]:
    from scoring.gec.english.gleu import GleuCorpus

    if not inputs.references:
        raise ValueError("gleu needs --refs (plain reference files, one sentence per line)")
    corpus = GleuCorpus(inputs.sources, inputs.references)
    return {system: corpus.score(lines).gleu for system, lines in inputs.outputs.items()}


METRICS: dict[str, MetricFunction] = {
    "m2": _m2,
    "sentm2": _sentm2,
    "gleu": _gleu,
}


def _read_lines(path: Path) -> list[str]:
    text = decode_utf8(path.read_bytes(), name=str(path))
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.rstrip("\r") for line in lines]


def read_outputs(folder: str | Path, systems: Sequence[str] | None = None) -> dict[str, list[str]]:
    """System outputs of a folder: ``<SYSTEM>`` or ``<SYSTEM>.txt`` files."""
    root = Path(folder)
    if not root.is_dir():
        raise ValueError(f"{root}: not a folder of system outputs")
    outputs: dict[str, list[str]] = {}
    for file in sorted(root.iterdir()):
        if not file.is_file() or file.name.startswith("."):
            continue
        name = file.name[: -len(".txt")] if file.name.endswith(".txt") else file.name
        if systems is not None and name not in systems:
            continue
        outputs[name] = _read_lines(file)
    if systems is not None:
        missing = [s for s in systems if s not in outputs]
        if missing:
            raise ValueError(f"{root}: no output file for {', '.join(missing)}")
    return outputs


def load_inputs(
    outputs: str | Path,
    gold: str | Path,
    *,
    lines: str | Path | None = None,
    references: Sequence[str | Path] = (),
    systems: Sequence[str] | None = None,
) -> Inputs:
    """Outputs, the gold blocks (the ``lines`` subset when given) and reference files."""
    blocks = read_m2(str(gold))
    if lines is not None:
        numbers: list[int] = []
        for n, text in enumerate(_read_lines(Path(lines)), 1):
            if not text.strip():
                continue
            try:
                numbers.append(int(text))
            except ValueError:
                raise InputFormatError(str(lines), n, f"{text!r} is not a line number") from None
            if not 1 <= numbers[-1] <= len(blocks):
                raise InputFormatError(
                    str(lines), n, f"line {numbers[-1]} is outside the gold file (1..{len(blocks)})"
                )
        blocks = [blocks[k - 1] for k in numbers]
    outs = read_outputs(outputs, systems)
    for system, hyp in outs.items():
        if len(hyp) != len(blocks):
            raise ValueError(
                f"{outputs}/{system}: {len(hyp)} lines for {len(blocks)} gold sentences"
            )
    refs = [_read_lines(Path(r)) for r in references]
    return Inputs(outputs=outs, gold=blocks, references=refs)


def compute(names: Sequence[str], inputs: Inputs) -> dict[str, dict[str, float]]:
    """``{metric: {system: score}}`` for the registry metrics ``names``."""
    unknown = [n for n in names if n not in METRICS]
    if unknown:
        raise ValueError(f"unknown metrics {', '.join(unknown)} (known: {', '.join(METRICS)})")
    return {name: METRICS[name](inputs) for name in names}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("computing the metric scores (instead of score files)")
    group.add_argument(
        "--compute", nargs="+", default=[], metavar="METRIC", help=f"of {', '.join(METRICS)}"
    )
    group.add_argument("--outputs", metavar="DIR", help="folder of <SYSTEM>[.txt] outputs")
    group.add_argument("--gold", metavar="GOLD.m2", help="gold M2 (sources and gold edits)")
    group.add_argument("--lines", metavar="FILE", help="1-based gold line per output line")
    group.add_argument("--refs", nargs="+", default=[], metavar="REF", help="plain references")


def scores_from_args(
    args: argparse.Namespace, systems: Sequence[str]
) -> dict[str, dict[str, float]]:
    if not args.outputs or not args.gold:
        raise ValueError("--compute needs --outputs DIR and --gold GOLD.m2")
    inputs = load_inputs(
        args.outputs, args.gold, lines=args.lines, references=args.refs, systems=systems
    )
    return compute(args.compute, inputs)
