"""The prebuilt form of the resources: parsed tables written once with ``marshal`` into a cache
folder and read back in milliseconds; and the installed packages whose files they come from."""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = [
    "CACHE_ENV_VAR",
    "cache_directory",
    "prebuilt",
]


CACHE_ENV_VAR = "GEC_CACHE_DIR"

# --- the prebuilt form ----------------------------------------------------------------------
# One file per resource and key in the cache folder (the key: sha256 of the source files'
# bytes and of this package's code, also in the file name): a header repeating the key, then
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
    """What the prebuilt tables depend on besides their inputs: this package's code (which
    parses and derives them) and the interpreter's marshal format."""
    digest = hashlib.sha256(f"{sys.implementation.cache_tag} {marshal.version}".encode())
    try:
        modules = sorted(Path(__file__).parent.glob("*.py"))
        for module in modules:
            digest.update(module.name.encode() + b"\0" + module.read_bytes())
    except OSError:  # pragma: no cover
        modules = []
    if not modules:  # pragma: no cover - no source next to the modules (zip import)
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
