"""Stored scores: system outputs and their results, annotator samples, pay rates.

Invariants live here (uniqueness, choices). The numbers themselves always come from the
metric library `gecscore` through scoring/services/; nothing here computes a score.
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models.functions import MD5

from annotate.models import Correction, Submission
from datasets.models import DatasetVersion, Sentence


class OutputFormat(models.TextChoices):
    MUCGEC = "mucgec", "MuCGEC (id \\t source \\t hypothesis)"
    LINES = "lines", "one hypothesis a line, in release order"
    ENSEMBLE = "ensemble", "ensemble of stored outputs (edit-wise voting)"


class SystemOutput(models.Model):
    """One system's hypotheses for one frozen release, in release order."""

    version = models.ForeignKey(
        DatasetVersion, on_delete=models.PROTECT, related_name="system_outputs"
    )
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    file_name = models.CharField(max_length=255, blank=True)
    file_format = models.CharField(max_length=16, choices=OutputFormat.choices)
    hypotheses = models.JSONField(default=list, help_text="one hypothesis per released sentence")
    checksum = models.CharField(max_length=64, help_text="sha256 of the hypotheses, one a line")
    ensemble_of = models.ManyToManyField("self", symmetrical=False, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["version", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["version", "name"], name="unique_system_name_per_release"
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} on {self.version.label}"


class ScoreStatus(models.TextChoices):
    QUEUED = "queued", "queued"
    RUNNING = "running", "running"
    DONE = "done", "done"
    FAILED = "failed", "failed"
    CANCELLED = "cancelled", "cancelled"


class SystemScore(models.Model):
    """The char-level result of one system output. Re-scoring replaces it in place.

    `summary` holds everything beyond the headline numbers, as plain JSON:
    ``categories`` (M/R/S/W), ``detection`` (ds / dt modes), ``ref_count_curve`` and
    ``by_source``; later metrics (CLEME, weighted) add their own keys under ``extra``.
    """

    system = models.OneToOneField(SystemOutput, on_delete=models.CASCADE, related_name="score")
    status = models.CharField(
        max_length=16, choices=ScoreStatus.choices, default=ScoreStatus.QUEUED, db_index=True
    )
    # The core.BackgroundJob that carries progress and cancellation for the browser.
    background_job_id = models.PositiveBigIntegerField(null=True, blank=True)
    signature = models.CharField(max_length=300, blank=True)
    tp = models.PositiveIntegerField(default=0)
    fp = models.PositiveIntegerField(default=0)
    fn = models.PositiveIntegerField(default=0)
    p = models.FloatField(default=0.0)
    r = models.FloatField(default=0.0)
    f05 = models.FloatField(default=0.0)
    summary = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-f05"]

    def __str__(self) -> str:
        return f"{self.system}: F0.5 {self.f05:.4f} ({self.status})"


class SentenceResult(models.Model):
    """Per-sentence counts against the chosen reference, with labelled edits.

    ``edits``: list of ``{"start", "end", "source", "target", "type", "label"}`` where label
    is TP / FP (hypothesis edits) or FN (edits of the chosen reference the system missed).
    """

    score = models.ForeignKey(SystemScore, on_delete=models.CASCADE, related_name="sentences")
    position = models.PositiveIntegerField()
    external_id = models.CharField(max_length=100)
    source_name = models.CharField(max_length=100, blank=True)
    tp = models.PositiveIntegerField(default=0)
    fp = models.PositiveIntegerField(default=0)
    fn = models.PositiveIntegerField(default=0)
    chosen_reference = models.IntegerField(default=0)
    edits = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["score", "position"]
        constraints = [
            models.UniqueConstraint(fields=["score", "position"], name="unique_sentence_result")
        ]


class ReferenceSet(models.TextChoices):
    """Which references a system is scored against (docs/closest-gold.md)."""

    GOLDEN = "golden", "golden (the release's references)"
    CLOSEST_GOLD = "closest-gold", "closest-gold (the system's own verified closest-golds)"
    POOLED = "pooled", "pooled (golden + every task system's closest-golds)"


class ReferenceSetScore(models.Model):
    """A system's scores against closest-gold or pooled references (golden lives in
    SystemScore). ``references_key`` is a sha256 of the hypotheses and the references used:
    a verification added since makes the row stale, and it is recomputed rather than shown.
    ``partial`` rows score only the sentences whose references were verified, on request."""

    system = models.ForeignKey(
        SystemOutput, on_delete=models.CASCADE, related_name="reference_set_scores"
    )
    reference_set = models.CharField(max_length=16, choices=ReferenceSet.choices)
    partial = models.BooleanField(default=False)
    references_key = models.CharField(max_length=64)
    verified = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    sentences_scored = models.PositiveIntegerField(default=0)
    signature = models.CharField(max_length=400)
    tp = models.PositiveIntegerField(default=0)
    fp = models.PositiveIntegerField(default=0)
    fn = models.PositiveIntegerField(default=0)
    p = models.FloatField(default=0.0)
    r = models.FloatField(default=0.0)
    f05 = models.FloatField(default=0.0)
    # The same layout as SystemScore.summary (categories, detection, extra metrics, ...).
    summary = models.JSONField(default=dict, blank=True)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["system", "reference_set", "partial"]
        constraints = [
            models.UniqueConstraint(
                fields=["system", "reference_set", "partial"], name="unique_reference_set_score"
            )
        ]

    def __str__(self) -> str:
        return f"{self.system} against {self.reference_set}: F0.5 {self.f05:.4f}"


class AnnotatorSample(models.Model):
    """One box an annotator submitted (revision 1), scored against the sentence's current
    golden references.

    The sample keeps its hypothesis M2 block and the sentence's reference M2 block (the
    expensive extraction), so an annotator's corpus score (greedy best reference in order)
    and the first-k curve are recomputed from stored M2 by the library's comparison, and a
    sentence whose golden references change is re-extracted alone.
    """

    sentence = models.ForeignKey(Sentence, on_delete=models.CASCADE, related_name="+")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="+")
    correction = models.ForeignKey(
        Correction, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    slot = models.PositiveSmallIntegerField(default=0)
    hypothesis = models.TextField()
    golden_revision = models.PositiveIntegerField(default=0)
    reference_count = models.PositiveSmallIntegerField(default=0)
    hyp_m2 = models.TextField()
    ref_m2 = models.TextField()
    # Counts of this sample alone against its best reference (for per-sentence display).
    tp = models.PositiveIntegerField(default=0)
    fp = models.PositiveIntegerField(default=0)
    fn = models.PositiveIntegerField(default=0)
    resources_key = models.CharField(max_length=200, blank=True)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["sentence__position", "submission_id", "slot"]
        constraints = [
            models.UniqueConstraint(fields=["submission", "slot"], name="unique_annotator_sample")
        ]


class PayRates(models.Model):
    """Rates for the pay report. The newest row is in force.

    pay = (submissions x per_submission) x quality factor + reviews x per_review, where the
    quality factor is F0.5 / target_f05 clamped to [min_factor, max_factor].
    """

    per_submission = models.DecimalField(max_digits=10, decimal_places=4, default=Decimal("0.50"))
    per_review = models.DecimalField(max_digits=10, decimal_places=4, default=Decimal("0.30"))
    target_f05 = models.FloatField(default=0.5, help_text="F0.5 that earns factor 1.0")
    min_factor = models.FloatField(default=0.5)
    max_factor = models.FloatField(default=1.5)
    currency = models.CharField(max_length=8, default="CNY")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "pay rates"


class HumanScoreLayout(models.TextChoices):
    WMT = "wmt", "WMT metrics-task layout (NAME LANGPAIR TESTSET SYSTEM SCORE)"
    SEEDA = "seeda", "SEEDA layout (one score a line, systems in ASCII order)"


class HumanSystemScores(models.Model):
    """An uploaded human system-score file for a release (GJG15's Expected Wins or
    TrueSkill, SEEDA's ``scores/human/*.txt``, ...), parsed by ``gecscore.meta.scorefiles``.

    ``scores`` keeps every system of the file, including ones the release has no output for
    (INPUT, a reference): a meta-evaluation uses the systems both sides have."""

    version = models.ForeignKey(
        DatasetVersion, on_delete=models.CASCADE, related_name="human_system_scores"
    )
    name = models.CharField(max_length=100)
    file_name = models.CharField(max_length=255, blank=True)
    layout = models.CharField(max_length=8, choices=HumanScoreLayout.choices)
    scores = models.JSONField(default=dict, help_text="system name -> human score")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["version", "name"]
        verbose_name_plural = "human system scores"
        constraints = [
            models.UniqueConstraint(
                fields=["version", "name"], name="unique_human_scores_name_per_release"
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({len(self.scores)} systems) on {self.version.label}"


class HumanSource(models.TextChoices):
    UPLOAD = "upload", "uploaded human system scores"
    CAMPAIGN = "campaign", "judgment campaign"


class MetaEvaluation(models.Model):
    """One meta-evaluation run: which stored metric scores agree with the human scores.

    What went in is kept beside what came out, so a result can be reproduced: the human
    scores used (``human``, a snapshot), their source, the systems, and the signature(s) of
    every metric (``signatures``: metric key -> the distinct signatures of the stored scores).
    ``report`` is ``gecscore.meta.report.system_report``'s JSON plus ``metric_scores`` and
    ``best``."""

    version = models.ForeignKey(
        DatasetVersion, on_delete=models.CASCADE, related_name="meta_evaluations"
    )
    status = models.CharField(
        max_length=16, choices=ScoreStatus.choices, default=ScoreStatus.QUEUED, db_index=True
    )
    background_job_id = models.PositiveBigIntegerField(null=True, blank=True)
    human_source = models.CharField(max_length=16, choices=HumanSource.choices)
    human_scores = models.ForeignKey(
        HumanSystemScores, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The judgments app's campaign id (an id, not a foreign key: the campaign may be deleted
    # and the result should stay readable).
    campaign_id = models.PositiveBigIntegerField(null=True, blank=True)
    human_method = models.CharField(max_length=16, blank=True, help_text="ew / trueskill / file")
    # How each metric becomes system scores: its stored corpus score, or TrueSkill / Expected
    # Wins over its sentence scores (scoring/services/meta/aggregation.py).
    aggregation = models.CharField(
        max_length=16, default="default", help_text="default / trueskill / expected-wins"
    )
    human_label = models.CharField(max_length=200, blank=True)
    metrics = models.JSONField(default=list, help_text="metric keys, in the order chosen")
    bootstrap = models.PositiveIntegerField(default=1000)
    # Resamples of the test sentences (0 = none): only for metrics whose per-sentence counts
    # are stored (the main P/R/F0.5, from SentenceResult).
    sentence_bootstrap = models.PositiveIntegerField(default=0)
    window = models.PositiveIntegerField(null=True, blank=True)
    seed = models.IntegerField(default=0)
    human = models.JSONField(default=dict, blank=True)
    # Systems left out on request (e.g. INPUT or a human reference, as in GJG15 / SEEDA's sets).
    excluded_systems = models.JSONField(default=list, blank=True)
    systems = models.JSONField(default=list, blank=True)
    signatures = models.JSONField(default=dict, blank=True)
    report = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"meta-evaluation {self.pk} of {self.version.label} ({self.status})"


# --- closest-gold references (docs/closest-gold.md) -----------------------------------------


class ClosestGoldTask(models.Model):
    """Closest-gold references of some scored systems of a release: for each output, a
    correct sentence written FROM the output (keep what the system did right, fix what is
    still wrong, undo what it broke), proposed by the configured LLM and verified by `per_item`
    reviewers each."""

    version = models.ForeignKey(
        DatasetVersion, on_delete=models.PROTECT, related_name="closest_gold_tasks"
    )
    systems = models.ManyToManyField(SystemOutput, related_name="closest_gold_tasks")
    per_item = models.PositiveSmallIntegerField(
        default=1, help_text="verifiers per item (k), as annotators per sentence"
    )
    # Empty: every active reviewer may verify; otherwise only these users.
    verifiers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="closest_gold_pools"
    )
    llm_model = models.CharField(max_length=300, blank=True, help_text="empty: no LLM proposals")
    prompt_version = models.CharField(max_length=40, blank=True)
    background_job_id = models.PositiveBigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"closest-gold task {self.pk} of {self.version.label}"


class ClosestGoldItem(models.Model):
    """One distinct output of one released sentence. Systems whose outputs are equal share the
    item, so one verification counts for each of them."""

    task = models.ForeignKey(ClosestGoldTask, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveIntegerField(help_text="the released sentence's position")
    output = models.TextField(help_text="the system output the closest-gold is written from")
    systems = models.ManyToManyField(SystemOutput, related_name="closest_gold_items")
    # None: no LLM configured (or it failed on this item); the verifier writes the correction.
    proposal = models.TextField(null=True, blank=True)
    proposal_model = models.CharField(max_length=300, blank=True)
    proposal_prompt_version = models.CharField(max_length=40, blank=True)
    proposal_error = models.TextField(blank=True)

    class Meta:
        ordering = ["task", "position", "id"]
        constraints = [
            # A retried build never duplicates an item. The output is indexed by its MD5: a
            # sentence may be far longer than a PostgreSQL B-tree entry holds (2,704 bytes).
            models.UniqueConstraint(
                "task", "position", MD5("output"), name="unique_closest_gold_item"
            )
        ]

    def __str__(self) -> str:
        return f"closest-gold item {self.pk} (task {self.task_id}, position {self.position})"


class VerificationDecision(models.TextChoices):
    ACCEPTED = "accepted", "proposal accepted"
    EDITED = "edited", "proposal edited"
    OUTPUT_CORRECT = "output-correct", "output already correct"
    REWRITTEN = "rewritten", "proposal rejected, correction written"


class ClosestGoldVerification(models.Model):
    """One verifier's closest-gold of one item, with how it came about (provenance)."""

    item = models.ForeignKey(
        ClosestGoldItem, on_delete=models.CASCADE, related_name="verifications"
    )
    verifier = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    decision = models.CharField(max_length=16, choices=VerificationDecision.choices)
    text = models.TextField(help_text="the verified closest-gold")
    time_spent_seconds = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item", "created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["item", "verifier"], name="one_closest_gold_verification_per_verifier"
            )
        ]


class ClosestGoldProposalCache(models.Model):
    """The LLM's answer for (model, prompt version, source, output): a retried job or a second
    task over the same outputs never asks twice. Keyed by a sha256 of the four."""

    key = models.CharField(max_length=64, unique=True)
    model = models.CharField(max_length=300)
    prompt_version = models.CharField(max_length=40)
    proposal = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
