"""The metric catalogue of meta-evaluation: which metrics a release's finished scores carry,
and each one's stored number and signature."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from datasets.models import DatasetVersion, Language
from gecscore import registry
from scoring.models import (
    ClosestGoldTask,
    ReferenceSet,
    ReferenceSetScore,
    ScoreStatus,
    SystemOutput,
    SystemScore,
)
from scoring.reference_set_selectors import system_sets


@dataclass(frozen=True)
class MetricSpec:
    """One metric the platform stores for a scored system.

    ``read`` returns ``(score, signature)`` from a finished SystemScore, or None when that
    score does not carry the metric (an older score, a metric not computed for its
    language, PT-M2 not run yet)."""

    key: str
    label_zh: str
    label_en: str
    read: Callable[[SystemScore], tuple[float, str] | None]

    def label(self, english: bool) -> str:
        return self.label_en if english else self.label_zh


def _extra(score: SystemScore, name: str, value_key: str) -> tuple[float, str] | None:
    entry = (score.summary or {}).get("extra", {}).get(name)
    if not isinstance(entry, dict) or not isinstance(entry.get(value_key), int | float):
        return None
    return float(entry[value_key]), str(entry.get("signature", ""))


def _detection(score: SystemScore) -> tuple[float, str] | None:
    entry = (score.summary or {}).get("detection", {}).get("ds")
    if not isinstance(entry, dict) or not isinstance(entry.get("f05"), int | float):
        return None
    # Detection (span) mode is computed with the same settings as the main score: its
    # signature is the main one with the mode changed (appending a second `mode=` key made
    # "mode=correction|...|mode=ds").
    return float(entry["f05"]), detection_signature(score.signature)


def detection_signature(signature: str) -> str:
    """A stored correction-mode signature with its `mode` set to span detection (`ds`)."""
    parts = signature.split("|")
    moded = [("mode=ds" if part.startswith("mode=") else part) for part in parts]
    return "|".join(moded if moded != parts else [*parts, "mode=ds"])


# Where a scored system's summary keeps the library's metrics (registry names): the entry of
# ``summary["extra"]`` and its number key. The app's storage layout, so it lives here, not in
# the library's registry; the order is the catalogue's.
SUMMARY_EXTRA: dict[str, tuple[str, str]] = {
    "m2": ("m2", "f05"),
    "sentm2": ("m2", "sent_f05"),
    "gleu": ("gleu", "score"),
    "green": ("green", "score"),
    "cleme": ("cleme", "f05"),
    "cleme2": ("cleme2", "score"),
    "ptm2": ("ptm2", "f05"),
    # Reference-free, added on the `gpu` queue when configured (scoring/services/reffree.py).
    "some": ("some", "score"),
    "impara": ("impara", "score"),
    "scribendi": ("scribendi", "score"),
    # The LLM judges, TrueSkill over all systems of a release (scoring/services/judges.py).
    "llm-s": ("llm-s", "score"),
    "llm-e": ("llm-e", "score"),
}


def _registered(name: str) -> MetricSpec:
    """A metric of the library's registry, stored under ``summary["extra"]``."""
    title = registry.METRICS[name].title
    entry, value_key = SUMMARY_EXTRA[name]
    return MetricSpec(name, title, title, lambda s: _extra(s, entry, value_key))


METRICS: tuple[MetricSpec, ...] = (
    MetricSpec("f05", "ChERRANT F0.5 (char)", "ERRANT F0.5", lambda s: (s.f05, s.signature)),
    MetricSpec("p", "ChERRANT P (char)", "ERRANT P", lambda s: (s.p, s.signature)),
    MetricSpec("r", "ChERRANT R (char)", "ERRANT R", lambda s: (s.r, s.signature)),
    MetricSpec("detection", "detection (span) F0.5", "detection (span) F0.5", _detection),
    *(_registered(name) for name in SUMMARY_EXTRA),
)
_KNOWN_EXTRA = {entry for entry, _ in SUMMARY_EXTRA.values()}
EXTRA_PREFIX = "extra."


