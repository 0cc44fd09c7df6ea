"""Benchmark: the work a prefilled suggestion saves an annotator, measured without people.

    .venv/bin/python benchmarks/postedit.py [--shared ../shared] [--corpus mucgec,conll14]
        [--sample 5] [--per-sentence OUT.tsv] [--naive] [--json OUT.json]
        [--report-items 10000,100000]

Post-edit annotation opens the box with a suggestion instead of the source. What that saves
is, at best, the characters the annotator no longer types: the char edit distance (Levenshtein,
unit costs) from what the box holds to the golden reference. For every sentence this script
prints both distances, from the source and from the suggestion, each to its closest reference
when there are several:

* ``mucgec``: MuCGEC dev (``mucgec-dev/MuCGEC_dev.txt``, 1,137 sentences, 1-7 references),
  suggestion = the example system (``example_pred_dev.txt``); a reference ``没有错误`` (no
  error) is the source itself, one ``无法标注`` (not annotatable) is left out, and a sentence
  with no reference left is counted and skipped;
* ``conll14``: CoNLL-2014 test (``conll14/conll14st-test.tok.src``, 1,312 sentences, the two
  annotators' corrections ``refs/ptm2/ref0`` and ``ref1``), suggestion = AMU's output
  (``systems/AMU``). Lines are stripped, as the tools do.

Totals: the sums of both distances, the share of characters saved (1 - suggestion / source),
and the shares of sentences where the suggestion is closer, as close, or farther. A sample of
sentences is printed (``--sample``); ``--per-sentence`` writes every sentence to a TSV file.

The distance is rapidfuzz's Levenshtein (C++); ``--naive`` also times a pure-Python dynamic
programme on the same pairs and checks that every distance is equal. The distance says
nothing about anchoring (an annotator who accepts a wrong suggestion saves the most typing):
that is what the blind arm of the anchoring report measures (docs/workflow.md).

``--report-items N,...`` also times that report's computation (scoring/prefill.py: the figures
and 1,000-resample bootstrap intervals of every annotator and arm) on N synthetic items: 30
annotators, a 20% blind share, 1-120 s an item, counts of 0-3 edits, seeded.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rapidfuzz.distance import Levenshtein

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _sidebyside import load_average  # noqa: E402
from gecscore.mucgec import parallel_rows  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
NO_ERROR, NOT_ANNOTATABLE = "没有错误", "无法标注"


@dataclass(frozen=True)
class Item:
    id: str
    source: str
    suggestion: str
    references: tuple[str, ...]


@dataclass(frozen=True)
class Distances:
    id: str
    from_source: int
    from_suggestion: int


def mucgec_items(data: Path) -> tuple[list[Item], int]:
    """MuCGEC dev with the example system as the suggestion; also the sentences skipped."""
    folder = data / "mucgec-dev"
    gold_path, hyp_path = folder / "MuCGEC_dev.txt", folder / "example_pred_dev.txt"
    gold = list(parallel_rows(gold_path.read_text("utf-8").splitlines(), name=gold_path.name))
    hyps = list(parallel_rows(hyp_path.read_text("utf-8").splitlines(), name=hyp_path.name))
    if [row.id for row in gold] != [row.id for row in hyps]:
        raise SystemExit(f"error: {hyp_path.name} does not follow {gold_path.name} id by id")
    items, skipped = [], 0
    for row, hyp in zip(gold, hyps, strict=True):
        references = tuple(
            row.source if target == NO_ERROR else target
            for target in row.targets
            if target != NOT_ANNOTATABLE
        )
        if not references:
            skipped += 1
            continue
        items.append(Item(row.id, row.source, hyp.targets[0], references))
    return items, skipped


def conll14_items(data: Path) -> tuple[list[Item], int]:
    """CoNLL-2014 test with AMU's output as the suggestion."""
    folder = data / "conll14"
    paths = [
        folder / "conll14st-test.tok.src",
        folder / "systems" / "AMU",
        folder / "refs" / "ptm2" / "ref0",
        folder / "refs" / "ptm2" / "ref1",
    ]
    columns = [[line.strip() for line in path.read_text("utf-8").splitlines()] for path in paths]
    lengths = {path.name: len(column) for path, column in zip(paths, columns, strict=True)}
    if len(set(lengths.values())) != 1:
        raise SystemExit(f"error: the CoNLL-14 files differ in length: {lengths}")
    sources, suggestions, ref0, ref1 = columns
    items = [
        Item(str(index), source, suggestion, (first, second))
        for index, (source, suggestion, first, second) in enumerate(
            zip(sources, suggestions, ref0, ref1, strict=True), start=1
        )
    ]
    return items, 0


CORPORA: dict[str, Callable[[Path], tuple[list[Item], int]]] = {
    "mucgec": mucgec_items,
    "conll14": conll14_items,
}


def naive_distance(first: str, second: str) -> int:
    """Levenshtein distance by the textbook dynamic programme, one row at a time."""
    previous = list(range(len(second) + 1))
    for row, first_char in enumerate(first, start=1):
        current = [row]
        for column, second_char in enumerate(second, start=1):
            current.append(
                min(
                    previous[column] + 1,
                    current[column - 1] + 1,
                    previous[column - 1] + (first_char != second_char),
                )
            )
        previous = current
    return previous[-1]


def closest_distances(
    items: Sequence[Item], distance: Callable[[str, str], int]
) -> list[Distances]:
    return [
        Distances(
            item.id,
            min(distance(item.source, reference) for reference in item.references),
            min(distance(item.suggestion, reference) for reference in item.references),
        )
        for item in items
    ]


