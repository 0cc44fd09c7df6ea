"""Annotator pages (dashboard, annotation), the guideline, and the admin's reassignment of
an assignment. Thin: parse, call a service or selector, render. Pages that combine
annotation with review (self-study, the admin's progress and assignment page) are in
review/views.py."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotate import selectors, services
from annotate.models import AssignmentStatus
from annotate.signals import extra_dashboard_context
from annotate.suggestions import opening_for
from core.markdown import render_markdown
from core.permissions import role_required
from core.roles import Role
from core.selectors import recent_notifications
from core.web import call_service, lookup, parse_id
from datasets.textrules import max_sentence_chars


@role_required(Role.ANNOTATOR)
def dashboard(request: HttpRequest) -> HttpResponse:
    user = request.user
    assignments = selectors.assignments_for(user)
    return render(
        request,
        "annotate/dashboard.html",
        {
            "progress": selectors.progress_for(user),
            "todo": selectors.todo_for(user)[:50],
            "done": assignments.filter(status=AssignmentStatus.SUBMITTED).order_by("-submitted_at")[
                :50
            ],
            "notifications": recent_notifications(user),
            **extra_dashboard_context(user),
        },
    )


@role_required(Role.ANNOTATOR)
def next_sentence(request: HttpRequest) -> HttpResponse:
    skip = request.GET.get("skip", "")
    assignment = services.next_assignment(user=request.user, skip_id=parse_id(skip))
    if assignment is None:
        messages.info(request, "Nothing left to annotate. Thank you!")
        return redirect("annotate:dashboard")
    return redirect("annotate:assignment", assignment_id=assignment.pk)


@role_required(Role.ANNOTATOR)
def assignment_page(request: HttpRequest, assignment_id: int) -> HttpResponse:
    assignment = lookup(selectors.get_assignment_for, request.user, assignment_id)
    if request.method == "POST":
        result = call_service(
            request,
            services.submit_correction,
            assignment_id=assignment.pk,
            user=request.user,
            texts=request.POST.getlist("text"),
            tag=request.POST.get("tag", ""),
            time_spent_seconds=request.POST.get("time_spent_seconds", 0),
        )
        if result is not None:
            for note in result.notes:
                messages.info(request, note)
            messages.success(
                request,
                f"Saved sentence {assignment.sentence.external_id} of {assignment.sentence.dataset}.",
            )
            return redirect("annotate:next")
        assignment.refresh_from_db()
    else:
        services.open_assignment(assignment=assignment, user=request.user)
    sentence = assignment.sentence
    guideline = selectors.guideline_for("annotation", sentence.dataset.language)
    # The one place that decides what the box opens with (the annotator's API reads it too).
    opening = opening_for(assignment)
    return render(
        request,
        "annotate/annotate.html",
        {
            "assignment": assignment,
            "sentence": sentence,
            "submission": selectors.first_submission(assignment),
            "progress": selectors.progress_for(request.user),
            "guideline_html": render_markdown(guideline.body),
            "texts": request.POST.getlist("text") if request.method == "POST" else [],
            # A fresh annotation starts from the source, or in post-edit mode from the
            # suggestion.
            "initial_texts": [opening.text],
            "post_edit": opening.post_edit,
            "page_config": {
                "assignmentId": assignment.pk,
                "source": sentence.text,
                "maxChars": max_sentence_chars(),
                "language": sentence.dataset.language,
                "maxBoxes": services.MAX_CORRECTIONS,
                "open": assignment.status == AssignmentStatus.OPEN,
                "nextUrl": reverse("annotate:next") + f"?skip={assignment.pk}",
                "suggestion": opening.text if opening.post_edit else None,
            },
        },
    )


def _guideline_asked(request: HttpRequest) -> tuple[str, str]:
    source = request.POST if request.method == "POST" else request.GET
    return source.get("task") or "annotation", source.get("language") or "zh"


@login_required
def guidelines(request: HttpRequest) -> HttpResponse:
    task, language = _guideline_asked(request)
    guideline = lookup(selectors.guideline_for, task, language)
    return render(
        request,
        "annotate/guidelines.html",
        {
            "guideline": guideline,
            "guideline_html": render_markdown(guideline.body),
            "all_guidelines": selectors.all_guidelines(),
        },
    )


@role_required(Role.ADMIN)
def guidelines_edit(request: HttpRequest) -> HttpResponse:
    task, language = _guideline_asked(request)
    guideline = lookup(selectors.guideline_for, task, language)
    if request.method == "POST":
        saved = call_service(
            request,
            services.update_guideline,
            user=request.user,
            title=request.POST.get("title", ""),
            body=request.POST.get("body", ""),
            version=request.POST.get("version", ""),
            task=task,
            language=language,
        )
        if saved is not None:
            messages.success(
                request,
                f"Guideline saved: {saved.title} ({saved.get_task_display()}, {saved.language}),"
                f" version {saved.version}.",
            )
            return redirect(
                f"{reverse('annotate:guidelines')}?task={saved.task}&language={saved.language}"
            )
        guideline.title = request.POST.get("title", guideline.title)
        guideline.body = request.POST.get("body", guideline.body)
    return render(request, "annotate/guidelines_edit.html", {"guideline": guideline})


@role_required(Role.ADMIN)
@require_POST
def reassign_view(request: HttpRequest, assignment_id: int) -> HttpResponse:
    replacement = call_service(
        request, services.reassign_assignment, assignment_id=assignment_id, by=request.user
    )
    if replacement is not None:
        messages.success(
            request,
            f"Sentence {replacement.sentence.external_id} reassigned to {replacement.annotator}.",
        )
    return redirect("review:admin-dashboard")
