"""The compiled DP fill (gecscore/src/gecscore/_alignfill.c) against the pure-Python fill it replaces.

Both must give bit-identical tables (costs and transposition run lengths) for every band, on
real data and on inputs built to be full of transpositions; and the M2 the product writes must
not depend on which fill ran.
"""

from __future__ import annotations

import dataclasses
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from gecscore import align as align_module
from gecscore.align import make_grid
from gecscore.align import native as align_native
from gecscore.align import table as align_table
from gecscore.extract import parallel_to_m2, parse_parallel
from gecscore.m2 import read_m2, write_m2
from gecscore.resources import Resources
from gecscore.tokenize import char_tokens, normalize_target

PACKAGE_DIR = Path(__file__).resolve().parents[2]

needs_native = pytest.mark.skipif(
    not align_module.HAVE_NATIVE and os.environ.get("GEC_REQUIRE_NATIVE") != "1",
    reason="compiled aligner not built (pip install -e ./gecscore with a C compiler)",
)


def test_the_compiled_fill_is_built_where_it_is_required() -> None:
    # CI (`.ci/run`) sets GEC_REQUIRE_NATIVE=1: there the compiled path must be what is tested.
    if os.environ.get("GEC_REQUIRE_NATIVE") != "1":
        pytest.skip("GEC_REQUIRE_NATIVE is not set")
    assert align_module.HAVE_NATIVE
    assert align_module.native_enabled()


def _fresh(resources: Resources) -> Resources:
    """The same resources with empty memos, so the cold-cache path of both fills runs."""
    return dataclasses.replace(resources, sub_cost_rows={}, token_features={}, native_costs={})


def _tables(
    src: list[str], tgt: list[str], resources: Resources, low: int, high: int, *, native: bool
) -> tuple[list[list[float]], list[list[int]]]:
    if native:
        return align_native._compiled_tables(src, tgt, resources, "char", low, high)
    table = align_table._fill(make_grid(src, tgt, resources, "char"), low, high)
    return [list(row) for row in table.cost], [list(row) for row in table.run]


def _assert_same_tables(
    src: list[str], tgt: list[str], python: Resources, native: Resources
) -> int:
    n, m = len(src), len(tgt)
    checked = 0
    for width in (0, 1, 3, 8, max(n, m)):
        low, high = max(min(0, n - m) - width, -m), min(max(0, n - m) + width, n)
        expected = _tables(src, tgt, python, low, high, native=False)
        got = _tables(src, tgt, native, low, high, native=True)
        assert got == expected, ("".join(src), "".join(tgt), width)
        checked += 1
    return checked


@needs_native
def test_compiled_tables_equal_python_tables_on_mucgec_dev(
    mucgec_dir: Path, cherrant_resources: Resources
) -> None:
    python, native = _fresh(cherrant_resources), _fresh(cherrant_resources)
    pairs = 0
    for name in ("MuCGEC_dev.txt", "example_pred_dev.txt"):
        for line in parse_parallel((mucgec_dir / name).read_text(encoding="utf-8"))[::3]:
            source = char_tokens("".join(line.source.split()))
            for target in line.targets:
                tokens = char_tokens(normalize_target(target))
                if tokens != source:
                    _assert_same_tables(source, tokens, python, native)
                    pairs += 1
    assert pairs > 700
    # The compiled memo learnt the same costs the Python one did.
    assert len(native.native_costs["char"].table) > 10_000


def _reordered_pairs(*, seed: int, count: int, longest: int) -> list[tuple[list[str], list[str]]]:
    """Few distinct characters, shuffled windows, a dropped and an added character: many
    transposition candidates, long runs and tied paths."""
    rng = random.Random(seed)
    alphabet = "的了是在我他们，。"
    pairs = []
    for _ in range(count):
        src = [rng.choice(alphabet) for _ in range(rng.randint(1, longest))]
        tgt = list(src)
        for _ in range(rng.randint(1, 4)):
            start = rng.randrange(len(tgt))
            window = tgt[start : start + rng.randint(2, 6)]
            rng.shuffle(window)
            tgt[start : start + len(window)] = window
        if rng.random() < 0.3 and len(tgt) > 1:
            del tgt[rng.randrange(len(tgt))]
        if rng.random() < 0.3:
            tgt.insert(rng.randrange(len(tgt) + 1), rng.choice(alphabet))
        pairs.append((src, tgt))
    return pairs


