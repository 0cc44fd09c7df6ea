"""An English dataset through the platform: import, release, ERRANT-M2 export, system scoring.

Ground truth: `../shared/data/conll14/errant302/` was written by ERRANT 3.0.2's own
`errant_parallel` (source `conll14st-test.tok.src`, references `refs/ptm2/ref0 ref1`, and one
file per system), so the platform's export of a release holding those references must be
byte-identical to it, and a system's ERRANT and M2 numbers must be what the library's
comparisons give on those reference-tool files.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest
from gecscore.english.errant_compare import CompareOptions, compare_blocks
from gecscore.english.gleu import corpus_gleu
from gecscore.green import GREEN, GREENConfig
from gecscore.m2 import M2Block, parse_m2, read_m2, write_m2
from gecscore.maxmatch import score as m2_score

from core.roles import Role
from datasets.formats import ImportFile
from datasets.models import Dataset
from datasets.services.exports import export_dataset
from datasets.services.imports import import_dataset
from datasets.services.releases import release_dataset
from scoring import services
from tests.factories import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

N = 60  # sentences: enough for every edit type, quick with spaCy on 2 cores


def _kept(conll: Path) -> list[int]:
    """The first N sentences whose references are both non-empty: the platform stores no empty
    reference (an empty line in a parallel reference file means "fewer references"), while
    ptm2's ref1 has an empty correction for sentence 24 (a lone quote deleted)."""
    refs = [(conll / f"refs/ptm2/ref{k}").read_text(encoding="utf-8").splitlines() for k in (0, 1)]
    return [i for i in range(N) if all(r[i].strip() for r in refs)]


def _head(path: Path, kept: list[int]) -> bytes:
    lines = path.read_text(encoding="utf-8").splitlines()
    return "".join(lines[i].rstrip("\r\n") + "\n" for i in kept).encode()


@pytest.fixture
def english_release(shared_data: Path):  # type: ignore[no-untyped-def]
    conll = shared_data / "conll14"
    kept = _kept(conll)
    admin = make_user(Role.ADMIN)
    import_dataset(
        name="conll-head",
        fmt="parallel",
        language="en",
        user=admin,
        source_name="conll14",
        files=[
            ImportFile("src", _head(conll / "conll14st-test.tok.src", kept)),
            ImportFile("ref0", _head(conll / "refs/ptm2/ref0", kept)),
            ImportFile("ref1", _head(conll / "refs/ptm2/ref1", kept)),
        ],
    )
    return admin, release_dataset(dataset=Dataset.objects.get(name="conll-head"), user=admin)


def test_english_release_exports_errant_m2_byte_identical_to_errant_parallel(
    english_release, shared_data: Path, tmp_path: Path
) -> None:
    admin, version = english_release
    out = tmp_path / "refs.m2"
    result = export_dataset(dataset=version.dataset, version=version, fmt="m2", out=out, user=admin)
    blocks = read_m2(shared_data / "conll14/errant302/conll14.ref.errant302.m2")
    expected_blocks = [blocks[i] for i in _kept(shared_data / "conll14")]
    assert out.read_text(encoding="utf-8") == write_m2(expected_blocks)
    assert result.resources.startswith("errant-3.0.2")


def test_english_system_scores_equal_the_library_on_errant_parallel_files(
    english_release, shared_data: Path
) -> None:
    admin, version = english_release
    conll = shared_data / "conll14"
    kept = _kept(conll)
    hypotheses = _head(conll / "systems/AMU", kept)
    system = services.upload_system_output(
        version=version, name="AMU", data=hypotheses, file_name="AMU", user=admin
    )
    score = services.score_now(system=system, user=admin)
    assert score.status == "done", score.error

    ref_blocks = [read_m2(conll / "errant302/conll14.ref.errant302.m2")[i] for i in kept]
    hyp_blocks = [read_m2(conll / "errant302/conll14-AMU.errant302.m2")[i] for i in kept]
    errant = compare_blocks(hyp_blocks, ref_blocks)
    assert (score.tp, score.fp, score.fn, score.f05) == (errant.tp, errant.fp, errant.fn, errant.f)
    assert errant.tp > 0 and errant.fp > 0  # the sample exercises both
    # The first-k curve (the chart used to show only "All"): k = 1 is annotator 0.
    first = [
        M2Block(b.source, [t for t in b.targets if t.annotator == 0], b.line) for b in ref_blocks
    ]
    by_k = score.summary["ref_count_curve_by_k"]
    assert by_k["1"] == compare_blocks(hyp_blocks, first).f and by_k["all"] == errant.f
    assert len(score.summary["ref_count_curve"]) == 2
    # ... and ERRANT's main types (cat 2), as the exported M2 carries them.
    types = compare_blocks(hyp_blocks, ref_blocks, CompareOptions(cat=2)).categories
    stored = score.summary["extra"]["errant_types"]
    assert set(stored) == set(types) and len(stored) > 3
    assert all(
        (stored[n]["tp"], stored[n]["fp"], stored[n]["fn"]) == (t.tp, t.fp, t.fn)
        for n, t in types.items()
    )

    lines = [line.strip() for line in hypotheses.decode().splitlines()]
    m2 = m2_score(lines, ref_blocks)
    extra = score.summary["extra"]
    assert (extra["m2"]["tp"], extra["m2"]["fp"], extra["m2"]["fn"]) == (m2.tp, m2.fp, m2.fn)
    assert extra["m2"]["sent_f05"] == round(m2.sent_f, 4)
    # Per-sentence scores for TrueSkill / Expected Wins in meta-evaluation.
    assert extra["m2"]["sentences"] == m2.sentence_f and len(m2.sentence_f) == len(lines)
    sources = [
        line.strip() for line in _head(conll / "conll14st-test.tok.src", kept).decode().splitlines()
    ]
    refs = [
        [line.strip() for line in _head(conll / f"refs/ptm2/ref{k}", kept).decode().splitlines()]
        for k in (0, 1)
    ]
    gleu = corpus_gleu(sources, lines, refs, sentence=True)
    assert extra["gleu"]["score"] == round(gleu.gleu, 4)
    assert extra["gleu"]["sentences"] == gleu.sentence_scores
    assert len(set(extra["gleu"]["sentences"])) > 1
    green = GREEN(GREENConfig(unit="word")).score_corpus(sources, lines, refs)
    assert extra["green"] == {
        "score": round(green.score, 4),
        "signature": green.signature,
        "sentences": [s.score for s in green.sentences],
    }
    assert {"cleme", "cleme2"} <= set(extra)
    # The stored per-sentence edits are labelled from the same comparison.
    labelled = [edit["label"] for row in score.sentences.all() for edit in row.edits]
    assert labelled.count("TP") >= 1 and labelled.count("FP") >= 1

    # PT-M2 on the MaxMatch lattice (the weighted task of the `gpu` queue) with every weight 1
    # ("self") is M2: the same counts, corpus F0.5 and sentence-level F0.5 as m2scorer's.
    weighted = services.run_weighted_scoring(score_id=score.pk, model="self")
    ptm2 = weighted.summary["extra"]["ptm2"]
    assert (ptm2["base"], ptm2["exact"]) == ("m2", True)
    assert (ptm2["tp"], ptm2["fp"], ptm2["fn"]) == (m2.tp, m2.fp, m2.fn)
    assert (ptm2["f05"], ptm2["sent_f05"]) == (round(m2.f, 4), round(m2.sent_f, 4))
    assert weighted.summary["extra"]["m2"] == extra["m2"]  # nothing else is touched