def _other_extra_metrics(score: SystemScore) -> dict[str, tuple[float, str]]:
    """Later metrics stored under ``summary["extra"]`` (weighted ones when configured):
    any entry with a signature and an ``f05`` or ``score`` number is offered as
    ``extra.<name>``."""
    found: dict[str, tuple[float, str]] = {}
    for name, entry in ((score.summary or {}).get("extra") or {}).items():
        if name in _KNOWN_EXTRA or not isinstance(entry, dict) or "signature" not in entry:
            continue
        for value_key in ("f05", "score"):
            if isinstance(entry.get(value_key), int | float):
                found[f"{EXTRA_PREFIX}{name}"] = (float(entry[value_key]), str(entry["signature"]))
                break
    return found


def _values_of(score: SystemScore) -> dict[str, tuple[float, str]]:
    values = {spec.key: spec.read(score) for spec in METRICS}
    out = {key: value for key, value in values.items() if value is not None}
    out.update(_other_extra_metrics(score))
    return out


# A metric under the closest-gold or pooled references is the metric's key with the set:
# ``f05@closest-gold``, ``cleme@pooled`` (docs/closest-gold.md).
SET_SEPARATOR = "@"


def _set_scores(system: SystemOutput) -> list[ReferenceSetScore]:
    """The system's current, complete closest-gold and pooled scores (stale or partial ones
    never enter a correlation)."""
    states = system_sets(system).sets
    return [
        state.score
        for name, state in states.items()
        if name != ReferenceSet.GOLDEN and isinstance(state.score, ReferenceSetScore)
    ]


def _metric_values(score: SystemScore) -> dict[str, tuple[float, str]]:
    out = _values_of(score)
    if not _has_closest_golds(score.system.version_id):
        return out
    for set_score in _set_scores(score.system):
        # Read through the same specs as a golden score: the layout is the same.
        proxy = SystemScore(
            system=score.system,
            p=set_score.p,
            r=set_score.r,
            f05=set_score.f05,
            signature=set_score.signature,
            summary=set_score.summary,
        )
        for key, value in _values_of(proxy).items():
            out[f"{key}{SET_SEPARATOR}{set_score.reference_set}"] = value
    return out


def _has_closest_golds(version_id: int) -> bool:
    return ClosestGoldTask.objects.filter(version_id=version_id).exists()


def metric_label(key: str, *, english: bool) -> str:
    base, _, reference_set = key.partition(SET_SEPARATOR)
    if reference_set:
        return f"{metric_label(base, english=english)} [{reference_set}]"
    for spec in METRICS:
        if spec.key == key:
            return spec.label(english)
    return key.removeprefix(EXTRA_PREFIX)


@dataclass(frozen=True)
class MetricChoice:
    key: str
    label: str
    systems: int  # how many scored systems of the release carry it


def _scored(version: DatasetVersion) -> list[SystemScore]:
    return list(
        SystemScore.objects.filter(system__version=version, status=ScoreStatus.DONE)
        .select_related("system")
        .order_by("system__name")
    )


def available_metrics(version: DatasetVersion) -> list[MetricChoice]:
    """Every metric some finished score of the release carries, in catalogue order."""
    english = version.dataset.language == Language.ENGLISH
    counts: dict[str, int] = {}
    for score in _scored(version):
        for key in _metric_values(score):
            counts[key] = counts.get(key, 0) + 1
    golden = [spec.key for spec in METRICS] + sorted(
        k for k in counts if k.startswith(EXTRA_PREFIX)
    )
    order = golden + [
        f"{key}{SET_SEPARATOR}{name}"
        for name in (ReferenceSet.CLOSEST_GOLD, ReferenceSet.POOLED)
        for key in golden
    ]
    return [
        MetricChoice(key, metric_label(key, english=english), counts[key])
        for key in order
        if key in counts
    ]


def stored_metric_scores(
    version: DatasetVersion, keys: list[str]
) -> tuple[dict[str, dict[str, float]], dict[str, list[str]]]:
    """``({metric: {system: score}}, {metric: [distinct signatures]})`` from the release's
    finished scores (a system that lacks a metric is absent from that metric's dict)."""
    scores: dict[str, dict[str, float]] = {key: {} for key in keys}
    signatures: dict[str, set[str]] = {key: set() for key in keys}
    for score in _scored(version):
        values = _metric_values(score)
        for key in keys:
            if key in values:
                value, signature = values[key]
                scores[key][score.system.name] = value
                signatures[key].add(signature)
    return scores, {key: sorted(found) for key, found in signatures.items()}
