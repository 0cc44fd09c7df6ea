"""Regression: saving a review without verdicts named only the first correction lacking
one; now every one is named, the page marks each, and the choices already made are kept."""

from __future__ import annotations

import pytest
from django.test import Client

from core.exceptions import ServiceError
from review.verdicts import submit_review
from tests.annotate.workflow import make_world, submit_all

pytestmark = pytest.mark.django_db

FIXES = ["我昨天去图书馆借了三本书。", "我昨天去了图书馆借书三本。", "我昨天去图书馆借三本书了。"]


@pytest.fixture
def world():  # type: ignore[no-untyped-def]
    world = make_world()
    submit_all(world, 0, [([FIXES[0]], ""), ([FIXES[1]], ""), ([FIXES[2]], "")])
    return world


def test_every_correction_without_a_verdict_is_named(world) -> None:  # type: ignore[no-untyped-def]
    task = world.task()
    with pytest.raises(ServiceError) as raised:
        submit_review(
            task_id=task.pk,
            user=world.reviewer,
            version=task.version,
            judgement="annotatable",
            verdicts=[{"position": 1, "correct": True}],
        )
    assert "corrections 1 and 3 have no verdict (2 of 3)" in raised.value.message


def test_page_keeps_the_choices_and_marks_the_missing_ones(world) -> None:  # type: ignore[no-untyped-def]
    task = world.task()
    client = Client()
    client.force_login(world.reviewer)
    page = client.post(
        f"/review/t/{task.pk}/",
        {
            "version": task.version,
            "verdict-1": "wrong",
            "edit-1": "我昨天去了图书馆借了三本书。",
            "judgement": "annotatable",
        },
    ).content.decode()
    assert "corrections 1 and 3 have no verdict" in page
    assert page.count('data-testid="needs-verdict"') == 2
    assert 'name="verdict-1" value="wrong" data-testid="wrong" checked' in page
    assert "我昨天去了图书馆借了三本书。</textarea>" in page
