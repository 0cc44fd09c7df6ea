"""Import sentences (and optionally their references) into a dataset, all or nothing.

One service, `import_dataset`, serves the page, the API, the `import_dataset` command and
the Celery task. It first reads and checks the whole input (every problem is reported with
the file, the 1-based line and the field), then writes everything in one transaction; on
any error nothing is written.

Formats (`ImportFormat`):

* ``text``: one source sentence a line; the id is the line number.
* ``mucgec``: ``id \\t source \\t ref1 \\t ref2 ...`` (MuCGEC / ChERRANT); references are
  optional, ``没有错误`` (no error) and ``无法标注`` (not annotatable) are markers.
* ``parallel``: several files, the first holds the sources, each further file one
  reference per line. An empty line in the second or later reference file means "this
  sentence has fewer references" (that is how `export_dataset --format parallel` writes
  sentences with fewer references than the widest one); everywhere else an empty line is
  an error.
* ``jsonl``: one JSON object a line: ``{"id", "source", "references": [...],
  "source_name", "split"}``; only ``source`` is required, unknown keys are ignored (so our
  own JSONL export, which adds annotation data, re-imports).
* ``m2``: ChERRANT M2 (references from the ``T`` lines) or plain ERRANT M2 (references
  rebuilt by applying each annotator's edits); the id is the block number.

Input is strict on purpose: a byte-order mark, Windows (CRLF) line ends, a non-UTF-8 file
(typically GBK), empty lines, duplicate ids, mismatched line counts and files above
`GEC_MAX_UPLOAD_BYTES` are refused, because each of them otherwise ends up as invisible
characters inside ids or references, or as references attached to the wrong sentence.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max

from annotate.dataset_bulk import insert_rows
from annotate.models import Dataset, Judgement, Language, Sentence, SentenceStatus, Source, Split
from core.audit import log_action
from core.exceptions import Conflict, ServiceError
from core.jobs import report_progress
from review.models import GoldenReference, ReferenceKind, ReferenceOrigin

NO_ERROR_MARKER = "没有错误"
NOT_ANNOTATABLE_MARKER = "无法标注"
MAX_ID_LENGTH = 100
MAX_NAME_LENGTH = 100
# Rows written per INSERT: large enough to be fast on PostgreSQL, small enough for SQLite's
# limit on query parameters and for steady progress reports.
WRITE_CHUNK = 2000
# Path segments of the datasets pages (annotate/dataset_urls.py) a dataset may not be named.
RESERVED_NAMES = frozenset({"import", "api", "jobs", "exports"})


SENTENCE_COLUMNS = ("dataset_id", "source_id", "split", "external_id", "position", "text",
                    "status", "judgement")
REFERENCE_COLUMNS = ("sentence_id", "revision", "position", "kind", "text", "origin",
                     "is_current", "created_by_id")


class ImportFormat(StrEnum):
    TEXT = "text"
    MUCGEC = "mucgec"
    PARALLEL = "parallel"
    JSONL = "jsonl"
    M2 = "m2"


@dataclass(frozen=True)
class ImportFile:
    """One input file: its name (for messages) and its raw bytes."""

    name: str
    data: bytes

    @classmethod
    def from_path(cls, path: str | Path) -> ImportFile:
        path = Path(path)
        if not path.is_file():
            raise ServiceError(f"{path}: no such file", field="file")
        size = path.stat().st_size
        _check_size(path.name, size)
        return cls(name=str(path), data=path.read_bytes())


@dataclass
class ParsedSentence:
    external_id: str
    text: str
    references: list[str]
    line: int
    source_name: str | None = None  # per-row override (JSONL)
    split: str | None = None
    # The file has no ids (text, parallel, M2, JSONL without "id"): the id becomes the
    # sentence's number in the dataset, so a second file appended to a dataset continues
    # the numbering instead of clashing with the first one.
    auto_id: bool = False


@dataclass
class ImportResult:
    dataset: Dataset
    created_dataset: bool
    sentences: int
    references: int
    sources: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset.name,
            "dataset_id": self.dataset.pk,
            "created_dataset": self.created_dataset,
            "sentences": self.sentences,
            "references": self.references,
            "sources": self.sources,
        }


def _error(file: str, line: int | None, field_name: str, message: str) -> ServiceError:
    where = f"{file}, line {line}" if line is not None else file
    return ServiceError(f"{where}, field {field_name}: {message}", field=field_name)


def _check_size(name: str, size: int) -> None:
    limit = int(getattr(settings, "GEC_MAX_UPLOAD_BYTES", 200 * 1024 * 1024))
    if size > limit:
        raise ServiceError(
            f"{name}: the file is {size:,} bytes, above the import limit of {limit:,} bytes "
            "(setting GEC_MAX_UPLOAD_BYTES); split it into several imports",
            field="file",
        )


def decode_lines(file: ImportFile) -> list[str]:
    """The file's lines, after the checks every format shares (size, BOM, UTF-8, CRLF)."""
    data = file.data
    _check_size(file.name, len(data))
    if data.startswith(b"\xef\xbb\xbf"):
        raise _error(file.name, 1, "encoding", "the file starts with a byte-order mark (BOM); "
                     "save it as UTF-8 without BOM")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise _error(file.name, 1, "encoding", "the file is UTF-16 (it starts with a UTF-16 "
                     "byte-order mark); save it as UTF-8")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        hint = ""
        try:
            data.decode("gb18030")
            hint = " It decodes as GBK/GB18030: convert it with `iconv -f GBK -t UTF-8`."
        except UnicodeDecodeError:
            pass
        raise _error(
            file.name, line, "encoding",
            f"not valid UTF-8 (byte {data[exc.start]:#04x} at offset {exc.start}).{hint}",
        ) from None
    if "\r" in text:
        line = text[: text.index("\r")].count("\n") + 1
        raise _error(file.name, line, "line end", "Windows (CRLF) or old Mac (CR) line end; "
                     "convert the file to Unix (LF) line ends, e.g. with dos2unix")
    if not text:
        raise _error(file.name, None, "file", "the file is empty")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    return lines


