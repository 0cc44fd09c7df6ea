"""The files of a published release: Parquet per split (a Hugging Face dataset folder),
the Croissant 1.1 metadata, and the checksum list.

One record per released sentence, the same fields in Parquet and Croissant:
``id, source, references (list), reference_styles (list), annotator_ids (list), origin
(list), suggestion_source (list), edits (list per reference of {start, end, correction, type}),
judgement, source_name, split``.

``origin`` says per reference how its text came to be (GoldenReference.entry, frozen with the
release): ``typed`` (from the source, or imported), ``post-edited`` (from a suggestion, or
edited by the reviewer) or ``accepted-unchanged`` (a suggestion accepted as it was);
``suggestion_source`` is the suggestion's label (``system:NAME``, ``llm:MODEL``) or "".

A reference's style is its own stored style (set by its import or its annotator pool), else
the release metadata's default for its position, else "" (unspecified): ``reference_style``.
Annotator ids are pseudonyms numbered by first appearance in the release (``Pseudonyms``).
Edits are those of the release's stored reference M2 (the one extractor's output, as every
export uses), as character offsets into ``source`` with the correction's exact text:
applying a reference's edits to the source gives the reference (``publishing.edits``), in
Chinese and in English. An error-free or not-annotatable sentence's reference is the source
itself in every language (no Chinese marker in the files models train on); ``judgement``
(error_free / not_annotatable) says which verdict it was.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from datasets.formats.markers import written_references
from gecscore import M2Edit, parse_m2
from publishing.edits import character_edits

PARQUET_ROWS_PER_GROUP = 10_000
CROISSANT_VERSION = "http://mlcommons.org/croissant/1.1"
NO_SPLIT = "all"  # the Parquet file of sentences that carry no split


@dataclass(frozen=True)
class PublishedRecord:
    id: str
    source: str
    references: tuple[str, ...]
    reference_styles: tuple[str, ...]
    annotator_ids: tuple[str | None, ...]
    origin: tuple[str, ...]
    suggestion_source: tuple[str, ...]
    edits: tuple[tuple[dict[str, Any], ...], ...]  # per reference
    judgement: str
    source_name: str
    split: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "source": self.source,
            "references": list(self.references),
            "reference_styles": list(self.reference_styles),
            "annotator_ids": list(self.annotator_ids),
            "origin": list(self.origin),
            "suggestion_source": list(self.suggestion_source),
            "edits": [list(edits) for edits in self.edits],
            "judgement": self.judgement,
            "source_name": self.source_name,
            "split": self.split,
        }


def edits_per_reference(
    m2_block: str, source: str, references: Sequence[str], plain: Sequence[str]
) -> list[list[dict[str, Any]]]:
    """Each reference's edits from its sentence's reference M2 block, as character spans of
    ``source`` that turn it into the reference as published (``plain``: markers written as
    the source; ``publishing.edits``). Annotator k of the block is reference k (a reference
    repeated in the sentence is looked up by its first occurrence); alternative 0 of a target
    is the extractor's first cheapest alignment. Noop and NA markers carry no edits."""
    block = parse_m2(m2_block, name="reference M2")[0]
    first: dict[int, list[M2Edit]] = {}
    for target in block.targets:
        if target.annotator not in first:
            first[target.annotator] = [
                edit for edit in target.edits if edit.start >= 0 and edit.type not in ("noop", "NA")
            ]
    tokens = block.source_tokens
    return [
        character_edits(source, published, tokens, first.get(references.index(reference), []))
        for reference, published in zip(references, plain, strict=True)
    ]


def reference_style(stored: str, number: int, defaults: dict[str, str]) -> str:
    """The published style of reference ``number`` (1-based): its own stored style wins (the
    import's or the annotator pool's), then the release metadata's default for that
    position, then "" (unspecified)."""
    return stored or defaults.get(str(number), "")


class Pseudonyms:
    """Annotator pseudonyms of one release: ``annotator-1``, ``annotator-2``, ... in order of
    first appearance (release order, then reference order). Stable within the release and
    across re-publishing it (the same release gives byte-identical files); the numbers say
    nothing of the account, so only the database maps them back. Chosen over an HMAC with
    a per-release secret, which would need that secret stored and kept, and would give the
    same guarantees with longer ids."""

    def __init__(self) -> None:
        self._numbers: dict[int, str] = {}

    def of(self, user_id: int | None) -> str | None:
        if user_id is None:
            return None
        if user_id not in self._numbers:
            self._numbers[user_id] = f"annotator-{len(self._numbers) + 1}"
        return self._numbers[user_id]

    def __len__(self) -> int:
        return len(self._numbers)


