"""Errors the library raises on purpose are GECErrors (OptionError for an option, InputError
for input), and stay ValueErrors for callers that caught those before; their messages speak
the Python API's names, never a command-line flag."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gecscore.errors import GECError, InputError, OptionError


def _compare_mode() -> object:
    from gecscore.compare import compare_m2

    return compare_m2([], [], mode="spans")


def _compare_max_refs() -> object:
    from gecscore.compare import compare_m2

    return compare_m2([], [], max_refs=0)


def _compare_beta() -> object:
    from gecscore.compare import compare_m2

    return compare_m2([], [], beta=float("inf"))


def _extract_granularity() -> object:
    from gecscore.extract import extract_edits

    return extract_edits("我喜欢苹果", "我很喜欢苹果", granularity="phrase")


def _parallel_strategy() -> object:
    from gecscore.extract import parallel_to_m2, parse_parallel

    lines = parse_parallel("1\t我喜欢苹果\t我很喜欢苹果\n")
    return parallel_to_m2(lines, strategy="best")


def _gleu_draw() -> object:
    from gecscore.english.gleu import corpus_gleu

    return corpus_gleu(["a b"], ["a b"], [["a c"]], draw="random")


def _cleme_select() -> object:
    from gecscore.cleme import cleme

    return cleme([], [], select="precision")


def _window() -> object:
    from gecscore.meta.correlation import window_analysis

    return window_analysis(["a", "b", "c"], [1, 2, 3], [1, 2, 3], window=1)


def _exclude() -> object:
    from gecscore.meta.scorefiles import select_systems

    return select_systems(["a", "b", "c"], "all", exclude=("d",))


OPTION_ERRORS: dict[str, tuple[Callable[[], object], str]] = {
    "compare mode": (_compare_mode, "mode must be one of"),
    "compare beta": (_compare_beta, "beta must be a positive finite number, got inf"),
    "compare max_refs": (_compare_max_refs, "max_refs must be at least 1"),
    "extraction granularity": (_extract_granularity, "granularity must be"),
    "extraction strategy": (_parallel_strategy, "strategy must be 'all' or 'first'"),
    "gleu draw": (_gleu_draw, "draw must be one of"),
    "cleme select": (_cleme_select, "select must be one of"),
    "meta window": (_window, "window must be between 2 and 3"),
    "meta exclude": (_exclude, "cannot exclude unknown systems: d"),
}


@pytest.mark.parametrize("case", sorted(OPTION_ERRORS))
def test_a_bad_option_is_an_option_error(case: str) -> None:
    call, message = OPTION_ERRORS[case]
    with pytest.raises(OptionError, match=message) as info:
        call()
    assert isinstance(info.value, GECError) and isinstance(info.value, ValueError)
    assert "--" not in str(info.value)


def _metrics_with_a_beta() -> list[str]:
    from dataclasses import fields

    from gecscore import get_metric, metric_names

    names = []
    for name in metric_names():
        if "beta" in {option.name for option in fields(get_metric(name).Config)}:
            names.append(name)
    return names


@pytest.mark.parametrize("beta", [float("nan"), float("inf"), 0.0, -0.5])
@pytest.mark.parametrize("name", _metrics_with_a_beta())
def test_every_metric_refuses_a_beta_that_is_not_positive_and_finite(
    name: str, beta: float
) -> None:
    # A NaN or infinite beta was once accepted and gave F NaN.
    from gecscore import get_metric

    with pytest.raises(OptionError, match=f"beta must be a positive finite number, got {beta}"):
        get_metric(name).Config(beta=beta)


def test_the_metrics_with_a_beta_are_the_edit_and_ngram_metrics() -> None:
    assert set(_metrics_with_a_beta()) == {
        "cherrant",
        "cleme",
        "errant",
        "green",
        "imeasure",
        "m2",
        "ptm2",
        "ptm2-m2",
        "sentm2",
    }


def test_the_error_kinds_are_exported() -> None:
    import gecscore.errors

    assert {"GECError", "OptionError", "InputError", "InputFormatError"} <= set(
        gecscore.errors.__all__
    )


def _empty_source() -> object:
    from gecscore.extract import annotate_sentence

    return annotate_sentence("  ", ["我很喜欢苹果"])


def _gleu_no_reference() -> object:
    from gecscore.english.gleu import GleuCorpus

    return GleuCorpus(["a b"], [])


def _m2_line_count() -> object:
    from gecscore.m2 import parse_m2
    from gecscore.maxmatch.scorer import score

    return score(["a b", "c"], parse_m2("S a b\n\n"))


def _green_without_references() -> object:
    from gecscore.m2 import parse_m2
    from gecscore.meta.compute import Inputs, compute

    return compute(["green"], Inputs({"s": ["a b"]}, parse_m2("S a b\n"), references=[]))


def _pearson_too_short() -> object:
    from gecscore.meta.correlation import pearson

    return pearson([1.0], [2.0])


INPUT_ERRORS: dict[str, tuple[Callable[[], object], str]] = {
    "empty source": (_empty_source, "empty source"),
    "gleu without references": (_gleu_no_reference, "at least one reference"),
    "m2 line count": (_m2_line_count, "2 hypothesis lines for 1 gold sentences"),
    "pearson of one system": (_pearson_too_short, "at least 2 scores"),
    "meta green without references": (_green_without_references, "green needs plain reference"),
}


@pytest.mark.parametrize("case", sorted(INPUT_ERRORS))
def test_input_that_cannot_be_scored_is_an_input_error(case: str) -> None:
    call, message = INPUT_ERRORS[case]
    with pytest.raises(InputError, match=message) as info:
        call()
    assert isinstance(info.value, GECError) and isinstance(info.value, ValueError)


def test_an_empty_target_in_a_parallel_file_names_the_line() -> None:
    from gecscore.extract import ParallelLine, parallel_to_m2

    # parse_parallel refuses the empty target itself; a hand-built line reaches the extractor.
    line = ParallelLine("7", "我喜欢苹果", ("   ",), 3)
    from gecscore.extract import ParallelFormatError

    with pytest.raises(ParallelFormatError, match=r"<input>, line 3: target 1: empty target"):
        parallel_to_m2([line])
