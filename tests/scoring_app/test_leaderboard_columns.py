"""Regression: M2 / SentM2 / GLEU / PT-M2 were offered on a Chinese release and always
showed "—" with no reason. A Chinese release offers the character-level columns only and
says why; asked for anyway (?cols=m2), the column is left out and named."""

from __future__ import annotations

import pytest
from django.test import Client

from core.roles import Role
from tests.factories import make_user
from tests.judgments.factories import make_release

pytestmark = pytest.mark.django_db


def test_chinese_release_offers_no_english_metric_columns() -> None:
    release = make_release(
        ["我很喜欢吃平果", "他是一个好学升"], ["我很喜欢吃苹果", "他是一个好学生"]
    )
    client = Client()
    client.force_login(make_user(Role.ADMIN))
    page = client.get(f"/scoring/releases/{release.pk}/").content.decode()
    for column in ("m2", "sentm2", "gleu", "ptm2"):
        assert f'name="cols" value="{column}"' not in page
    for column in ("detection", "cleme", "cleme2"):
        assert f'name="cols" value="{column}"' in page
    assert 'data-testid="english-only-columns"' in page
    asked = client.get(f"/scoring/releases/{release.pk}/?cols=m2&cols=cleme").content.decode()
    assert "Asked for but left out: m2." in asked
    assert 'value="cleme" checked' in asked
