"""GREEN against gec-metrics 0.1.1: numbers it printed (recorded below, with the command that
made them) and, where its virtualenv is present (``GEC_GREEN_GECM``, by default
``$GEC_REFS_DIR/gec-metrics``, as ``.ci/run`` makes it: ``pip install torch==2.13.0`` then
``gec-metrics==0.1.1``), gec-metrics run side by side on the same inputs (tests/refs.py)."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest

from gecscore import get_metric
from gecscore.cli import main
from gecscore.errors import GECError
from gecscore.green import GREEN, GREENConfig, GreenCorpus
from tests.refs import reference_missing, reference_path

GECM = reference_path("GEC_GREEN_GECM", "gec-metrics")

# gec-metrics 0.1.1's own unit test (gec_metrics/metrics/green_test.py): corpus and sentence
# scores x 100 for beta 0.5 and 2.0.
SRCS = [
    "This sentences contain gramamtical error .",
    "This is a sentence .",
    "This is no change .",
    "I bought a pen to write a letter to a friend .",
]
HYPS = [
    "This sentence contains a grammatical error .",
    "the sentence was corrected into completely different one .",
    "This is no change .",
    "I bought a pen to write a letter to a friend .",
]
REFS = [
    [
        "This sentence contains a gramamtical error .",
        "dummy sentence .",
        "This is no change .",
        "I bought a pen to write a letter to the friend .",
    ],
    [
        "These sentences contain grammatical errors .",
        "another dummy sentence .",
        "This is no change .",
        "I bought a pen to write the letter to the friend .",
    ],
]
GECM_UNIT_TEST = [
    (0.5, 67.353281938837, [67.080694940041, 34.099683242425, 100.0, 89.496113939418]),
    (2.0, 71.852523831581, [74.467815149281, 60.992075408949, 100.0, 68.051848160668]),
]

# gec-metrics 0.1.1, `get_metric("green")(Config(unit=U)).score_corpus(src, hyp, refs)` on
# SEEDA's subset (src = outputs/subset/INPUT.txt, refs = shared/data/seeda/refs/REF0, REF1,
# read with gec_metrics.meta_eval.utils.read_lines), rounded to 12 decimals.
SEEDA_WORD = {
    "BART": 0.809749577434,
    "BERT-fuse": 0.848475152073,
    "GECToR-BERT": 0.832607495292,
    "GECToR-ens": 0.811851034801,
    "GPT-3.5": 0.841874417559,
    "INPUT": 0.740728938585,
    "LM-Critic": 0.81834271338,
    "PIE": 0.838036318913,
    "REF-F": 0.818236899889,
    "REF-M": 0.849324099442,
    "Riken-Tohoku": 0.850225143274,
    "T5": 0.858161567247,
    "TemplateGEC": 0.822061527246,
    "TransGEC": 0.85800506511,
    "UEDIN-MS": 0.83873516097,
}
SEEDA_CHAR = {
    "BART": 0.937480754118,
    "BERT-fuse": 0.947913588486,
    "GECToR-BERT": 0.943193602997,
    "GECToR-ens": 0.938701992233,
    "GPT-3.5": 0.943451915243,
    "INPUT": 0.923196608247,
    "LM-Critic": 0.938685508851,
    "PIE": 0.944702658801,
    "REF-F": 0.932344875785,
    "REF-M": 0.947977192432,
    "Riken-Tohoku": 0.947963894886,
    "T5": 0.950189264844,
    "TemplateGEC": 0.940200671159,
    "TransGEC": 0.950296238409,
    "UEDIN-MS": 0.94438220917,
}
# CoNLL-14 (conll14st-test.tok.src, refs/ptm2/ref0 and ref1), all 13 systems, same call.
CONLL14_WORD = {
    "AMU": 0.79231126438,
    "CAMB": 0.797453519648,
    "CUUI": 0.791125025023,
    "IITB": 0.769785130116,
    "INPUT": 0.769044348381,
    "IPN": 0.763016661394,
    "NTHU": 0.781286630549,
    "PKU": 0.783389797017,
    "POST": 0.781689832529,
    "RAC": 0.776986285994,
    "SJTU": 0.772674228597,
    "UFC": 0.771253880866,
    "UMC": 0.780068603976,
}
CONLL14_CHAR = {
    "AMU": 0.934126652616,
    "CAMB": 0.935393873902,
    "CUUI": 0.935786197103,
    "IITB": 0.931033620058,
    "INPUT": 0.931024417527,
    "IPN": 0.929039076785,
    "NTHU": 0.930390153027,
    "PKU": 0.932581255089,
    "POST": 0.93397868119,
    "RAC": 0.931740766722,
    "SJTU": 0.931663747639,
    "UFC": 0.931370474079,
    "UMC": 0.932027609747,
}
# MuCGEC dev, char units: references = each line's targets (没有错误 / 无法标注 -> the
# source), a line with fewer targets repeating its first (a repeated reference changes
# nothing: the first best one is chosen); hypotheses = the third column of <name>_pred_dev.txt.
MUCGEC_CHAR = {
    "example": 0.810841927285,
    "source": 0.743072641142,
    "oracle1": 1.0,
    "mix": 0.93585303943,
}


def _lines(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if text.endswith("\n"):
        text = text[:-1]
    return [line.rstrip("\r") for line in text.split("\n")]


@pytest.fixture(scope="module")
def seeda(shared_data: Path) -> Path:
    return shared_data / "seeda"


def _seeda_inputs(seeda: Path) -> tuple[list[str], list[list[str]]]:
    refs = [_lines(seeda / "refs" / f"REF{k}.txt") for k in (0, 1)]
    return _lines(seeda / "outputs" / "subset" / "INPUT.txt"), refs


def _mucgec(shared_data: Path, name: str) -> tuple[list[str], list[str], list[list[str]]]:
    folder = shared_data / "mucgec-dev"
    rows = [line.split("\t") for line in _lines(folder / "MuCGEC_dev.txt")]
    sources = [row[1] for row in rows]
    targets = [[row[1] if t in ("没有错误", "无法标注") else t for t in row[2:]] for row in rows]
    width = max(len(t) for t in targets)
    refs = [[t[k] if k < len(t) else t[0] for t in targets] for k in range(width)]
    hyps = [line.split("\t")[2] for line in _lines(folder / f"{name}_pred_dev.txt")]
    return sources, hyps, refs


@pytest.mark.parametrize(("beta", "corpus", "sentences"), GECM_UNIT_TEST)
def test_gec_metrics_unit_test_numbers(beta: float, corpus: float, sentences: list[float]) -> None:
    result = GREEN(GREENConfig(beta=beta)).score_corpus(SRCS, HYPS, REFS)
    assert round(100 * result.score, 12) == corpus
    assert [round(100 * s.score, 12) for s in result.sentences] == sentences


def test_registered_with_its_signature() -> None:
    metric = get_metric("green")
    assert metric is GREEN
    result = metric(metric.Config(unit="char", n=3, beta=0.5)).score_corpus(SRCS, HYPS, REFS)
    assert result.metric == "green"
    assert result.signature == (
        "metric=green|version=gec-metrics-0.1.1|n=3|beta=0.5|unit=char|refs=2"
    )
    assert len(result.sentences) == 4
    assert len(result.details["counts"]) == 3


def test_bad_options_and_inputs_are_errors_that_say_what() -> None:
    with pytest.raises(GECError, match="unit must be one of word, char, got 'byte'"):
        GREENConfig(unit="byte")
    with pytest.raises(GECError, match="n must be at least 1"):
        GREENConfig(n=0)
    with pytest.raises(GECError, match="3 hypotheses for 4 sources"):
        GREEN().score_corpus(SRCS, HYPS[:3], REFS)
    with pytest.raises(GECError, match="needs at least one reference"):
        GREEN().score_corpus(SRCS, HYPS, [])


def test_empty_lines_and_double_spaces_count_as_gec_metrics_counts_them() -> None:
    # An empty (stripped) sentence has no n-gram; "a  b" has an empty word between its spaces.
    result = GREEN().score_corpus(["a b", "  "], ["a  b", ""], [["a b", ""]])
    assert [s.score for s in result.sentences][1] == 1.0
    assert result.details["counts"][0] == [2, 1, 0]


def test_seeda_equals_gec_metrics_for_every_system(seeda: Path) -> None:
    sources, refs = _seeda_inputs(seeda)
    for unit, recorded in (("word", SEEDA_WORD), ("char", SEEDA_CHAR)):
        corpus = GreenCorpus(sources, refs, unit=unit)
        ours = {
            system: round(
                corpus.score(_lines(seeda / "outputs/subset" / f"{system}.txt")).score, 12
            )
            for system in recorded
        }
        assert ours == recorded, unit


def test_conll14_equals_gec_metrics_for_every_system(shared_data: Path) -> None:
    conll14 = shared_data / "conll14"
    sources = _lines(conll14 / "conll14st-test.tok.src")
    refs = [_lines(conll14 / "refs" / "ptm2" / f"ref{k}") for k in (0, 1)]
    for unit, recorded in (("word", CONLL14_WORD), ("char", CONLL14_CHAR)):
        corpus = GreenCorpus(sources, refs, unit=unit)
        ours = {
            system: round(corpus.score(_lines(conll14 / "systems" / system)).score, 12)
            for system in recorded
        }
        assert ours == recorded, unit
    # The figures, as gec-metrics prints them.
    assert f"{CONLL14_WORD['AMU']:.6f} {CONLL14_WORD['INPUT']:.6f}" == "0.792311 0.769044"


def test_mucgec_char_units_equal_gec_metrics(shared_data: Path) -> None:
    ours = {}
    for name in MUCGEC_CHAR:
        sources, hyps, refs = _mucgec(shared_data, name)
        result = GREEN(GREENConfig(unit="char")).score_corpus(sources, hyps, refs)
        ours[name] = round(result.score, 12)
    assert ours == MUCGEC_CHAR


def _write(tmp_path: Path, name: str, lines: list[str]) -> str:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_cli_prints_what_the_library_computes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = _write(tmp_path, "src.txt", SRCS)
    hyp = _write(tmp_path, "hyp.txt", HYPS)
    refs = [_write(tmp_path, f"ref{k}.txt", REFS[k]) for k in (0, 1)]
    assert main(["green", "--src", src, "--hyp", hyp, "--ref", refs[0], "--ref", refs[1]]) == 0
    assert capsys.readouterr().out == "hyp.txt 0.718525\n"
    args = ["green", "--src", src, "--hyp", hyp, "--hyp", src, "--ref", *refs]
    assert main([*args, "--unit", "char", "--beta", "0.5", "--n", "3", "--sentence", "--json"]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    expected = GREEN(GREENConfig(unit="char", beta=0.5, n=3)).score_corpus(SRCS, HYPS, REFS)
    assert printed[0] == {"system": hyp, **expected.to_dict()}
    assert printed[0]["sentences"][0]["score"] == expected.sentences[0].score
    assert printed[1]["system"] == src


def test_cli_rejects_files_of_different_lengths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = _write(tmp_path, "src.txt", SRCS)
    hyp = _write(tmp_path, "hyp.txt", HYPS[:3])
    ref = _write(tmp_path, "ref.txt", REFS[0])
    assert main(["green", "--src", src, "--hyp", hyp, "--ref", ref]) == 2
    assert "hyp.txt, line 4: 3 lines" in capsys.readouterr().err


# --- gec-metrics run side by side ---------------------------------------------------------------

REFERENCE_RUN = textwrap.dedent(
    """
    import json, sys
    from gec_metrics import get_metric
    data = json.load(open(sys.argv[1], encoding="utf-8"))
    M = get_metric("green")
    out = {}
    for unit in ("word", "char"):
        m = M(M.Config(unit=unit, n=data["n"], beta=data["beta"]))
        out[unit] = {
            name: [m.score_corpus(data["src"], hyp, data["refs"]),
                   m.score_sentence(data["src"], hyp, data["refs"])]
            for name, hyp in data["hyps"].items()
        }
    m = M(M.Config())
    out["trueskill"] = m.rank_systems(
        data["src"], list(data["hyps"].values()), data["refs"], aggregation="trueskill")
    print(json.dumps(out))
    """
)


def _gec_metrics(tmp_path: Path, payload: dict[str, object]) -> dict[str, object]:
    python = GECM / "bin" / "python"
    if not python.exists():
        reference_missing(
            "gec-metrics", variable="GEC_GREEN_GECM", path=python, what="gec-metrics 0.1.1's python"
        )
    data = tmp_path / "inputs.json"
    data.write_text(json.dumps(payload), encoding="utf-8")
    script = tmp_path / "reference.py"
    script.write_text(REFERENCE_RUN, encoding="utf-8")
    run = subprocess.run(
        [str(python), str(script), str(data)], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr[-2000:]
    loaded: dict[str, object] = json.loads(run.stdout)
    return loaded


def test_side_by_side_with_gec_metrics_on_seeda_and_mucgec(
    tmp_path: Path, seeda: Path, shared_data: Path
) -> None:
    from gecscore.meta.aggregation import aggregate

    sources, refs = _seeda_inputs(seeda)
    keep = slice(0, 120)
    systems = ["BART", "INPUT", "REF-F", "T5", "UEDIN-MS"]
    hyps = {s: _lines(seeda / "outputs/subset" / f"{s}.txt")[keep] for s in systems}
    # Chinese: MuCGEC lines as two more "systems" with their own sources would need another
    # call; instead, char units on English and word units on Chinese both run below.
    zh_sources, zh_hyps, zh_refs = _mucgec(shared_data, "example")
    payloads = [
        {"src": sources[keep], "refs": [r[keep] for r in refs], "hyps": hyps, "n": 4, "beta": 2.0},
        {
            "src": zh_sources[:150],
            "refs": [r[:150] for r in zh_refs[:3]],
            "hyps": {"example": zh_hyps[:150], "source": zh_sources[:150]},
            "n": 3,
            "beta": 0.5,
        },
    ]
    for payload in payloads:
        reference = _gec_metrics(tmp_path, payload)
        src, ref_sets = payload["src"], payload["refs"]
        assert isinstance(src, list) and isinstance(ref_sets, list)
        sentence_scores = {}
        for unit in ("word", "char"):
            metric = GREEN(GREENConfig(unit=unit, n=int(payload["n"]), beta=payload["beta"]))
            corpus = metric.corpus(src, ref_sets)
            for name, hyp in payload["hyps"].items():  # type: ignore[attr-defined]
                ours = corpus.score(hyp)
                assert [ours.score, ours.sentence_scores] == reference[unit][name]  # type: ignore[index]
                if unit == "word" and payload["n"] == 4:
                    sentence_scores[name] = ours.sentence_scores
        if sentence_scores:
            ts = aggregate("trueskill", sentence_scores)
            for ours_mu, theirs in zip(ts.values(), reference["trueskill"], strict=True):  # type: ignore[arg-type]
                assert abs(ours_mu - theirs) < 1e-12


def test_counts_from_the_changed_ngrams_equal_counting_every_ngram(seeda: Path) -> None:
    """GreenCorpus adds, to the counts of the unchanged sentence, the change of the n-grams
    around the edited span; counting every n-gram of the three sentences gives the same."""
    from gecscore.english.gleu import ngram_counts
    from gecscore.green import counts_of, units

    sources, refs = _seeda_inputs(seeda)
    random_edits = [
        (" ".join(s.split(" ")[1:] + ["x", "x"]) if k % 3 else s.replace(" the ", " a  the "))
        for k, s in enumerate(sources)
    ]
    for unit in ("word", "char"):
        corpus = GreenCorpus(sources, refs, unit=unit, n=4)
        for hyps in (_lines(seeda / "outputs/subset/GPT-3.5.txt"), random_edits):
            for i, hyp in enumerate(hyps[:150]):
                full = [
                    counts_of(
                        *(ngram_counts(units(text, unit), 4) for text in (sources[i], hyp, ref[i]))
                    )
                    for ref in refs
                ]
                assert corpus.sentence_counts(i, hyp) == full, (unit, i)


def test_scoring_without_keeping_the_prepared_corpus_gives_the_same_numbers(
    seeda: Path,
) -> None:
    """One system is scored with each sentence prepared as it is reached (bounded memory);
    every number equals the prepared corpus's."""
    sources, refs = _seeda_inputs(seeda)
    hypotheses = _lines(seeda / "outputs/subset/GPT-3.5.txt")
    for unit in ("word", "char"):
        kept = GreenCorpus(sources, refs, unit=unit).score(hypotheses)
        streamed = GreenCorpus(sources, refs, unit=unit, keep=False)
        assert streamed._prepared is None
        ours = streamed.score(hypotheses)
        assert ours.score == kept.score and ours.chosen == kept.chosen, unit
        assert ours.sentence_scores == kept.sentence_scores, unit
        assert ours.counts.tolist() == kept.counts.tolist(), unit


