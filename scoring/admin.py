from django.contrib import admin

from scoring.models import (
    AnnotatorSample,
    ClosestGoldItem,
    ClosestGoldTask,
    ClosestGoldVerification,
    HumanSystemScores,
    MetaEvaluation,
    PayRates,
    SentenceResult,
    SystemOutput,
    SystemScore,
)


@admin.register(SystemOutput)
class SystemOutputAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("name", "version", "file_format", "created_at", "created_by")
    list_filter = ("file_format",)
    search_fields = ("name",)
    exclude = ("hypotheses",)
    readonly_fields = ("checksum",)


@admin.register(SystemScore)
class SystemScoreAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("system", "status", "tp", "fp", "fn", "p", "r", "f05", "finished_at")
    list_filter = ("status",)
    readonly_fields = ("signature", "summary", "background_job_id")


@admin.register(PayRates)
class PayRatesAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = (
        "created_at",
        "per_submission",
        "per_review",
        "target_f05",
        "min_factor",
        "max_factor",
        "currency",
    )


@admin.register(AnnotatorSample)
class AnnotatorSampleAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("sentence", "annotator", "slot", "tp", "fp", "fn", "golden_revision")
    readonly_fields = ("hyp_m2", "ref_m2")


admin.site.register(SentenceResult)


@admin.register(HumanSystemScores)
class HumanSystemScoresAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("name", "version", "layout", "file_name", "created_at")
    readonly_fields = ("scores",)


@admin.register(MetaEvaluation)
class MetaEvaluationAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("pk", "version", "human_source", "human_label", "status", "created_at")
    list_filter = ("status", "human_source")
    # Results are written by the job only; the admin shows them.
    readonly_fields = ("human", "systems", "signatures", "report", "background_job_id", "error")


@admin.register(ClosestGoldTask)
class ClosestGoldTaskAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("id", "version", "per_item", "llm_model", "prompt_version", "created_at")
    readonly_fields = ("background_job_id",)


@admin.register(ClosestGoldItem)
class ClosestGoldItemAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("id", "task", "position", "proposal_model", "proposal_prompt_version")
    list_filter = ("proposal_prompt_version",)
    readonly_fields = ("proposal_model", "proposal_prompt_version", "proposal_error")


@admin.register(ClosestGoldVerification)
class ClosestGoldVerificationAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("item", "verifier", "decision", "time_spent_seconds", "created_at")
    list_filter = ("decision",)
