"""core.unique.create_unique on whichever database runs the suite (SQLite or PostgreSQL): the
insert a unique constraint refuses becomes a Conflict naming the row that holds the name, the
caller's transaction stays usable, and any other integrity error is left alone."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from core.exceptions import Conflict
from core.unique import create_unique
from judgments.models import Campaign
from scoring.models import HumanSystemScores
from tests.judgments.factories import SOURCES, make_release

pytestmark = pytest.mark.django_db


def test_a_refused_insert_becomes_a_conflict_naming_the_existing_row() -> None:
    first = Campaign.objects.create(name="taken")
    with transaction.atomic():
        with pytest.raises(Conflict) as caught:
            create_unique(
                Campaign,
                lambda: Campaign.objects.create(name="taken"),
                unique=["name"],
                values={"name": "taken"},
                message=lambda existing: f"campaign {existing.pk} is called {existing.name}",
            )
        # The savepoint was rolled back; the outer transaction goes on.
        assert Campaign.objects.count() == 1
    assert caught.value.message == f"campaign {first.pk} is called taken"
    assert caught.value.field == "name" and caught.value.status == 409


def test_a_constraint_over_several_fields_is_matched_by_all_of_them() -> None:
    release = make_release(SOURCES)
    HumanSystemScores.objects.create(version=release, name="EW", layout="wmt")
    with pytest.raises(Conflict, match="EW"):
        create_unique(
            HumanSystemScores,
            lambda: HumanSystemScores.objects.create(version=release, name="EW", layout="wmt"),
            unique=["version", "name"],
            values={"version": release, "name": "EW"},
            message=lambda existing: existing.name,
        )


def test_another_constraint_is_not_turned_into_a_conflict() -> None:
    Campaign.objects.create(name="taken")
    with pytest.raises(IntegrityError):
        create_unique(
            Campaign,
            lambda: Campaign.objects.create(name="taken"),
            unique=["guideline"],  # not the constraint the insert broke
            values={"name": "taken"},
            message=lambda existing: existing.name,
        )
