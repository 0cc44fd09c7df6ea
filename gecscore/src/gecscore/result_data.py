"""The plain-data form of a metric's result: what ``Result.to_dict()`` returns and what every
scoring command prints for ``--json``, built by one function so the two cannot drift apart.

Kept free of ``dataclasses`` and ``typing`` at run time: ``compare`` and ``cleme`` on M2 files
print their ``--json`` through :func:`result_data` without loading :mod:`gecscore.metric`
(their start-up time is part of their contract). A metric's module builds the keyword
arguments of :func:`result_data` from its scorer's own result (``compare.result_fields``,
``cleme.scorers.cleme_fields``, ...); ``Result.from_fields`` turns the same arguments into a
:class:`gecscore.metric.Result`, so the API and the command share one mapping.

The contract (gecscore/README.md, "What a Result holds"):

* every number at full precision (rounding is for printed text only);
* keys in this order: ``metric``, ``score``, ``signature``, ``precision``, ``recall``,
  ``beta``, ``f``, ``counts``, ``sentences`` (``[{"score", "counts"}]``), ``details``;
* JSON types only: tuples become lists, mapping keys strings, and a number that is not
  finite (an unjudged sentence's NaN) becomes ``None``, so ``json.dumps(...,
  allow_nan=False)`` always succeeds.
"""

from __future__ import annotations

import json
import math

from gecscore.counts import Counts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

    from gecscore.counts import Convention

__all__ = ["counted_fields", "json_line", "plain", "result_data"]


def plain(value: Any) -> Any:
    """``value`` as JSON data: lists for tuples, string keys, None for NaN and infinities,
    Python numbers for numpy scalars."""
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if hasattr(value, "item") and not hasattr(value, "__len__"):  # a numpy scalar
        return plain(value.item())
    if hasattr(value, "items"):  # another mapping (a MappingProxyType)
        return {str(key): plain(item) for key, item in value.items()}
    if hasattr(value, "tolist"):  # a numpy array
        return plain(value.tolist())
    raise TypeError(f"not plain data: {type(value).__name__}")


def result_data(
    *,
    metric: str,
    score: float,
    signature: str,
    precision: float | None = None,
    recall: float | None = None,
    beta: float | None = None,
    f: float | None = None,
    counts: tuple[float, float, float] | None = None,
    sentences: Iterable[tuple[float, tuple[float, float, float] | None]] = (),
    details: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The plain data of a result (``sentences``: (score, counts) pairs)."""
    return {
        "metric": metric,
        "score": plain(score),
        "signature": signature,
        "precision": plain(precision),
        "recall": plain(recall),
        "beta": plain(beta),
        "f": plain(f),
        "counts": plain(counts),
        "sentences": [
            {"score": plain(value), "counts": plain(sentence_counts)}
            for value, sentence_counts in sentences
        ],
        "details": plain(dict(details or {})),
    }


def json_line(data: Mapping[str, Any], system: str | None = None) -> str:
    """The ``--json`` line of a command: ``{"system": FILE, **data}`` (no ``system`` key when
    ``system`` is None). Never NaN or Infinity: the data is plain already."""
    if system is not None:
        data = {"system": system, **data}
    return json.dumps(data, ensure_ascii=False, allow_nan=False)


def counted_fields(
    metric: str,
    *,
    counts: Sequence[float],
    beta: float,
    signature: str,
    sentence_counts: Iterable[Sequence[float]] = (),
    categories: Mapping[str, Sequence[float]] | None = None,
    details: Mapping[str, Any] | None = None,
    convention: Convention = "errant",
) -> dict[str, Any]:
    """:func:`result_data`'s arguments for a metric that counts edits, from its summed
    (TP, FP, FN): P/R/F-beta at full precision from the counts (ChERRANT, errant and CLEME
    print them rounded to 4 decimals; the Result does not round). Each sentence scores the F
    of its own counts; ``categories`` (name -> TP, FP, FN, ...) go to
    ``details["categories"]`` as (TP, FP, FN, P, R, F)."""
    tp, fp, fn = counts
    p, r, f = Counts(tp, fp, fn).prf(beta, convention=convention)
    extra = dict(details or {})
    if categories is not None:
        extra["categories"] = {
            name: (c[0], c[1], c[2], *Counts(c[0], c[1], c[2]).prf(beta, convention=convention))
            for name, c in categories.items()
        }
    return {
        "metric": metric,
        "score": f,
        "signature": signature,
        "precision": p,
        "recall": r,
        "beta": beta,
        "f": f,
        "counts": (tp, fp, fn),
        "sentences": [
            (Counts(c[0], c[1], c[2]).f_score(beta, convention=convention), (c[0], c[1], c[2]))
            for c in sentence_counts
        ],
        "details": extra,
    }
