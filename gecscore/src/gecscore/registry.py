"""The metrics of the library by name, and the CLI commands by the module that registers them.

Metrics are named by import path (``"module:attribute"``), never by the object: the class of
the public calling convention in :data:`METRIC_CLASSES` (:func:`get_metric` loads it), the
meta-evaluation function in :class:`MetricInfo`; looking a metric up imports nothing, and
:func:`load` imports only the module asked for. ``python -m gecscore compare`` reads this
module at start-up and must not load the extractor or the aligner (its start-up time counts), so
keep this module free of imports of the library's metric modules.

Who looks here: the CLI (:data:`COMMANDS`: which module registers a command),
``meta system --compute`` (the metrics with a ``meta`` function), users of the library
(:func:`get_metric`) and the Django side (the names and titles; where a scored system's
summary keeps each number is the app's business: ``scoring/services/meta/catalogue.py``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, NamedTuple

from gecscore.errors import OptionError

__all__ = [
    "COMMANDS",
    "METRICS",
    "METRIC_CLASSES",
    "MetricInfo",
    "command_modules",
    "get",
    "get_metric",
    "load",
    "meta_metrics",
    "metric_names",
    "metric_of_signature",
]

# Command -> the module that registers it (one module per metric family), in the order of
# ``python -m gecscore --help``. Only the module of the command being run is imported.
# ``m2`` is ``cherrant-m2``'s old name (a deprecated alias, left out of --help).
COMMANDS: dict[str, str] = {
    "cherrant-m2": "gecscore.commands.char",
    "m2": "gecscore.commands.char",
    "compare": "gecscore.commands.char",
    "score": "gecscore.commands.char",
    "cleme": "gecscore.commands.cleme",
    "cleme2": "gecscore.commands.cleme",
    "chunks": "gecscore.commands.cleme",
    "ptm2": "gecscore.commands.ptm2",
    "meta": "gecscore.commands.meta",
    "errant-compare": "gecscore.commands.errant",
    "errant-m2": "gecscore.commands.errant",
    "gleu": "gecscore.commands.gleu",
    "green": "gecscore.commands.green",
    "m2score": "gecscore.commands.m2score",
    "imeasure": "gecscore.commands.imeasure",
    "some": "gecscore.commands.reffree",
    "impara": "gecscore.commands.reffree",
    "scribendi": "gecscore.commands.reffree",
    "llm-judge": "gecscore.commands.reffree",
}

if TYPE_CHECKING:
    from typing import Literal, overload

    from gecscore.metric import Metric
    from gecscore.metrics.cherrant import ChERRANT
    from gecscore.metrics.cleme import CLEME
    from gecscore.metrics.cleme2 import CLEME2
    from gecscore.metrics.errant import ERRANT
    from gecscore.metrics.gleu import GLEU
    from gecscore.metrics.imeasure import IMeasure
    from gecscore.metrics.m2 import M2
    from gecscore.metrics.ptm2 import PTM2
    from gecscore.metrics.ptm2_m2 import PTM2M2
    from gecscore.metrics.sentm2 import SentM2


class MetricInfo(NamedTuple):
    """What the library says about a metric besides its class: title, language, commands and
    meta-evaluation function. (The metric class itself derives from ``gecscore.metric.Metric``.)"""

    name: str  # the registry key
    title: str  # how pages and reports label its headline number
    language: str  # "zh", "en" or "any" (M2 input in any language)
    commands: tuple[str, ...]  # CLI commands that compute it (keys of COMMANDS)
    meta: str | None  # "module:function" for ``meta system --compute``, if offered


def _metrics(*entries: MetricInfo) -> dict[str, MetricInfo]:
    return {entry.name: entry for entry in entries}


# The edit-based metrics' meta functions (they extract each system's edits first).
_EDITS = "gecscore.meta.compute_edits"

# The order is the order of listings (``meta system --compute``'s help: m2, sentm2, gleu,
# imeasure; the platform's metric catalogue).
METRICS: dict[str, MetricInfo] = _metrics(
    MetricInfo(
        "cherrant", "ChERRANT F0.5", "zh", ("compare", "score"), f"{_EDITS}:cherrant_scores"
    ),
    MetricInfo("errant", "ERRANT F0.5", "en", ("errant-compare",), f"{_EDITS}:errant_scores"),
    MetricInfo("m2", "M2 F0.5", "en", ("m2score",), "gecscore.meta.compute:m2_scores"),
    MetricInfo("sentm2", "SentM2", "en", ("m2score",), "gecscore.meta.compute:sentm2_scores"),
    MetricInfo("gleu", "GLEU", "en", ("gleu",), "gecscore.meta.compute:gleu_scores"),
    MetricInfo(
        "gleu-gecm", "GLEU (gec-metrics)", "en", (), "gecscore.meta.compute:gleu_gecm_scores"
    ),
    MetricInfo("green", "GREEN", "any", ("green",), "gecscore.meta.compute:green_scores"),
    MetricInfo("some", "SOME", "en", ("some",), None),
    MetricInfo("impara", "IMPARA", "en", ("impara",), None),
    MetricInfo("scribendi", "Scribendi score", "en", ("scribendi",), None),
    MetricInfo("llm-s", "LLM judge (sentence)", "any", ("llm-judge",), None),
    MetricInfo("llm-e", "LLM judge (edit)", "any", ("llm-judge",), None),
    MetricInfo(
        "imeasure", "I-measure", "en", ("imeasure",), "gecscore.meta.compute:imeasure_scores"
    ),
    MetricInfo("cleme", "CLEME F0.5", "any", ("cleme",), f"{_EDITS}:cleme_scores"),
    MetricInfo("cleme2", "CLEME2.0", "any", ("cleme2",), f"{_EDITS}:cleme2_scores"),
    MetricInfo("ptm2", "PT-M2 F0.5", "any", ("ptm2",), f"{_EDITS}:ptm2_scores"),
    MetricInfo("ptm2-m2", "PT-M2 F0.5 (MaxMatch)", "en", ("ptm2",), None),
)


# Metric name -> "module:Class" of its gecscore.metric.Metric subclass (the public calling
# convention); every metric gets one, in gecscore.metrics.<name with - as _> (the one rule for
# where a metric's class is found; those modules re-export it from where its code lives).
METRIC_CLASSES: dict[str, str] = {
    "cherrant": "gecscore.metrics.cherrant:ChERRANT",
    "errant": "gecscore.metrics.errant:ERRANT",
    "m2": "gecscore.metrics.m2:M2",
    "sentm2": "gecscore.metrics.sentm2:SentM2",
    "gleu": "gecscore.metrics.gleu:GLEU",
    "imeasure": "gecscore.metrics.imeasure:IMeasure",
    "cleme": "gecscore.metrics.cleme:CLEME",
    "cleme2": "gecscore.metrics.cleme2:CLEME2",
    "ptm2": "gecscore.metrics.ptm2:PTM2",
    "ptm2-m2": "gecscore.metrics.ptm2_m2:PTM2M2",
    "green": "gecscore.metrics.green:GREEN",
    "gleu-gecm": "gecscore.metrics.gleu_gecm:GLEUGecMetrics",
    "some": "gecscore.metrics.some:SOME",
    "impara": "gecscore.metrics.impara:IMPARA",
    "scribendi": "gecscore.metrics.scribendi:Scribendi",
    "llm-s": "gecscore.metrics.llm_s:LLMJudgeSent",
    "llm-e": "gecscore.metrics.llm_e:LLMJudgeEdit",
}


if TYPE_CHECKING:
    # The class of each name, for type checkers (get_metric("m2").Config is M2Config).
    @overload
    def get_metric(name: Literal["cherrant"]) -> type[ChERRANT]: ...
    @overload
    def get_metric(name: Literal["errant"]) -> type[ERRANT]: ...
    @overload
    def get_metric(name: Literal["m2"]) -> type[M2]: ...
    @overload
    def get_metric(name: Literal["sentm2"]) -> type[SentM2]: ...
    @overload
    def get_metric(name: Literal["gleu"]) -> type[GLEU]: ...
    @overload
    def get_metric(name: Literal["imeasure"]) -> type[IMeasure]: ...
    @overload
    def get_metric(name: Literal["cleme"]) -> type[CLEME]: ...
    @overload
    def get_metric(name: Literal["cleme2"]) -> type[CLEME2]: ...
    @overload
    def get_metric(name: Literal["ptm2"]) -> type[PTM2]: ...
    @overload
    def get_metric(name: Literal["ptm2-m2"]) -> type[PTM2M2]: ...
    @overload
    def get_metric(name: str) -> type[Metric]: ...


def get_metric(name: str) -> type[Metric]:
    """The metric class called ``name`` (``get_metric("gleu")(config).score_corpus(...)``);
    a GECError naming the known ones otherwise. Imports that metric's module only."""
    path = METRIC_CLASSES.get(name)
    if path is None:
        raise OptionError(f"unknown metric {name!r} (known: {', '.join(sorted(METRIC_CLASSES))})")
    return load(path)  # type: ignore[return-value]  # the registry names Metric subclasses