def test_a_tie_between_references_keeps_the_first() -> None:
    # gec-metrics replaces the best reference only on a strictly better sentence score.
    result = GREEN().score_corpus(SRCS, HYPS, [REFS[0], REFS[0], REFS[1]])
    assert result.details["chosen"] == [0, 0, 0, 0]


def test_seeda_sentence_level_agreement_equals_gec_metrics(
    seeda: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """gec-metrics 0.1.1, MetaEvalSEEDA().corr_sentence(GREEN()): SEEDA-S accuracy 0.5995,
    Kendall 0.1990; ours through `meta sentence --variant seeda`."""
    from gecscore.meta.scorefiles import SEEDA_SYSTEMS

    sources, refs = _seeda_inputs(seeda)
    corpus = GreenCorpus(sources, refs)
    for system in SEEDA_SYSTEMS:
        scores = corpus.score(_lines(seeda / "outputs/subset" / f"{system}.txt")).sentence_scores
        (tmp_path / f"{system}.txt").write_text("".join(f"{s!r}\n" for s in scores))
    judgments = str(seeda / "data" / "judgments_sent.xml")
    argv = ["meta", "sentence", "--judgments", judgments, "--variant", "seeda", "--json"]
    assert main([*argv, "--metric", f"green={tmp_path}"]) == 0
    entry = json.loads(capsys.readouterr().out)["metrics"]["green"]
    assert (f"{entry['accuracy']:.4f}", f"{entry['kendall']:.4f}") == ("0.5995", "0.1990")
