"""Closest-gold references in a published release (docs/closest-gold.md): their own Parquet
file, ``closest_gold/closest_gold.parquet`` (never in ``data/``, which holds the golden
references per split), one record per task system and sentence with kind ``closest-gold``,
the system and the verification status; and the counts the card states."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from datasets.models import DatasetVersion
from scoring.services.closest_gold_files import ClosestGoldRecord, closest_gold_records

FOLDER = "closest_gold"
FILE = "closest_gold.parquet"


def _schema() -> Any:
    import pyarrow as pa  # lazy: only publishing writes Parquet

    return pa.schema(
        [
            ("kind", pa.string()),
            ("system", pa.string()),
            ("id", pa.string()),
            ("position", pa.int32()),
            ("source", pa.string()),
            ("output", pa.string()),
            ("closest_golds", pa.list_(pa.string())),
            ("verification", pa.string()),
            ("decisions", pa.list_(pa.string())),
        ]
    )


def closest_gold_counts(records: list[ClosestGoldRecord]) -> dict[str, Any]:
    """What the card says: records, systems, verified / unverified, per system, decisions."""
    by_system: dict[str, dict[str, int]] = {}
    decisions: dict[str, int] = {}
    for record in records:
        entry = by_system.setdefault(record.system, {"verified": 0, "total": 0})
        entry["total"] += 1
        entry["verified"] += bool(record.closest_golds)
        for decision in record.decisions:
            decisions[decision] = decisions.get(decision, 0) + 1
    verified = sum(entry["verified"] for entry in by_system.values())
    return {
        "records": len(records),
        "systems": len(by_system),
        "verified": verified,
        "unverified": len(records) - verified,
        "texts": sum(len(record.closest_golds) for record in records),
        "by_system": by_system,
        "decisions": dict(sorted(decisions.items())),
    }


def write_closest_gold_parquet(version: DatasetVersion, folder: Path) -> dict[str, Any] | None:
    """Write the release's closest-gold Parquet under ``folder``; its counts, or None (and
    no file) when the release has no closest-gold task."""
    import pyarrow as pa  # lazy: only publishing writes Parquet
    import pyarrow.parquet as pq

    records = list(closest_gold_records(version))
    if not records:
        return None
    target = folder / FOLDER
    target.mkdir(parents=True, exist_ok=True)
    rows = [{**record.as_json(), "position": record.position} for record in records]
    pq.write_table(pa.Table.from_pylist(rows, schema=_schema()), target / FILE)
    return closest_gold_counts(records)
