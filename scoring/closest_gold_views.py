"""Pages of closest-gold tasks (docs/closest-gold.md). Thin: parse, call a service or
selector, render.

Admins create tasks on a release and follow them; reviewers verify items, keyboard first
(static/scoring/closest_gold.js). Annotators and judges who are not reviewers get a 403.
"""

from __future__ import annotations

import time
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from core.exceptions import PermissionDenied
from core.llm import llm_setup
from core.models import BackgroundJob, User
from core.params import MAX_INT32
from core.permissions import role_required
from core.roles import Role, has_role
from core.web import call_service, lookup, parse_id
from datasets.selectors import release_by_id
from scoring import closest_gold_selectors as cg_selectors
from scoring import services
from scoring.models import ClosestGoldItem, VerificationDecision
from scoring.services.closest_gold import MAX_PER_ITEM, can_verify, check_verifier

# Keys of the verification page (static/scoring/closest_gold.js reads them from the page).
SHORTCUTS = (
    ("a", "accept the proposal"),
    ("e", "edit the proposal (Ctrl+Enter saves)"),
    ("o", "the output is already correct"),
    ("r", "reject the proposal and write the correction (Ctrl+Enter saves)"),
    ("Esc", "leave the text box"),
)


def _user(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)
    return user


def _ids(values: list[str]) -> list[int]:
    return [pk for pk in (parse_id(v) for v in values) if pk is not None]


@role_required(Role.ADMIN)
def tasks_of_release(request: HttpRequest, version_id: int) -> HttpResponse:
    """A release's closest-gold tasks and the form that creates one."""
    version = lookup(release_by_id, version_id)
    if request.method == "POST":
        task = call_service(
            request,
            services.create_closest_gold_task,
            version=version,
            systems=list(
                version.system_outputs.filter(pk__in=_ids(request.POST.getlist("systems")))
            ),
            verifiers=list(User.objects.filter(pk__in=_ids(request.POST.getlist("verifiers")))),
            per_item=request.POST.get("per_item", "1"),
            user=request.user,
        )
        if task is not None:
            messages.success(request, f"closest-gold task {task.pk} created")
            return redirect("scoring:closest-gold-task", task_id=task.pk)
    tasks = cg_selectors.tasks_of_release(version)
    return render(
        request,
        "scoring/closest_gold_tasks.html",
        {
            "version": version,
            "systems": version.system_outputs.order_by("name"),
            "reviewers": [
                u
                for u in User.objects.filter(is_active=True).order_by("username")
                if has_role(u, Role.REVIEWER)
            ],
            "rows": [(task, cg_selectors.task_progress(task)) for task in tasks],
            "llm": llm_setup(),
            "max_per_item": MAX_PER_ITEM,
        },
    )


@role_required(Role.REVIEWER, Role.ADMIN)
def task_page(request: HttpRequest, task_id: int) -> HttpResponse:
    task = lookup(cg_selectors.get_task, task_id)
    manager = has_role(request.user, Role.ADMIN)
    if not manager and not can_verify(task, request.user):
        raise DjangoPermissionDenied("you are not in this task's verifier pool")
    job = (
        BackgroundJob.objects.filter(pk=task.background_job_id).first()
        if task.background_job_id
        else None
    )
    context: dict[str, Any] = {
        "task": task,
        "progress": cg_selectors.task_progress(task),
        "mine": cg_selectors.verifier_done(task, _user(request)),
        "may_verify": can_verify(task, request.user),
        "manager": manager,
        "job": job,
        "llm": llm_setup(),
        "items": cg_selectors.item_rows(task) if manager else [],
    }
    return render(request, "scoring/closest_gold_task.html", context)


@role_required(Role.ADMIN)
@require_POST
def request_proposals(request: HttpRequest, task_id: int) -> HttpResponse:
    task = lookup(cg_selectors.get_task, task_id)
    if call_service(request, services.request_proposals, task=task, user=request.user):
        messages.success(request, "proposals queued")
    return redirect("scoring:closest-gold-task", task_id=task.pk)


@role_required(Role.REVIEWER, Role.ADMIN)
def next_item(request: HttpRequest, task_id: int) -> HttpResponse:
    task = lookup(cg_selectors.get_task, task_id)
    try:
        item = services.next_item(task=task, verifier=_user(request))
    except PermissionDenied as denied:
        raise DjangoPermissionDenied(denied.message) from None
    if item is None:
        messages.info(request, "Nothing left for you to verify in this task. Thank you!")
        return redirect("scoring:closest-gold-task", task_id=task.pk)
    return redirect("scoring:closest-gold-verify", item_id=item.pk)


@role_required(Role.REVIEWER, Role.ADMIN)
def verify(request: HttpRequest, item_id: int) -> HttpResponse:
    item = lookup(cg_selectors.get_item, item_id)
    try:
        check_verifier(item.task, request.user)
    except PermissionDenied as denied:
        raise DjangoPermissionDenied(denied.message) from None
    if request.method == "POST" and _submit(request, item):
        return redirect("scoring:closest-gold-next", task_id=item.task_id)
    done = item.verifications.filter(verifier=_user(request)).first()
    progress = cg_selectors.task_progress(item.task)
    return render(
        request,
        "scoring/closest_gold_verify.html",
        {
            "item": item,
            "task": item.task,
            "view": cg_selectors.item_view(item),
            "done": done,
            "progress": progress,
            "mine": cg_selectors.verifier_done(item.task, _user(request)),
            "shortcuts": SHORTCUTS,
            "decisions": VerificationDecision,
            "opened_at": int(time.time()),
            "text": request.POST.get("text", item.proposal or item.output),
        },
    )


def _submit(request: HttpRequest, item: ClosestGoldItem) -> bool:
    # The page's own clock: the seconds between rendering it and this submission.
    opened = parse_id(request.POST.get("opened_at"))
    spent = max(0, int(time.time()) - opened) if opened else 0
    saved = call_service(
        request,
        services.submit_verification,
        item_id=item.pk,
        verifier=_user(request),
        decision=request.POST.get("decision", ""),
        text=request.POST.get("text", ""),
        time_spent_seconds=min(spent, MAX_INT32),
    )
    return saved is not None
