"""Hand-made sentences for the corners of m2scorer 3.2's semantics.

Every expected number below was read from m2scorer 3.2's verbose output on these exact files
(``python2.7 m2scorer/scripts/m2scorer.py -v hyp.txt gold.m2``, tag version3.2, 2026-11-23):
the per-annotator ``# correct / # proposed / # gold`` lines are cumulative, so a sentence's
counts are the difference to the previous chosen line; ``>> Chosen Annotator`` gives the choice.
"""

from __future__ import annotations

import time

from gecscore.counts import Counts
from gecscore.m2 import parse_m2
from gecscore.maxmatch import format_m2scorer, score
from gecscore.maxmatch.lattice import build_lattice
from gecscore.maxmatch.scorer import gold_edits_by_annotator
from gecscore.ptm2_m2 import lattice_sentences

CORNERS_M2 = """\
S He go to school .
A 1 1|||Vt|||will|||REQUIRED|||-NONE-|||0
A 3 3|||ArtOrDet|||the|||REQUIRED|||-NONE-|||0

S a b c
A 1 1|||Mec|||x y|||REQUIRED|||-NONE-|||0
A 1 1|||Mec|||x|||REQUIRED|||-NONE-|||1
A 1 1|||Mec|||y|||REQUIRED|||-NONE-|||1

S a b c d
A 1 3|||Rloc-|||-NONE-|||REQUIRED|||-NONE-|||0
A 1 2|||Rloc-|||-NONE-|||REQUIRED|||-NONE-|||1
A 2 3|||Rloc-|||-NONE-|||REQUIRED|||-NONE-|||1

S cat sat .
A 0 0|||ArtOrDet|||The black|||REQUIRED|||-NONE-|||0
A 0 0|||ArtOrDet|||The|||REQUIRED|||-NONE-|||1

S There is no edit here .

S Only one annotator saw this .
A 1 2|||Wci|||a single|||REQUIRED|||-NONE-|||0

S Nothing to do for annotator zero .
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0
A 6 7|||Mec|||!|||REQUIRED|||-NONE-|||1

S the cat is here .
A 0 1|||Mec|||The|||REQUIRED|||-NONE-|||0

S we was happy and they was sad .
A 5 6|||SVA|||were|||REQUIRED|||-NONE-|||0
A 1 2|||SVA|||were|||REQUIRED|||-NONE-|||0

S I saw a dog in the park .
A 2 3|||ArtOrDet|||the||a|||REQUIRED|||-NONE-|||0
A 6 6|||Mec|||yesterday|||REQUIRED|||-NONE-|||1

S x y z
A 0 3|||Um|||p q r|||REQUIRED|||-NONE-|||0
A 1 2|||Um|||q|||REQUIRED|||-NONE-|||1
"""

CORNERS_HYP = [
    "He will go to the school .",
    "a x y b c",
    "a d",
    "The black cat sat .",
    "There is no edit here .",
    "Only one annotator saw this !",
    "Nothing to do for annotator zero !",
    "The cat is here .",
    "we were happy and they were sad .",
    "I saw the dog in the park yesterday .",
    "p q r",
]

# Per sentence: {annotator: (correct, proposed, gold)} and the chosen annotator (m2scorer -v).
CORNERS_EXPECTED = [
    ({0: (2, 2, 2)}, 0),  # two insertions at different positions
    ({0: (1, 1, 1), 1: (2, 2, 2)}, 1),  # one 2-token insertion vs two 1-token insertions
    ({0: (1, 1, 1), 1: (2, 2, 2)}, 1),  # one 2-token deletion vs two 1-token deletions
    ({0: (0, 1, 1), 1: (1, 2, 1)}, 1),  # row-0 insertions get span (j-1, j-1) in m2scorer 3.2
    ({0: (0, 0, 0)}, 0),  # no A line: one empty annotator 0
    ({0: (0, 1, 1)}, 0),  # annotator 1 absent: scored against annotator 0 only
    ({0: (0, 1, 0), 1: (1, 1, 1)}, 1),  # noop: annotator 0 present with no edit
    ({0: (1, 1, 1)}, 0),  # case-sensitive correction
    ({0: (1, 2, 2)}, 0),  # gold edits out of order: greedy in-order matching finds one
    ({0: (1, 2, 1), 1: (0, 2, 1)}, 0),  # correction alternatives "the||a"
    ({0: (1, 1, 1), 1: (1, 3, 1)}, 0),  # 3-token substitution vs token by token
]

