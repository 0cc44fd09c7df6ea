"""Annotation projects (admins): for a dataset, its annotator and reviewer pools, k, the
stale deadline, who is assigned what, and the Assign button. The page lives in review
because "who is assigned what" reads annotation and review work; the pool and settings
services are the dataset's own (datasets/services/projects.py). Thin views."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from annotate.signals import project_suggestion_systems
from annotate.suggestions import blind_total
from core.llm import llm_setup
from core.permissions import role_required
from core.roles import Role
from core.web import call_service, lookup
from datasets.models import AnnotationMode, ReferenceStyle
from datasets.selectors import get_dataset
from datasets.services.projects import (
    MAX_ANNOTATORS_PER_SENTENCE,
    MAX_STALE_AFTER_HOURS,
    Pool,
    add_to_pool,
    add_users_to_pool,
    remove_from_pool,
    set_annotation_mode,
    set_annotator_reference_style,
    update_project_settings,
    users_with_role,
)
from review import selectors
from review.signals import extra_project_context

SENTENCES_SHOWN = 100


@role_required(Role.ADMIN)
def projects_page(request: HttpRequest) -> HttpResponse:
    return render(request, "review/projects.html", {"datasets": selectors.project_list()})


@role_required(Role.ADMIN)
def project_page(request: HttpRequest, name: str) -> HttpResponse:
    dataset = lookup(get_dataset, name)
    members = selectors.project_members(dataset)
    annotator_ids = {m.user.pk for m in members if m.in_annotator_pool}
    reviewer_ids = {m.user.pk for m in members if m.in_reviewer_pool}
    active_annotators = sum(1 for m in members if m.in_annotator_pool and m.user.is_active)
    active_reviewers = sum(1 for m in members if m.in_reviewer_pool and m.user.is_active)
    return render(
        request,
        "review/project.html",
        {
            "dataset": dataset,
            "members": members,
            "annotator_pool": [m for m in members if m.in_annotator_pool],
            "reviewer_pool": [m for m in members if m.in_reviewer_pool],
            "annotator_choices": users_with_role(Role.ANNOTATOR)
            .exclude(pk__in=annotator_ids)
            .order_by("username"),
            "reviewer_choices": users_with_role(Role.REVIEWER)
            .exclude(pk__in=reviewer_ids)
            .order_by("username"),
            "active_annotators": active_annotators,
            "active_reviewers": active_reviewers,
            "ready_to_assign": active_annotators >= dataset.annotators_per_sentence
            and active_reviewers > 0,
            "holders": selectors.sentence_holders(dataset, limit=SENTENCES_SHOWN),
            "sentences_shown": SENTENCES_SHOWN,
            "max_k": MAX_ANNOTATORS_PER_SENTENCE,
            "max_hours": MAX_STALE_AFTER_HOURS,
            "reference_styles": list(ReferenceStyle.choices),
            "annotation_modes": list(AnnotationMode.choices),
            "suggestion_systems": project_suggestion_systems(dataset),
            "llm_setup": llm_setup(),
            "blind_assignments": blind_total(dataset),
            # The higher apps' sections (scoring: the post-edit anchoring report).
            **extra_project_context(dataset, request.user),
        },
    )


@role_required(Role.ADMIN)
@require_POST
def project_settings(request: HttpRequest, name: str) -> HttpResponse:
    dataset = lookup(get_dataset, name)
    updated = call_service(
        request,
        update_project_settings,
        dataset=dataset,
        by=request.user,
        annotators_per_sentence=request.POST.get("annotators_per_sentence", ""),
        stale_after_hours=request.POST.get("stale_after_hours", ""),
    )
    if updated is not None:
        messages.success(
            request,
            f"{updated.name}: k = {updated.annotators_per_sentence}, assignments count as "
            f"stale after {updated.stale_after_hours} h.",
        )
    return redirect("review:project", name=name)


@role_required(Role.ADMIN)
@require_POST
def project_reference_style(request: HttpRequest, name: str) -> HttpResponse:
    dataset = lookup(get_dataset, name)
    style = request.POST.get("annotator_reference_style", "")
    changed = call_service(
        request, set_annotator_reference_style, dataset=dataset, by=request.user, style=style
    )
    if changed is not None:
        messages.success(
            request,
            f"References from the annotator pool: {style or 'unspecified'} "
            f"({changed} current references restamped).",
        )
    return redirect("review:project", name=name)


@role_required(Role.ADMIN)
@require_POST
def project_pool_add(request: HttpRequest, name: str) -> HttpResponse:
    dataset = lookup(get_dataset, name)
    pool = request.POST.get("pool", "")
    if request.POST.get("names", "").strip():
        change = call_service(
            request,
            add_to_pool,
            dataset=dataset,
            by=request.user,
            pool=pool,
            names=request.POST.get("names", ""),
        )
    else:
        change = call_service(
            request,
            add_users_to_pool,
            dataset=dataset,
            by=request.user,
            pool=pool,
            user_ids=request.POST.getlist("users"),
        )
    if change is not None:
        text = f"Added to the {change.pool.value} pool: {', '.join(change.added) or 'nobody new'}."
        if change.already:
            text += f" Already there: {', '.join(change.already)}."
        messages.success(request, text)
    return redirect("review:project", name=name)


@role_required(Role.ADMIN)
@require_POST
def project_pool_remove(request: HttpRequest, name: str) -> HttpResponse:
    dataset = lookup(get_dataset, name)
    pool = request.POST.get("pool", "")
    user = call_service(
        request,
        remove_from_pool,
        dataset=dataset,
        by=request.user,
        pool=pool,
        user_id=request.POST.get("user", ""),
    )
    if user is not None:
        messages.success(
            request,
            f"{user.username} left the {Pool(pool).value} pool; sentences already handed to "
            "them stay theirs until reassigned.",
        )
    return redirect("review:project", name=name)


@role_required(Role.ADMIN)
@require_POST
def project_annotation_mode(request: HttpRequest, name: str) -> HttpResponse:
    dataset = lookup(get_dataset, name)
    updated = call_service(
        request,
        set_annotation_mode,
        dataset=dataset,
        by=request.user,
        mode=request.POST.get("annotation_mode", ""),
    )
    if updated is not None:
        messages.success(
            request, f"{updated.name}: annotation mode {updated.get_annotation_mode_display()}."
        )
    return redirect("review:project", name=name)
