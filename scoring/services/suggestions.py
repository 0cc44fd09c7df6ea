"""Suggested corrections for post-edit annotation, from either source: a system output
uploaded for a release of the dataset, or the configured LLM (docs/workflow.md, "Post-edit
annotation"). It lives in scoring because system outputs do; the storing, the blind draw and
the LLM run are annotate's (`annotate/suggestions.py`, `annotate/llm_suggestions.py`).

A system's line for a released sentence becomes the suggestion of the dataset sentence the
release froze (the released row's sentence, else the dataset sentence with its id); a
sentence that no release row maps to gets none. A line equal to the source is kept: it
suggests "no error".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction

from annotate.llm_suggestions import request_llm_suggestions, run_llm_suggestions
from annotate.suggestions import SuggestionRun, check_blind_share, store_run
from core.exceptions import NotFound, ServiceError
from core.llm import llm_backend
from core.models import BackgroundJob
from datasets.models import Dataset
from scoring.models import SystemOutput


def system_output_for(dataset: Dataset, name: str) -> SystemOutput:
    """The output called `name` on the newest release of `dataset` that has one."""
    output = (
        SystemOutput.objects.filter(version__dataset=dataset, name=name)
        .select_related("version", "version__dataset")
        .order_by("-version__number")
        .first()
    )
    if output is None:
        known = sorted(
            set(
                SystemOutput.objects.filter(version__dataset=dataset).values_list("name", flat=True)
            )
        )
        raise NotFound(
            f"no system output {name!r} on a release of {dataset.name}; "
            + (f"uploaded: {', '.join(known)}" if known else "upload one on a release first"),
            field="system",
        )
    return output


def suggestion_systems(dataset: Dataset) -> list[str]:
    """The names of the system outputs a project may take its suggestions from."""
    return sorted(
        set(SystemOutput.objects.filter(version__dataset=dataset).values_list("name", flat=True))
    )


def system_texts(output: SystemOutput) -> dict[int, str]:
    """{dataset sentence id: the system's line} over the release's rows."""
    by_external = dict(output.version.dataset.sentences.values_list("external_id", "pk"))
    texts: dict[int, str] = {}
    rows = output.version.sentences.order_by("position").values_list("sentence_id", "external_id")
    for (sentence_id, external_id), line in zip(rows, output.hypotheses, strict=False):
        pk = sentence_id or by_external.get(external_id)
        if pk is not None and str(line).strip():
            texts[pk] = str(line).strip()
    return texts


def suggest_from_system(
    *, dataset: Dataset, name: str, user: Any = None, blind_share: Any = None, seed: Any = 0
) -> SuggestionRun:
    if blind_share is not None:
        blind_share = check_blind_share(blind_share)
    output = system_output_for(dataset, name)
    source = f"system:{output.name}"
    signature = f"{source}|release:{output.version.label}|sha:{output.checksum[:16]}"
    texts = system_texts(output)
    with transaction.atomic():
        return store_run(
            dataset,
            source=source,
            signature=signature,
            texts=texts,
            unsuggested=dataset.sentences.count() - len(texts),
            blind_share=blind_share,
            seed=seed,
            user=user,
        )


@dataclass(frozen=True)
class SuggestionRequest:
    """What a page or the API asked: a finished run (a system) or a queued job (the LLM)."""

    run: SuggestionRun | None = None
    job: BackgroundJob | None = None


def parse_choice(choice: Any) -> tuple[str, str]:
    """("system", NAME) or ("llm", "") from the form's `source` field."""
    text = str(choice or "").strip()
    if text == "llm":
        return "llm", ""
    if text.startswith("system:") and text[len("system:") :].strip():
        return "system", text[len("system:") :].strip()
    raise ServiceError(f"source must be 'system:NAME' or 'llm', got {text[:60]!r}", field="source")


def request_suggestions(
    *, dataset: Dataset, choice: Any, user: Any, blind_share: Any = None, seed: Any = 0
) -> SuggestionRequest:
    """The project page's and the API's action: a system output is applied at once; the LLM
    runs as a background job (its progress on the job page)."""
    if blind_share in ("", None):
        blind_share = None
    kind, name = parse_choice(choice)
    if kind == "system":
        return SuggestionRequest(
            run=suggest_from_system(
                dataset=dataset, name=name, user=user, blind_share=blind_share, seed=seed
            )
        )
    return SuggestionRequest(
        job=request_llm_suggestions(dataset=dataset, user=user, blind_share=blind_share, seed=seed)
    )


def suggest_from_llm_now(
    *, dataset: Dataset, user: Any = None, blind_share: Any = None, seed: Any = 0
) -> SuggestionRun:
    """The LLM run in this process, without a job (the management command)."""
    llm_backend()
    if blind_share is not None:
        blind_share = check_blind_share(blind_share)
    return run_llm_suggestions(dataset_id=dataset.pk, blind_share=blind_share, seed=seed, user=user)
