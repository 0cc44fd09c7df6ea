"""The result tuples of m2.py and compare.py (and registry.Metric) are declared twice: as typing.NamedTuple classes
for type checkers and with collections.namedtuple at run time (no typing import at start-up,
issue #17). Both declarations must list the same fields in the same order."""

from __future__ import annotations

import ast
import inspect
from types import ModuleType

import pytest

from gecscore import compare, m2, registry


def typed_fields(module: ModuleType) -> dict[str, tuple[str, ...]]:
    """Field names of every NamedTuple class in the module's source, by class name."""
    tree = ast.parse(inspect.getsource(module))
    found: dict[str, tuple[str, ...]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(
            isinstance(base, ast.Name) and base.id == "NamedTuple" for base in node.bases
        ):
            found[node.name] = tuple(
                item.target.id
                for item in node.body
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
            )
    return found


@pytest.mark.parametrize(
    ("module", "typed_name", "runtime"),
    [
        (m2, "_M2EditFields", m2.M2Edit),
        (compare, "Scores", compare.Scores),
        (compare, "SentenceResult", compare.SentenceResult),
        (compare, "CompareResult", compare.CompareResult),
        (registry, "Metric", registry.Metric),
    ],
)
def test_typed_and_runtime_fields_agree(module: ModuleType, typed_name: str, runtime: type) -> None:
    assert typed_fields(module)[typed_name] == runtime._fields  # type: ignore[attr-defined]


def test_m2_edit_is_a_named_tuple_with_its_method() -> None:
    edit = m2.M2Edit(0, 1, "R", "x", 2)
    assert edit == (0, 1, "R", "x", 2) and edit.correction == "x"
    assert repr(edit) == "M2Edit(start=0, end=1, type='R', correction='x', annotator=2)"
    assert edit.to_line() == "A 0 1|||R|||x|||REQUIRED|||-NONE-|||2"
    assert type(m2.M2Edit._make(edit)) is m2.M2Edit
