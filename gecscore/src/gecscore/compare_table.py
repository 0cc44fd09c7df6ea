"""The table ChERRANT's ``compare_m2_for_evaluation.py`` and errant_compare print."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gecscore.counts import f_label

__all__ = ["TITLES", "format_table"]

# The titles of ChERRANT's and errant_compare's tables, by mode.
TITLES = {
    "cs": " Span-Based Correction ",
    "ds": " Span-Based Detection ",
    "dt": " Token-Based Detection ",
    "cse": " Span-Based Correction + Classification ",
}


def format_table(
    mode: str,
    beta: float,
    totals: Sequence[float],
    categories: Mapping[str, Any] | None = None,
) -> str:
    """The text ChERRANT's ``compare_m2_for_evaluation.py`` and errant_compare print:
    ``totals`` are TP, FP, FN, P, R, F (P/R/F rounded to 4 decimals); ``categories``
    (objects with tp/fp/fn/p/r/f, in table order) add the ``-cat`` table above it."""
    title = TITLES[mode]
    f_name = f_label(beta)
    lines: list[str] = []
    if categories is not None:
        lines.append("")
        lines.append(f"{title:=^66}")
        lines.append(
            " ".join(
                ["Category".ljust(14), "TP".ljust(8), "FP".ljust(8), "FN".ljust(8)]
                + ["P".ljust(8), "R".ljust(8), f_name]
            )
        )
        for name, s in categories.items():
            lines.append(
                " ".join(
                    [name.ljust(14), str(s.tp).ljust(8), str(s.fp).ljust(8), str(s.fn).ljust(8)]
                    + [str(s.p).ljust(8), str(s.r).ljust(8), str(s.f)]
                )
            )
    lines.append("")
    lines.append(f"{title:=^46}")
    lines.append("\t".join(["TP", "FP", "FN", "Prec", "Rec", f_name]))
    lines.append("\t".join(str(value) for value in totals))
    lines.append("{:=^46}".format(""))
    lines.append("")
    return "\n".join(lines) + "\n"
