"""gecscore.records.NamedTuple builds at run time what typing.NamedTuple builds."""

from __future__ import annotations

import pickle
import typing

import pytest

from gecscore import records


class Typed(typing.NamedTuple):
    """A record."""

    start: int
    tokens: tuple[str, ...]
    weight: float = 1.0
    kind: str = ""

    def length(self) -> int:
        return len(self.tokens)

    def __add__(self, other: Typed) -> Typed:  # type: ignore[override]
        return Typed(self.start + other.start, self.tokens + other.tokens)


class Plain(records.NamedTuple):  # type: ignore[valid-type,misc]
    """A record."""

    start: int
    tokens: tuple[str, ...]
    weight: float = 1.0
    kind: str = ""

    def length(self) -> int:
        return len(self.tokens)

    def __add__(self, other: Plain) -> Plain:
        return PLAIN(self.start + other.start, self.tokens + other.tokens)  # type: ignore[no-any-return]


# mypy does not know the run-time class as a named tuple: checked through Any.
PLAIN: typing.Any = Plain


def test_fields_defaults_methods_and_doc_match_typing() -> None:
    Plain = PLAIN
    typed, plain = Typed(1, ("a", "b")), Plain(1, ("a", "b"))
    assert Plain._fields == Typed._fields
    assert Plain._field_defaults == Typed._field_defaults
    assert plain == typed
    assert tuple(typed) == (1, ("a", "b"), 1.0, "")
    assert repr(plain).replace("Plain", "Typed") == repr(typed)
    assert plain.length() == typed.length() == 2
    assert tuple(plain + plain) == tuple(typed + typed)
    assert type(plain + plain) is Plain
    assert Plain.__doc__ == Typed.__doc__ == "A record."
    assert Plain.__module__ == Typed.__module__
    # typing keeps ForwardRef objects, the stand-in the annotation strings.
    assert list(Plain.__annotations__) == list(Typed.__annotations__)
    assert Plain.__mro__ == (Plain, tuple, object)
    assert type(Plain._make(plain)) is Plain and plain._replace(kind="x").kind == "x"
    assert pickle.loads(pickle.dumps(plain)) == plain
    assert Plain(start=2, tokens=()) == (2, (), 1.0, "")


def test_a_field_without_default_after_one_with_is_refused() -> None:
    with pytest.raises(TypeError):

        class Wrong(records.NamedTuple):  # type: ignore[valid-type,misc]
            first: int = 0
            second: int


def test_literal_stand_in_gives_the_values() -> None:
    assert records.Literal["a", "b"] == ("a", "b")
    assert records.Literal["a"] == ("a",)
