"""The edit-weight provider interface shared by PT-M2, PT-ERRANT and CLEME2.0-sim.

A weight answers one question: how much does applying ONE edit (or one chunk) to the
source move the source towards a given reference?  Metrics build the requests (they know
what an edit is and how to apply it); providers only see plain strings, so the same
provider serves char-level Chinese edits, ERRANT edits and CLEME chunks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from gecscore.signature import WEIGHTS, Signature

__all__ = [
    "EditWeightProvider",
    "ProgressCallback",
    "SelfWeights",
    "WeightRequest",
]

# (done, total) in provider-defined units; a Celery task turns it into a progress bar.
ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True)
class WeightRequest:
    """Weight of the edit that turns `source` into `edited`, measured against `reference`."""

    source: str
    edited: str
    reference: str


@runtime_checkable
class EditWeightProvider(Protocol):
    """Anything that turns weight requests into non-negative floats (one per request)."""

    @property
    def signature(self) -> str:
        """Names everything the weights depend on (model, layer, rescaling, IDF)."""
        ...

    def weights(
        self, requests: Sequence[WeightRequest], *, progress: ProgressCallback | None = None
    ) -> list[float]: ...


class SelfWeights:
    """Every edit weighs 1: weighted metrics then reduce exactly to their unweighted form."""

    @property
    def signature(self) -> str:
        return Signature("self", None, style=WEIGHTS).text

    def weights(
        self, requests: Sequence[WeightRequest], *, progress: ProgressCallback | None = None
    ) -> list[float]:
        if progress is not None:
            progress(len(requests), len(requests))
        return [1.0] * len(requests)
