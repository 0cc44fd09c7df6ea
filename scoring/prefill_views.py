"""The anchoring report as a page section: the report, a chart of both arms, and the job
refreshing the annotator samples when there were too many to score inline. The project page
(review, through `review.signals.project_context`) and the release page (publishing) include
``scoring/_anchoring.html`` with this context."""

from __future__ import annotations

from typing import Any

from core.charts import ChartBox, grouped_bar_chart
from datasets.models import AnnotationMode, Dataset, DatasetVersion
from scoring import services
from scoring.prefill import ARMS, AnchoringReport, ArmFigures
from scoring.prefill_rows import prefill_report

CHART_FIGURES = (
    ("f05", "agreement F0.5"),
    ("suggestion_f05", "suggestion F0.5"),
    ("unchanged_share", "unchanged"),
)


def _value(figures: ArmFigures, name: str) -> float:
    estimate = getattr(figures, name)
    return estimate.value if estimate is not None else 0.0


def arms_chart(report: AnchoringReport) -> str:
    """Prefilled against blind, overall: the figures on a 0-1 scale (the intervals are in
    the table beside it)."""
    return grouped_bar_chart(
        title="Prefilled against blind items",
        categories=[label for _, label in CHART_FIGURES],
        series=[
            (arm, [_value(report.overall[arm], name) for name, _ in CHART_FIGURES]) for arm in ARMS
        ],
        y_label="share / F0.5",
        percent=False,
        y_max=1.0,
        box=ChartBox(width=520, height=260),
    )


def anchoring_context(
    dataset: Dataset, *, user: Any, version: DatasetVersion | None = None
) -> dict[str, Any]:
    """``anchoring`` (the report; None for a rewrite project that never had a post-edit
    item), ``anchoring_chart`` and ``anchoring_job`` (a running re-scoring, if any)."""
    job = services.refresh_annotator_scores(dataset_id=dataset.pk, user=user)
    report = prefill_report(dataset, version=version)
    if not report.has_items and dataset.annotation_mode != AnnotationMode.POST_EDIT:
        return {"anchoring": None}
    return {
        "anchoring": report,
        "anchoring_chart": arms_chart(report) if report.has_items else "",
        "anchoring_job": job,
    }
