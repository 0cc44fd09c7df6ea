"""On-disk cache of sentence embeddings and pair scores (SQLite, one file per folder).

SQLite because a weighted scoring job may be killed at any moment: every `put_*` batch is
one transaction, so the file is either updated or untouched, never half-written, and two
workers sharing the folder do not corrupt each other. Keys are SHA-256 hashes of the model
fingerprint, the layer and the text, so a different model never reads another's vectors.

With `background_writes=True` the `put_*` calls return at once and one writer thread (its
own connection, WAL journal so readers are not blocked) commits them in order, off the
critical path of the encoder; `flush()` / `close()` wait for them and re-raise a failed write.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "CACHE_FILE",
    "DiskCache",
    "FloatArray",
]

FloatArray = npt.NDArray[np.float32]
CACHE_FILE = "bertscore-cache.sqlite3"


class DiskCache:
    """Embeddings (token ids + unit vectors) and raw (P, R, F) triples keyed by hash."""

    def __init__(self, directory: str | Path, *, background_writes: bool = False) -> None:
        self.path = Path(directory).expanduser() / CACHE_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._connection = sqlite3.connect(str(self.path), timeout=60)
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._writer = (
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="bertscore-cache")
            if background_writes
            else None
        )
        self._writer_state = threading.local()
        self._writer_connections: list[sqlite3.Connection] = []
        self._pending: list[Future[None]] = []
        with self._connection:
            self._connection.execute(
                "CREATE TABLE IF NOT EXISTS embedding "
                "(key TEXT PRIMARY KEY, ids BLOB NOT NULL, vectors BLOB NOT NULL, dim INTEGER NOT NULL)"
            )
            self._connection.execute(
                "CREATE TABLE IF NOT EXISTS pair "
                "(key TEXT PRIMARY KEY, p REAL NOT NULL, r REAL NOT NULL, f REAL NOT NULL)"
            )

    def _write_connection(self) -> sqlite3.Connection:
        if self._writer is None:
            return self._connection
        connection: sqlite3.Connection | None = getattr(self._writer_state, "connection", None)
        if connection is None:
            connection = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False)
            self._writer_state.connection = connection
            self._writer_connections.append(connection)
        return connection

    def _write(self, sql: str, make_rows: Any) -> None:
        rows = make_rows()
        connection = self._write_connection()
        with connection:  # one transaction per batch: committed whole or not at all
            connection.executemany(sql, rows)

    def _submit(self, sql: str, make_rows: Any) -> None:
        if self._writer is None:
            self._write(sql, make_rows)
            return
        for future in [f for f in self._pending if f.done()]:
            future.result()  # a failed write surfaces at the next put, not silently
            self._pending.remove(future)
        self._pending.append(self._writer.submit(self._write, sql, make_rows))

    def flush(self) -> None:
        """Wait until every submitted write is committed (re-raises a failed one)."""
        pending, self._pending = self._pending, []
        for future in pending:
            future.result()

    def close(self) -> None:
        try:
            self.flush()
        finally:
            if self._writer is not None:
                self._writer.shutdown(wait=True)
            for connection in self._writer_connections:
                connection.close()
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
        """Store embeddings; the arrays must not be changed afterwards (written later)."""
        batch = list(items)

        def rows() -> list[tuple[str, bytes, bytes, int]]:
            return [
                (
                    key,
                    np.asarray(token_ids, dtype=np.int64).tobytes(),
                    np.ascontiguousarray(matrix, dtype=np.float32).tobytes(),
                    int(matrix.shape[1]),
                )
                for key, token_ids, matrix in batch
            ]

        self._submit(
            "INSERT OR REPLACE INTO embedding (key, ids, vectors, dim) VALUES (?, ?, ?, ?)", rows
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
        self._submit("INSERT OR REPLACE INTO pair (key, p, r, f) VALUES (?, ?, ?, ?)", lambda: rows)
