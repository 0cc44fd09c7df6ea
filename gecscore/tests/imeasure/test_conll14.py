"""I-measure on CoNLL-2014 against the reference tool and the published scores.

Reference run (outside the repository): mfelice/imeasure @fc79fdf under Python 2.7.18 with
numpy 1.16.6 and nltk 3.4.5 (``word_tokenize`` without the punkt model, i.e. with
``preserve_line``; the NLTK data cannot be downloaded here), the gold converted by its
``m2_to_ixml.py`` (with a ten-line stand-in for ``elementtree.SimpleXMLWriter``), then
``ieval.py -hyp:systems/AMU -ref:conll14.xml -nomix -per-sent``. The rows below are copied from
that run's per-sentence table. The published scores are Chollampatt & Ng's (nusnlp/gecmetrics).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from gecscore.english.gleu import tokens
from gecscore.english.imeasure import GoldSentence, gold_sentences, score_corpus, score_systems
from gecscore.m2 import read_m2

SYSTEMS = [
    "AMU",
    "CAMB",
    "CUUI",
    "IITB",
    "INPUT",
    "IPN",
    "NTHU",
    "PKU",
    "POST",
    "RAC",
    "SJTU",
    "UFC",
    "UMC",
]

# ieval.py -nomix -per-sent on AMU: sentence id -> (aspect, TP, TN, FP, FN, FPN, I x 100).
REFERENCE_AMU_ROWS = {
    10: [("Det", 2, 15, 3, 1, 0, "-14.74"), ("Cor", 2, 15, 3, 1, 0, "-14.74")],
    13: [("Det", 3, 24, 0, 3, 0, "54.55"), ("Cor", 2, 24, 1, 4, 1, "30.77")],
    29: [("Cor", 1, 23, 7, 2, 1, "-29.68")],
    36: [("Cor", 1, 12, 2, 3, 2, "11.11")],
    54: [("Cor", 1, 23, 5, 14, 2, "-14.30")],
    59: [("Cor", 3, 22, 2, 4, 1, "21.95")],
    66: [("Cor", 1, 16, 2, 5, 2, "8.33")],
    82: [("Cor", 0, 10, 1, 1, 1, "-4.35")],
}


@pytest.fixture(scope="module")
def conll14(shared_data: Path) -> Path:
    return shared_data / "conll14"


@pytest.fixture(scope="module")
def gold(conll14: Path) -> list[GoldSentence]:
    return gold_sentences(read_m2(conll14 / "conll14st-test.m2"))


def _lines(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def test_amu_sentence_counts_equal_the_reference_tool(conll14: Path, gold: list[GoldSentence]):
    result = score_corpus([tokens(line) for line in _lines(conll14 / "systems" / "AMU")], gold)
    for sid, rows in REFERENCE_AMU_ROWS.items():
        sentence = result.sentences[sid - 1]
        for aspect, tp, tn, fp, fn, fpn, i in rows:
            scores = sentence.detection if aspect == "Det" else sentence.correction
            c = scores.counts
            assert (c.tp, c.tn, c.fp, c.fn, c.fpn) == (tp, tn, fp, fn, fpn), (sid, aspect)
            assert f"{scores.i * 100:.2f}" == i, (sid, aspect)


@pytest.fixture(scope="module")
def all_systems(conll14: Path, gold: list[GoldSentence]):
    lines = {name: _lines(conll14 / "systems" / name) for name in SYSTEMS}
    return score_systems(lines, gold)


def test_all_13_systems_equal_the_published_scores(conll14: Path, all_systems):
    published_file = conll14 / "published_scores" / "system" / "imeasure.txt.gz"
    with gzip.open(published_file, "rt", encoding="utf-8") as handle:
        published = {line.split()[3]: line.split()[4] for line in handle if line.strip()}
    ours = {name: f"{result.imeasure * 100:.2f}" for name, result in all_systems.items()}
    assert ours == published
    assert ours["AMU"] == "-3.30" and ours["UFC"] == "0.17"


def test_every_sentence_score_equals_the_published_one(conll14: Path, all_systems):
    published_file = conll14 / "published_scores" / "sentence" / "imeasure.txt.gz"
    published: dict[tuple[str, int], str] = {}
    with gzip.open(published_file, "rt", encoding="utf-8") as handle:
        for line in handle:
            fields = line.split()
            published[(fields[3], int(fields[4]))] = fields[5]
    assert len(published) == 13 * 1312
    ours = {
        (name, index): f"{sentence.imeasure * 100:.2f}"
        for name, result in all_systems.items()
        for index, sentence in enumerate(result.sentences)
    }
    different = [key for key in published if ours[key] != published[key]]
    assert different == []