def _reject_empty(lines: Sequence[str], name: str) -> None:
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            raise _error(name, number, "line", "empty line; remove it (every line is one sentence)")


def _check_id(external_id: str, name: str, line: int, seen: dict[str, int]) -> None:
    if not external_id.strip():
        raise _error(name, line, "id", "empty id")
    if external_id != external_id.strip():
        raise _error(name, line, "id", f"id {external_id!r} has leading or trailing spaces")
    if len(external_id) > MAX_ID_LENGTH:
        raise _error(name, line, "id", f"id longer than {MAX_ID_LENGTH} characters")
    first = seen.get(external_id)
    if first is not None:
        raise _error(name, line, "id", f"duplicate id {external_id!r} (first used on line {first})")
    seen[external_id] = line


def _check_text(text: str, name: str, line: int, field_name: str) -> None:
    if not text.strip():
        raise _error(name, line, field_name, "empty text")


# --- parsers: file(s) -> ParsedSentence list -------------------------------------------------


def parse_text(files: Sequence[ImportFile]) -> list[ParsedSentence]:
    file = _single(files, ImportFormat.TEXT)
    lines = decode_lines(file)
    _reject_empty(lines, file.name)
    return [ParsedSentence(str(n), line, [], n, auto_id=True) for n, line in enumerate(lines, start=1)]


def parse_mucgec(files: Sequence[ImportFile]) -> list[ParsedSentence]:
    file = _single(files, ImportFormat.MUCGEC)
    lines = decode_lines(file)
    _reject_empty(lines, file.name)
    seen: dict[str, int] = {}
    rows = []
    for number, line in enumerate(lines, start=1):
        fields = line.split("\t")
        if len(fields) < 2:
            raise _error(file.name, number, "source",
                         "expected 'id<TAB>source<TAB>ref1<TAB>...', found no tab")
        external_id, text, references = fields[0], fields[1], fields[2:]
        _check_id(external_id, file.name, number, seen)
        _check_text(text, file.name, number, "source")
        for index, reference in enumerate(references, start=1):
            _check_text(reference, file.name, number, f"ref{index}")
        rows.append(ParsedSentence(external_id, text, references, number))
    return rows


