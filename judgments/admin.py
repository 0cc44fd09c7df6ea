from django.contrib import admin

from judgments.models import Assignment, Campaign, CampaignSystem, Item


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["name", "mode", "release", "judges_per_item", "created_at"]
    search_fields = ["name"]
    filter_horizontal = ["judges", "admins"]


@admin.register(CampaignSystem)
class CampaignSystemAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["name", "campaign", "position"]
    exclude = ["outputs"]


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["campaign", "number", "src_id"]
    list_filter = ["campaign"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["campaign", "item", "judge_name", "repeat", "status", "seconds_spent"]
    list_filter = ["campaign", "status", "repeat"]
