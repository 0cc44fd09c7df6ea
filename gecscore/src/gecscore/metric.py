"""The one calling convention of every metric in the library.

Every metric is a class with a ``Config`` dataclass of its options, built once and called
many times::

    from gecscore import get_metric

    gleu = get_metric("gleu")(get_metric("gleu").Config(iterations=500))
    result = gleu.score_corpus(sources, hypotheses, references)
    result.score, result.signature, result.sentences[0].score

* ``sources`` and ``hypotheses`` are lists of sentences (one string each, in the metric's
  own tokenisation: space-separated tokens for English, plain text for Chinese);
* ``references`` are *reference sets*, the way sacrebleu and gec-metrics take them:
  ``references[k][i]`` is reference ``k`` of sentence ``i``. Metrics that score edits also
  accept ``Gold`` (annotated M2 blocks, from :func:`gecscore.read_m2`) in its place, since
  annotated edits are not always what an extractor would find in the corrected text.
  Reference-free metrics take ``references=()``.
* metrics that compare edits (cherrant, errant, cleme, cleme2, ptm2) also take the
  ``hypotheses`` as ``Gold``: a system's M2 file (its edits as one annotator), as ChERRANT's
  ``compare_m2_for_evaluation.py`` and CLEME read them. ``sources`` stay the source sentences
  (``Gold.sources`` gives them).
* the answer is always a :class:`Result`: the headline ``score``; P/R/F and the summed
  counts where the metric has them; per-sentence scores where it has them; the
  ``signature`` that says how the number was made.

A metric with heavy dependencies (a model, spaCy) loads them when it is built, not when
its module is imported, and names the missing setting in a :class:`~gecscore.errors.GECError`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from gecscore.counts import Counts
from gecscore.errors import InputError, OptionError
from gecscore.result_data import result_data

if TYPE_CHECKING:
    from gecscore.m2 import M2Block

__all__ = [
    "Gold",
    "Metric",
    "MetricConfig",
    "Hypotheses",
    "References",
    "Result",
    "SentenceScore",
    "CountedScore",
    "check_corpus",
    "counted_result",
    "counts_sentence",
]


@dataclass(frozen=True)
class MetricConfig:
    """Base of every metric's ``Config`` (a frozen dataclass of its options, all defaulted
    to the reference tool's defaults)."""


@dataclass(frozen=True)
class SentenceScore:
    """One sentence's score; ``counts`` are (TP, FP, FN) for metrics that count edits."""

    score: float
    counts: tuple[float, float, float] | None = None


