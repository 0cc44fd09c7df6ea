"""The study page's "Your revision" box started from the source; it starts from
the annotator's own corrections (the source after a tag)."""

from __future__ import annotations

import pytest
from django.test import Client

from review.models import StudyItem
from review.verdicts import submit_review
from tests.annotate.workflow import make_world, submit_all

pytestmark = pytest.mark.django_db

FIX = "我昨天去图书馆借了三本书。"
WRONG = "我昨天去了图书馆借书三本。"


def test_revision_boxes_start_from_the_annotators_corrections() -> None:
    world = make_world()
    submit_all(world, 0, [([FIX, WRONG], ""), ([FIX], ""), ([], "error_free")])
    task = world.task()
    submit_review(
        task_id=task.pk,
        user=world.reviewer,
        version=task.version,
        judgement="annotatable",
        verdicts=[{"position": 0, "correct": True}, {"position": 1, "correct": False}],
    )
    first = world.annotators[0]
    item = StudyItem.objects.get(assignment__annotator=first)
    client = Client()
    client.force_login(first)
    page = client.get(f"/annotate/study/{item.pk}/").content.decode()
    start = page.index('id="correction-form"')
    form = page[start : page.index("</form>", start)]
    assert f">{FIX}</textarea>" in form and f">{WRONG}</textarea>" in form
    tagged = world.annotators[2]
    item = StudyItem.objects.get(assignment__annotator=tagged)
    client.force_login(tagged)
    page = client.get(f"/annotate/study/{item.pk}/").content.decode()
    start = page.index('id="correction-form"')
    form = page[start : page.index("</form>", start)]
    assert f">{world.sentence().text}</textarea>" in form
