"""On-disk cache of sentence embeddings and pair scores (SQLite, one file per folder).

SQLite because a weighted scoring job may be killed at any moment: every `put_*` batch is
one transaction, so the file is either updated or untouched, never half-written, and two
workers sharing the folder do not corrupt each other. Keys are SHA-256 hashes of the model
fingerprint, the layer and the text, so a different model never reads another's vectors.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]
CACHE_FILE = "bertscore-cache.sqlite3"


def cache_key(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()


class DiskCache:
    """Embeddings (token ids + unit vectors) and raw (P, R, F) triples keyed by hash."""

    def __init__(self, directory: str | Path) -> None:
        self.path = Path(directory).expanduser() / CACHE_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._connection = sqlite3.connect(str(self.path), timeout=60)
        with self._connection:
            self._connection.execute(
                "CREATE TABLE IF NOT EXISTS embedding "
                "(key TEXT PRIMARY KEY, ids BLOB NOT NULL, vectors BLOB NOT NULL, dim INTEGER NOT NULL)"
            )
            self._connection.execute(
                "CREATE TABLE IF NOT EXISTS pair "
                "(key TEXT PRIMARY KEY, p REAL NOT NULL, r REAL NOT NULL, f REAL NOT NULL)"
            )

    def close(self) -> None:
        self._connection.close()

    def get_embeddings(self, keys: Sequence[str]) -> dict[str, tuple[list[int], FloatArray]]:
        found: dict[str, tuple[list[int], FloatArray]] = {}
        for start in range(0, len(keys), 500):
            chunk = list(keys[start : start + 500])
            marks = ",".join("?" * len(chunk))
            rows = self._connection.execute(
                f"SELECT key, ids, vectors, dim FROM embedding WHERE key IN ({marks})", chunk
            )
            for key, ids, vectors, dim in rows:
                token_ids = np.frombuffer(ids, dtype=np.int64).tolist()
                matrix = np.frombuffer(vectors, dtype=np.float32).reshape(len(token_ids), dim)
                found[key] = (token_ids, matrix)
        return found

    def put_embeddings(self, items: Iterable[tuple[str, Sequence[int], FloatArray]]) -> None:
        rows = [
            (
                key,
                np.asarray(token_ids, dtype=np.int64).tobytes(),
                np.ascontiguousarray(matrix, dtype=np.float32).tobytes(),
                int(matrix.shape[1]),
            )
            for key, token_ids, matrix in items
        ]
        with self._connection:
            self._connection.executemany(
                "INSERT OR REPLACE INTO embedding (key, ids, vectors, dim) VALUES (?, ?, ?, ?)",
                rows,
            )

    def get_pairs(self, keys: Sequence[str]) -> dict[str, tuple[float, float, float]]:
        found: dict[str, tuple[float, float, float]] = {}
        for start in range(0, len(keys), 500):
            chunk = list(keys[start : start + 500])
            marks = ",".join("?" * len(chunk))
            rows = self._connection.execute(
                f"SELECT key, p, r, f FROM pair WHERE key IN ({marks})", chunk
            )
            for key, p, r, f in rows:
                found[key] = (float(p), float(r), float(f))
        return found

    def put_pairs(self, items: Iterable[tuple[str, tuple[float, float, float]]]) -> None:
        rows = [(key, p, r, f) for key, (p, r, f) in items]
        with self._connection:
            self._connection.executemany(
                "INSERT OR REPLACE INTO pair (key, p, r, f) VALUES (?, ?, ?, ?)", rows
            )