@needs_native
def test_compiled_tables_equal_python_tables_on_reordered_sentences(
    cherrant_resources: Resources,
) -> None:
    python, native = _fresh(cherrant_resources), _fresh(cherrant_resources)
    for src, tgt in _reordered_pairs(seed=20261122, count=300, longest=40):
        _assert_same_tables(src, tgt, python, native)


def test_pure_python_fill_gives_chERRANTs_m2(
    mucgec_dir: Path, cherrant_resources: Resources, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The fallback (no compiler, or GEC_PURE_PYTHON=1) is still byte-exact.
    monkeypatch.setenv("GEC_PURE_PYTHON", "1")
    assert not align_module.native_enabled()
    lines = parse_parallel((mucgec_dir / "MuCGEC_dev.txt").read_text(encoding="utf-8"))[:200]
    blocks, truncated = parallel_to_m2(lines, resources=_fresh(cherrant_resources))
    assert truncated == []
    expected = read_m2(mucgec_dir / "MuCGEC_dev.m2")[:200]
    assert write_m2(blocks) == write_m2(expected)


def _both(
    src: list[str],
    tgt: list[str],
    python: Resources,
    native: Resources,
    monkeypatch: pytest.MonkeyPatch,
    **options,
):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("GEC_PURE_PYTHON", "1")
    expected = align_module.align(src, tgt, python, **options)
    monkeypatch.delenv("GEC_PURE_PYTHON")
    got = align_module.align(src, tgt, native, **options)
    return expected, got


@needs_native
def test_compiled_alignment_equals_python_alignment_on_mucgec_dev(
    mucgec_dir: Path, cherrant_resources: Resources, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Paths (in ChERRANT's order), cost and truncation flag from the compiled fill + back-track +
    # certificate, against the Python ones: every strategy, a tiny initial band (so the band has
    # to widen) and a small path bound (so enumeration is cut).
    python, native = _fresh(cherrant_resources), _fresh(cherrant_resources)
    pairs = 0
    for name in ("MuCGEC_dev.txt", "example_pred_dev.txt"):
        for line in parse_parallel((mucgec_dir / name).read_text(encoding="utf-8"))[1::2]:
            source = char_tokens("".join(line.source.split()))
            for target in line.targets:
                tokens = char_tokens(normalize_target(target))
                if tokens == source:
                    continue
                for options in ({}, {"strategy": "first"}, {"band": 1}, {"max_paths": 2}):
                    expected, got = _both(source, tokens, python, native, monkeypatch, **options)
                    assert got == expected, (line.line, options)
                pairs += 1
    assert pairs > 700


@needs_native
def test_compiled_alignment_equals_python_alignment_on_reordered_sentences(
    cherrant_resources: Resources, monkeypatch: pytest.MonkeyPatch
) -> None:
    python, native = _fresh(cherrant_resources), _fresh(cherrant_resources)
    truncated = 0
    for src, tgt in _reordered_pairs(seed=7, count=400, longest=30):
        for options in ({}, {"band": 0}, {"max_paths": 1}, {"max_paths": 3}, {"strategy": "first"}):
            expected, got = _both(src, tgt, python, native, monkeypatch, **options)
            assert got == expected, ("".join(src), "".join(tgt), options)
            truncated += expected.truncated
    assert truncated > 10  # the path bound was exercised


@needs_native
def test_compiled_alignment_rejects_oversize_pairs_like_python(
    cherrant_resources: Resources, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(align_table, "MAX_TABLE_SLOTS", 200)
    src, tgt = list("我们今天去学校上课了吗"), list("他说明天不想去公司上班")
    messages = []
    for pure in ("1", "0"):
        monkeypatch.setenv("GEC_PURE_PYTHON", pure)
        with pytest.raises(align_module.AlignmentTooLarge) as caught:
            align_module.align(src * 2, tgt * 2, _fresh(cherrant_resources))
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def _build_ext(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """The package's own build step for the extension (setup.py build_ext, as `pip wheel` and
    `pip install -e` run it), into a scratch folder."""
    pytest.importorskip("setuptools")
    full_env = {**os.environ, **env}
    if "GEC_REQUIRE_NATIVE" not in env:
        full_env.pop("GEC_REQUIRE_NATIVE", None)
    command = [sys.executable, "setup.py", "-q", "build_ext"]
    command += ["--build-lib", str(tmp_path / "lib"), "--build-temp", str(tmp_path / "temp")]
    return subprocess.run(
        command, cwd=PACKAGE_DIR, env=full_env, capture_output=True, text=True, check=False
    )


def test_the_package_build_compiles_the_aligner_or_falls_back(tmp_path: Path) -> None:
    # With a compiler the wheel gets the module; without one the build warns and succeeds
    # (the Python aligner is used) unless GEC_REQUIRE_NATIVE=1, which makes it fail.
    built = _build_ext(tmp_path / "cc")
    compiled = sorted((tmp_path / "cc" / "lib").rglob("_alignfill*"))
    assert built.returncode == 0, built.stderr
    if os.environ.get("GEC_REQUIRE_NATIVE") == "1":  # CI: this machine has a compiler
        assert [p.name for p in compiled] == [Path(align_native._alignfill.__file__).name]
    lenient = _build_ext(tmp_path / "none", CC="/nonexistent/cc")
    assert lenient.returncode == 0, lenient.stderr
    assert 'building extension "gecscore._alignfill" failed' in lenient.stderr
    assert "/nonexistent/cc" in lenient.stderr
    assert not list((tmp_path / "none").rglob("_alignfill*.so"))
    strict = _build_ext(tmp_path / "strict", CC="/nonexistent/cc", GEC_REQUIRE_NATIVE="1")
    assert strict.returncode != 0
    assert "/nonexistent/cc" in strict.stderr


def _compiled_costs(tokens: list[str], resources: Resources) -> dict[tuple[str, str], float]:
    """Every ordered pair of different tokens costed by the compiled char cost model."""
    native = align_native._NativeCosts()
    ids = native.token_ids(tokens)
    keys = [(a << 32) | b for a in ids for b in ids if a != b]
    native.describe_new_tokens(resources)
    left = align_native._alignfill.char_costs(native.table, native.char_features, keys)
    assert left == []  # char tokens are single CJK characters or not all CJK
    return {(tokens[key >> 32], tokens[key & 0xFFFFFFFF]): native.table.get(key) for key in keys}


@needs_native
def test_compiled_char_costs_equal_the_python_cost_model_on_mucgec_dev(
    mucgec_dir: Path, cherrant_resources: Resources
) -> None:
    # The distinct tokens of the first sentences: characters with and without a Cilin class,
    # readings and confusion sets, punctuation (CJK and ASCII), digits and Latin runs.
    seen: dict[str, None] = {}
    for line in parse_parallel((mucgec_dir / "MuCGEC_dev.txt").read_text(encoding="utf-8")):
        for text in (line.source, *line.targets):
            seen.update(dict.fromkeys(char_tokens(normalize_target(text))))
        if len(seen) >= 700:
            break
    tokens = list(seen) + ["的", "地", "得", "在", "再", "，", ",", "A", "abc", "12"]
    tokens = list(dict.fromkeys(tokens))
    compiled = _compiled_costs(tokens, _fresh(cherrant_resources))
    python = _fresh(cherrant_resources)
    expected = {}
    for a in tokens:
        others = [t for t in tokens if t != a]
        costs = align_module.substitution_costs(a, others, python)
        expected.update(((a, b), cost) for b, cost in zip(others, costs, strict=True))
    assert compiled == expected
    assert len(set(expected.values())) >= 8  # many different costs, not one constant


@needs_native
def test_compiled_char_costs_read_hand_built_resources() -> None:
    # A plain mapping of confusion sets (not the packed form of loaded resources).
    resources = Resources(
        semantic={"的": ("A", "a", "01"), "地": ("A", "a", "02"), "人": ("B", "b", "01")},
        confusion={"的": frozenset({"地", "得", "的确"}), "人": frozenset({"入"})},
        signature="test",
    )
    tokens = ["的", "地", "得", "人", "入", "八", "，", "x"]
    compiled = _compiled_costs(tokens, resources)
    for (a, b), cost in compiled.items():
        assert cost == align_module.substitution_cost(a, b, _fresh(resources)), (a, b)
    assert compiled[("入", "人")] == compiled[("人", "入")] < compiled[("入", "八")]