def summary(rows: Sequence[Distances]) -> dict[str, float | int]:
    from_source = sum(row.from_source for row in rows)
    from_suggestion = sum(row.from_suggestion for row in rows)
    count = len(rows)
    return {
        "sentences": count,
        "chars_from_source": from_source,
        "chars_from_suggestion": from_suggestion,
        "chars_saved_share": 1 - from_suggestion / from_source if from_source else 0.0,
        "suggestion_closer_share": sum(r.from_suggestion < r.from_source for r in rows) / count,
        "as_close_share": sum(r.from_suggestion == r.from_source for r in rows) / count,
        "suggestion_farther_share": sum(r.from_suggestion > r.from_source for r in rows) / count,
        "suggestion_exact_share": sum(r.from_suggestion == 0 for r in rows) / count,
    }


def print_sample(rows: Sequence[Distances], items: Sequence[Item], sample: int) -> None:
    if sample <= 0:
        return
    print(f"  {'id':>6}  {'src->gold':>9}  {'sugg->gold':>10}  source")
    for row, item in list(zip(rows, items, strict=True))[:sample]:
        shown = item.source if len(item.source) <= 60 else item.source[:57] + "..."
        print(f"  {row.id:>6}  {row.from_source:>9}  {row.from_suggestion:>10}  {shown}")


def time_report(sizes: Sequence[int]) -> dict[str, float]:
    """Seconds to compute the anchoring report of ``size`` synthetic items, per size."""
    import random

    from scoring.prefill import BLIND, PREFILLED, PrefillItem, anchoring_report

    draw = random.Random(0)
    seconds = {}
    for size in sizes:

        def counts() -> tuple[int, int, int]:
            return draw.randint(0, 3), draw.randint(0, 2), draw.randint(0, 2)

        items = [
            PrefillItem(
                f"annotator{n % 30}",
                n // 3,
                BLIND if draw.random() < 0.2 else PREFILLED,
                draw.randint(1, 120),
                draw.random() < 0.3,
                counts(),
                counts(),
            )
            for n in range(size)
        ]
        start = time.perf_counter()
        anchoring_report(items, metric="synthetic")
        seconds[str(size)] = time.perf_counter() - start
        print(f"anchoring report of {size:,} items: {seconds[str(size)]:.2f} s")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--shared", default=str(REPO.parent / "shared"))
    parser.add_argument("--corpus", default="mucgec,conll14", help="mucgec, conll14 or both")
    parser.add_argument("--sample", type=int, default=5, help="sentences printed per corpus")
    parser.add_argument("--per-sentence", help="write every sentence's distances to this TSV")
    parser.add_argument("--naive", action="store_true", help="also time pure-Python Levenshtein")
    parser.add_argument("--json", help="also write the totals to this JSON file")
    parser.add_argument("--report-items", default="", help="time the anchoring report: N,...")
    args = parser.parse_args()
    data = Path(args.shared).resolve() / "data"
    names = [name.strip() for name in args.corpus.split(",") if name.strip()]
    unknown = sorted(set(names) - set(CORPORA))
    if unknown or not names:
        parser.error(f"--corpus: unknown {unknown or names}; choose from {sorted(CORPORA)}")
    if not data.is_dir():
        print(f"error: {data} not found (use --shared)", file=sys.stderr)
        return 2
    print(f"load average before: {load_average()} (2 cores shared with other work)")
    results: dict[str, dict[str, float | int]] = {}
    per_sentence: list[tuple[str, Distances]] = []
    for name in names:
        items, skipped = CORPORA[name](data)
        start = time.perf_counter()
        rows = closest_distances(items, Levenshtein.distance)
        seconds = time.perf_counter() - start
        totals = {**summary(rows), "skipped": skipped, "seconds": seconds}
        pairs = sum(2 * len(item.references) for item in items)
        print(f"\n{name}: {len(items)} sentences ({skipped} skipped), {pairs} distances")
        print_sample(rows, items, args.sample)
        print(
            f"  total chars to the closest reference: from source {totals['chars_from_source']},"
            f" from suggestion {totals['chars_from_suggestion']}"
            f" (saved {totals['chars_saved_share']:.1%})"
        )
        print(
            f"  suggestion closer on {totals['suggestion_closer_share']:.1%} of sentences,"
            f" as close on {totals['as_close_share']:.1%},"
            f" farther on {totals['suggestion_farther_share']:.1%};"
            f" equal to a reference on {totals['suggestion_exact_share']:.1%}"
        )
        print(f"  rapidfuzz Levenshtein: {seconds * 1000:.1f} ms")
        if args.naive:
            start = time.perf_counter()
            naive_rows = closest_distances(items, naive_distance)
            naive_seconds = time.perf_counter() - start
            totals["naive_seconds"] = naive_seconds
            same = naive_rows == rows
            print(
                f"  pure-Python Levenshtein: {naive_seconds:.2f} s"
                f" ({naive_seconds / seconds:.0f}x slower), same distances: {same}"
            )
            if not same:
                return 1
        results[name] = totals
        per_sentence.extend((name, row) for row in rows)
    if args.per_sentence:
        with open(args.per_sentence, "w", encoding="utf-8") as out:
            out.write("corpus\tid\tfrom_source\tfrom_suggestion\n")
            for name, row in per_sentence:
                out.write(f"{name}\t{row.id}\t{row.from_source}\t{row.from_suggestion}\n")
        print(f"\nper sentence: {args.per_sentence} ({len(per_sentence)} rows)")
    if args.report_items:
        try:
            sizes = [int(size) for size in args.report_items.split(",")]
        except ValueError:
            parser.error(
                f"--report-items: whole numbers separated by commas, not {args.report_items!r}"
            )
        if any(size < 1 for size in sizes):
            parser.error("--report-items: every size must be at least 1")
        print()
        results["report_seconds"] = time_report(sizes)  # type: ignore[assignment]
    print(f"load average after: {load_average()}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
