"""Judgment pages: campaign list and creation (admins), the keyboard-first judging page
(judges), results (campaign admins), exports. Thin: parse, call a service or selector,
render."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any, cast
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.views.decorators.http import require_POST

from annotate.selectors import guideline_for
from core.exceptions import ServiceError
from core.markdown import render_markdown
from core.models import User
from core.params import bounded_float
from core.permissions import role_required
from core.roles import Role, has_role
from core.web import call_service, lookup, parse_id
from datasets.models import DatasetVersion
from judgments import esa as esa_mode
from judgments import results as stored
from judgments import selectors, services
from judgments.forms import CampaignForm
from judgments.limits import setting
from judgments.models import Assignment, AssignmentStatus, Campaign, CampaignMode


def _guideline_text(campaign: Campaign) -> str:
    """The campaign's own guideline, else the platform's guideline for its task (ranking or
    edit judging) in its language (edits mode says when an edit is correct)."""
    if campaign.guideline.strip():
        return campaign.guideline
    if campaign.mode == CampaignMode.ESA:
        return ""  # the ESA page explains the task itself (templates/judgments/judge_esa.html)
    task = "edits" if campaign.mode == CampaignMode.EDITS else "ranking"
    return guideline_for(task, campaign.language).body


def _user(request: HttpRequest) -> User:
    """The signed-in user (every view here is behind login_required or role_required)."""
    return cast(User, request.user)


@login_required
def index(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "judgments/index.html",
        {
            "administered": selectors.campaigns_administered_by(_user(request)),
            "judging": selectors.campaigns_judged_by(_user(request)),
            "is_admin": has_role(_user(request), Role.ADMIN),
        },
    )


@role_required(Role.ADMIN)
def create(request: HttpRequest) -> HttpResponse:
    release_id = parse_id(request.POST.get("release") or request.GET.get("release"))
    release = (
        DatasetVersion.objects.filter(pk=release_id).select_related("dataset").first()
        if release_id is not None
        else None
    )
    outputs = selectors.release_system_outputs(release) if release else {}
    initial = {"release": release}
    if request.method == "POST" and request.POST.get("step") == "create":
        form = CampaignForm(request.POST, system_names=list(outputs))
        if form.is_valid():
            data = form.cleaned_data
            campaign = call_service(
                request,
                services.create_campaign,
                name=data["name"],
                mode=data["mode"],
                release=data["release"],
                system_outputs={name: outputs[name] for name in data["systems"]},
                judges=list(data["judges"]),
                judges_per_item=data["judges_per_item"],
                outputs_per_item=data["outputs_per_item"],
                agreement_share=data["agreement_share"],
                consistency_share=data["consistency_share"],
                seed=data["seed"],
                include_references=data["include_references"],
                guideline=data["guideline"],
                created_by=_user(request),
            )
            if campaign is not None:
                messages.success(
                    request, f"Campaign {campaign.name} created: {campaign.items.count()} items."
                )
                return redirect("judgments:results", campaign_id=campaign.pk)
    else:
        form = CampaignForm(initial=initial, system_names=list(outputs))
    return render(
        request,
        "judgments/create.html",
        {"form": form, "release": release, "system_count": len(outputs)},
    )


@login_required
def judge_next(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = Campaign.objects.filter(pk=campaign_id, judges=_user(request)).first()
    if campaign is None:
        raise Http404("you do not judge in this campaign")
    assignment = call_service(
        request, services.next_assignment, campaign=campaign, judge=_user(request)
    )
    if assignment is None:
        messages.info(request, f"Nothing left to judge in {campaign.name}. Thank you!")
        return redirect("judgments:index")
    return redirect("judgments:judge", assignment_id=assignment.pk)


@login_required
def judge(request: HttpRequest, assignment_id: int) -> HttpResponse:
    assignment = lookup(selectors.assignment_for_judge, assignment_id, _user(request))
    campaign = assignment.campaign
    if request.method == "POST":
        if campaign.mode == CampaignMode.ESA and request.POST.get("action") != "skip":
            return _answer_esa(request, assignment, campaign)
        return _answer(request, assignment.pk, campaign)
    services.start_assignment(assignment)
    if campaign.mode == CampaignMode.ESA:
        return _judge_esa(request, assignment, campaign)
    view = selectors.judge_view_of_item(assignment.item, language=campaign.language)
    done, total = selectors.judge_progress(campaign, _user(request))
    return render(
        request,
        "judgments/judge.html",
        {
            "assignment": assignment,
            "campaign": campaign,
            "item": view,
            "edits_mode": campaign.mode == CampaignMode.EDITS,
            "pending": assignment.status == AssignmentStatus.PENDING,
            "position": done + 1 if assignment.status == AssignmentStatus.PENDING else done,
            "total": total,
            "rank_choices": range(1, len(view["outputs"]) + 1),
            "guideline_html": render_markdown(_guideline_text(campaign)),
            "page_config": {
                "outputs": len(view["outputs"]),
                "editsMode": campaign.mode == CampaignMode.EDITS,
            },
        },
    )


def _judge_esa(request: HttpRequest, assignment: Assignment, campaign: Campaign) -> HttpResponse:
    view = esa_mode.esa_view(assignment)
    done, total = selectors.judge_progress(campaign, _user(request))
    pending = assignment.status == AssignmentStatus.PENDING
    return render(
        request,
        "judgments/judge_esa.html",
        {
            "assignment": assignment,
            "campaign": campaign,
            "item": view,
            "pending": pending,
            "position": done + 1 if pending else done,
            "total": total,
            "low_score": esa_mode.LOW_SCORE,
            "idle_seconds": int(esa_mode.idle_bound_seconds()),
            "guideline_html": render_markdown(_guideline_text(campaign)),
            "page_config": {
                "outputs": view["outputs"],
                "language": campaign.language,
                "lowScore": esa_mode.LOW_SCORE,
                "idleSeconds": esa_mode.idle_bound_seconds(),
                "submitUrl": reverse("api-judgment-submit", args=[assignment.pk]),
                "nextUrl": reverse("judgments:next", args=[campaign.pk]),
            },
        },
    )


def esa_answer_from_form(post: Any, view: dict[str, Any]) -> list[dict[str, Any]]:
    """The ESA answer the page posts: the script's JSON (field `esa`), or without the script
    the form's own fields: `score-<position>` and a decision per prefilled span
    (`decision-<position>-<index>`: minor, major or remove). What was typed goes to the
    service as typed, so a bad score is refused there with its value."""
    if post.get("esa"):
        try:
            sent = json.loads(post["esa"])
        except ValueError:
            raise ServiceError(
                "the page sent an unreadable answer; reload it", field="esa"
            ) from None
        return cast(list[dict[str, Any]], sent)
    answer: list[dict[str, Any]] = []
    for output in view["outputs"]:
        position = output["position"]
        raw = post.get(f"score-{position}", "").strip()
        spans: list[dict[str, Any]] = []
        dismissed: list[dict[str, Any]] = []
        for span in output["prefilled"]:
            decision = post.get(f"decision-{position}-{span['index']}", "")
            bounds = {"start": span["start"], "end": span["end"]}
            if decision in ("minor", "major"):
                spans.append({**bounds, "severity": decision, "origin": "prefilled"})
            elif decision == "remove":
                dismissed.append(bounds)
        answer.append(
            {
                "output": position,
                "score": int(raw) if raw.isascii() and raw.isdigit() else raw,
                "spans": spans,
                "dismissed": dismissed,
            }
        )
    return answer


def _answer_esa(request: HttpRequest, assignment: Assignment, campaign: Campaign) -> HttpResponse:
    def submit() -> object:
        answer = esa_answer_from_form(request.POST, esa_mode.esa_view(assignment))
        return services.submit_judgment(
            assignment_id=assignment.pk,
            judge=_user(request),
            esa=answer,
            low_score_confirmed=request.POST.get("low_score_confirmed") in ("1", "on", "true"),
            active_seconds=request.POST.get("active_seconds") or None,
        )

    if call_service(request, submit) is None:
        return redirect("judgments:judge", assignment_id=assignment.pk)
    return redirect("judgments:next", campaign_id=campaign.pk)


def _answer(request: HttpRequest, assignment_id: int, campaign: Campaign) -> HttpResponse:
    done: object | None
    if request.POST.get("action") == "skip":
        done = call_service(
            request, services.skip_assignment, assignment_id=assignment_id, judge=_user(request)
        )
    else:
        ranks: list[Any] = []
        verdicts: list[dict[str, Any]] = []
        for key, value in request.POST.items():
            if key.startswith("verdict-"):
                _, output, edit = key.split("-", 2)
                if output.isdigit() and edit.isdigit():
                    verdicts.append(
                        {"output": int(output), "edit": int(edit), "correct": value == "correct"}
                    )
        count = sum(1 for key in request.POST if key.startswith("rank-"))
        for position in range(count):
            value = request.POST.get(f"rank-{position}", "")
            ranks.append(int(value) if value.strip().isdigit() else value)
        done = call_service(
            request,
            services.submit_judgment,
            assignment_id=assignment_id,
            judge=_user(request),
            ranks=ranks,
            edit_verdicts=verdicts,
        )
    if done is None:
        return redirect("judgments:judge", assignment_id=assignment_id)
    return redirect("judgments:next", campaign_id=campaign.pk)


def _meta_evaluation_url(campaign: Campaign) -> str | None:
    """The release's meta-evaluation page with this campaign as the human side (None while
    that page does not exist or the campaign stands alone)."""
    if campaign.release_id is None:
        return None
    try:
        base = reverse("scoring:meta-evaluation", args=[campaign.release_id])
    except NoReverseMatch:
        return None
    return f"{base}?campaign={campaign.pk}"


@role_required(Role.ADMIN)
def results(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The campaign's stored results (judgments/results.py): served from storage, never
    computed here. Missing or stale ones are queued and the page shows the job's progress
    (and the last results, marked stale) until it reloads. POST: compute again."""
    campaign = lookup(selectors.campaign_for_admin, campaign_id, _user(request))
    if request.method == "POST":
        query = {
            "method": request.POST.get("method"),
            "bootstrap": request.POST.get("bootstrap"),
            "seed": request.POST.get("seed"),
            "runs": request.POST.get("runs"),
        }
    else:
        query = {
            "method": request.GET.get("method"),
            "bootstrap": request.GET.get("bootstrap"),
            "seed": request.GET.get("seed"),
            "runs": request.GET.get("runs"),
        }
    outcome: stored.Outcome | None = None
    params: stored.Parameters | None = None
    error = ""
    try:
        params = stored.parameters(query, campaign)
        outcome = stored.results_for(
            campaign, params, user=_user(request), force=request.method == "POST"
        )
    except ServiceError as exc:
        error = exc.message
    if request.method == "POST":
        if error:
            messages.error(request, error)
        target = reverse("judgments:results", args=[campaign.pk])
        if params is not None:
            target += "?" + urlencode(
                {"method": params.method, "bootstrap": params.bootstrap, "seed": params.seed}
                | ({"runs": params.runs} if params.runs else {})
            )
        return redirect(target)
    report = outcome.report if outcome is not None else None
    progress = selectors.campaign_progress(campaign)
    systems = list(campaign.systems.values_list("name", flat=True)[: SYSTEMS_SHOWN + 1])
    edits = report.get("edits") if report else None
    verdict_count = int(edits.get("verdicts", 0)) if edits else 0
    return render(
        request,
        "judgments/results.html",
        {
            "campaign": campaign,
            "report": report,
            "outcome": outcome,
            "params": params,
            "job": outcome.job if outcome is not None else None,
            "computing": outcome is not None and outcome.status in ("queued", "running"),
            "rows": _result_rows(report) if report else [],
            "error": error,
            "progress": progress,
            "systems": systems[:SYSTEMS_SHOWN],
            "more_systems": max(0, campaign.systems.count() - SYSTEMS_SHOWN)
            if len(systems) > SYSTEMS_SHOWN
            else 0,
            "meta_url": _meta_evaluation_url(campaign),
            "edits": edits,
            "esa": report.get("esa") if report else None,
            "esa_rows": _esa_rows(report),
            "edit_rows": _edit_rows(edits) if edits else [],
            "verdict_rows": selectors.edit_verdict_rows(campaign, limit=VERDICT_ROWS_SHOWN)
            if edits
            else [],
            "verdict_count": verdict_count,
            "verdicts_shown": VERDICT_ROWS_SHOWN,
            "method_choices": METHOD_CHOICES,
            "max_bootstrap": setting("GEC_RESULTS_MAX_BOOTSTRAP"),
            "max_runs": setting("GEC_RESULTS_MAX_RUNS"),
        },
    )


