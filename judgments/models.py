"""Human judgment campaigns: judges rank system outputs (Appraise/WMT style) or judge edits
(SEEDA style); the rankings become Expected Wins / TrueSkill scores through gecscore.meta.

A campaign either sits on a release (its systems' output lines stored here, one per released
sentence) or stands alone (imported Appraise XML: systems and sentences named by the file).
System names live only in these tables; what a judge is shown never carries them.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.db import models

from core.models import BackgroundJob
from datasets.models import DatasetVersion, Language


class CampaignMode(models.TextChoices):
    RANKING = "ranking", "rank outputs"
    EDITS = "edits", "judge edits, then rank"
    # ESA (Kocmi et al., WMT 2024) for GEC: error spans on each output, prefilled from the
    # extractor's edits, a severity each and a 0-100 score per output (docs/judgments.md).
    ESA = "esa", "error spans and scores (ESA)"


class AttentionFeedback(models.TextChoices):
    # loud: after answering a check the judge reads "this was a check; expected ...";
    # silent: nothing tells a check from an ordinary item, before or after.
    LOUD = "loud", "loud (feedback after a check)"
    SILENT = "silent", "silent"


class CheckKind(models.TextChoices):
    """Attention checks (judgments/attention.py). An ordinary item has no kind."""

    NONE = "", "ordinary item"
    # the golden reference must be ranked (scored) at least as high as the unchanged source
    REFERENCE_OVER_SOURCE = "reference-over-source", "reference at least as good as the source"
    # a copy of the reference with a planted error must come lower than the reference (and
    # in ESA mode carry a span overlapping the planted error)
    PLANTED_ERROR = "planted-error", "reference above its copy with a planted error"


class Campaign(models.Model):
    name = models.CharField(max_length=100, unique=True)
    mode = models.CharField(
        max_length=8, choices=CampaignMode.choices, default=CampaignMode.RANKING
    )
    release = models.ForeignKey(
        DatasetVersion,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="judgment_campaigns",
        help_text="the release whose sentences are judged; empty for a stand-alone import",
    )
    language = models.CharField(max_length=2, choices=Language.choices, default=Language.CHINESE)
    judges_per_item = models.PositiveSmallIntegerField(default=2)
    outputs_per_item = models.PositiveSmallIntegerField(default=5)
    agreement_share = models.FloatField(
        default=0.0,
        help_text="share of items given to one more judge (inter-annotator agreement)",
    )
    consistency_share = models.FloatField(
        default=0.1,
        help_text="share of a judge's items shown to them a second time (intra agreement)",
    )
    seed = models.IntegerField(default=0, help_text="seeds item building and output order")
    attention_share = models.FloatField(
        default=0.0, help_text="share of each judge's items that are attention checks"
    )
    attention_feedback = models.CharField(
        max_length=6, choices=AttentionFeedback.choices, default=AttentionFeedback.SILENT
    )
    attention_threshold = models.FloatField(
        null=True,
        blank=True,
        help_text="judges whose check pass rate is under this are left out of the results;"
        " empty: nobody is left out",
    )
    dynamic = models.BooleanField(
        default=False,
        help_text="hand each judge the item the dynamic-assignment rule values most"
        " (gecscore.meta.assignment) instead of a queue fixed at creation",
    )
    guideline = models.TextField(blank=True)
    judges = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="judging_campaigns"
    )
    admins = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="administered_campaigns"
    )
    # Attributes of each Appraise <error-correction-ranking-result> block, kept so that an
    # imported file is exported with the same blocks (items carry their block index).
    result_blocks = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "name"]

    def __str__(self) -> str:
        return self.name


class CampaignSystem(models.Model):
    """A judged system: its name and (on a release) its output line for each sentence."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="systems")
    name = models.CharField(max_length=100)
    position = models.PositiveSmallIntegerField(default=0)
    outputs = models.JSONField(default=list, blank=True, help_text="one line per sentence")

    class Meta:
        ordering = ["campaign", "position", "name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="unique_campaign_system")
        ]

    def __str__(self) -> str:
        return f"{self.campaign.name}:{self.name}"


class Item(models.Model):
    """One source sentence with the outputs a judge ranks (identical outputs collapsed)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="items")
    number = models.PositiveIntegerField(help_text="order within the campaign")
    src_id = models.CharField(max_length=100, help_text="sentence id (Appraise src-id)")
    doc_id = models.CharField(max_length=100, blank=True)
    source = models.TextField(blank=True)
    block = models.PositiveSmallIntegerField(default=0, help_text="index in result_blocks")
    system_count = models.PositiveIntegerField(
        default=0,
        help_text="systems over the item's outputs (collapsed ones counted each): the results'"
        " bounds (judgments/results.py) are checked on it without reading the outputs",
    )
    judges_wanted = models.PositiveSmallIntegerField(
        default=0, help_text="distinct judges the item gets (k, or k + 1 for agreement)"
    )
    check_kind = models.CharField(
        max_length=24, choices=CheckKind.choices, default=CheckKind.NONE, blank=True
    )
    left_by = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="judgment_items_left",
        help_text="judges who opened the item and left it unfinished, so that the stale rule"
        " moved it to another judge: it is never handed to them again",
    )
    check_expectation = models.JSONField(
        default=dict,
        blank=True,
        help_text='an attention check\'s expectation: {"reference": position, "other":'
        ' position, "span": [start, end] of the planted error in the other output, "error":'
        " what was planted}; never shown to a judge",
    )

    class Meta:
        ordering = ["campaign", "number"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "number"], name="unique_item_number")
        ]

    def __str__(self) -> str:
        return f"{self.campaign.name}#{self.number}"


class ItemOutput(models.Model):
    """One shown output: its text and the systems that produced it (more than one when
    collapsed). `position` is the order it is shown in (shuffled when the item is built)."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="outputs")
    position = models.PositiveSmallIntegerField()
    text = models.TextField(blank=True)
    systems = models.JSONField(default=list)

    class Meta:
        ordering = ["item", "position"]
        constraints = [
            models.UniqueConstraint(fields=["item", "position"], name="unique_output_position")
        ]


