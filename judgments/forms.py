from __future__ import annotations

from typing import Any

from django import forms

from core.models import User
from core.params import MAX_INT32
from datasets.models import DatasetVersion
from judgments.models import AttentionFeedback, CampaignMode
from judgments.selectors import MAX_JUDGES_PER_ITEM, MAX_OUTPUTS_PER_ITEM


class CampaignForm(forms.Form):
    """A campaign on a release over some of the release's stored system outputs."""

    name = forms.CharField(max_length=100)
    mode = forms.ChoiceField(choices=CampaignMode.choices, initial=CampaignMode.RANKING)
    release = forms.ModelChoiceField(queryset=DatasetVersion.objects.select_related("dataset"))
    systems = forms.MultipleChoiceField(
        choices=(), widget=forms.CheckboxSelectMultiple, required=False
    )
    judges = forms.ModelMultipleChoiceField(
        queryset=User.objects.filter(is_active=True).order_by("username"),
        widget=forms.CheckboxSelectMultiple,
    )
    judges_per_item = forms.IntegerField(
        min_value=1, max_value=MAX_JUDGES_PER_ITEM, initial=2, label="judges per item (k)"
    )
    outputs_per_item = forms.IntegerField(
        min_value=2, max_value=MAX_OUTPUTS_PER_ITEM, initial=5, label="outputs per item (N)"
    )
    agreement_share = forms.FloatField(
        min_value=0, max_value=1, initial=0.0, label="share of items to one more judge"
    )
    consistency_share = forms.FloatField(
        min_value=0, max_value=1, initial=0.1, label="share of items shown twice to a judge"
    )
    include_references = forms.BooleanField(
        required=False, label="add the release's references as a hidden control system (REF)"
    )
    attention_share = forms.FloatField(
        min_value=0,
        max_value=0.5,
        initial=0.0,
        label="share of each judge's items that are attention checks",
    )
    attention_feedback = forms.ChoiceField(
        choices=AttentionFeedback.choices,
        initial=AttentionFeedback.SILENT,
        label="after a check, tell the judge",
    )
    dynamic = forms.BooleanField(
        required=False,
        label="dynamic assignment: give each judge the item that most settles the top systems",
    )
    seed = forms.IntegerField(initial=0, min_value=0, max_value=MAX_INT32)
    guideline = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4}),
        required=False,
        help_text="empty: the platform's guideline for the mode (ranking or judging edits) in"
        " the release's language, edited under Guidelines",
    )

    def __init__(self, *args: Any, system_names: list[str] | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        systems = self.fields["systems"]
        assert isinstance(systems, forms.MultipleChoiceField)
        systems.choices = [(n, n) for n in system_names or []]
