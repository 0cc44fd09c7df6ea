"""Reviewer pages (queue, review of one sentence), complaint threads, and the pages that
combine annotation with review: an annotator's self-study of a reviewed sentence and the
admin's progress / assignment page. Thin views."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.views.decorators.http import require_POST

from annotate import selectors as annotate_selectors
from annotate import services as annotate_services
from annotate.selectors import guideline_for
from core.exceptions import ServiceError
from core.markdown import render_markdown
from core.params import MAX_INT32, bounded_int
from core.permissions import role_required
from core.roles import Role
from core.selectors import recent_notifications
from core.web import call_service, lookup, parse_id
from datasets.extraction import diff_segments, edits_between
from datasets.models import Dataset, ReferenceKind, ReferenceOrigin
from datasets.services.projects import MAX_STALE_AFTER_HOURS
from datasets.textrules import max_sentence_chars
from review import amendments, selectors, services, verdicts
from review.models import ComplaintStatus, ReviewStatus, ReviewTask
from review.workflow import assign_dataset

# ?stale_hours= on the progress page: at most the longest project deadline (a year).
MAX_STALE_HOURS = MAX_STALE_AFTER_HOURS
# Assignment errors about these are fixed on the dataset's project page.
PROJECT_FIELDS = {"annotators", "reviewers", "annotators_per_sentence"}


@role_required(Role.REVIEWER)
def queue(request: HttpRequest) -> HttpResponse:
    mine = selectors.review_tasks_for(request.user).filter(reviewer_id=request.user.pk)
    open_tasks = list(selectors.review_queue_for(request.user))
    done_count = mine.filter(status=ReviewStatus.DONE).count()
    return render(
        request,
        "review/queue.html",
        {
            "open_tasks": open_tasks,
            "done_count": done_count,
            # The same "m" as the "n of m" on the review page: ready plus reviewed.
            "queue_total": done_count + len(open_tasks),
            "waiting": mine.filter(status=ReviewStatus.WAITING).count(),
            "done_tasks": mine.filter(status=ReviewStatus.DONE).order_by("-submitted_at")[:50],
            "complaints": selectors.complaints_for(request.user).filter(
                status=ComplaintStatus.OPEN
            ),
            "notifications": recent_notifications(request.user),
        },
    )


def _review_post(request: HttpRequest, candidates: list[selectors.Candidate]) -> dict[str, object]:
    """Read the review form: per correction candidate `verdict-<pos>` and `edit-<pos>`."""
    verdicts = []
    for candidate in candidates:
        if not candidate.is_correction:
            continue
        choice = request.POST.get(f"verdict-{candidate.position}")
        if choice not in ("correct", "wrong"):
            continue  # the service names the candidate without a verdict
        verdicts.append(
            {
                "position": candidate.position,
                "correct": choice == "correct",
                "text": request.POST.get(f"edit-{candidate.position}", candidate.text),
            }
        )
    return {
        "verdicts": verdicts,
        "added": [t for t in request.POST.getlist("added") if t.strip()],
        "judgement": request.POST.get("judgement", ""),
        "version": request.POST.get("version", ""),
        "time_spent_seconds": request.POST.get("time_spent_seconds", 0),
    }


@role_required(Role.REVIEWER, Role.ADMIN)
def task_page(request: HttpRequest, task_id: int) -> HttpResponse:
    task = lookup(selectors.get_review_task_for, request.user, task_id)
    candidates = selectors.merged_candidates(task) if task.status != ReviewStatus.WAITING else []
    posted: dict[str, object] = {}
    may_amend = amendments.may_amend(request.user, task)
    amending = may_amend and request.GET.get("amend") == "1"
    if request.method == "POST" and request.POST.get("action") == "amend":
        posted = _review_post(request, candidates)
        if _amended(request, task, posted):
            return redirect("review:task", task_id=task.pk)
        task.refresh_from_db()
        amending = True
    elif request.method == "POST":
        posted = _review_post(request, candidates)
        _keep_posted(candidates, posted)
        outcome = call_service(
            request, verdicts.submit_review, task_id=task.pk, user=request.user, **posted
        )
        if outcome is not None:
            for note in outcome.notes:
                messages.info(request, note)
            messages.success(
                request,
                f"Review saved: {len(outcome.references)} golden reference(s), "
                f"{len(outcome.study_items)} study item(s).",
            )
            nxt = selectors.review_queue_for(request.user).first()
            return redirect("review:task", task_id=nxt.pk) if nxt else redirect("review:queue")
        task.refresh_from_db()
    suggestion = selectors.suggested_status(candidates)
    added: list[str] = []
    if amending:
        added = _prefill_amendment(task, candidates)
        suggestion = selectors.SuggestedStatus(task.sentence.judgement, "the saved review's status")
    return render(
        request,
        "review/task.html",
        {
            "review_guideline_html": render_markdown(
                guideline_for("review", task.sentence.dataset.language).body
            ),
            "may_amend": may_amend,
            "amending": amending,
            "amendments": task.amendments.select_related("amended_by")[:50],
            "task": task,
            "sentence": task.sentence,
            "candidates": candidates,
            "progress": selectors.queue_progress(request.user, task),
            "suggestion": suggestion,
            # A re-shown form keeps the reviewer's choice; a fresh one starts from the majority.
            "chosen_judgement": posted.get("judgement") or suggestion.judgement,
            "chunk_grid": selectors.chunk_grid_for(
                task.sentence.text, candidates, language=task.sentence.dataset.language
            ),
            "tag_candidates": [c for c in candidates if not c.is_correction],
            "references": selectors.references_with_edits(task.sentence)
            if task.status == ReviewStatus.DONE
            else [],
            "verdicts": task.verdicts.all(),
            "posted": posted,
            "page_config": {
                "source": task.sentence.text,
                "maxChars": max_sentence_chars(),
                "language": task.sentence.dataset.language,
                "added": added,
            },
        },
    )


def _keep_posted(candidates: list[selectors.Candidate], posted: dict[str, object]) -> None:
    """A refused save shows the form again with the reviewer's choices and edits kept and
    every correction still without a verdict marked."""
    given = {v["position"]: v for v in posted["verdicts"]}  # type: ignore[attr-defined]
    for candidate in candidates:
        if not candidate.is_correction:
            continue
        verdict = given.get(candidate.position)
        if verdict is None:
            candidate.missing_verdict = True  # type: ignore[attr-defined]
            continue
        candidate.prior_verdict = "correct" if verdict["correct"] else "wrong"  # type: ignore[attr-defined]
        if verdict["text"] != candidate.text:
            candidate.prior_edit = verdict["text"]  # type: ignore[attr-defined]


def _amended(request: HttpRequest, task: ReviewTask, posted: dict[str, object]) -> bool:
    """Save the amending form; False (with the error as a message) when it was refused."""
    outcome = call_service(
        request,
        amendments.amend_review,
        task_id=task.pk,
        user=request.user,
        reason=request.POST.get("reason", ""),
        **posted,
    )
    if outcome is None:
        return False
    messages.success(
        request,
        f"Review amended: {len(outcome.references)} golden reference(s) in a new "
        "revision; releases already frozen keep the old ones.",
    )
    return True


def _prefill_amendment(task: ReviewTask, candidates: list[selectors.Candidate]) -> list[str]:
    """Start the amending form from the saved review: each correction's verdict and edit
    (set on the candidate for the template), and the added references (returned)."""
    saved = {v.position: v for v in task.verdicts.all()}
    for candidate in candidates:
        verdict = saved.get(candidate.position)
        if verdict is not None and verdict.text == candidate.text:
            candidate.prior_verdict = "correct" if verdict.is_correct else "wrong"  # type: ignore[attr-defined]
            candidate.prior_edit = verdict.edited_text  # type: ignore[attr-defined]
    return [
        r.text
        for r in selectors.current_references(task.sentence_id)
        if r.origin == ReferenceOrigin.ADDED and r.kind == ReferenceKind.CORRECTION
    ]


@login_required
def complaints(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "review/complaints.html",
        {
            "complaints": selectors.complaints_for(request.user)[:200],
        },
    )


@role_required(Role.ANNOTATOR)
@require_POST
def complaint_new(request: HttpRequest, item_id: int) -> HttpResponse:
    complaint = call_service(
        request,
        services.file_complaint,
        item_id=item_id,
        user=request.user,
        text=request.POST.get("text", ""),
        reference_id=request.POST.get("reference") or None,
    )
    if complaint is None:
        return redirect("review:study", item_id=item_id)
    messages.success(request, "Complaint filed; the reviewer has been notified.")
    return redirect("review:complaint", complaint_id=complaint.pk)


@login_required
def complaint_page(request: HttpRequest, complaint_id: int) -> HttpResponse:
    complaint = lookup(selectors.get_complaint_for, request.user, complaint_id)
    if request.method == "POST":
        action = request.POST.get("action", "message")
        if action == "message":
            if call_service(
                request,
                services.post_complaint_message,
                complaint_id=complaint.pk,
                user=request.user,
                text=request.POST.get("text", ""),
            ):
                messages.success(request, "Message posted.")
        elif action in ("accept", "reject"):
            resolved = call_service(
                request,
                services.resolve_complaint,
                complaint_id=complaint.pk,
                user=request.user,
                accept=action == "accept",
                note=request.POST.get("note", ""),
                references=[t for t in request.POST.getlist("reference_text") if t.strip()],
                judgement=request.POST.get("judgement") or None,
            )
            if resolved is not None:
                messages.success(request, f"Complaint {resolved.status}.")
        return redirect("review:complaint", complaint_id=complaint.pk)
    sentence = complaint.study_item.task.sentence
    history = sentence.golden_references.order_by("-revision", "position")
    return render(
        request,
        "review/complaint.html",
        {
            "complaint": complaint,
            "sentence": sentence,
            "references": selectors.references_with_edits(sentence),
            "history": history,
            "thread": complaint.messages.select_related("author"),
            "can_resolve": selectors.can_resolve(request.user, complaint),
            "page_config": {
                "source": sentence.text,
                "maxChars": max_sentence_chars(),
                "language": sentence.dataset.language,
            },
        },
    )


@role_required(Role.ANNOTATOR)
def study_page(request: HttpRequest, item_id: int) -> HttpResponse:
    item = lookup(selectors.get_study_item_for, request.user, item_id)
    if request.method == "POST":
        revision = call_service(
            request,
            services.submit_study_revision,
            item_id=item.pk,
            user=request.user,
            texts=request.POST.getlist("text"),
            tag=request.POST.get("tag", ""),
            time_spent_seconds=request.POST.get("time_spent_seconds", 0),
        )
        if revision is not None:
            messages.success(request, f"Revision {revision.revision} saved.")
            return redirect("review:study", item_id=item.pk)
        item.refresh_from_db()
    sentence = item.task.sentence
    original = annotate_selectors.first_submission(item.assignment)
    # A refused revision is shown again as posted; a fresh page starts from the annotator's
    # own corrections (it used to start from the source), the source after a tag.
    texts = request.POST.getlist("text") if request.method == "POST" else []
    initial_texts = (
        [c.text for c in original.corrections.all()] if original and not original.tag else []
    )
    original_rows = []
    if original is not None:
        for correction in original.corrections.all():
            language = sentence.dataset.language
            edits = edits_between(sentence.text, correction.text, language=language)
            original_rows.append(
                {
                    "text": correction.text,
                    "segments": diff_segments(sentence.text, edits, language=language),
                }
            )
    revisions = item.assignment.submissions.filter(revision__gt=1).prefetch_related("corrections")
    return render(
        request,
        "review/study.html",
        {
            "item": item,
            "sentence": sentence,
            "original": original,
            "original_rows": original_rows,
            "texts": texts,
            "initial_texts": initial_texts,
            "revisions": revisions,
            "references": selectors.references_with_edits(sentence),
            "verdicts": item.task.verdicts.all(),
            "complaints": item.complaints.all(),
            "page_config": {
                "source": sentence.text,
                "maxChars": max_sentence_chars(),
                "maxBoxes": annotate_services.MAX_CORRECTIONS,
                "language": sentence.dataset.language,
                "open": item.status == "open",
                "draftKey": f"study-{item.pk}",
            },
        },
    )


@role_required(Role.ADMIN)
def admin_dashboard(request: HttpRequest) -> HttpResponse:
    # Without ?stale_hours= each dataset's own deadline (set on its project page) applies.
    hours: int | None = None
    raw_hours = request.GET.get("stale_hours", "").strip()
    try:
        hours = bounded_int(raw_hours, field="stale_hours", low=0, high=MAX_STALE_HOURS)
    except ServiceError as exc:
        messages.error(request, exc.message)
    if hours is None:
        stale = annotate_selectors.overdue_assignments(now=timezone.now())
        stale_reviews = selectors.overdue_review_tasks(now=timezone.now())
    else:
        stale = annotate_selectors.stale_assignments(
            opened_before=annotate_services.stale_cutoff(hours)
        )
        stale_reviews = selectors.stale_review_tasks(
            opened_before=annotate_services.stale_cutoff(hours)
        )
    return render(
        request,
        "review/admin_dashboard.html",
        {
            "datasets": annotate_selectors.dataset_progress(),
            "annotators": annotate_selectors.annotator_stats(),
            "stale": stale[:200],
            "stale_reviews": stale_reviews[:200],
            "stale_hours": hours,
            "all_datasets": Dataset.objects.order_by("name"),
        },
    )


@role_required(Role.ADMIN)
@require_POST
def assign_dataset_view(request: HttpRequest) -> HttpResponse:
    dataset = Dataset.objects.filter(pk=parse_id(request.POST.get("dataset", "")) or 0).first()
    try:
        seed = bounded_int(request.POST.get("seed"), field="seed", low=0, high=MAX_INT32, default=0)
    except ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("review:admin-dashboard")
    if dataset is None:
        messages.error(request, "choose a dataset")
        return redirect("review:admin-dashboard")
    back = (
        redirect("review:project", name=dataset.name)
        if request.POST.get("return_to") == "project"
        else redirect("review:admin-dashboard")
    )
    try:
        summary = assign_dataset(dataset=dataset, seed=seed, by=request.user)
    except ServiceError as error:
        if error.field in PROJECT_FIELDS:
            # The fix is on the project page: say where, with a link.
            messages.error(
                request,
                format_html(
                    '{} <a href="{}" data-testid="fix-pools">Set the pools and k of {}</a>.',
                    error.message,
                    reverse("review:project", args=[dataset.name]),
                    dataset.name,
                ),
            )
        else:
            messages.error(request, error.message)
        return back
    messages.success(
        request,
        f"Assigned {summary.sentences} sentence(s) of {dataset}: {summary.assignments} "
        f"assignments, {summary.review_tasks} review tasks (seed {summary.seed}).",
    )
    return back


@role_required(Role.ADMIN)
@require_POST
def reassign_review_view(request: HttpRequest, task_id: int) -> HttpResponse:
    task = call_service(request, services.reassign_review, task_id=task_id, by=request.user)
    if task is not None:
        messages.success(
            request,
            f"Review of sentence {task.sentence.external_id} of {task.sentence.dataset} "
            f"reassigned to {task.reviewer}.",
        )
    return redirect("review:admin-dashboard")