@dataclass(frozen=True)
class Result:
    """What every metric's ``score_corpus`` returns (the contract: gecscore/README.md, "What a
    Result holds"): every number at full precision, whatever the reference tool prints;
    ``beta`` and ``f`` set exactly when the metric computes an F-beta (``f`` is ``score`` for
    the edit metrics, the correction F for I-measure), None otherwise."""

    metric: str  # the registry name
    score: float  # the headline number (F-beta for edit metrics, the metric's score otherwise)
    signature: str
    precision: float | None = None
    recall: float | None = None
    beta: float | None = None
    f: float | None = None  # F-beta at ``beta``, for metrics that compute one
    counts: tuple[float, float, float] | None = None  # summed (TP, FP, FN)
    sentences: tuple[SentenceScore, ...] = ()
    # Metric-specific numbers (GLEU's standard deviation, I-measure's baseline, ...).
    details: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_fields(
        cls,
        *,
        sentences: Iterable[tuple[float, tuple[float, float, float] | None]] = (),
        details: Mapping[str, Any] | None = None,
        **fields: Any,
    ) -> Result:
        """The Result of :func:`gecscore.result_data.result_data`'s keyword arguments
        (``sentences`` as (score, counts) pairs): the API and the commands' ``--json`` are
        built from the same arguments."""
        return cls(
            sentences=tuple(SentenceScore(score, counts) for score, counts in sentences),
            details={} if details is None else details,
            **fields,
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (lists, string keys, None for a NaN): what the commands print
        for ``--json``, less their ``system`` key."""
        return result_data(
            metric=self.metric,
            score=self.score,
            signature=self.signature,
            precision=self.precision,
            recall=self.recall,
            beta=self.beta,
            f=self.f,
            counts=self.counts,
            sentences=((s.score, s.counts) for s in self.sentences),
            details=self.details,
        )


class CountedScore(Protocol):
    """What an edit metric's own result has (a compare, M2, CLEME or PT-M2 result)."""

    @property
    def tp(self) -> float: ...
    @property
    def fp(self) -> float: ...
    @property
    def fn(self) -> float: ...
    @property
    def p(self) -> float: ...
    @property
    def r(self) -> float: ...
    @property
    def f(self) -> float: ...
    @property
    def signature(self) -> str: ...


def counted_result(
    metric: str,
    scored: CountedScore,
    *,
    beta: float,
    sentences: Iterable[SentenceScore] = (),
    details: Mapping[str, Any] | None = None,
) -> Result:
    """The :class:`Result` of a metric that counts edits: F-beta as the score, P/R and the
    summed (TP, FP, FN) from its own result (one builder for every such metric)."""
    return Result(
        metric=metric,
        score=scored.f,
        signature=scored.signature,
        precision=scored.p,
        recall=scored.r,
        beta=beta,
        f=scored.f,
        counts=(scored.tp, scored.fp, scored.fn),
        sentences=tuple(sentences),
        details={} if details is None else details,
    )


def counts_sentence(tp: float, fp: float, fn: float, beta: float) -> SentenceScore:
    """A sentence scored by its counts alone: their F-beta (ChERRANT's and ERRANT's F)."""
    return SentenceScore(Counts(tp, fp, fn).f_score(beta), (tp, fp, fn))


class Gold(tuple):  # type: ignore[type-arg]
    """Annotated references: M2 blocks (one per sentence), for metrics that score edits.

    ``Gold(read_m2("ref.m2"))``; passed as ``references`` it keeps the annotators' edits.
    The blocks are the tuple itself (``gold[i]``, ``tuple(gold)``).
    """

    def __new__(cls, blocks: Sequence[M2Block]) -> Gold:
        return super().__new__(cls, blocks)

    @property
    def sources(self) -> list[str]:
        return [block.source for block in self]


References = Sequence[Sequence[str]] | Gold
Hypotheses = Sequence[str] | Gold


def check_corpus(
    sources: Sequence[str],
    hypotheses: Hypotheses,
    references: References = (),
    *,
    needs_references: bool = True,
    metric: str | None = None,
) -> None:
    """A :class:`GECError` when the lists do not line up (counts named in the message).

    ``metric`` (a display name) is given by metrics that score text only: a ``Gold`` passed
    to them is then an error that says so."""
    if isinstance(sources, str) or isinstance(hypotheses, str):
        raise InputError("sources and hypotheses are lists of sentences, not one string")
    if metric is not None and (isinstance(hypotheses, Gold) or isinstance(references, Gold)):
        raise InputError(f"{metric} scores corrected text, not M2 edits (Gold)")
    if len(hypotheses) != len(sources):
        noun = "gold M2 blocks of the hypothesis" if isinstance(hypotheses, Gold) else "hypotheses"
        raise InputError(f"{len(hypotheses)} {noun} for {len(sources)} sources")
    if isinstance(references, Gold):
        if len(references) != len(sources):
            raise InputError(f"{len(references)} gold M2 blocks for {len(sources)} sources")
        return
    if needs_references and not references:
        raise InputError("this metric needs at least one reference set")
    for k, reference_set in enumerate(references):
        if isinstance(reference_set, str):
            raise InputError(
                "references are reference sets: references[k][i] is reference k of "
                "sentence i (wrap a single reference list as [refs])"
            )
        if len(reference_set) != len(sources):
            raise InputError(
                f"reference set {k} has {len(reference_set)} sentences for {len(sources)} sources"
            )


class Metric(ABC):
    """Base of every metric: ``Metric(config).score_corpus(sources, hypotheses, references)``."""

    name: ClassVar[str]  # the registry key
    Config: ClassVar[type[MetricConfig]] = MetricConfig
    needs_references: ClassVar[bool] = True

    def __init__(self, config: MetricConfig | None = None) -> None:
        if config is None:
            config = self.Config()
        elif not isinstance(config, self.Config):
            raise OptionError(
                f"{type(self).__name__} takes a {self.Config.__qualname__}, "
                f"got {type(config).__name__}"
            )
        self.config = config

    @abstractmethod
    def score_corpus(
        self,
        sources: Sequence[str],
        hypotheses: Hypotheses,
        references: References = (),
    ) -> Result:
        """The corpus score, with per-sentence scores where the metric has them."""

    def score_sentence(
        self, source: str, hypothesis: str, references: Sequence[str] = ()
    ) -> Result:
        """One sentence scored as a corpus of one (``references``: its references)."""
        return self.score_corpus([source], [hypothesis], [[ref] for ref in references])

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config!r})"
