"""The metrics of the library by name, and the CLI commands by the module that registers them.

A :class:`Metric` names its scorer, its config and its meta-evaluation function by import
path (``"module:attribute"``), never by the object: looking a metric up imports nothing, and
:func:`load` imports only the module asked for. ``python -m gecscore compare`` reads this
module at start-up and must not load the extractor or the aligner (issue #17 times it), so
keep this module free of imports of the library's metric modules.

Who looks here: the CLI (:data:`COMMANDS`: which module registers a command),
``meta system --compute`` (the metrics with a ``meta`` function) and the Django side (the
names, titles and where a scored system's summary keeps each number).
"""

from __future__ import annotations

import importlib
from typing import NamedTuple

# Command -> the module that registers it (one module per metric family), in the order of
# ``python -m gecscore --help``. Only the module of the command being run is imported.
COMMANDS: dict[str, str] = {
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
    "m2score": "gecscore.commands.m2score",
    "imeasure": "gecscore.commands.imeasure",
}


class Metric(NamedTuple):
    name: str  # the registry key
    title: str  # how pages and reports label its headline number
    language: str  # "zh", "en" or "any" (M2 input in any language)
    scorer: str  # "module:function" computing it
    config: str | None  # "module:Class" of its options, when it has a config type
    commands: tuple[str, ...]  # CLI commands that compute it (keys of COMMANDS)
    meta: str | None  # "module:function" for ``meta system --compute``, if offered
    # Where a scored system's summary keeps it: (entry of summary["extra"], number key);
    # None for the numbers that are not under "extra".
    summary: tuple[str, str] | None


def _metrics(*entries: Metric) -> dict[str, Metric]:
    return {entry.name: entry for entry in entries}


# The order is the order of listings (``meta system --compute``'s help: m2, sentm2, gleu,
# imeasure; the platform's metric catalogue).
METRICS: dict[str, Metric] = _metrics(
    Metric(
        "cherrant",
        "ChERRANT F0.5",
        "zh",
        "gecscore.compare:compare_m2",
        None,
        ("compare", "score"),
        None,
        None,
    ),
    Metric(
        "errant",
        "ERRANT F0.5",
        "en",
        "gecscore.english.errant_compare:compare_blocks",
        "gecscore.english.errant_compare:CompareOptions",
        ("errant-compare",),
        None,
        None,
    ),
    Metric(
        "m2",
        "M2 F0.5",
        "en",
        "gecscore.maxmatch:score",
        None,
        ("m2score",),
        "gecscore.meta.compute:m2_scores",
        ("m2", "f05"),
    ),
    Metric(
        "sentm2",
        "SentM2",
        "en",
        "gecscore.maxmatch:score",
        None,
        ("m2score",),
        "gecscore.meta.compute:sentm2_scores",
        ("m2", "sent_f05"),
    ),
    Metric(
        "gleu",
        "GLEU",
        "en",
        "gecscore.english.gleu:corpus_gleu",
        None,
        ("gleu",),
        "gecscore.meta.compute:gleu_scores",
        ("gleu", "score"),
    ),
    Metric(
        "imeasure",
        "I-measure",
        "en",
        "gecscore.english.imeasure:score_corpus",
        "gecscore.english.imeasure:IMeasureConfig",
        ("imeasure",),
        "gecscore.meta.compute:imeasure_scores",
        None,
    ),
    Metric(
        "cleme",
        "CLEME F0.5",
        "any",
        "gecscore.cleme:cleme",
        None,
        ("cleme",),
        None,
        ("cleme", "f05"),
    ),
    Metric(
        "cleme2",
        "CLEME2.0",
        "any",
        "gecscore.cleme.cleme2:cleme2",  # not gecscore.cleme: its submodule cleme2 shadows the name
        None,
        ("cleme2",),
        None,
        ("cleme2", "score"),
    ),
    Metric(
        "ptm2",
        "PT-M2 F0.5",
        "any",
        "gecscore.ptm2:score_ptm2",
        None,
        ("ptm2",),
        None,
        ("ptm2", "f05"),
    ),
    Metric(
        "ptm2-m2",
        "PT-M2 F0.5 (MaxMatch)",
        "en",
        "gecscore.ptm2_m2:score_ptm2_m2",
        None,
        ("ptm2",),
        None,
        None,
    ),
)


# Metric name -> "module:Class" of its gecscore.metric.Metric subclass (the public calling
# convention); every metric gets one.
METRIC_CLASSES: dict[str, str] = {
    "gleu": "gecscore.english.gleu:GLEU",
}


def get_metric(name: str) -> type:
    """The metric class called ``name`` (``get_metric("gleu")(config).score_corpus(...)``);
    a GECError naming the known ones otherwise. Imports that metric's module only."""
    path = METRIC_CLASSES.get(name)
    if path is None:
        from gecscore.errors import GECError

        raise GECError(f"unknown metric {name!r} (known: {', '.join(sorted(METRIC_CLASSES))})")
    return load(path)  # type: ignore[return-value]


def metric_names() -> list[str]:
    """The names ``get_metric`` knows, sorted."""
    return sorted(METRIC_CLASSES)


def get(name: str) -> Metric:
    """The metric called ``name``; a ValueError naming the known ones otherwise."""
    try:
        return METRICS[name]
    except KeyError:
        raise ValueError(f"unknown metric {name!r} (known: {', '.join(METRICS)})") from None


def load(path: str) -> object:
    """The object at ``"module:attribute"`` (imports the module)."""
    module_name, _, attribute = path.partition(":")
    if not attribute:
        raise ValueError(f"expected 'module:attribute', got {path!r}")
    return getattr(importlib.import_module(module_name), attribute)


def scorer(name: str) -> object:
    """The scoring function of metric ``name`` (imports its module only)."""
    return load(get(name).scorer)


def meta_metrics() -> list[str]:
    """Names of the metrics ``meta system --compute`` can compute, in registry order."""
    return [name for name, metric in METRICS.items() if metric.meta is not None]


def command_modules(command: str | None = None) -> tuple[str, ...]:
    """The module of ``command``, or every command module in help order when unknown/None."""
    if command in COMMANDS:
        return (COMMANDS[command],)
    return tuple(dict.fromkeys(COMMANDS.values()))
