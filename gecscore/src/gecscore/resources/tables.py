"""The parsed resource tables: Cilin semantic classes and confusion sets, compact in memory and
in the prebuilt form, and the parsers of ChERRANT's two text files."""

from __future__ import annotations

import marshal
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from gecscore.errors import InputFormatError, Unavailable, decode_utf8
from gecscore.resources.prebuilt import _interner

__all__ = [
    "ConfusionSets",
    "ResourceError",
    "SemanticClass",
    "SemanticClasses",
    "SemanticParts",
]


class ResourceError(Unavailable, ValueError):
    """A resources directory or file that cannot be used; names the file and line."""


SemanticClass = tuple[str, str, str]

# --- parsing the text files -----------------------------------------------------------------


SemanticParts = tuple[dict[str, SemanticClass], bytes, int, frozenset[str]]


class SemanticClasses(Mapping[str, SemanticClass]):
    """word -> Cilin class, with the multi-character words decoded on first need.

    At char level the aligner asks only for single characters (4,721 of Cilin's ~77,000
    words), so the prebuilt form keeps those as a table and the other words as one marshal
    blob that is decoded (~20 ms) when a longer token is looked up whose first character
    starts some Cilin word (word level, or a custom thesaurus).
    """

    __slots__ = ("_single", "_packed", "_count", "_first_chars", "_words")

    def __init__(self, parts: SemanticParts) -> None:
        self._single, self._packed, self._count, self._first_chars = parts
        self._words: dict[str, SemanticClass] | None = None

    @staticmethod
    def split(semantic: dict[str, SemanticClass]) -> SemanticParts:
        words = {word: triple for word, triple in semantic.items() if len(word) != 1}
        single = {word: triple for word, triple in semantic.items() if len(word) == 1}
        first_chars = frozenset(word[0] for word in words if word)
        return single, marshal.dumps(words), len(words), first_chars

    def _decoded(self) -> dict[str, SemanticClass]:
        if self._words is None:
            self._words = marshal.loads(self._packed)
        return self._words

    def get(self, key: str, default: Any = None) -> Any:  # the aligner's lookup
        if len(key) == 1:
            return self._single.get(key, default)
        if key and key[0] not in self._first_chars:
            return default
        return self._decoded().get(key, default)

    def __getitem__(self, key: str) -> SemanticClass:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found  # type: ignore[no-any-return]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __iter__(self) -> Iterator[str]:
        yield from self._single
        yield from self._decoded()

    def __len__(self) -> int:
        return len(self._single) + self._count

    def __reduce__(self) -> tuple[type[SemanticClasses], tuple[SemanticParts]]:
        return (SemanticClasses, ((self._single, self._packed, self._count, self._first_chars),))


def _parse_cilin(data: bytes, path: Path) -> dict[str, SemanticClass]:
    try:
        text = data.decode("gbk")
    except UnicodeDecodeError as exc:
        bad_line = data[: exc.start].count(b"\n") + 1
        raise ResourceError(
            f"{path}, line {bad_line}: not GBK-encoded (ChERRANT's cilin.txt is GBK)"
        ) from None
    intern = _interner()
    semantic: dict[str, SemanticClass] = {}
    # ChERRANT strips the whole file and splits on "\n" and single spaces; we do the same so
    # that odd entries (e.g. empty words from double spaces) behave identically.
    for line_no, line in enumerate(text.strip().split("\n"), start=1):
        code, *words = line.split(" ")
        if len(code) < 4:
            raise ResourceError(
                f"{path}, line {line_no}: expected a Cilin code like 'Aa01A01=', got {code!r}"
            )
        triple = intern((code[0], code[1], code[2:4]))
        for word in words:
            semantic[word] = triple
    return semantic


class ConfusionSets(Mapping[str, frozenset[str]]):
    """char -> confusion set, each set decoded on first access from its compact form.

    The compact form is one string per char: its members, each preceded by a space. A run
    asks for the sets of ~1,800 of ChERRANT's 4,936 chars (MuCGEC dev), so decoding only those
    saves ~60% of the work and all of it from the start-up; the prebuilt form of the compact
    strings loads in ~3 ms where half a million frozenset members take ~60 ms.
    """

    __slots__ = ("_compact", "_decoded")

    def __init__(self, compact: dict[str, str]) -> None:
        self._compact = compact
        self._decoded: dict[str, frozenset[str]] = {}

    @staticmethod
    def compact(members: list[str]) -> str:
        return "".join(" " + member for member in members)

    def compact_members(self, key: str) -> str:
        """The compact form of key's set ("" when it has none), undecoded (for the C aligner)."""
        return self._compact.get(key, "")

    def get(self, key: str, default: Any = None) -> Any:  # the aligner's hot path
        found = self._decoded.get(key)
        if found is None:
            packed = self._compact.get(key)
            if packed is None:
                return default
            found = self._decoded[key] = frozenset(packed.split(" ")[1:])
        return found

    def __getitem__(self, key: str) -> frozenset[str]:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found  # type: ignore[no-any-return]

    def __contains__(self, key: object) -> bool:
        return key in self._compact

    def __iter__(self) -> Iterator[str]:
        return iter(self._compact)

    def __len__(self) -> int:
        return len(self._compact)

    def __reduce__(self) -> tuple[type[ConfusionSets], tuple[dict[str, str]]]:
        # To worker processes: the compact strings only (each decodes what it uses).
        return (ConfusionSets, (self._compact,))


def _parse_confusion(data: bytes, path: Path) -> dict[str, str]:
    """The compact form of ConfusionSets: char -> its members, each preceded by a space."""
    try:
        text = decode_utf8(data, name=str(path))
    except InputFormatError as exc:
        raise ResourceError(str(exc)) from None
    confusion: dict[str, str] = {}
    for line in text.split("\n"):
        if not line:
            continue
        head, *rest = line.split(" ")
        confusion[head] = ConfusionSets.compact(rest)
    return confusion
