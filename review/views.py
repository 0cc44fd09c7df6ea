"""Reviewer pages (queue, review of one sentence) and complaint threads. Thin views."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from annotate.views import call_service, lookup
from core.permissions import role_required
from core.roles import Role
from datasets.extraction import MAX_DIFF_CHARS
from review import selectors, services
from review.models import ComplaintStatus, ReviewStatus


@role_required(Role.REVIEWER)
def queue(request: HttpRequest) -> HttpResponse:
    mine = selectors.review_tasks_for(request.user).filter(reviewer_id=request.user.pk)
    return render(request, "review/queue.html", {
        "open_tasks": selectors.review_queue_for(request.user),
        "waiting": mine.filter(status=ReviewStatus.WAITING).count(),
        "done_tasks": mine.filter(status=ReviewStatus.DONE).order_by("-submitted_at")[:50],
        "complaints": selectors.complaints_for(request.user).filter(status=ComplaintStatus.OPEN),
        "notifications": request.user.notifications.all()[:20],
    })


def _review_post(request: HttpRequest, candidates: list[selectors.Candidate]) -> dict[str, object]:
    """Read the review form: per correction candidate `verdict-<pos>` and `edit-<pos>`."""
    verdicts = []
    for candidate in candidates:
        if not candidate.is_correction:
            continue
        choice = request.POST.get(f"verdict-{candidate.position}")
        if choice not in ("correct", "wrong"):
            continue  # the service names the candidate without a verdict
        verdicts.append({
            "position": candidate.position, "correct": choice == "correct",
            "text": request.POST.get(f"edit-{candidate.position}", candidate.text),
        })
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
    candidates = (
        selectors.merged_candidates(task) if task.status != ReviewStatus.WAITING else []
    )
    posted: dict[str, object] = {}
    if request.method == "POST":
        posted = _review_post(request, candidates)
        outcome = call_service(request, services.submit_review, task_id=task.pk, user=request.user, **posted)
        if outcome is not None:
            for note in outcome.notes:
                messages.info(request, note)
            messages.success(
                request, f"Review saved: {len(outcome.references)} golden reference(s), "
                f"{len(outcome.study_items)} study item(s)."
            )
            nxt = selectors.review_queue_for(request.user).first()
            return redirect("review:task", task_id=nxt.pk) if nxt else redirect("review:queue")
        task.refresh_from_db()
    return render(request, "review/task.html", {
        "task": task,
        "sentence": task.sentence,
        "candidates": candidates,
        "chunk_grid": selectors.chunk_grid_for(task.sentence.text, candidates),
        "tag_candidates": [c for c in candidates if not c.is_correction],
        "references": selectors.references_with_edits(task.sentence) if task.status == ReviewStatus.DONE else [],
        "verdicts": task.verdicts.all(),
        "posted": posted,
        "page_config": {"source": task.sentence.text, "maxChars": MAX_DIFF_CHARS},
    })


@login_required
def complaints(request: HttpRequest) -> HttpResponse:
    return render(request, "review/complaints.html", {
        "complaints": selectors.complaints_for(request.user)[:200],
    })


@role_required(Role.ANNOTATOR)
@require_POST
def complaint_new(request: HttpRequest, item_id: int) -> HttpResponse:
    complaint = call_service(
        request, services.file_complaint, item_id=item_id, user=request.user,
        text=request.POST.get("text", ""), reference_id=request.POST.get("reference") or None,
    )
    if complaint is None:
        return redirect("annotate:study", item_id=item_id)
    messages.success(request, "Complaint filed; the reviewer has been notified.")
    return redirect("review:complaint", complaint_id=complaint.pk)


@login_required
def complaint_page(request: HttpRequest, complaint_id: int) -> HttpResponse:
    complaint = lookup(selectors.get_complaint_for, request.user, complaint_id)
    if request.method == "POST":
        action = request.POST.get("action", "message")
        if action == "message":
            if call_service(request, services.post_complaint_message, complaint_id=complaint.pk,
                            user=request.user, text=request.POST.get("text", "")):
                messages.success(request, "Message posted.")
        elif action in ("accept", "reject"):
            resolved = call_service(
                request, services.resolve_complaint, complaint_id=complaint.pk, user=request.user,
                accept=action == "accept", note=request.POST.get("note", ""),
                references=[t for t in request.POST.getlist("reference_text") if t.strip()],
                judgement=request.POST.get("judgement") or None,
            )
            if resolved is not None:
                messages.success(request, f"Complaint {resolved.status}.")
        return redirect("review:complaint", complaint_id=complaint.pk)
    sentence = complaint.study_item.task.sentence
    history = sentence.golden_references.order_by("-revision", "position")
    return render(request, "review/complaint.html", {
        "complaint": complaint,
        "sentence": sentence,
        "references": selectors.references_with_edits(sentence),
        "history": history,
        "thread": complaint.messages.select_related("author"),
        "can_resolve": selectors.can_resolve(request.user, complaint),
        "page_config": {"source": sentence.text, "maxChars": MAX_DIFF_CHARS},
    })
