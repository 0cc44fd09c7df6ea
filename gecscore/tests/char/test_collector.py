"""gecscore.collector: the cyclic collector is paused inside the block and restored."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from gecscore.collector import collector_paused


@pytest.fixture
def collector_enabled() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.enable()
    yield
    gc.unfreeze()
    if not was_enabled:
        gc.disable()


@pytest.mark.usefixtures("collector_enabled")
def test_paused_inside_restored_after_even_on_error_and_when_nested() -> None:
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block restores the paused state
    assert gc.isenabled()
    with pytest.raises(ValueError), collector_paused():
        raise ValueError("boom")
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_enabled")
def test_stays_disabled_when_it_was_disabled() -> None:
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()
    gc.enable()


@pytest.mark.usefixtures("collector_enabled")
def test_freeze_after_moves_the_objects_out_of_collection() -> None:
    before = gc.get_freeze_count()
    with collector_paused(freeze_after=True):
        kept = [[index] for index in range(1000)]
    assert gc.get_freeze_count() >= before + len(kept)
    assert gc.isenabled()
