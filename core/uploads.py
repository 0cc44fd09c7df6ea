"""The platform's side of the one bounded reader (gecscore/src/gecscore/boundedio.py): its limits
from the settings, and the errors a person sees.

Every uploaded file goes through here (dataset imports, system outputs, human-score files,
Appraise XML): gzipped or not, it is decompressed as a stream and refused with a 413 naming
the setting as soon as it passes one limit, before anything is stored or parsed.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from django.conf import settings

# The library's bounded readers (size and XML limits): upload plumbing it shares, not API.
from gecscore.boundedio import (
    InputTooLarge,
    MalformedXML,
    ReadLimits,
    Source,
    iter_chunks,
    read_bounded,
    xml_events,
)

from core.exceptions import ServiceError, ServiceUnavailable
from gecscore import InputFormatError

TOO_LARGE = 413

_SETTINGS = (
    ("file_bytes", "GEC_MAX_UPLOAD_BYTES"),
    ("decompressed_bytes", "GEC_MAX_UPLOAD_DECOMPRESSED_BYTES"),
    ("lines", "GEC_MAX_UPLOAD_LINES"),
    ("line_bytes", "GEC_MAX_UPLOAD_LINE_BYTES"),
    ("xml_depth", "GEC_MAX_XML_DEPTH"),
)


def upload_limits() -> ReadLimits:
    """The limits of an upload, from the settings."""
    return ReadLimits(
        **{field: int(getattr(settings, name)) for field, name in _SETTINGS},
        names=_SETTINGS,
    )


def human_scores_limits() -> ReadLimits:
    """A human system-score file: the upload limits, its size (compressed and not) capped
    at GEC_MAX_HUMAN_SCORES_BYTES."""
    return _capped(
        upload_limits(), "GEC_MAX_HUMAN_SCORES_BYTES", "file_bytes", "decompressed_bytes"
    )


def judgments_xml_limits() -> ReadLimits:
    """An Appraise XML file: its decompressed size capped at GEC_MAX_JUDGMENTS_XML_BYTES."""
    return _capped(upload_limits(), "GEC_MAX_JUDGMENTS_XML_BYTES", "decompressed_bytes")


def _capped(limits: ReadLimits, setting: str, *fields: str) -> ReadLimits:
    cap = int(getattr(settings, setting))
    names = dict(limits.names)
    values: dict[str, Any] = {}
    for field in fields:
        current = getattr(limits, field)
        if current is None or cap < current:
            values[field] = cap
            names[field] = setting
    return replace(limits, **values, names=tuple(names.items()))


def upload_error(exc: InputFormatError) -> ServiceError:
    """A reader's error as the service error a person sees (413 for a limit passed)."""
    status = TOO_LARGE if isinstance(exc, InputTooLarge) else None
    place = (
        f"line {exc.line}, column {exc.column}"
        if isinstance(exc, MalformedXML)
        else f"line {exc.line}"
    )
    return ServiceError(f"{exc.path}, {place}: {exc.message}", field="file", status=status)


def read_upload(source: Source, *, name: str, limits: ReadLimits | None = None) -> bytes:
    """The content of an upload (an UploadedFile, bytes or a path), decompressed when
    gzipped, within `limits` (default: upload_limits()); ServiceError otherwise."""
    try:
        return read_bounded(source, name=name, limits=limits or upload_limits())
    except InputFormatError as exc:
        raise upload_error(exc) from None


def iter_upload(source: Source, *, name: str, limits: ReadLimits | None = None) -> Iterator[bytes]:
    """The upload's content (decompressed) in pieces as it is read, within `limits`
    (default: upload_limits()); ServiceError at the first limit passed. For readers that
    parse as they go and so never hold the whole file."""
    try:
        yield from iter_chunks(source, name=name, limits=limits or upload_limits())
    except InputFormatError as exc:
        raise upload_error(exc) from None


def check_upload(source: Source, *, name: str, limits: ReadLimits | None = None) -> None:
    """Raise the ServiceError read_upload would raise, keeping nothing (a scan of content
    already in memory, e.g. a file a service was handed as bytes)."""
    try:
        for _ in iter_chunks(source, name=name, limits=limits or upload_limits()):
            pass
    except InputFormatError as exc:
        raise upload_error(exc) from None


def store_upload(
    source: Source, target: Path, *, name: str, limits: ReadLimits | None = None, xml: bool = False
) -> None:
    """Write the upload's content (decompressed) to `target` as it is read, within `limits`;
    with `xml`, the content must also be well-formed XML within the depth limit (checked in
    the same pass, each element freed once read). ServiceError otherwise; the caller removes
    `target`'s folder."""
    limits = limits or upload_limits()
    try:
        with open(target, "wb") as out:
            if xml:
                _copy_xml(source, out, name=name, limits=limits)
            else:
                for chunk in iter_chunks(source, name=name, limits=limits):
                    out.write(chunk)
    except InputFormatError as exc:
        raise upload_error(exc) from None


def _copy_xml(source: Source, out: IO[bytes], *, name: str, limits: ReadLimits) -> None:
    def written() -> Iterator[bytes]:  # one pass: each piece is stored as it is parsed
        for chunk in iter_chunks(source, name=name, limits=limits):
            out.write(chunk)
            yield chunk

    for _ in xml_events(written(), name=name, limits=limits):
        pass


def discard_stored_uploads(folder: Path | None, error: BaseException) -> None:
    """After a request that stored uploads for a job failed (the broker down, a limit
    passed, a full disk) and its transaction rolled back: remove the stored files, and turn
    a full disk (an OSError) into a clear 503. The caller re-raises any other error."""
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
    if isinstance(error, OSError):
        raise ServiceUnavailable(
            f"the upload could not be stored ({error.strerror or error}); nothing was imported"
        ) from error