def metric_names() -> list[str]:
    """The names ``get_metric`` knows, sorted."""
    return sorted(METRIC_CLASSES)


def metric_of_signature(signature: str) -> str | None:
    """The registry name of the metric a signature text was made by, or None.

    The rule every metric's signature keeps: its first part (after ``metric=`` in the keyed
    spelling) starts with the metric's registry name, case aside (``cherrant-f0.5``,
    ``m2score``, ``sentm2``, ``CLEME2.0``, ``ptm2-m2``), and no longer registry name fits
    (``ptm2-m2`` is not ``ptm2``). Signatures stored before PT-M2's names agreed with the
    registry (``pt-m2-char``, ``pt-errant``, ``pt-m2``) belong to none."""
    first = signature.split("|", 1)[0].removeprefix("metric=").lower()
    fitting = [name for name in METRIC_CLASSES if first.startswith(name)]
    return max(fitting, key=len) if fitting else None


def get(name: str) -> MetricInfo:
    """The ``MetricInfo`` of the metric called ``name``; an OptionError (a ValueError) naming
    the known ones otherwise."""
    try:
        return METRICS[name]
    except KeyError:
        raise OptionError(f"unknown metric {name!r} (known: {', '.join(METRICS)})") from None


def load(path: str) -> object:
    """The object at ``"module:attribute"`` (imports the module)."""
    module_name, _, attribute = path.partition(":")
    if not attribute:
        raise ValueError(f"expected 'module:attribute', got {path!r}")
    return getattr(importlib.import_module(module_name), attribute)


def meta_metrics() -> list[str]:
    """Names of the metrics ``meta system --compute`` can compute, in registry order."""
    return [name for name, metric in METRICS.items() if metric.meta is not None]


def command_modules(command: str | None = None) -> tuple[str, ...]:
    """The module of ``command``, or every command module in help order when unknown/None."""
    if command in COMMANDS:
        return (COMMANDS[command],)
    return tuple(dict.fromkeys(COMMANDS.values()))
