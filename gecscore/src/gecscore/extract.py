"""The one edit extractor of the product, and ChERRANT's ``parallel_to_m2``.

``extract_edits(source, target)`` is what an annotator's live diff, the reviewer's view, the
exports and the scorer all call: the edits of the FIRST cheapest alignment (deterministic).
``annotate_sentence`` / ``parallel_to_m2`` produce ChERRANT's M2 blocks (all distinct cheapest
edit sets, ``T<r>-A<k>``) byte for byte.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gecscore.align import DEFAULT_MAX_PATHS, align
from gecscore.classify import TypedEdit, classify
from gecscore.errors import (
    GECError,
    InputError,
    InputFormatError,
    OptionError,
    decode_utf8,
    split_lines,
)
from gecscore.m2 import (
    NA_TYPE,
    NO_ERROR_TEXT,
    NONE_CORRECTION,
    NOOP_TYPE,
    NOT_ANNOTATABLE_TEXT,
    M2Block,
    M2Edit,
    M2Target,
    format_m2_block,
)
from gecscore.merge import merge
from gecscore.mucgec import (
    ParallelLine as ParallelLine,  # re-exported: the rows read_parallel gives
)
from gecscore.mucgec import parallel_rows
from gecscore.resources import Resources, default_resources, load_resources
from gecscore.tokenize import normalize_source, normalize_target, tokenize

__all__ = [
    "Edit",
    "ExtractionOptions",
    "ParallelFormatError",
    "ParallelLine",
    "TargetAnnotation",
    "annotate_sentence",
    "annotate_target",
    "extract_edits",
    "init_m2_worker",
    "m2_block_texts",
    "parallel_to_m2",
    "parse_parallel",
    "read_parallel",
]


class ParallelFormatError(InputFormatError):
    """A parallel (``id \\t source \\t target ...``) input that cannot be used; names the line."""


@dataclass(frozen=True)
class Edit:
    start: int  # source token span, end exclusive (-1, -1 for noop / NA)
    end: int
    target_start: int  # span in the pre-processed target tokens
    target_end: int
    type: str  # M / R / S / W, or noop / NA for the special targets
    source_text: str  # tokens joined WITHOUT spaces
    target_text: str


@dataclass(frozen=True)
class TargetAnnotation:
    """All distinct cheapest edit sets of one target (``T<r>-A0``, ``T<r>-A1``, ...)."""

    annotator: int
    target_tokens: tuple[str, ...]
    special: str | None  # "noop" / "NA" for 没有错误 (or target == source) / 无法标注
    alternatives: tuple[tuple[TypedEdit, ...], ...]
    truncated: bool  # the path enumeration hit its bound (see align.DEFAULT_MAX_PATHS)


def _special(source: str, target: str) -> str | None:
    if target == NO_ERROR_TEXT or source == target:
        return NOOP_TYPE
    if target == NOT_ANNOTATABLE_TEXT:
        return NA_TYPE
    return None


def annotate_target(
    source_tokens: Sequence[str],
    source: str,
    target: str,
    annotator: int,
    *,
    resources: Resources,
    granularity: str = "char",
    strategy: str = "all",
    simplified: bool = True,
    max_paths: int = DEFAULT_MAX_PATHS,
) -> TargetAnnotation:
    """Edits of one target against its (already normalised) source."""
    target = normalize_target(target, simplified=simplified)
    if not target:
        raise InputError("empty target")
    target_tokens = tokenize(target, granularity)
    special = _special(source, target)
    if special is not None:
        return TargetAnnotation(annotator, tuple(target_tokens), special, (), False)
    alignment = align(
        source_tokens,
        target_tokens,
        resources,
        granularity=granularity,
        strategy=strategy,
        max_paths=max_paths,
    )
    seen: list[list[tuple[str, int, int, int, int]]] = []
    alternatives: list[tuple[TypedEdit, ...]] = []
    for path in alignment.paths:
        edits = merge(path, source_tokens, target_tokens, granularity)
        # ChERRANT keeps the first occurrence of each distinct merged edit list.
        if edits in seen:
            continue
        seen.append(edits)
        alternatives.append(tuple(classify(edits, target_tokens)))
    return TargetAnnotation(
        annotator, tuple(target_tokens), None, tuple(alternatives), alignment.truncated
    )


@dataclass(frozen=True)
class ExtractionOptions:
    """How parallel lines become M2 blocks: what ``parallel_to_m2`` hands its workers."""

    granularity: str = "char"
    strategy: str = "all"
    simplified: bool = True
    max_paths: int = DEFAULT_MAX_PATHS


def _check_options(granularity: str, strategy: str = "all") -> None:
    if granularity not in ("char", "word"):
        raise OptionError(f"granularity must be 'char' or 'word', got {granularity!r}")
    if strategy not in ("all", "first"):
        raise OptionError(f"strategy must be 'all' or 'first', got {strategy!r}")


def extract_edits(
    source: str,
    target: str,
    *,
    granularity: str = "char",
    resources: Resources | None = None,
    simplified: bool = True,
) -> list[Edit]:
    """Edits turning ``source`` into ``target``: the first cheapest alignment, merged and typed.

    Whitespace is removed from both, the target is converted to simplified characters unless
    ``simplified=False``. ``没有错误`` or a target equal to the source gives one ``noop`` edit,
    ``无法标注`` one ``NA`` edit (spans -1, -1), as in ChERRANT's M2.
    """
    _check_options(granularity)
    resources = resources or default_resources()
    source = normalize_source(source)
    if not source:
        raise InputError("empty source")
    source_tokens = tokenize(source, granularity)
    annotation = annotate_target(
        source_tokens,
        source,
        target,
        0,
        resources=resources,
        granularity=granularity,
        strategy="first",
        simplified=simplified,
    )
    if annotation.special is not None:
        return [Edit(-1, -1, -1, -1, annotation.special, "", "")]
    tokens = annotation.target_tokens
    return [
        Edit(
            edit.start,
            edit.end,
            edit.target_start,
            edit.target_end,
            edit.type,
            "".join(source_tokens[edit.start : edit.end]),
            "".join(tokens[edit.target_start : edit.target_end]),
        )
        for edit in (annotation.alternatives[0] if annotation.alternatives else ())
    ]


def annotate_sentence(
    source: str,
    targets: Sequence[str],
    *,
    resources: Resources | None = None,
    granularity: str = "char",
    strategy: str = "all",
    simplified: bool = True,
    max_paths: int = DEFAULT_MAX_PATHS,
) -> tuple[M2Block, list[TargetAnnotation]]:
    """One M2 block with every target of a sentence (annotator id = target index)."""
    _check_options(granularity, strategy)
    resources = resources or default_resources()
    source = normalize_source(source)
    if not source:
        raise InputError("empty source")
    source_tokens = tokenize(source, granularity)
    block = M2Block(source=" ".join(source_tokens), targets=[], line=0)
    annotations: list[TargetAnnotation] = []
    for index, target in enumerate(targets):
        try:
            annotation = annotate_target(
                source_tokens,
                source,
                target,
                index,
                resources=resources,
                granularity=granularity,
                strategy=strategy,
                simplified=simplified,
                max_paths=max_paths,
            )
        except GECError as exc:  # an empty target, an alignment too large to enumerate
            raise InputError(f"target {index + 1}: {exc}") from None
        annotations.append(annotation)
        block.targets.extend(_m2_targets(annotation))
    return block, annotations


def _m2_targets(annotation: TargetAnnotation) -> list[M2Target]:
    r = annotation.annotator
    if annotation.special is not None:
        text = NOT_ANNOTATABLE_TEXT if annotation.special == NA_TYPE else NO_ERROR_TEXT
        edit = M2Edit(-1, -1, annotation.special, NONE_CORRECTION, r)
        return [M2Target(r, 0, text, [edit])]
    text = " ".join(annotation.target_tokens)
    return [
        M2Target(
            r,
            k,
            text,
            [M2Edit(e.start, e.end, e.type, e.correction, r) for e in edits],
        )
        for k, edits in enumerate(annotation.alternatives)
    ]


def parse_parallel(text: str, *, name: str = "<text>") -> list[ParallelLine]:
    """``id \\t source \\t target1 \\t target2 ...`` lines; CRLF and a BOM are accepted.

    Trailing blank lines are ignored; a blank line elsewhere, a line without a target, an empty
    source or an empty target is an error naming the line (ChERRANT would crash or silently
    drop the line, shifting every following sentence).
    """
    lines: list[ParallelLine] = []
    rows = split_lines(text)
    while rows and not rows[-1].strip():
        rows.pop()  # trailing blank lines
    for row in parallel_rows(rows, name=name, error=ParallelFormatError):
        if not normalize_source(row.source):
            raise ParallelFormatError(name, row.line, "empty source (field 2)")
        for index, target in enumerate(row.targets, start=3):
            if not "".join(target.split()):
                raise ParallelFormatError(
                    name,
                    row.line,
                    f"empty target (field {index}); use 没有错误 for an error-free sentence",
                )
        lines.append(row)
    return lines


def read_parallel(path: str | os.PathLike[str]) -> list[ParallelLine]:
    text = decode_utf8(Path(path).read_bytes(), name=str(path), error=ParallelFormatError)
    return parse_parallel(text, name=str(path))


def parallel_to_m2(
    lines: Iterable[ParallelLine],
    *,
    resources: Resources | None = None,
    granularity: str = "char",
    strategy: str = "all",
    simplified: bool = True,
    max_paths: int = DEFAULT_MAX_PATHS,
    name: str = "<input>",
    workers: int = 1,
) -> tuple[list[M2Block], list[int]]:
    """M2 blocks of parallel lines; also the line numbers whose path enumeration was
    truncated (empty on every known data set). ``workers`` > 1 uses that many processes;
    the output is identical (blocks keep input order)."""
    resources = resources or default_resources()
    items = list(lines)
    _check_options(granularity, strategy)
    options = ExtractionOptions(granularity, strategy, simplified, max_paths)
    if workers > 1 and len(items) > 1:
        from gecscore.processes import worker_context

        chunk = max(1, min(64, len(items) // (workers * 8) or 1))
        pieces = [items[i : i + chunk] for i in range(0, len(items), chunk)]
        # The workers must use exactly these resources (also hand-built ones that no
        # directory describes), so they are handed over, not reloaded from a directory.
        with worker_context().Pool(
            workers, initializer=_init_worker, initargs=(options, name, resources)
        ) as pool:
            results = pool.map(_worker_chunk, pieces, chunksize=1)
        blocks = [block for part, _ in results for block in part]
        truncated = [line for _, part in results for line in part]
        return blocks, truncated
    return _annotate_lines(items, resources, options, name)


# What _init_worker hands each pool worker: the options, the input's name, the resources.
_WORKER_JOB: tuple[ExtractionOptions, str, Resources] | None = None


def _init_worker(options: ExtractionOptions, name: str, resources: Resources) -> None:
    global _WORKER_JOB
    _WORKER_JOB = (options, name, resources)


def _worker_chunk(items: list[ParallelLine]) -> tuple[list[M2Block], list[int]]:
    assert _WORKER_JOB is not None
    options, name, resources = _WORKER_JOB
    return _annotate_lines(items, resources, options, name)


def _annotate_lines(
    items: list[ParallelLine], resources: Resources, options: ExtractionOptions, name: str
) -> tuple[list[M2Block], list[int]]:
    blocks: list[M2Block] = []
    truncated: list[int] = []
    for item in items:
        try:
            block, annotations = annotate_sentence(
                item.source,
                item.targets,
                resources=resources,
                granularity=options.granularity,
                strategy=options.strategy,
                simplified=options.simplified,
                max_paths=options.max_paths,
            )
        except GECError as exc:
            raise ParallelFormatError(name, item.line, str(exc)) from None
        block.line = item.line
        blocks.append(block)
        if any(a.truncated for a in annotations):
            truncated.append(item.line)
    return blocks, truncated


# --- worker tasks for callers that run their own pool (the dataset exporter) ---------------
# They live here, in the Django-free library, because pool workers start from a fork server
# (see processes.py) and must be able to import the function they run.

_M2_WORKER_RESOURCES: Resources | None = None


def init_m2_worker(resources_dir: str | None) -> None:
    """Pool initializer: load the resources (cached per directory) once per worker."""
    global _M2_WORKER_RESOURCES
    _M2_WORKER_RESOURCES = load_resources(resources_dir)


def m2_block_texts(batch: list[tuple[str, str, tuple[str, ...]]]) -> list[str]:
    """One M2 block (with its separating blank line) per (id, source, references)."""
    resources = _M2_WORKER_RESOURCES or default_resources()
    parts = []
    for external_id, text, references in batch:
        try:
            block, _ = annotate_sentence(text, list(references), resources=resources)
        except GECError as exc:
            raise InputError(f"sentence {external_id}: {exc}") from None
        parts.append(format_m2_block(block) + "\n\n")
    return parts
