"""WMT pairwise CSV (one comparison a row), in and out."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path

from gecscore.boundedio import DEFAULT_LIMITS, ReadLimits, read_bounded
from gecscore.errors import InputFormatError, decode_utf8
from gecscore.meta.judgment_records import Comparison, JudgmentFormatError

__all__ = [
    "CSV_FIELDS",
    "read_pairwise_csv",
    "write_pairwise_csv",
]


CSV_FIELDS = (
    "srclang",
    "trglang",
    "srcIndex",
    "segmentId",
    "judgeID",
    "system1Id",
    "system1rank",
    "system2Id",
    "system2rank",
    "rankingID",
)


def _csv_system(value: str) -> str:
    """``conll14st-test.AMU.src-trg`` -> ``AMU`` (WMT's TESTSET.SYSTEM.LANGPAIR ids)."""
    parts = value.split(".")
    return ".".join(parts[1:-1]) if len(parts) >= 3 else value


def read_pairwise_csv(path: str | Path, *, limits: ReadLimits = DEFAULT_LIMITS) -> list[Comparison]:
    """Read a WMT pairwise CSV (``expanded`` or ``unexpanded``; gzipped or not).

    Each row gives one pair; ``relation`` compares the two ranks as given (``<`` = system1
    better). Rows with rank -1 (not ranked) are skipped, as the WMT scripts do.
    """
    name = str(path)
    pairs: list[Comparison] = []
    try:
        text = decode_utf8(read_bounded(name, name=name, limits=limits), name=name)
    except InputFormatError as exc:  # not UTF-8, unreadable gzip, a limit passed
        raise JudgmentFormatError(name, f"line {exc.line}", exc.message) from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [f for f in CSV_FIELDS[2:-1] if f not in (reader.fieldnames or [])]
    if missing:
        raise JudgmentFormatError(name, "line 1", f"missing CSV columns {missing}")
    for row in reader:
        line = reader.line_num
        try:
            rank1 = int(row["system1rank"])
            rank2 = int(row["system2rank"])
        except (TypeError, ValueError):
            raise JudgmentFormatError(name, f"line {line}", "rank is not an integer") from None
        if rank1 == -1 or rank2 == -1:
            continue
        relation = "<" if rank1 < rank2 else ">" if rank1 > rank2 else "="
        pairs.append(
            Comparison(
                segment=row["segmentId"],
                user=row["judgeID"],
                system_a=_csv_system(row["system1Id"]),
                system_b=_csv_system(row["system2Id"]),
                relation=relation,
                rank_a=rank1,
                rank_b=rank2,
                item=line,
            )
        )
    return pairs


def write_pairwise_csv(
    pairs: Iterable[Comparison], *, testset: str = "test", langpair: str = "src-trg"
) -> str:
    """WMT pairwise CSV text of ``pairs`` (one row per pair, the ``expanded`` layout)."""
    src, _, trg = langpair.partition("-")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for number, pair in enumerate(pairs, start=1):
        writer.writerow(
            (
                src,
                trg,
                pair.segment,
                pair.segment,
                pair.user,
                f"{testset}.{pair.system_a}.{langpair}",
                pair.rank_a,
                f"{testset}.{pair.system_b}.{langpair}",
                pair.rank_b,
                pair.item if pair.item >= 0 else number,
            )
        )
    return out.getvalue()
