"""Fixtures for the char metric: ChERRANT's resources and cached extractions of MuCGEC dev."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gecscore.extract import parallel_to_m2, read_parallel
from gecscore.m2 import M2Block, read_m2, write_m2
from gecscore.resources import Resources, load_resources


@pytest.fixture(scope="session")
def cherrant_resources(shared_data: Path) -> Resources:
    return load_resources(shared_data / "cherrant-resources")


@pytest.fixture(scope="session")
def mucgec_dir(shared_data: Path) -> Path:
    return shared_data / "mucgec-dev"


@pytest.fixture(scope="session")
def extract_dev(
    mucgec_dir: Path, cherrant_resources: Resources
) -> Callable[..., tuple[str, list[M2Block]]]:
    """extract_dev(name, strategy=..., simplified=...) -> (M2 text, blocks), cached per options."""
    cache: dict[tuple[str, str, bool], tuple[str, list[M2Block]]] = {}

    def run(
        name: str, *, strategy: str = "all", simplified: bool = True
    ) -> tuple[str, list[M2Block]]:
        key = (name, strategy, simplified)
        if key not in cache:
            blocks, truncated = parallel_to_m2(
                read_parallel(mucgec_dir / name),
                resources=cherrant_resources,
                strategy=strategy,
                simplified=simplified,
            )
            assert truncated == []
            cache[key] = (write_m2(blocks), blocks)
        return cache[key]

    return run


@pytest.fixture(scope="session")
def dev_m2(mucgec_dir: Path) -> Callable[[str], list[M2Block]]:
    cache: dict[str, list[M2Block]] = {}

    def run(name: str) -> list[M2Block]:
        if name not in cache:
            cache[name] = read_m2(mucgec_dir / name)
        return cache[name]

    return run
