"""On-disk cache of the model-based metrics' per-sentence values (SQLite, one file per folder).

The same design as the BERTScore weights' cache (``gecscore.weights.cache``): one SQLite file,
every ``put`` one transaction (a killed job leaves the file whole), keys SHA-256 hashes of
what the value depends on (the model's content hash, the options that change the value, the
text), so a different model or option never reads another's value. Values are JSON.

What is kept: SOME's sentence score; IMPARA's quality and similarity (the threshold is applied
after, so changing it reuses them); Scribendi's perplexity per sentence; the LLM judges' answer
per prompt; and each model's SHA-256 (by its files' size, times and inode), so a process
scoring from a warm cache does not hash the weights again. A metric object reads the cache before it loads a model, so a rescoring served
from the cache loads none.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "CACHE_FILE",
    "ValueCache",
    "cache_key",
]


CACHE_FILE = "reffree-cache.sqlite3"


def cache_key(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()


class ValueCache:
    """JSON values by key; ``None`` folder: a cache that keeps nothing."""

    def __init__(self, directory: str | Path | None) -> None:
        self._connection: sqlite3.Connection | None = None
        if directory is None:
            return
        path = Path(directory).expanduser() / CACHE_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        self._connection = sqlite3.connect(str(path), timeout=60, check_same_thread=False)
        self._connection.execute("PRAGMA journal_mode=WAL")
        with self._connection:
            self._connection.execute(
                "CREATE TABLE IF NOT EXISTS value (key TEXT PRIMARY KEY, json TEXT NOT NULL)"
            )

    def get_many(self, keys: Sequence[str]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        if self._connection is None:
            return found
        for start in range(0, len(keys), 500):
            chunk = list(keys[start : start + 500])
            marks = ",".join("?" * len(chunk))
            rows = self._connection.execute(
                f"SELECT key, json FROM value WHERE key IN ({marks})", chunk
            )
            found.update((key, json.loads(text)) for key, text in rows)
        return found

    def put_many(self, items: Iterable[tuple[str, Any]]) -> None:
        if self._connection is None:
            return
        rows = [(key, json.dumps(value)) for key, value in items]
        with self._connection:  # one transaction: committed whole or not at all
            self._connection.executemany(
                "INSERT OR REPLACE INTO value (key, json) VALUES (?, ?)", rows
            )

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
