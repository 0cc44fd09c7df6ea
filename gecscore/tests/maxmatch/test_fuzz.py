"""Random small sentences with a 7-word vocabulary (many equally short lattice paths, repeated
tokens, duplicate and overlapping gold edits, 0-3 annotators, noop lines, empty sentences)
scored sentence by sentence exactly as m2scorer 3.2 does.

The expected values come from m2scorer 3.2 (tag version3.2, Python 2.7.18, 2026-11-23): the
files written by ``_generate(seed, max_len, n)`` below were scored with
``m2scorer.py -v hyp.txt gold.m2``; from its verbose output, each sentence's per-annotator counts
(difference of the cumulative ``# correct/# proposed/# gold`` lines to the previous chosen line)
and the ``>> Chosen Annotator`` were written one sentence per line as
``a=c,p,g;a=c,p,g|chosen`` and hashed with sha256; the totals are its last CORRECT / PROPOSED /
GOLD lines. These batches caught three semantics the CoNLL-14 data does not: the epsilon per
duplicate edge entry, the gold weight ``-len(E)`` with duplicates, and Bellman-Ford's strict
improvement; they also found that m2scorer's matchSeq counts duplicate gold edits twice.
"""

from __future__ import annotations

import hashlib
import random

import pytest

from gecscore.m2 import parse_m2
from gecscore.maxmatch import format_m2scorer, score

VOCABULARY = ["a", "b", "c", "the", "of", ",", "."]


def _generate(seed: int, max_len: int, n_sentences: int) -> tuple[str, list[str]]:
    rng = random.Random(seed)
    blocks = []
    hypotheses = []
    for _ in range(n_sentences):
        length = rng.randint(0, max_len)
        source = [rng.choice(VOCABULARY) for _ in range(length)]
        hypothesis = list(source)
        for _ in range(rng.randint(1, 4)):
            op = rng.random()
            pos = rng.randint(0, len(hypothesis))
            if op < 0.35:
                hypothesis.insert(pos, rng.choice(VOCABULARY))
            elif op < 0.65 and hypothesis:
                del hypothesis[min(pos, len(hypothesis) - 1)]
            elif hypothesis:
                hypothesis[min(pos, len(hypothesis) - 1)] = rng.choice(VOCABULARY)
        lines = ["S " + " ".join(source)]
        for annotator in range(rng.choice([0, 1, 2, 2, 3])):
            k = rng.randint(0, 3)
            if k == 0:
                lines.append(f"A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{annotator}")
            for _ in range(k):
                start = rng.randint(0, length)
                end = rng.randint(start, min(length, start + 2))
                words = rng.randint(0 if end > start else 1, 2)
                correction = " ".join(rng.choice(VOCABULARY) for _ in range(words)) or "-NONE-"
                if rng.random() < 0.2:
                    correction += "||" + rng.choice(VOCABULARY)
                lines.append(
                    f"A {start} {end}|||X|||{correction}|||REQUIRED|||-NONE-|||{annotator}"
                )
        blocks.append("\n".join(lines))
        hypotheses.append(" ".join(hypothesis))
    return "\n\n".join(blocks) + "\n\n", hypotheses


# (seed, max_len, sentences): sha256 of m2scorer's per-sentence lines, (correct, proposed, gold)
M2SCORER_32 = {
    (11, 12, 800): (
        "77eb9db66a56add9e21e49339e5ae33cc8b56342a78905be4af3b0567d2ee227",
        (120, 1060, 663),
    ),
    (12, 20, 500): (
        "ad5052d5d686faf7d3bea4a0a892b6cae00a1d3516ceae5308462433583f4efd",
        (58, 768, 469),
    ),
    (13, 6, 1500): (
        "b415f6d56e0065b2c4fc0e65837e86ab6f3fc5d80398af7be43f55184f255227",
        (266, 1695, 1397),
    ),
}


@pytest.mark.parametrize("batch", sorted(M2SCORER_32))
def test_random_sentences_match_m2scorer_sentence_by_sentence(
    batch: tuple[int, int, int],
) -> None:
    gold_text, hypotheses = _generate(*batch)
    result = score(hypotheses, parse_m2(gold_text))
    lines = []
    for sentence in result.sentences:
        counts = ";".join(
            f"{a}={c.tp},{c.proposed},{c.gold}"
            for a, c in zip(sentence.annotators, sentence.counts, strict=True)
        )
        lines.append(f"{counts}|{sentence.annotators[sentence.chosen]}")
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    expected_digest, expected_totals = M2SCORER_32[batch]
    assert (result.tp, result.tp + result.fp, result.tp + result.fn) == expected_totals
    assert digest == expected_digest


# m2scorer 3.2 on batch (11, 12, 800) with non-default options (its stdout, 2026-11-23).
M2SCORER_32_OPTIONS = [
    (
        {"max_unchanged_words": 0},
        "Precision   : 0.0918\nRecall      : 0.1781\nF_0.5       : 0.1017\n",
    ),  # --max_unchanged_words 0
    (
        {"max_unchanged_words": 3},
        "Precision   : 0.1210\nRecall      : 0.1807\nF_0.5       : 0.1295\n",
    ),  # --max_unchanged_words 3
    (
        {"beta": 1.0},
        "Precision   : 0.1132\nRecall      : 0.1810\nF_1.0       : 0.1393\n",
    ),  # --beta 1.0
]


@pytest.mark.parametrize(("options", "expected"), M2SCORER_32_OPTIONS)
def test_non_default_options_match_m2scorer(options: dict[str, float], expected: str) -> None:
    gold_text, hypotheses = _generate(11, 12, 800)
    result = score(hypotheses, parse_m2(gold_text), **options)  # type: ignore[arg-type]
    assert format_m2scorer(result) == expected
