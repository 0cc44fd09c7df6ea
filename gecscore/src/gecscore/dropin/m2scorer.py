"""``gecscore-m2scorer``: m2scorer 3.2's ``m2scorer.py`` (nusnlp/m2scorer, tag version3.2).

    gecscore-m2scorer [-v|--verbose] [--beta B] [--max_unchanged_words N]
        [--ignore_whitespace_casing] SYSTEM GOLD.m2

Prints what m2scorer prints, byte for byte (``-v`` included, with its Python 2 reprs), from
``gecscore.maxmatch.scorer.score``, in Python 3 and in a fraction of the time.
``--very_verbose`` (a dump of the edit lattice's internals) is refused. Gold edits whose span
lies beyond the sentence are left out as m2scorer leaves them out (with a warning on stderr);
files whose name ends in ``.gz`` are read through gzip, as m2scorer reads them.
Its lattice runs without gecscore's arc budget, as m2scorer's does.
"""

from __future__ import annotations

import getopt
import gzip
import sys
from collections.abc import Sequence
from typing import TextIO

from gecscore.counts import Counts
from gecscore.dropin import Unsupported, run
from gecscore.errors import InputError, InputFormatError, decode_utf8
from gecscore.m2 import NONE_CORRECTION, NOOP_TYPE, M2Block
from gecscore.maxmatch.matching import ProposedEdit

__all__ = [
    "USAGE",
    "VerboseWriter",
    "entry",
    "main",
    "matched_sequence",
    "py2_repr",
    "py2_str_float",
    "shrink_edit",
]

USAGE = """Usage: m2scorer.py [OPTIONS] proposed_sentences gold_source
where
  proposed_sentences   -   system output, sentence per line
  source_gold          -   source sentences with gold token edits
OPTIONS
  -v    --verbose                   -  print verbose output
        --very_verbose              -  print lots of verbose output
        --max_unchanged_words N     -  Maximum unchanged words when extraction edit. Default 2.
        --beta B                    -  Beta value for F-measure. Default 0.5.
        --ignore_whitespace_casing  -  Ignore edits that only affect whitespace and caseing. Default no.
"""


# --- Python 2's print of m2scorer's values ---------------------------------------------------


class _Py2Str(str):
    """A text m2scorer holds as a Python 2 ``unicode`` (repr ``u'...'``)."""


def _repr_unicode(text: str) -> str:
    quote = '"' if "'" in text and '"' not in text else "'"
    out = ["u", quote]
    for ch in text:
        code = ord(ch)
        if ch in (quote, "\\"):
            out.append("\\" + ch)
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif code < 0x20 or 0x7F <= code < 0x100:
            out.append(f"\\x{code:02x}")
        elif code < 0x100:
            out.append(ch)
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append(quote)
    return "".join(out)