TIES_M2 = """\
S a b .
A 0 1|||Mec|||X|||REQUIRED|||-NONE-|||0
A 1 2|||Mec|||Y|||REQUIRED|||-NONE-|||1

S c d .
A 0 1|||Mec|||X|||REQUIRED|||-NONE-|||0
A 1 2|||Mec|||Y|||REQUIRED|||-NONE-|||0
A 1 2|||Mec|||Y|||REQUIRED|||-NONE-|||1

S e f .
A 0 1|||Mec|||E|||REQUIRED|||-NONE-|||0
A 0 1|||Mec|||E|||REQUIRED|||-NONE-|||1
A 1 2|||Mec|||F|||REQUIRED|||-NONE-|||1

S g h .
A 0 1|||Mec|||G|||REQUIRED|||-NONE-|||1
A 1 2|||Mec|||h2|||REQUIRED|||-NONE-|||0
"""
TIES_HYP = ["a b .", "c d .", "E f .", "G h2 ."]
TIES_EXPECTED = [
    ({0: (0, 0, 1), 1: (0, 0, 1)}, 0),  # full tie: the first annotator
    ({0: (0, 0, 2), 1: (0, 0, 1)}, 1),  # equal F and TP: smaller proposed + b^2 gold
    ({0: (1, 1, 1), 1: (1, 1, 2)}, 0),  # higher cumulative F
    ({0: (1, 2, 1), 1: (1, 2, 1)}, 0),  # ids in increasing order, not file order
]


def _per_sentence(hyp: list[str], m2: str) -> list[tuple[dict[int, tuple[int, int, int]], int]]:
    result = score(hyp, parse_m2(m2))
    return [
        (
            {a: (c.tp, c.proposed, c.gold) for a, c in zip(s.annotators, s.counts, strict=True)},
            s.annotators[s.chosen],
        )
        for s in result.sentences
    ]


def test_insertion_deletion_absent_noop_and_alternatives_match_m2scorer() -> None:
    assert _per_sentence(CORNERS_HYP, CORNERS_M2) == CORNERS_EXPECTED


def test_corner_totals_and_text_output_match_m2scorer() -> None:
    result = score(CORNERS_HYP, parse_m2(CORNERS_M2))
    assert result.counts == Counts.from_totals(
        12, 16, 14
    )  # m2scorer: CORRECT 12, PROPOSED 16, GOLD 14
    assert format_m2scorer(result) == (
        "Precision   : 0.7500\nRecall      : 0.8571\nF_0.5       : 0.7692\n"
    )


def test_annotator_ties_are_broken_like_m2scorer() -> None:
    assert _per_sentence(TIES_HYP, TIES_M2) == TIES_EXPECTED
    assert score(TIES_HYP, parse_m2(TIES_M2)).counts == Counts.from_totals(2, 3, 4)


def test_sentence_f_uses_p_1_when_nothing_proposed_and_r_1_when_no_gold() -> None:
    # Spec: SentM2 takes each sentence alone; P = 1 if nothing proposed, R = 1 if no gold.
    result = score(CORNERS_HYP, parse_m2(CORNERS_M2))
    assert result.sentence_f[4] == 1.0  # nothing proposed, no gold
    assert result.sentence_f[5] == 0.0  # one wrong edit, one missed
    assert result.sentence_f[0] == 1.0


def test_surrounding_spaces_and_crlf_remains_do_not_change_counts() -> None:
    padded = [f"  {line}\r " for line in CORNERS_HYP]
    assert score(padded, parse_m2(CORNERS_M2)).counts == Counts.from_totals(12, 16, 14)


