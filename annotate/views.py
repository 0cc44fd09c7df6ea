"""Annotator pages (dashboard, annotation, self-study), the guideline, and the admin's
progress / assignment page. Thin: parse, call a service or selector, render."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotate import selectors, services
from annotate.models import AssignmentStatus
from core.exceptions import NotFound, ServiceError
from core.permissions import role_required
from core.roles import Role
from datasets.extraction import MAX_DIFF_CHARS
from datasets.models import Dataset
from review import selectors as review_selectors
from review import services as review_services

T = TypeVar("T")
# An open assignment untouched for this long shows up as stale on the admin page.
STALE_HOURS = int(getattr(settings, "GEC_STALE_ASSIGNMENT_HOURS", 48))


def call_service(request: HttpRequest, fn: Callable[..., T], **kwargs: Any) -> T | None:
    """Run a service; NotFound becomes a 404, other service errors a message on the page."""
    try:
        return fn(**kwargs)
    except NotFound as error:
        raise Http404(error.message) from None
    except ServiceError as error:
        messages.error(request, error.message)
        return None


def lookup(fn: Callable[..., T], *args: Any) -> T:
    try:
        return fn(*args)
    except NotFound as error:
        raise Http404(error.message) from None


@role_required(Role.ANNOTATOR)
def dashboard(request: HttpRequest) -> HttpResponse:
    user = request.user
    assignments = selectors.assignments_for(user)
    return render(request, "annotate/dashboard.html", {
        "progress": selectors.progress_for(user),
        "todo": assignments.filter(status=AssignmentStatus.OPEN).order_by("sentence__dataset", "sentence__position")[:50],
        "done": assignments.filter(status=AssignmentStatus.SUBMITTED).order_by("-submitted_at")[:50],
        "study_items": review_selectors.study_items_for(user)[:50],
        "complaints": review_selectors.complaints_for(user).filter(author_id=user.pk)[:50],
        "notifications": user.notifications.all()[:20],
    })


@role_required(Role.ANNOTATOR)
def next_sentence(request: HttpRequest) -> HttpResponse:
    skip = request.GET.get("skip", "")
    assignment = services.next_assignment(user=request.user, skip_id=int(skip) if skip.isdigit() else None)
    if assignment is None:
        messages.info(request, "Nothing left to annotate. Thank you!")
        return redirect("annotate:dashboard")
    return redirect("annotate:assignment", assignment_id=assignment.pk)


@role_required(Role.ANNOTATOR)
def assignment_page(request: HttpRequest, assignment_id: int) -> HttpResponse:
    assignment = lookup(selectors.get_assignment_for, request.user, assignment_id)
    if request.method == "POST":
        result = call_service(
            request, services.submit_correction,
            assignment_id=assignment.pk, user=request.user,
            texts=request.POST.getlist("text"), tag=request.POST.get("tag", ""),
            time_spent_seconds=request.POST.get("time_spent_seconds", 0),
        )
        if result is not None:
            for note in result.notes:
                messages.info(request, note)
            messages.success(request, f"Saved sentence {assignment.sentence.external_id}.")
            return redirect("annotate:next")
        assignment.refresh_from_db()
    else:
        services.open_assignment(assignment=assignment, user=request.user)
    sentence = assignment.sentence
    guideline = review_selectors.current_guideline()
    return render(request, "annotate/annotate.html", {
        "assignment": assignment,
        "sentence": sentence,
        "submission": selectors.first_submission(assignment),
        "progress": selectors.progress_for(request.user),
        "guideline_html": review_selectors.render_markdown(guideline.body),
        "texts": request.POST.getlist("text") if request.method == "POST" else [],
        "page_config": {
            "assignmentId": assignment.pk, "source": sentence.text, "maxChars": MAX_DIFF_CHARS,
            "maxBoxes": services.MAX_CORRECTIONS, "open": assignment.status == AssignmentStatus.OPEN,
            "nextUrl": reverse("annotate:next") + f"?skip={assignment.pk}",
        },
    })


@role_required(Role.ANNOTATOR)
def study_page(request: HttpRequest, item_id: int) -> HttpResponse:
    item = lookup(review_selectors.get_study_item_for, request.user, item_id)
    if request.method == "POST":
        revision = call_service(
            request, review_services.submit_study_revision,
            item_id=item.pk, user=request.user, texts=request.POST.getlist("text"),
            tag=request.POST.get("tag", ""), time_spent_seconds=request.POST.get("time_spent_seconds", 0),
        )
        if revision is not None:
            messages.success(request, f"Revision {revision.revision} saved.")
            return redirect("annotate:study", item_id=item.pk)
        item.refresh_from_db()
    sentence = item.task.sentence
    original = selectors.first_submission(item.assignment)
    original_rows = []
    if original is not None:
        from datasets.extraction import diff_segments, edits_between

        for correction in original.corrections.all():
            edits = edits_between(sentence.text, correction.text)
            original_rows.append({"text": correction.text, "segments": diff_segments(sentence.text, edits)})
    revisions = item.assignment.submissions.filter(revision__gt=1).prefetch_related("corrections")
    return render(request, "annotate/study.html", {
        "item": item,
        "sentence": sentence,
        "original": original,
        "original_rows": original_rows,
        "revisions": revisions,
        "references": review_selectors.references_with_edits(sentence),
        "verdicts": item.task.verdicts.all(),
        "complaints": item.complaints.all(),
        "page_config": {
            "source": sentence.text, "maxChars": MAX_DIFF_CHARS, "maxBoxes": services.MAX_CORRECTIONS,
            "open": item.status == "open", "draftKey": f"study-{item.pk}",
        },
    })


@login_required
def guidelines(request: HttpRequest) -> HttpResponse:
    guideline = review_selectors.current_guideline()
    return render(request, "annotate/guidelines.html", {
        "guideline": guideline, "guideline_html": review_selectors.render_markdown(guideline.body),
    })


@role_required(Role.ADMIN)
def guidelines_edit(request: HttpRequest) -> HttpResponse:
    guideline = review_selectors.current_guideline()
    if request.method == "POST":
        saved = call_service(
            request, review_services.update_guideline, user=request.user,
            title=request.POST.get("title", ""), body=request.POST.get("body", ""),
            version=request.POST.get("version", ""),
        )
        if saved is not None:
            messages.success(request, f"Guideline saved (version {saved.version}).")
            return redirect("annotate:guidelines")
        guideline.title = request.POST.get("title", guideline.title)
        guideline.body = request.POST.get("body", guideline.body)
    return render(request, "annotate/guidelines_edit.html", {"guideline": guideline})


@role_required(Role.ADMIN)
def admin_dashboard(request: HttpRequest) -> HttpResponse:
    hours = STALE_HOURS
    try:
        hours = max(0, int(request.GET.get("stale_hours", hours)))
    except ValueError:
        messages.error(request, "stale_hours must be a whole number of hours")
    return render(request, "annotate/admin_dashboard.html", {
        "datasets": selectors.dataset_progress(),
        "annotators": selectors.annotator_stats(),
        "stale": selectors.stale_assignments(opened_before=services.stale_cutoff(hours))[:200],
        "stale_reviews": review_selectors.stale_review_tasks(opened_before=services.stale_cutoff(hours))[:200],
        "stale_hours": hours,
        "all_datasets": Dataset.objects.order_by("name"),
    })


@role_required(Role.ADMIN)
@require_POST
def assign_dataset_view(request: HttpRequest) -> HttpResponse:
    try:
        dataset = Dataset.objects.get(pk=int(request.POST.get("dataset", "")))
        seed = int(request.POST.get("seed") or 0)
    except (Dataset.DoesNotExist, ValueError):
        messages.error(request, "choose a dataset and a whole-number seed")
        return redirect("annotate:admin-dashboard")
    summary = call_service(request, services.assign_dataset, dataset=dataset, seed=seed, by=request.user)
    if summary is not None:
        messages.success(
            request, f"Assigned {summary.sentences} sentence(s) of {dataset}: {summary.assignments} "
            f"assignments, {summary.review_tasks} review tasks (seed {summary.seed})."
        )
    return redirect("annotate:admin-dashboard")


@role_required(Role.ADMIN)
@require_POST
def reassign_view(request: HttpRequest, assignment_id: int) -> HttpResponse:
    replacement = call_service(request, services.reassign_assignment, assignment_id=assignment_id, by=request.user)
    if replacement is not None:
        messages.success(request, f"Sentence {replacement.sentence.external_id} reassigned to {replacement.annotator}.")
    return redirect("annotate:admin-dashboard")


@role_required(Role.ADMIN)
@require_POST
def reassign_review_view(request: HttpRequest, task_id: int) -> HttpResponse:
    task = call_service(request, review_services.reassign_review, task_id=task_id, by=request.user)
    if task is not None:
        messages.success(request, f"Review of sentence {task.sentence.external_id} reassigned to {task.reviewer}.")
    return redirect("annotate:admin-dashboard")


@login_required
@require_POST
def notifications_read(request: HttpRequest) -> HttpResponse:
    review_services.mark_notifications_read(user=request.user)
    return redirect("home")