def py2_repr(value: object) -> str:
    """``repr`` as Python 2 prints m2scorer's tuples and lists: a non-empty text is unicode
    (``u'...'``, non-ASCII escaped); an empty one is the byte string ``''`` (``' '.join([])``),
    unless it is a ``_Py2Str`` (an empty unicode, from a gold correction)."""
    if isinstance(value, str):
        if value or isinstance(value, _Py2Str):
            return _repr_unicode(value)
        return "''"
    if isinstance(value, tuple):
        inner = ", ".join(py2_repr(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(py2_repr(v) for v in value) + "]"
    if isinstance(value, float):
        return py2_str_float(value)
    return repr(value)


def py2_str_float(value: float) -> str:
    """Python 2's ``str(float)`` (what ``print`` writes): 12 significant digits."""
    text = f"{value:.12g}"
    if text.lstrip("-").isdigit():
        text += ".0"
    return text


# --- m2scorer's verbose output -----------------------------------------------------------------


def _join(tokens: list[str]) -> str:
    return " ".join(tokens)


def shrink_edit(edit: ProposedEdit) -> ProposedEdit:
    """m2scorer's ``shrinkEdit``: the edit without the tokens it leaves unchanged at its ends."""
    origtok = edit[2].split()
    corrtok = edit[3].split()
    i = 0
    cstart = 0
    found = False
    while i < min(len(origtok), len(corrtok)) and not found:
        if origtok[i] != corrtok[i]:
            found = True
        else:
            cstart += 1
            i += 1
    j = 1
    found = False
    while j <= min(len(origtok), len(corrtok)) - cstart and not found:
        if origtok[len(origtok) - j] != corrtok[len(corrtok) - j]:
            found = True
        else:
            j += 1
    return (
        edit[0] + i,
        edit[1] - (j - 1),
        _join(origtok[i : len(origtok) - (j - 1)]),
        _join(corrtok[i : len(corrtok) - (j - 1)]),
    )


def _match(e: tuple[object, ...], g: tuple[object, ...]) -> bool:
    return e[0] == g[0] and e[1] == g[1] and e[2] == g[2] and e[3] in g[3]  # type: ignore[operator]


def _match_lines(sequence: list[ProposedEdit], gold: list[tuple[object, ...]]) -> list[str]:
    """The ``!`` / ``&`` / ``*`` lines m2scorer's ``matchSeq`` prints in verbose mode."""
    lines: list[str] = []
    last_index = 0
    for e in reversed(sequence):
        for i in range(last_index, len(gold)):
            if not _match(e, gold[i]):
                continue
            last_index = i + 1
            after = [shrink_edit(x) for x in sequence if e[1] == x[0]]
            before = [shrink_edit(x) for x in sequence if e[0] == x[1]]
            if e[0] != e[1]:
                after = [x for x in after if x[0] == x[1]]
                before = [x for x in before if x[0] == x[1]]
            else:
                after = [x for x in after if x[0] < x[1] and x[3] == ""]
                before = [x for x in before if x[0] < x[1] and x[3] == ""]
            adjacent = any(_match(x, g) for x in after for g in gold) or any(
                _match(x, g) for x in before for g in gold
            )
            if e[0] < e[1] and not e[3].strip() and (after or before):
                lines.append(("! " if adjacent else "& ") + py2_repr(e))
            elif e[0] == e[1] and (after or before):
                lines.append(("! " if adjacent else "* ") + py2_repr(e))
    return lines


def _verbose_gold(block: M2Block) -> dict[int, list[tuple[object, ...]]]:
    """Gold edits as m2scorer's ``load_annotation`` holds them (for their repr): as
    ``gold_edits_by_annotator``, with an empty correction typed as Python 2 did."""
    tokens = block.source.split()
    annotators: dict[int, list[tuple[object, ...]]] = {}
    for edit in block.edits:
        edits = annotators.setdefault(edit.annotator, [])
        if edit.type == NOOP_TYPE or edit.start < 0 or edit.end < 0 or edit.end > len(tokens):
            continue
        corrections = [
            "" if c == NONE_CORRECTION else _Py2Str(c.strip()) for c in edit.correction.split("||")
        ]
        edits.append((edit.start, edit.end, _join(tokens[edit.start : edit.end]), corrections))
    if not annotators:
        annotators[0] = []
    return dict(sorted(annotators.items()))


def _ratio(a: int, b: int) -> float:
    return a / b if b else 1.0


def _comp_f1(c: int, e: int, g: int, beta: float) -> float:
    denominator = beta * beta * g + e
    if denominator == 0:
        return 1.0 if c == 0 else 0.0
    return (1 + beta * beta) * c / denominator


class VerboseWriter:
    """m2scorer's ``-v`` lines, sentence by sentence (a ``maxmatch.scorer.SentenceObserver``)."""

    def __init__(self, beta: float, out: TextIO) -> None:
        self.beta = beta
        self.out = out

    def __call__(
        self,
        index: int,
        block: M2Block,
        hypothesis: str,
        annotators: tuple[int, ...],
        sequences: list[list[ProposedEdit]],
        counts: tuple[Counts[int], ...],
        total: Counts[int],
        chosen: int,
    ) -> None:
        gold = _verbose_gold(block)
        source = block.source.strip()
        beta = self.beta
        lines: list[str] = []
        for annotator, sequence, c in zip(annotators, sequences, counts, strict=True):
            gold_edits = gold[annotator]
            correct_tp = total.tp + c.tp
            proposed = total.proposed + c.proposed
            n_gold = total.gold + c.gold
            lines.append(f">> Annotator: {annotator}")
            lines += _match_lines(sequence, gold_edits)
            correct = matched_sequence(sequence, gold_edits)
            lines += [
                f"SOURCE        : {source}",
                f"HYPOTHESIS    : {hypothesis}",
                f"EDIT SEQ      : {py2_repr([shrink_edit(e) for e in reversed(sequence)])}",
                f"GOLD EDITS    : {py2_repr(gold_edits)}",
                f"CORRECT EDITS : {py2_repr(correct)}",
                f"# correct     : {correct_tp}",
                f"# proposed    : {proposed}",
                f"# gold        : {n_gold}",
                f"precision     : {py2_str_float(_ratio(correct_tp, proposed))}",
                f"recall        : {py2_str_float(_ratio(correct_tp, n_gold))}",
                f"f_{beta:.1f}         : {py2_str_float(_comp_f1(correct_tp, proposed, n_gold, beta))}",
                "-------------------------------------------",
            ]
        lines.append(f">> Chosen Annotator for line {index + 1} : {annotators[chosen]}")
        lines.append("")
        self.out.write("\n".join(lines) + "\n")


def matched_sequence(
    sequence: list[ProposedEdit], gold: list[tuple[object, ...]]
) -> list[ProposedEdit]:
    """m2scorer's ``matchSeq`` result (``maxmatch.matching.matched_edits`` on repr-typed gold)."""
    from gecscore.maxmatch.matching import matched_edits

    return matched_edits(sequence, gold)  # type: ignore[arg-type]


# --- the command -------------------------------------------------------------------------------


def _read_text(path: str, error: type[InputFormatError]) -> str:
    """A UTF-8 file, through gzip when its name ends in ``.gz`` (m2scorer's ``smart_open``)."""
    if path.endswith(".gz"):
        with gzip.open(path, "rb") as handle:
            data = handle.read()
    else:
        with open(path, "rb") as handle:
            data = handle.read()
    return decode_utf8(data, name=path, error=error)


def main(argv: Sequence[str] | None = None) -> int:
    from gecscore.english.textfiles import TextFormatError, parse_text_lines
    from gecscore.m2 import M2FormatError, beyond_source_warning, parse_m2
    from gecscore.maxmatch.scorer import format_m2scorer, gold_edits_by_annotator, score

    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        opts, args = getopt.getopt(
            arguments,
            "v",
            [
                "max_unchanged_words=",
                "beta=",
                "verbose",
                "ignore_whitespace_casing",
                "very_verbose",
            ],
        )
    except getopt.GetoptError as exc:
        sys.stderr.write(f"{exc}\n{USAGE}")
        return 2
    verbose = ignore_whitespace_casing = False
    max_unchanged_words = 2
    beta = 0.5
    for option, value in opts:
        if option in ("-v", "--verbose"):
            verbose = True
        elif option == "--very_verbose":
            raise Unsupported(
                "--very_verbose (m2scorer's dump of its edit lattice) is not reproduced; "
                "use -v, or m2scorer itself"
            )
        elif option == "--max_unchanged_words":
            max_unchanged_words = int(value)
        elif option == "--beta":
            beta = float(value)
        elif option == "--ignore_whitespace_casing":
            ignore_whitespace_casing = True
    if len(args) != 2:
        sys.stderr.write(USAGE)
        return 2
    system_file, gold_file = args
    beyond_source: list[int] = []
    blocks = parse_m2(
        _read_text(gold_file, M2FormatError), name=gold_file, beyond_source=beyond_source
    )
    if beyond_source:
        treatment = "m2scorer 3.2 leaves such edits out (their annotators stay), and so does this"
        print(
            f"warning: {beyond_source_warning(gold_file, beyond_source, treatment)}",
            file=sys.stderr,
        )
    hypotheses = parse_text_lines(_read_text(system_file, TextFormatError), name=system_file).lines
    if len(hypotheses) != len(blocks):
        raise InputError(
            f"{system_file} has {len(hypotheses)} lines but {gold_file} has {len(blocks)} sentences"
        )
    result = score(
        hypotheses,
        blocks,
        beta=beta,
        max_unchanged_words=max_unchanged_words,
        max_arcs=None,
        gold=[gold_edits_by_annotator(block) for block in blocks],
        ignore_whitespace_casing=ignore_whitespace_casing,
        observer=VerboseWriter(beta, sys.stdout) if verbose else None,
    )
    if verbose:
        sys.stdout.write(
            f"CORRECT EDITS  : {result.tp}\n"
            f"PROPOSED EDITS : {result.tp + result.fp}\n"
            f"GOLD EDITS     : {result.tp + result.fn}\n"
            f"P = {py2_str_float(result.p)}\n"
            f"R = {py2_str_float(result.r)}\n"
            f"F_{beta:.1f} = {py2_str_float(result.f)}\n"
        )
    sys.stdout.write(format_m2scorer(result))
    return 0


def entry() -> int:
    return run(main)


if __name__ == "__main__":
    sys.exit(entry())