def parse_parallel(files: Sequence[ImportFile]) -> list[ParsedSentence]:
    if not files:
        raise ServiceError("parallel import needs the source file and one file per reference",
                           field="file")
    decoded = [decode_lines(file) for file in files]
    sources = decoded[0]
    _reject_empty(sources, files[0].name)
    if len(decoded) > 1:
        _reject_empty(decoded[1], files[1].name)
    for file, lines in zip(files[1:], decoded[1:], strict=True):
        if len(lines) != len(sources):
            raise _error(
                file.name, min(len(lines), len(sources)) + 1, "line count",
                f"{len(lines)} lines, but the source file {files[0].name} has {len(sources)}",
            )
    rows = []
    for index, text in enumerate(sources):
        references = [lines[index] for lines in decoded[1:] if lines[index].strip()]
        rows.append(ParsedSentence(str(index + 1), text, references, index + 1, auto_id=True))
    return rows


def parse_jsonl(files: Sequence[ImportFile]) -> list[ParsedSentence]:
    file = _single(files, ImportFormat.JSONL)
    lines = decode_lines(file)
    _reject_empty(lines, file.name)
    seen: dict[str, int] = {}
    rows = []
    for number, line in enumerate(lines, start=1):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise _error(file.name, number, "json", f"not valid JSON ({exc.msg}, column {exc.colno})") from None
        if not isinstance(obj, dict):
            raise _error(file.name, number, "json", "each line must be a JSON object")
        text = obj.get("source")
        if not isinstance(text, str):
            raise _error(file.name, number, "source", "missing, or not a string")
        _check_text(text, file.name, number, "source")
        raw_id = obj.get("id", number)
        if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)):
            raise _error(file.name, number, "id", "must be a string or an integer")
        external_id = str(raw_id)
        _check_id(external_id, file.name, number, seen)
        references = obj.get("references", [])
        if not isinstance(references, list):
            raise _error(file.name, number, "references", "must be a list of strings")
        for index, reference in enumerate(references, start=1):
            if not isinstance(reference, str):
                raise _error(file.name, number, f"references[{index}]", "must be a string")
            _check_text(reference, file.name, number, f"references[{index}]")
        source_name = obj.get("source_name")
        if source_name is not None and not isinstance(source_name, str):
            raise _error(file.name, number, "source_name", "must be a string")
        split = obj.get("split")
        if split is not None and not isinstance(split, str):
            raise _error(file.name, number, "split", "must be a string")
        rows.append(ParsedSentence(external_id, text, list(references), number,
                                   source_name=source_name or None, split=split,
                                   auto_id="id" not in obj))
    return rows


def parse_m2_files(files: Sequence[ImportFile], *, language: str = Language.CHINESE) -> list[ParsedSentence]:
    from scoring.gec.m2 import NO_ERROR_TEXT, NOT_ANNOTATABLE_TEXT, M2FormatError, parse_m2

    file = _single(files, ImportFormat.M2)
    lines = decode_lines(file)
    try:
        blocks = parse_m2("\n".join(lines), name=file.name)
    except M2FormatError as exc:
        raise _error(file.name, exc.line, "m2", exc.message) from None
    # Chinese M2 separates characters with spaces; English separates words.
    joiner = "" if language == Language.CHINESE else " "
    rows = []
    for number, block in enumerate(blocks, start=1):
        tokens = block.source.split()
        if not tokens:
            raise _error(file.name, block.line, "source", "empty S line")
        references: list[str] = []
        seen_annotators: set[int] = set()
        for target in block.targets:
            if target.annotator in seen_annotators:
                continue  # T<r>-A1, A2...: other alignments of the same reference
            seen_annotators.add(target.annotator)
            if target.text is not None:
                text = target.text.strip()
                if text in (NO_ERROR_TEXT, NOT_ANNOTATABLE_TEXT):
                    references.append(text)
                else:
                    references.append(joiner.join(text.split()))
            else:
                references.append(joiner.join(_apply_edits(tokens, target.edits)))
        rows.append(ParsedSentence(str(number), joiner.join(tokens), references, block.line,
                                   auto_id=True))
    return rows