def test_repeated_ngram_input_finishes_fast() -> None:
    # The kind of output of github.com/nusnlp/m2scorer/issues/8 and /issues/12: long repeated
    # n-grams. m2scorer 3.2 on these files: CORRECT EDITS 1, PROPOSED EDITS 25, GOLD EDITS 1 (P 0.0400, F0.5 0.0495).
    source = ("the cat sat on the mat , and the dog sat on the log . " * 12).split()
    hypothesis = ("the cat sat on the the mat , and and the dog sat on on the log . " * 12).split()
    gold = "S " + " ".join(source) + "\nA 5 5|||Mec|||the|||REQUIRED|||-NONE-|||0\n"
    started = time.process_time()
    result = score([" ".join(hypothesis)], parse_m2(gold))
    assert time.process_time() - started < 2.0
    assert result.exact
    assert result.counts == Counts.from_totals(1, 25, 1)


def test_dropped_copies_of_a_repeated_ngram_finish_fast_and_exact() -> None:
    # 20 copies of a 7-gram, 2 dropped: 1,905 lattice vertices and 35,630 edge entries, which
    # m2scorer relaxes up to 1,904 times each (Bellman-Ford); we need a few passes. m2scorer 3.2
    # on these files: CORRECT EDITS 2, PROPOSED EDITS 2, GOLD EDITS 2, after 412 s (load ~9).
    phrase = ["the", "cat", "sat", "on", "the", "mat", "."]
    gold = (
        "S " + " ".join(phrase * 20) + "\n"
        "A 0 7|||Rloc-|||-NONE-|||REQUIRED|||-NONE-|||0\n"
        "A 7 14|||Rloc-|||-NONE-|||REQUIRED|||-NONE-|||0\n"
    )
    started = time.process_time()
    result = score([" ".join(phrase * 18)], parse_m2(gold))
    assert time.process_time() - started < 2.0
    assert result.exact
    assert result.counts == Counts.from_totals(2, 2, 2)


def test_unrelated_long_sentences_are_bounded_and_marked_not_hung() -> None:
    # 200 x 150 tokens with nothing in common: every pair of lattice vertices is an arc
    # (tens of millions); m2scorer runs for hours. We stop at the arc budget and say so.
    source = " ".join(["the"] * 200)
    hypothesis = " ".join(["a"] * 150)
    started = time.process_time()
    result = score([hypothesis], parse_m2(f"S {source}\n"), max_arcs=100_000)
    assert time.process_time() - started < 2.0
    assert not result.exact
    assert result.bounded_sentences == [0]


def test_lattice_has_both_matrices_edges_twice() -> None:
    # m2scorer's merge_graph lists an edge of both Levenshtein matrices twice in E.
    lattice = build_lattice(["a", "b"], ["a", "c"])
    entries = [lattice.edit[arc][:5] for arc in lattice.entries]
    assert entries.count(("sub", 1, 2, "b", "c")) == 2


def test_annotators_by_id_for_m2scorer_and_by_appearance_for_ptm2() -> None:
    # Annotator 2 is written first: m2scorer 3.2 (a Python 2 dict of small ints) tries 0 then
    # 2, PT-M2 (a Python 3 dict) 2 then 0; the first of equally good annotators is kept.
    block = parse_m2(
        "S a b c\nA 1 2|||R|||x|||REQUIRED|||-NONE-|||2\nA 0 1|||R|||y|||REQUIRED|||-NONE-|||0\n"
    )[0]
    assert list(gold_edits_by_annotator(block)) == [0, 2]
    assert list(gold_edits_by_annotator(block, order="appearance")) == [2, 0]
    assert gold_edits_by_annotator(block)[2] == [(1, 2, "b", ("x",))]
    paths = lattice_sentences(["a b c"], [block])[0].annotators
    assert [path.annotator for path in paths] == [2, 0]