def test_conll_gold_m2_imports_with_its_annotators(shared_data: Path) -> None:
    """Both annotators' corrections become references; an absent annotator is absent; a block
    without any A line is one reference equal to the source."""
    gold = (shared_data / "conll14/conll14st-test.m2").read_text(encoding="utf-8")
    blocks = gold.split("\n\n")[:N]
    text = "\n\n".join(blocks) + "\n\n"
    import_dataset(
        name="conll-gold", fmt="m2", language="en", files=[ImportFile("gold.m2", text.encode())]
    )
    dataset = Dataset.objects.get(name="conll-gold")
    parsed = parse_m2(text, name="gold")
    for block, sentence in zip(parsed, dataset.sentences.order_by("position"), strict=True):
        annotators = {t.annotator for t in block.targets}
        references = list(sentence.golden_references.filter(is_current=True).order_by("position"))
        assert len(references) == max(1, len(annotators))
        if not annotators:
            assert references[0].text == sentence.text


class _Highlights(HTMLParser):
    """Each highlighted sentence of the system page read twice: without the corrections
    (<ins>), which must give the source, and without the replaced text (<del>), which must
    give the hypothesis."""

    def __init__(self) -> None:
        super().__init__()
        self.sources: list[str] = []
        self.hypotheses: list[str] = []
        self._inside: str | None = None  # "hl", then "del" / "ins" inside it

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "p" and ("class", "hl") in attrs:
            self._inside = "hl"
            self.sources.append("")
            self.hypotheses.append("")
        elif self._inside and tag in ("del", "ins"):
            self._inside = tag

    def handle_endtag(self, tag: str) -> None:
        if tag == "p":
            self._inside = None
        elif self._inside in ("del", "ins") and tag == self._inside:
            self._inside = "hl"

    def handle_data(self, data: str) -> None:
        if self._inside is None:
            return
        if self._inside != "ins":
            self.sources[-1] += data
        if self._inside != "del":
            self.hypotheses[-1] += data


def test_english_system_page_draws_word_edits_on_the_words_with_spaces(
    english_release, shared_data: Path, client
) -> None:
    """Regression: the Sentences panel joined English tokens without spaces and applied
    ERRANT's word spans at character positions. Read back, it must give source and
    hypothesis word for word."""
    admin, version = english_release
    conll = shared_data / "conll14"
    kept = _kept(conll)
    system = services.upload_system_output(
        version=version,
        name="AMU",
        data=_head(conll / "systems/AMU", kept),
        file_name="AMU",
        user=admin,
    )
    assert services.score_now(system=system, user=admin).status == "done"
    client.force_login(admin)
    page = client.get(f"/scoring/systems/{system.pk}/")
    assert page.status_code == 200
    assert 'data-testid="errant-types"' in page.content.decode()  # ERRANT's types
    shown = _Highlights()
    shown.feed(page.content.decode())
    sources = _head(conll / "conll14st-test.tok.src", kept).decode().splitlines()
    hypotheses = _head(conll / "systems/AMU", kept).decode().splitlines()
    assert len(shown.sources) >= 40  # the first page of the panel
    for index, (source, hypothesis) in enumerate(zip(shown.sources, shown.hypotheses, strict=True)):
        assert source.split() == sources[index].split(), index
        assert hypothesis.split() == hypotheses[index].split(), index