def _apply_edits(tokens: list[str], edits: Sequence[Any]) -> list[str]:
    result = list(tokens)
    # Right to left, so earlier offsets stay valid.
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        if edit.start < 0 or edit.type in ("noop", "UNK", "Um"):
            continue
        correction = [] if edit.correction in ("-NONE-", "") else edit.correction.split()
        result[edit.start : edit.end] = correction
    return result


def _single(files: Sequence[ImportFile], fmt: ImportFormat) -> ImportFile:
    if len(files) != 1:
        raise ServiceError(f"the {fmt} format takes exactly one file, got {len(files)}", field="file")
    return files[0]


PARSERS: dict[ImportFormat, Callable[[Sequence[ImportFile]], list[ParsedSentence]]] = {
    ImportFormat.TEXT: parse_text,
    ImportFormat.MUCGEC: parse_mucgec,
    ImportFormat.PARALLEL: parse_parallel,
    ImportFormat.JSONL: parse_jsonl,
}


def parse_files(files: Sequence[ImportFile], *, fmt: str, language: str = Language.CHINESE) -> list[ParsedSentence]:
    try:
        format_ = ImportFormat(fmt)
    except ValueError:
        choices = ", ".join(f.value for f in ImportFormat)
        raise ServiceError(f"unknown format {fmt!r}; use one of {choices}", field="format") from None
    if format_ == ImportFormat.M2:
        rows = parse_m2_files(files, language=language)
    else:
        rows = PARSERS[format_](files)
    if not rows:
        raise ServiceError(f"{files[0].name}: no sentences found", field="file")
    return rows


# --- writing ------------------------------------------------------------------------------


def reference_kind(text: str) -> str:
    if text == NO_ERROR_MARKER:
        return ReferenceKind.ERROR_FREE
    if text == NOT_ANNOTATABLE_MARKER:
        return ReferenceKind.NOT_ANNOTATABLE
    return ReferenceKind.CORRECTION


def judgement_for(source: str, references: Sequence[str]) -> str:
    """The sentence-level verdict an imported reference set implies."""
    if not references:
        return Judgement.UNSET
    kinds = [reference_kind(r) for r in references]
    if any(k == ReferenceKind.CORRECTION and r != source for k, r in zip(kinds, references, strict=True)):
        return Judgement.ANNOTATABLE
    if all(k == ReferenceKind.NOT_ANNOTATABLE for k in kinds):
        return Judgement.NOT_ANNOTATABLE
    return Judgement.ERROR_FREE


def _check_choice(value: str, choices: type[Split] | type[Language], field_name: str, where: str) -> str:
    allowed = [c.value for c in choices]
    if value not in allowed:
        shown = ", ".join(repr(a) for a in allowed if a)
        raise ServiceError(f"{where}field {field_name}: {value!r} is not one of {shown}", field=field_name)
    return value