METHOD_CHOICES = [
    ("both", "Expected Wins and TrueSkill"),
    ("ew", "Expected Wins"),
    ("trueskill", "TrueSkill"),
]
SYSTEMS_SHOWN = 100  # the page names the first ones (an imported item may name thousands)
VERDICT_ROWS_SHOWN = 200  # the page lists the first ones; the CSV export has them all


def _edit_rows(edits: dict[str, Any]) -> list[dict[str, Any]]:
    """Edit precision rows with the verdict-based human ranking's numbers beside them."""
    ranking = (edits.get("ranking") or {}).get("systems", {})
    return [
        {
            **row,
            "expected_wins": ranking.get(row["system"], {}).get("expected_wins"),
            "trueskill": ranking.get(row["system"], {}).get("trueskill"),
            "rank_range": ranking.get(row["system"], {}).get("rank_range"),
        }
        for row in edits["systems"]
    ]


def _esa_rows(report: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The ESA systems, best first, each with its name (empty outside ESA)."""
    systems = ((report or {}).get("esa") or {}).get("systems", {})
    return [{"system": name, **row} for name, row in systems.items()]


def _result_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for rank, (name, row) in enumerate(report["systems"].items(), start=1):
        rows.append({"rank": rank, "system": name, **row})
    return rows


@role_required(Role.ADMIN)
def export(request: HttpRequest, campaign_id: int, fmt: str) -> HttpResponse:
    campaign = lookup(selectors.campaign_for_admin, campaign_id, _user(request))
    if fmt not in ("xml", "csv", "edits.csv", "esa.txt"):
        raise Http404("export as .xml, .csv, .edits.csv or .esa.txt")
    if fmt == "esa.txt":
        text = call_service(
            request, services.export_esa_scores, campaign=campaign, by=_user(request)
        )
        if text is None:
            return redirect("judgments:results", campaign_id=campaign.pk)
        response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    elif fmt == "edits.csv":
        text = services.export_edit_verdicts_csv(campaign=campaign, by=_user(request))
        response = HttpResponse(text, content_type="text/csv; charset=utf-8")
    elif fmt == "csv":
        text = services.export_pairwise_csv(campaign=campaign, by=_user(request))
        response = HttpResponse(text, content_type="text/csv; charset=utf-8")
    else:
        text = services.export_judgments(campaign=campaign, by=_user(request))
        response = HttpResponse(text, content_type="application/xml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{campaign.name}.{fmt}"'
    return response


@role_required(Role.ADMIN)
@require_POST
def reassign_stale(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = lookup(selectors.campaign_for_admin, campaign_id, _user(request))
    try:
        minutes = bounded_float(
            request.POST.get("minutes"),
            field="minutes",
            low=0,
            high=selectors.MAX_STALE_MINUTES,
            default=60,
        )
    except ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("judgments:results", campaign_id=campaign.pk)
    moved = call_service(
        request,
        services.reassign_stale,
        campaign=campaign,
        older_than=timedelta(minutes=minutes),
        by=_user(request),
    )
    if moved is not None:
        messages.success(request, f"{len(moved)} stale items handed to other judges.")
    return redirect("judgments:results", campaign_id=campaign.pk)