def records(
    rows: Iterable[Any],
    m2_text: str,
    styles: dict[str, str],
    pseudonyms: Pseudonyms | None = None,
) -> Iterator[PublishedRecord]:
    """Records of released rows (datasets.selectors.DatasetRow) in release order; ``styles``
    maps reference number ("1", "2", ...) to its default style (``reference_style``)."""
    pseudonyms = pseudonyms if pseudonyms is not None else Pseudonyms()
    blocks = (block for block in m2_text.split("\n\n") if block.strip())
    for row in rows:
        block = next(blocks, None)
        if block is None:
            raise ValueError("the reference M2 has fewer blocks than the release has sentences")
        references = tuple(row.references)
        # Markers are written as the source in every language here: the Parquet is what
        # models train on, and `judgement` says which sentences were error free.
        plain = written_references(row, plain=True)
        stored = tuple(row.reference_styles) or ("",) * len(references)
        annotators = tuple(row.reference_annotators) or (None,) * len(references)
        origins, suggestion_sources = row.provenance()
        yield PublishedRecord(
            id=row.external_id,
            source=row.text,
            references=plain,
            reference_styles=tuple(
                reference_style(style, number, styles)
                for number, style in enumerate(stored, start=1)
            ),
            annotator_ids=tuple(pseudonyms.of(user_id) for user_id in annotators),
            origin=origins,
            suggestion_source=suggestion_sources,
            edits=tuple(tuple(e) for e in edits_per_reference(block, row.text, references, plain)),
            judgement=row.judgement,
            source_name=row.source_name,
            split=row.split or NO_SPLIT,
        )


def _schema() -> Any:
    import pyarrow as pa

    edit = pa.struct(
        [
            ("start", pa.int32()),
            ("end", pa.int32()),
            ("correction", pa.string()),
            ("type", pa.string()),
        ]
    )
    return pa.schema(
        [
            ("id", pa.string()),
            ("source", pa.string()),
            ("references", pa.list_(pa.string())),
            ("reference_styles", pa.list_(pa.string())),
            ("annotator_ids", pa.list_(pa.string())),
            ("origin", pa.list_(pa.string())),
            ("suggestion_source", pa.list_(pa.string())),
            ("edits", pa.list_(pa.list_(edit))),
            ("judgement", pa.string()),
            ("source_name", pa.string()),
            ("split", pa.string()),
        ]
    )


def write_parquet(records_: Iterable[PublishedRecord], folder: Path) -> dict[str, int]:
    """``folder/data/<split>.parquet`` per split (row groups of PARQUET_ROWS_PER_GROUP,
    written as they come: memory stays flat); the number of records per split."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = _schema()
    data = folder / "data"
    data.mkdir(parents=True, exist_ok=True)
    writers: dict[str, Any] = {}
    buffers: dict[str, list[dict[str, Any]]] = {}
    counts: dict[str, int] = {}

    def flush(split: str) -> None:
        if buffers.get(split):
            writers[split].write_table(pa.Table.from_pylist(buffers[split], schema=schema))
            buffers[split] = []

    try:
        for record in records_:
            split = record.split
            if split not in writers:
                writers[split] = pq.ParquetWriter(data / f"{split}.parquet", schema)
                buffers[split] = []
                counts[split] = 0
            buffers[split].append(record.as_dict())
            counts[split] += 1
            if len(buffers[split]) >= PARQUET_ROWS_PER_GROUP:
                flush(split)
        for split in writers:
            flush(split)
    finally:
        for writer in writers.values():
            writer.close()
    return counts


def read_parquet_folder(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """The records of each split file, as written (for tests and for checking a folder)."""
    import pyarrow.parquet as pq

    return {
        path.stem: pq.read_table(path).to_pylist()
        for path in sorted((folder / "data").glob("*.parquet"))
    }


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def write_checksums(folder: Path) -> Path:
    """``SHA256SUMS`` for every file of the folder (``sha256sum -c`` reads it)."""
    lines = [
        f"{sha256_of(path)}  {path.relative_to(folder).as_posix()}"
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name != "SHA256SUMS"
    ]
    target = folder / "SHA256SUMS"
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def _license_url(spdx: str) -> str:
    return f"https://spdx.org/licenses/{spdx}.html"


def _field(split: str, column: str, description_: str, *, array: bool = False) -> dict[str, Any]:
    """A Croissant field read from one column of a split's Parquet file."""
    out: dict[str, Any] = {
        "@type": "cr:Field",
        "@id": f"{split}/{column}",
        "name": column,
        "description": description_,
        "dataType": "sc:Text",
        "source": {"fileObject": {"@id": f"{split}.parquet"}, "extract": {"column": column}},
    }
    if array:
        out["isArray"] = True
        out["arrayShape"] = "-1"
    return out