def import_dataset(
    *,
    name: str,
    fmt: str,
    files: Sequence[ImportFile],
    source_name: str = "",
    split: str = "",
    language: str = Language.CHINESE,
    user: Any = None,
    job_id: int | None = None,
) -> ImportResult:
    """Parse `files` as `fmt` and add the sentences (and references) to dataset `name`.

    The dataset is created when it does not exist; otherwise the sentences are appended
    after the existing ones and their ids must not clash. Raises ServiceError naming the
    file, line and field; nothing is written then.
    """
    if not name or len(name) > MAX_NAME_LENGTH or not _is_slug(name):
        raise ServiceError(f"dataset name {name!r} must be 1-100 letters, digits, '-' or '_'",
                           field="name")
    if name in RESERVED_NAMES:
        raise ServiceError(f"dataset name {name!r} is reserved by the datasets pages; choose another",
                           field="name")
    _check_choice(split, Split, "split", "")
    _check_choice(language, Language, "language", "")
    if len(source_name) > MAX_NAME_LENGTH:
        raise ServiceError("source name longer than 100 characters", field="source")
    rows = parse_files(files, fmt=fmt, language=language)
    file_name = files[0].name
    for row in rows:
        if row.split is not None:
            _check_choice(row.split, Split, "split", f"{file_name}, line {row.line}, ")
        if row.source_name is not None and len(row.source_name) > MAX_NAME_LENGTH:
            raise _error(file_name, row.line, "source_name", "longer than 100 characters")
    total = len(rows)
    report_progress(job_id, 0, total=total, message="checked; writing")

    try:
        with transaction.atomic():
            dataset = Dataset.objects.select_for_update().filter(name=name).first()
            created = dataset is None
            if dataset is None:
                dataset = Dataset.objects.create(name=name, language=language, created_by=_actor(user))
            elif dataset.language != language:
                raise ServiceError(
                    f"dataset {name!r} is {dataset.language}, the import says {language}",
                    field="language",
                )
            start = (Sentence.objects.filter(dataset=dataset).aggregate(m=Max("position"))["m"] or -1) + 1
            for index, row in enumerate(rows):
                if row.auto_id:
                    row.external_id = str(start + index + 1)
            existing: dict[str, int] = {}
            if not created:
                existing = dict.fromkeys(
                    Sentence.objects.filter(dataset=dataset).values_list("external_id", flat=True), 0)
            seen: dict[str, int] = {}
            for row in rows:
                if row.external_id in existing:
                    raise _error(file_name, row.line, "id",
                                 f"id {row.external_id!r} already exists in dataset {name!r}")
                first = seen.setdefault(row.external_id, row.line)
                if first != row.line:
                    raise _error(file_name, row.line, "id",
                                 f"duplicate id {row.external_id!r} (first used on line {first})")
            sources: dict[str, Source] = {s.name: s for s in dataset.sources.all()}
            for row in rows:
                wanted = row.source_name if row.source_name is not None else source_name
                if wanted and wanted not in sources:
                    sources[wanted] = Source.objects.create(dataset=dataset, name=wanted)

            n_references = 0
            actor_id = _actor(user).pk if _actor(user) is not None else None
            for offset in range(0, total, WRITE_CHUNK):
                chunk = rows[offset : offset + WRITE_CHUNK]
                sentence_rows = []
                for index, row in enumerate(chunk, start=offset):
                    wanted = row.source_name if row.source_name is not None else source_name
                    source = sources.get(wanted) if wanted else None
                    sentence_rows.append((
                        dataset.pk, source.pk if source is not None else None,
                        row.split if row.split is not None else split, row.external_id,
                        start + index, row.text,
                        SentenceStatus.REVIEWED if row.references else SentenceStatus.PENDING,
                        judgement_for(row.text, row.references),
                    ))
                insert_rows(Sentence, SENTENCE_COLUMNS, sentence_rows)
                ids = dict(Sentence.objects.filter(
                    dataset=dataset, position__gte=start + offset, position__lt=start + offset + len(chunk)
                ).values_list("position", "id"))
                reference_rows = [
                    (ids[start + index], 1, position, reference_kind(text), text,
                     ReferenceOrigin.IMPORTED, True, actor_id)
                    for index, row in enumerate(chunk, start=offset)
                    for position, text in enumerate(row.references)
                ]
                n_references += insert_rows(GoldenReference, REFERENCE_COLUMNS, reference_rows)
                report_progress(job_id, offset + len(chunk), total=total)

            result = ImportResult(dataset=dataset, created_dataset=created, sentences=total,
                                  references=n_references, sources=sorted(sources))
            log_action(dataset, user, "dataset.import", {
                "format": str(fmt), "files": [f.name for f in files], "sentences": total,
                "references": n_references, "source": source_name, "split": split,
            })
    except IntegrityError as exc:
        # Only a concurrent import of the same dataset gets here (every check above ran
        # first): the other one won; nothing of this one was written.
        raise Conflict(f"dataset {name!r} was changed by another import at the same time; "
                       "nothing was imported, run the import again", field="name") from exc
    return result


