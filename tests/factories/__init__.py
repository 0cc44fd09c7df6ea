"""Factories: build objects for tests through the real services (no frozen JSON fixtures)."""

from __future__ import annotations

import itertools

from core.models import User
from core.roles import Role
from core.services import create_user
from datasets.models import Dataset, Sentence, Source

_counter = itertools.count(1)
PASSWORD = "a-long-test-password-1"


def make_user(*roles: Role, username: str | None = None, password: str = PASSWORD) -> User:
    name = username or f"user{next(_counter)}"
    return create_user(username=name, password=password, roles=roles, is_superuser=False)


def make_dataset(
    *,
    name: str | None = None,
    sentences: list[str] | None = None,
    source_name: str = "src",
    split: str = "dev",
    k: int = 3,
    language: str = "zh",
) -> Dataset:
    dataset = Dataset.objects.create(
        name=name or f"ds{next(_counter)}", annotators_per_sentence=k, language=language
    )
    source = Source.objects.create(dataset=dataset, name=source_name)
    for position, text in enumerate(sentences or []):
        Sentence.objects.create(
            dataset=dataset,
            source=source,
            split=split,
            external_id=str(position + 1),
            position=position,
            text=text,
        )
    return dataset
