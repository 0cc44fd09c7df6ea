"""Regression: The "Next sentence" link opened demo-zh d1 while the to-do list showed
conll14-pilot first (one sorted by dataset id, the other by name). Both now take one order:
a sentence already opened first, then dataset name and sentence position."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from annotate import selectors, services
from core.roles import Role
from review.workflow import assign_dataset
from tests.factories import make_dataset, make_user

pytestmark = pytest.mark.django_db


def _todo_links(client: Client) -> list[str]:
    page = client.get("/annotate/").content.decode()
    rows = re.findall(r'<tr data-testid="todo-row">.*?href="(/annotate/a/\d+/)"', page)
    return rows


def test_next_sentence_is_the_first_row_of_the_todo_list() -> None:
    annotator = make_user(Role.ANNOTATOR)
    admin = make_user(Role.ADMIN)
    reviewer = make_user(Role.REVIEWER)
    # Created first (smaller id) but later by name: the old "next" took it first.
    for name in ("zz-demo", "aa-pilot"):
        dataset = make_dataset(name=name, sentences=["我很喜欢吃平果", "他是一个好学升"], k=1)
        dataset.annotators.set([annotator])
        dataset.reviewers.set([reviewer])
        assign_dataset(dataset=dataset, seed=1, by=admin)
    client = Client()
    client.force_login(annotator)
    links = _todo_links(client)
    assert len(links) == 4
    first = client.get("/annotate/next/")
    assert first.status_code == 302 and first["Location"] == links[0]
    opened = selectors.todo_for(annotator).first()
    assert opened is not None and opened.sentence.dataset.name == "aa-pilot"
    # Skipping the one on screen gives the second row; the opened one then stays first.
    second = client.get(f"/annotate/next/?skip={opened.pk}")
    assert second["Location"] == links[1]
    assert _todo_links(client)[0] == links[0]
    assert services.next_assignment(user=annotator) == opened