def natural_key(name: str) -> list[Any]:
    """Sort key that puts ref2 before ref10 (reference files picked together in a browser)."""
    import re

    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _actor(user: Any) -> Any:
    return user if getattr(user, "is_authenticated", False) else None


def _is_slug(value: str) -> bool:
    return all(c.isascii() and (c.isalnum() or c in "-_") for c in value)


# --- background imports (page and API) --------------------------------------------------------

JOB_KIND_IMPORT = "datasets.import"


def request_import(
    *, user: Any, name: str, fmt: str, uploads: Sequence[tuple[str, Any]], source_name: str = "",
    split: str = "", language: str = Language.CHINESE,
) -> Any:
    """Store uploaded files and queue the import as a background job; returns the job.

    `uploads` are (file name, file object with .chunks() or .read()). Oversize files are
    refused here, before anything is stored.
    """
    from core.jobs import start_job

    if not uploads:
        raise ServiceError("choose at least one file", field="files")
    for filename, upload in uploads:
        size = getattr(upload, "size", None)
        if size is not None:
            _check_size(filename, int(size))
    job = start_job(kind=JOB_KIND_IMPORT, user=user, params={
        "name": name, "format": fmt, "source_name": source_name, "split": split,
        "language": language, "files": [],
    })
    folder = Path(settings.MEDIA_ROOT) / "imports" / str(job.pk)
    folder.mkdir(parents=True, exist_ok=True)
    stored = []
    for index, (filename, upload) in enumerate(uploads):
        safe = Path(filename).name or f"file{index}"
        target = folder / f"{index:02d}-{safe}"
        with open(target, "wb") as out:
            if hasattr(upload, "chunks"):
                for piece in upload.chunks():
                    out.write(piece)
            else:
                out.write(upload.read())
        stored.append({"path": str(target), "name": safe})
    job.params = {**job.params, "files": stored}
    job.save(update_fields=["params"])
    job_id = job.pk

    def send() -> None:
        from annotate.tasks import import_dataset_task

        import_dataset_task.delay(job_id)

    transaction.on_commit(send)
    return job


def run_import_job(job_id: int) -> dict[str, Any] | None:
    """The body of the import task: idempotent (a finished job is left alone; a failed
    import wrote nothing, so running it again is safe)."""
    from core.jobs import JobCancelled, fail_job, finish_job, mark_running
    from core.models import BackgroundJob

    job = BackgroundJob.objects.filter(pk=job_id).first()
    if job is None or job.is_finished:
        return None
    params = job.params
    mark_running(job_id, message="checking the file")
    try:
        files = [ImportFile(name=f["name"], data=Path(f["path"]).read_bytes()) for f in params["files"]]
        result = import_dataset(
            name=params["name"], fmt=params["format"], files=files,
            source_name=params.get("source_name", ""), split=params.get("split", ""),
            language=params.get("language", Language.CHINESE), user=job.created_by, job_id=job_id,
        )
    except (ServiceError, JobCancelled) as exc:
        fail_job(job_id, message=getattr(exc, "message", str(exc)),
                 result={"field": getattr(exc, "field", None)})
        _remove_uploads(params)
        return None
    except OSError as exc:
        fail_job(job_id, message=f"stored upload unreadable: {exc}")
        return None
    finish_job(job_id, result=result.as_dict(),
               message=f"imported {result.sentences} sentences, {result.references} references")
    _remove_uploads(params)
    return result.as_dict()


def _remove_uploads(params: dict[str, Any]) -> None:
    for f in params.get("files", []):
        Path(f["path"]).unlink(missing_ok=True)
