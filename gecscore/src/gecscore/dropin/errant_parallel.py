"""``gecscore-errant-parallel``: errant 3.0.2's ``errant_parallel``.

    gecscore-errant-parallel -orig ORIG.txt -cor COR.txt [COR2.txt ...] -out OUT.m2
        [-tok] [-lev] [-merge rules|all-split|all-merge|all-equal]

Writes the M2 file errant_parallel writes, byte for byte, and prints its two progress lines,
with ``gecscore.english.errant_edits.parallel_to_m2_blocks`` (needs the ``errant`` extra and
the spaCy model of requirements-models.txt). Files of different lengths are refused
(errant_parallel silently stops at the shortest).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from gecscore.dropin import run

__all__ = ["entry", "main", "parse_args"]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Align parallel text files and extract and classify the edits.\n",
        formatter_class=argparse.RawTextHelpFormatter,
        usage="%(prog)s [-h] [options] -orig ORIG -cor COR [COR ...] -out OUT",
    )
    parser.add_argument("-orig", help="The path to the original text file.", required=True)
    parser.add_argument(
        "-cor", help="The paths to >= 1 corrected text files.", nargs="+", default=[], required=True
    )
    parser.add_argument("-out", help="The output filepath.", required=True)
    parser.add_argument("-tok", help="Word tokenise the text using spacy.", action="store_true")
    parser.add_argument("-lev", help="Align using standard Levenshtein.", action="store_true")
    parser.add_argument(
        "-merge",
        help="Merging strategy: rules (default), all-split, all-merge, all-equal.",
        choices=["rules", "all-split", "all-merge", "all-equal"],
        default="rules",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    from gecscore.english.errant_edits import annotator, parallel_to_m2_blocks
    from gecscore.english.textfiles import check_same_length, read_text_lines
    from gecscore.m2 import write_m2

    args = parse_args(argv)
    print("Loading resources...", flush=True)
    annotator()
    print("Processing parallel files...", flush=True)
    source = read_text_lines(args.orig)
    corrections = [read_text_lines(path) for path in args.cor]
    for text_file in corrections:
        check_same_length(source, text_file)
    blocks = parallel_to_m2_blocks(
        source.lines,
        [text_file.lines for text_file in corrections],
        tokenise=args.tok,
        lev=args.lev,
        merge=args.merge,
    )
    with open(args.out, "w", encoding="utf-8") as handle:
        write_m2(blocks, handle)
    return 0


def entry() -> int:
    return run(main)


if __name__ == "__main__":
    sys.exit(entry())
