from __future__ import annotations

from pathlib import Path

import pytest

from datasets.models import Dataset, GoldenReference, Sentence


@pytest.fixture
def mucgec_dev(shared_data: Path) -> Path:
    return shared_data / "mucgec-dev" / "MuCGEC_dev.txt"


@pytest.fixture
def assert_nothing_written():
    """Call after a failed import: no dataset, sentence or reference may exist."""

    def check() -> None:
        assert Dataset.objects.count() == 0
        assert Sentence.objects.count() == 0
        assert GoldenReference.objects.count() == 0

    return check