class AssignmentStatus(models.TextChoices):
    PENDING = "pending"
    DONE = "done"
    SKIPPED = "skipped"


class Assignment(models.Model):
    """An item handed to one judge (a platform user, or a judge named by an imported file)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="assignments")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="assignments")
    judge = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="judgment_assignments",
    )
    judge_name = models.CharField(max_length=150, help_text="Appraise user name")
    repeat = models.BooleanField(default=False, help_text="second showing (intra agreement)")
    order = models.PositiveIntegerField(default=0, help_text="place in the judge's queue")
    status = models.CharField(
        max_length=8, choices=AssignmentStatus.choices, default=AssignmentStatus.PENDING
    )
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    seconds_spent = models.FloatField(default=0.0)
    appraise_id = models.CharField(max_length=100, blank=True, help_text="Appraise item id")
    duration = models.CharField(max_length=32, blank=True, help_text="Appraise duration text")
    extra = models.JSONField(default=list, blank=True, help_text="other Appraise attributes")

    class Meta:
        ordering = ["campaign", "order", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["item", "judge", "repeat"],
                condition=models.Q(judge__isnull=False),
                name="unique_judge_item_showing",
            )
        ]
        indexes = [models.Index(fields=["campaign", "judge", "status"])]

    def __str__(self) -> str:
        return f"{self.item} -> {self.judge_name}"


class Judgment(models.Model):
    """A judge's answer to one assignment: a rank per shown output (1 = best, ties allowed),
    in edits mode a verdict per edit, in ESA mode error spans and a score per output (ranks
    then follow the scores). One per assignment (the constraint settles a
    concurrent double submit)."""

    assignment = models.OneToOneField(Assignment, on_delete=models.CASCADE, related_name="judgment")
    ranks = models.JSONField(default=list, help_text="rank of each output, by output position")
    edit_verdicts = models.JSONField(
        default=list,
        blank=True,
        help_text='[{"output": position, "edit": index, "correct": bool, "source": text,'
        ' "target": text}] in edits mode',
    )
    esa = models.JSONField(
        default=list,
        blank=True,
        help_text='ESA mode: [{"output": position, "score": 0-100, "spans": [{"start", "end",'
        ' "severity": "minor"|"major", "origin": "prefilled"|"resized"|"added"}],'
        ' "dismissed": [{"start", "end"}]}], offsets in characters of the output text',
    )
    created_at = models.DateTimeField(auto_now_add=True)


class CampaignResults(models.Model):
    """A campaign's results for one set of parameters (method, bootstrap, seed, runs), computed
    by a background job (judgments/results.py) and served from here, so the results page and
    API never compute in the request.

    `report` (stored as `report_json`) is the last finished computation and `state` the
    judgments it was computed from
    (judgments.results.judgment_state); when the campaign's state differs the report is
    stale and another job is queued. `error` is a refusal the job found for `error_state`
    (no pairwise judgment yet, a bound passed), answered as a 400 until the judgments change.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="results")
    method = models.CharField(max_length=12)
    bootstrap = models.PositiveIntegerField()
    seed = models.BigIntegerField()
    runs = models.PositiveIntegerField()
    # JSON text, not a JSONField: PostgreSQL's jsonb sorts an object's keys, and the report's
    # "systems" objects are ordered best first (the ranking itself).
    report_json = models.TextField(blank=True, help_text="the report as JSON text, in order")
    state = models.CharField(max_length=200, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)
    seconds = models.FloatField(default=0.0, help_text="wall time of the computation")
    error = models.TextField(blank=True)
    error_field = models.CharField(max_length=64, blank=True)
    error_setting = models.CharField(max_length=64, blank=True)
    error_state = models.CharField(max_length=200, blank=True)
    job = models.ForeignKey(
        BackgroundJob, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    job_state = models.CharField(
        max_length=200, blank=True, help_text="the judgments' state when `job` was queued"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["campaign", "-updated_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "method", "bootstrap", "seed", "runs"],
                name="unique_campaign_results_parameters",
            )
        ]

    @property
    def report(self) -> dict[str, Any] | None:
        """The stored report, its objects in their stored order; None before the first."""
        return json.loads(self.report_json) if self.report_json else None

    def __str__(self) -> str:
        return (
            f"{self.campaign.name}: {self.method}, bootstrap {self.bootstrap}, seed {self.seed},"
            f" runs {self.runs}"
        )
