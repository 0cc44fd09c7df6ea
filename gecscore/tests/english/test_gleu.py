"""GLEU against the published CoNLL-14 scores (gec-ranking, Python 2) and Python 2's draw."""

from __future__ import annotations

import gzip
import random
import subprocess
from pathlib import Path

import pytest

from gecscore.english.gleu import (
    GleuCorpus,
    corpus_gleu,
    gleu_from_stats,
    python2_draws,
    sentence_stats,
    tokens,
)

SYSTEMS = (
    "AMU CAMB CUUI IITB INPUT IPN NTHU PKU POST RAC SJTU UFC UMC".split()  # noqa: SIM905
)
PYTHON2 = Path.home() / ".pyenv/versions/2.7.18/bin/python"


def _lines(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if text.endswith("\n"):
        text = text[:-1]
    return [line.rstrip("\r") for line in text.split("\n")]


@pytest.fixture(scope="module")
def conll14(shared_data: Path) -> Path:
    return shared_data / "conll14"


@pytest.fixture(scope="module")
def corpus(conll14: Path) -> GleuCorpus:
    refs = conll14 / "refs" / "gecmetrics"
    return GleuCorpus(
        _lines(conll14 / "conll14st-test.tok.src"),
        [_lines(refs / f"conll14st-test.tok.trg{k}") for k in (0, 1)],
    )


def _published(path: Path) -> list[list[str]]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [line.split("\t") for line in handle.read().splitlines()]


def test_corpus_gleu_equals_published_for_all_13_systems(conll14: Path, corpus: GleuCorpus) -> None:
    published = {
        row[3]: row[4] for row in _published(conll14 / "published_scores/system/gleu.txt.gz")
    }
    assert sorted(published) == sorted(SYSTEMS)
    ours = {
        system: f"{corpus.score(_lines(conll14 / 'systems' / system)).gleu:.4f}"
        for system in SYSTEMS
    }
    assert ours == published


def test_amu_equals_compute_gleu_to_six_digits(conll14: Path, corpus: GleuCorpus) -> None:
    # `compute_gleu -s SRC -r trg0 trg1 -o AMU -n 4` (gec-ranking @50b5032, Python 2.7.18,
    # numpy 1.16.6) prints 0.589564.
    assert f"{corpus.score(_lines(conll14 / 'systems' / 'AMU')).gleu:f}" == "0.589564"


def test_sentence_gleu_equals_published_for_all_13_systems(
    conll14: Path, corpus: GleuCorpus
) -> None:
    published: dict[str, list[str]] = {}
    for row in _published(conll14 / "published_scores/sentence/gleu.txt.gz"):
        published.setdefault(row[3], []).append(row[5])
    for system in SYSTEMS:
        result = corpus.score(_lines(conll14 / "systems" / system), sentence=True, iterations=1)
        assert result.sentence_scores is not None
        ours = [f"{score:.4f}" for score in result.sentence_scores]
        assert ours == published[system], system


def test_expected_draw_is_close_to_the_sampled_mean(conll14: Path, corpus: GleuCorpus) -> None:
    hyp = _lines(conll14 / "systems" / "AMU")
    sampled = corpus.score(hyp)
    expected = corpus.score(hyp, draw="expected")
    assert expected.iterations == 1 and "draw=expected" in expected.signature
    assert abs(expected.gleu - sampled.gleu) < 3 * sampled.std


@pytest.mark.skipif(not PYTHON2.exists(), reason="Python 2.7.18 (pyenv) not installed")
def test_draws_equal_python2_randint() -> None:
    script = (
        "import random\n"
        "for j in (0, 1, 7, 499):\n"
        "    random.seed(j * 101)\n"
        "    print(' '.join(str(random.randint(0, 2)) for i in range(300)))\n"
    )
    out = subprocess.run(
        [str(PYTHON2), "-c", script], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    draws = python2_draws(300, 3, 500)
    for row, j in enumerate((0, 1, 7, 499)):
        assert " ".join(str(v) for v in draws[j]) == out[row]


def test_mersenne_key_equals_python_seed_for_large_seeds() -> None:
    # python2_draws seeds numpy's legacy generator with Python's init_by_array key.
    import numpy as np

    from gecscore.english.gleu import _mt_key

    for seed in (0, 101, 2**32 - 1, 2**32, 2**40 + 5):
        rng = random.Random(seed)
        expected = [rng.random() for _ in range(50)]
        assert np.random.RandomState(_mt_key(seed)).random_sample(50).tolist() == expected


def test_python3_randint_would_draw_differently() -> None:
    # Why the draw is reimplemented: Python 3's randint uses getrandbits, not random() * n.
    rng = random.Random(101)
    assert [rng.randint(0, 1) for _ in range(40)] != python2_draws(40, 2, 2)[1].tolist()


def test_statistics_of_a_small_example() -> None:
    # source "a b c", hypothesis "a b d", reference "a x d": unigram matches a, d = 2, minus the
    # hypothesis unigrams found in the source but not in the reference (b) = 1.
    stats = sentence_stats("a b c", "a b d", "a x d")
    assert stats == (3, 3, 1, 3, 0, 2, 0, 1, 0, 0)
    assert gleu_from_stats(stats) == 0.0
    assert tokens("a\u00a0b c") == ["a\u00a0b", "c"]  # Python 2 splits on ASCII whitespace only


def test_one_reference_is_one_iteration() -> None:
    result = corpus_gleu(["a b c d"], ["a b c d"], [["a b c d"]])
    assert result.iterations == 1 and result.gleu == pytest.approx(1.0)


def test_mismatched_lengths_are_an_error() -> None:
    with pytest.raises(ValueError, match="same number of lines"):
        GleuCorpus(["a", "b"], [["a"]])
