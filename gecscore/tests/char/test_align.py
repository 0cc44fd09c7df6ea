"""Alignment internals: the band certificate, the path bound and pathological inputs."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import pytest

from gecscore.align import (
    DEFAULT_MAX_PATHS,
    AlignmentTooLarge,
    align,
    substitution_cost,
    substitution_costs,
)
from gecscore.extract import (
    ParallelFormatError,
    annotate_sentence,
    parallel_to_m2,
    parse_parallel,
)
from gecscore.resources import Resources, no_resources
from gecscore.tokenize import char_tokens, normalize_target


def test_banded_alignment_equals_the_full_table_on_mucgec_dev(
    mucgec_dir: Path, cherrant_resources: Resources
) -> None:
    lines = parse_parallel((mucgec_dir / "MuCGEC_dev.txt").read_text(encoding="utf-8"))
    checked = 0
    for line in lines[:250]:
        source = char_tokens("".join(line.source.split()))
        for target in line.targets:
            tokens = char_tokens(normalize_target(target))
            if tokens == source:
                continue
            banded = align(source, tokens, cherrant_resources, band=1)
            full = align(source, tokens, cherrant_resources, band=10**6)
            assert banded == full, line.line
            checked += 1
    assert checked > 300


def test_batch_substitution_costs_equal_the_reference_function(
    cherrant_resources: Resources,
) -> None:
    chars = list("的地得做坐作在再，。！？a1[缺失成分]人士们他她它學学")
    for a in chars:
        others = [b for b in chars if b != a]
        assert substitution_costs(a, others, cherrant_resources) == [
            substitution_cost(a, b, cherrant_resources) for b in others
        ]


def test_substitution_cost_examples_from_the_spec(cherrant_resources: Resources) -> None:
    # Spec section 2: semantic/6 + char_cost + pos_cost. Neither mark is in Cilin (4/6), both
    # are not CJK (0.5), both are in ChERRANT's punctuation list (0).
    assert substitution_cost("，", "、", cherrant_resources) == 4 / 6.0 + 0.5 + 0.0
    # The list has the half-width ｡ (U+FF61), not 。 (U+3002): for the alignment 。 is not
    # punctuation, so 。 vs ， pays the "exactly one is punctuation" 0.499.
    assert substitution_cost("，", "。", cherrant_resources) == 4 / 6.0 + 0.5 + 0.499
    assert substitution_cost("a", "b", cherrant_resources) == 4 / 6.0 + 0.5 + 0.25
    # 做/坐 share the reading "zuo": char cost 0.
    same_sound = substitution_cost("做", "坐", cherrant_resources)
    assert same_sound < substitution_cost("做", "书", cherrant_resources)


def _many_paths(k: int) -> tuple[str, str]:
    # Without resources 甲, 乙, 丙 all cost the same to substitute, so segments like "甲乙。" ->
    # "丙。" have several equally cheap alignments (S+D, D+S, ...); the lengths stay equal,
    # so ChERRANT would enumerate exponentially many paths.
    return "甲乙。" * k + "丙。" * k, "丙。" * k + "甲乙。" * k


def test_path_enumeration_is_bounded_and_reported() -> None:
    source, target = _many_paths(10)
    started = time.perf_counter()
    result = align(list(source), list(target), no_resources())
    assert len(result.paths) == DEFAULT_MAX_PATHS and result.truncated
    block, annotations = annotate_sentence(source, [target], resources=no_resources())
    assert annotations[0].truncated
    assert time.perf_counter() - started < 60
    small = align(list(_many_paths(2)[0]), list(_many_paths(2)[1]), no_resources())
    assert 1 < len(small.paths) < DEFAULT_MAX_PATHS and not small.truncated
    blocks, truncated = parallel_to_m2(
        parse_parallel(f"7\t{source}\t{target}\n"), resources=no_resources()
    )
    assert truncated == [1]


def test_five_thousand_character_sentence_is_handled_quickly() -> None:
    source = "我们今天去公园玩。" * 555 + "好的"
    target = source[:2500] + "了" + source[2500:]
    started = time.perf_counter()
    block, _ = annotate_sentence(source, [target])
    assert time.perf_counter() - started < 30
    assert [e.type for e in block.edits] == ["M"]
    assert block.edits[0].start == 2500


def test_hopelessly_different_long_pair_is_a_clear_error() -> None:
    """Refused with little memory: the bands that cannot be certified are widened without
    enumerating their paths (which once took 6 GB and 40 s for this pair)."""
    source = "".join(chr(0x4E00 + i) for i in range(3000))
    target = "".join(chr(0x6000 + i) for i in range(3000))
    tracemalloc.start()  # counts the compiled aligner's tables too (PyMem_Malloc)
    try:
        with pytest.raises(AlignmentTooLarge, match="too long and too different"):
            align(list(source), list(target), no_resources())
        with pytest.raises(ParallelFormatError, match="line 1: target 1: sentence pair too long"):
            parallel_to_m2(parse_parallel(f"1\t{source}\t{target}\n"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 300 * 2**20, f"{peak / 2**20:.0f} MiB"


def test_first_strategy_returns_one_path() -> None:
    source, target = _many_paths(3)
    assert len(align(list(source), list(target), no_resources(), strategy="first").paths) == 1


def test_length_gap_above_ten_follows_first_operations_only() -> None:
    source, target = "甲乙。" * 12, "丙。" * 12  # |n - m| = 12 > 10
    assert len(align(list(source), list(target), no_resources()).paths) == 1


def test_errors_in_worker_processes_reach_the_caller_intact() -> None:
    source = "".join(chr(0x4E00 + i) for i in range(3000))
    target = "".join(chr(0x6000 + i) for i in range(3000))
    text = f"1\t你好。\t您好。\n2\t{source}\t{target}\n3\t他\t她\n"
    with pytest.raises(
        ParallelFormatError, match="line 2: target 1: sentence pair too long"
    ) as info:
        parallel_to_m2(parse_parallel(text, name="in.txt"), workers=2)
    assert info.value.line == 2 and info.value.path == "<input>"
