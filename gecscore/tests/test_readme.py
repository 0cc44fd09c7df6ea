"""Every ``python`` code block of the package's README runs as written (each on its own, in
a fresh namespace), and the module docstring examples that name functions name real ones."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)


def python_blocks(text: str) -> list[str]:
    return _BLOCK.findall(text)


def test_the_readme_has_the_python_api_examples() -> None:
    blocks = python_blocks(README.read_text(encoding="utf-8"))
    assert len(blocks) >= 4
    joined = "\n".join(blocks)
    for needed in ("get_metric", "extract_edits", '"cleme"', "pearson"):
        assert needed in joined


@pytest.mark.parametrize("index", range(len(python_blocks(README.read_text(encoding="utf-8")))))
def test_readme_python_block_runs(index: int, capsys: pytest.CaptureFixture[str]) -> None:
    code = python_blocks(README.read_text(encoding="utf-8"))[index]
    exec(compile(code, f"{README}:python block {index + 1}", "exec"), {"__name__": "__readme__"})
    assert capsys.readouterr().out  # every example prints what it computed


def test_the_maxmatch_docstring_example_imports_what_exists() -> None:
    import gecscore.maxmatch

    doc = gecscore.maxmatch.__doc__ or ""
    for module, names in re.findall(r"from (gecscore[\w.]*) import ([\w, ]+)", doc):
        imported = __import__(module, fromlist=["_"])
        for name in names.split(","):
            assert hasattr(imported, name.strip()), (module, name)