def _distribution(parquet_files: dict[str, Path], folder: Path) -> list[dict[str, Any]]:
    """One Croissant FileObject per split's Parquet file, with its checksum."""
    return [
        {
            "@type": "cr:FileObject",
            "@id": f"{split}.parquet",
            "name": f"{split}.parquet",
            "contentUrl": path.relative_to(folder).as_posix(),
            "encodingFormat": "application/x-parquet",
            "sha256": sha256_of(path),
        }
        for split, path in sorted(parquet_files.items())
    ]


# The record's fields as Croissant describes them: (column, description, a list per sentence).
RECORD_FIELDS: tuple[tuple[str, str, bool], ...] = (
    ("id", "the sentence's id in the dataset", False),
    ("source", "the learner's sentence", False),
    (
        "references",
        "corrected sentences; an error-free or not-annotatable sentence's reference is the "
        "source (see judgement)",
        True,
    ),
    (
        "reference_styles",
        "per reference: minimal / fluency / empty (unspecified); the reference's own style "
        "(its import or annotator pool), else the release's default for its position",
        True,
    ),
    (
        "annotator_ids",
        "per reference: a pseudonym (annotator-N, numbered within this release) of the "
        "annotator whose correction it is; null when imported or added by the reviewer",
        True,
    ),
    (
        "origin",
        "per reference: typed (written from the source, or imported) / post-edited (from a "
        "suggestion, or edited by the reviewer) / accepted-unchanged (a suggestion accepted "
        "as it was)",
        True,
    ),
    (
        "suggestion_source",
        "per reference: the label of the suggestion its annotator saw (system:NAME or "
        "llm:MODEL), empty when none",
        True,
    ),
    ("judgement", "annotatable / error_free / not_annotatable", False),
    ("source_name", "where the sentence came from", False),
    ("split", "train / dev / test / all", False),
)


def croissant(
    *,
    name: str,
    description: str,
    version: str,
    license_id: str,
    citation: str,
    url: str,
    date_published: str,
    language: str,
    parquet_files: dict[str, Path],
    folder: Path,
    rai: dict[str, Any],
) -> dict[str, Any]:
    """Croissant 1.1 JSON-LD of the Parquet files (a record set per split, a field per column),
    with the Responsible-AI fields the platform can state (``rai``)."""
    distribution = _distribution(parquet_files, folder)

    # One record set per split file (the same fields in each), as a split is read alone.
    record_sets = [
        {
            "@type": "cr:RecordSet",
            "@id": split,
            "name": split,
            "description": f"the {split} sentences, one record each",
            "field": [
                _field(split, column, description, array=array)
                for column, description, array in RECORD_FIELDS
            ],
        }
        for split in sorted(parquet_files)
    ]
    context = _context()
    document: dict[str, Any] = {
        "@context": context,
        "@type": "sc:Dataset",
        "conformsTo": CROISSANT_VERSION,
        "name": name,
        "description": description or name,
        "version": version,
        "license": _license_url(license_id) if license_id else "",
        "citeAs": citation,
        "url": url,
        "datePublished": date_published,
        "inLanguage": language,
        "keywords": ["grammatical error correction", "GEC"],
        "distribution": distribution,
        "recordSet": record_sets,
        **{f"rai:{key}": value for key, value in rai.items() if value not in ("", None, [])},
    }
    return {key: value for key, value in document.items() if value not in ("", None)}


def _folder_digest(parquet_files: dict[str, Path]) -> str:
    digest = hashlib.sha256()
    for split, path in sorted(parquet_files.items()):
        digest.update(f"{split}:{sha256_of(path)}\n".encode())
    return digest.hexdigest()


def _context() -> dict[str, Any]:
    """The JSON-LD context of Croissant 1.1 (the vocabulary's terms; mlcroissant writes the
    same one)."""
    cr = {
        name: f"cr:{name}"
        for name in (
            "arrayShape",
            "citeAs",
            "column",
            "containedIn",
            "equivalentProperty",
            "extract",
            "field",
            "fileProperty",
            "fileObject",
            "fileSet",
            "format",
            "includes",
            "isArray",
            "isLiveDataset",
            "jsonPath",
            "key",
            "md5",
            "parentField",
            "path",
            "recordSet",
            "references",
            "regex",
            "repeated",
            "replace",
            "samplingRate",
            "separator",
            "source",
            "subField",
            "transform",
        )
    }
    return {
        "@language": "en",
        "@vocab": "https://schema.org/",
        "sc": "https://schema.org/",
        "cr": "http://mlcommons.org/croissant/",
        "rai": "http://mlcommons.org/croissant/RAI/",
        "dct": "http://purl.org/dc/terms/",
        "conformsTo": "dct:conformsTo",
        "data": {"@id": "cr:data", "@type": "@json"},
        "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
        "examples": {"@id": "cr:examples", "@type": "@json"},
        **cr,
    }


def write_json(path: Path, document: dict[str, Any]) -> None:
    path.write_text(json.dumps(document, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
